from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from course.services import newsletter_send


class Command(BaseCommand):
    help = "Sends a newsletter issue (subject line + text file) to confirmed subscribers of a language."

    def add_arguments(self, parser) -> None:
        parser.add_argument("language", choices=["en", "hi", "fr"])
        parser.add_argument("subject")
        parser.add_argument("body_file", type=Path)

    def handle(self, *args, **options) -> None:
        if not options["body_file"].exists():
            raise CommandError(f"{options['body_file']} does not exist")
        body = options["body_file"].read_text(encoding="utf-8")
        sent = newsletter_send(subject=options["subject"], body=body, language=options["language"])
        self.stdout.write(self.style.SUCCESS(f"Sent to {sent} subscribers"))
