from django.core.management.base import BaseCommand, CommandError

from course import narration
from course.models import GuidePage
from course.services import narration_generate


class Command(BaseCommand):
    help = "Generates the spoken narration (Ogg/Opus, espeak-ng) of every published guide page."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--force", action="store_true", help="regenerate even when up to date")

    def handle(self, *args, **options) -> None:
        if not narration.tools_available():
            raise CommandError("espeak-ng and opusenc are needed (Debian packages espeak-ng, opus-tools)")
        made = 0
        pages = GuidePage.objects.filter(guide__is_published=True).select_related("guide")
        for page in pages:
            if narration_generate(page=page, force=options["force"]):
                made += 1
                self.stdout.write(f"  narrated {page}")
        self.stdout.write(self.style.SUCCESS(f"Narration: {made} generated, {pages.count() - made} up to date"))
