from django.core.management.base import BaseCommand, CommandError

from course.content import ContentError
from course.services import guides_sync


class Command(BaseCommand):
    help = "Loads the guides and quizzes under content/ into the database (idempotent)."

    def handle(self, *args, **options) -> None:
        try:
            counts = guides_sync()
        except ContentError as exc:
            raise CommandError(str(exc)) from None
        summary = ", ".join(f"{value} {key}" for key, value in counts.items())
        self.stdout.write(self.style.SUCCESS(f"Guide pages: {summary}"))
        for hook in self._content_hooks():
            try:
                self.stdout.write(self.style.SUCCESS(hook()))
            except ContentError as exc:
                raise CommandError(str(exc)) from None

    def _content_hooks(self):
        """Other apps (quizzes) register their content loaders here."""
        from quizzes.services import quizzes_sync_summary

        return [quizzes_sync_summary]
