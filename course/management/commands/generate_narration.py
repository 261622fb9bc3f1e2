import os
from concurrent.futures import ThreadPoolExecutor

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from course import narration
from course.models import GuidePage
from course.services import narration_needed, narration_record, narration_text


class Command(BaseCommand):
    help = "Generates the spoken narration (Ogg/Opus, espeak-ng) of every published guide page."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--force", action="store_true", help="regenerate even when up to date")

    def handle(self, *args, **options) -> None:
        if not narration.tools_available():
            raise CommandError("espeak-ng and opusenc are needed (Debian packages espeak-ng, opus-tools)")
        pages = list(GuidePage.objects.filter(guide__is_published=True).select_related("guide"))
        todo = [(page, name) for page in pages if (name := narration_needed(page, options["force"]))]

        def speak(item):
            page, name = item
            return narration.synthesize(narration_text(page), page.language, settings.NARRATION_DIR / name)

        # espeak-ng and opusenc run as subprocesses, so threads use every core.
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            for (page, name), seconds in zip(todo, pool.map(speak, todo), strict=False):
                narration_record(page, name, seconds)
                self.stdout.write(f"  narrated {page} ({seconds / 60:.1f} min)")
        self.stdout.write(self.style.SUCCESS(f"Narration: {len(todo)} generated, {len(pages) - len(todo)} up to date"))
