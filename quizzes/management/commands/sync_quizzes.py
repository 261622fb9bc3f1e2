from django.core.management.base import BaseCommand, CommandError

from course.content import ContentError
from quizzes.services import quizzes_sync_summary


class Command(BaseCommand):
    help = (
        "Loads the quizzes and the exam bank under content/ into the database (idempotent). "
        "Run it after sync_content: a guide's quiz is attached to its guide."
    )

    def handle(self, *args, **options) -> None:
        try:
            self.stdout.write(self.style.SUCCESS(quizzes_sync_summary()))
        except ContentError as exc:
            raise CommandError(str(exc)) from None
