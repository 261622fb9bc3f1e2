from django.core.management.base import BaseCommand, CommandError

from course.content import ContentError
from course.services import guides_sync


class Command(BaseCommand):
    help = "Loads the guides under content/ into the database (idempotent). Quizzes: sync_quizzes."

    def handle(self, *args, **options) -> None:
        try:
            counts = guides_sync()
        except ContentError as exc:
            raise CommandError(str(exc)) from None
        summary = ", ".join(f"{value} {key}" for key, value in counts.items())
        self.stdout.write(self.style.SUCCESS(f"Guide pages: {summary}"))
