import os
from concurrent.futures import ThreadPoolExecutor

from django.core.management.base import BaseCommand, CommandError

from course import narration
from course.models import GuidePage
from course.services import narration_needed, narration_store, narration_synthesize


class Command(BaseCommand):
    help = (
        "Generates the spoken narration (Ogg/Opus, espeak-ng) of every published guide page: "
        "its spoken summary and the full page with a chapter per section."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--force", action="store_true", help="regenerate even when up to date")

    def handle(self, *args, **options) -> None:
        if not narration.tools_available():
            raise CommandError("espeak-ng and opusenc are needed (Debian packages espeak-ng, opus-tools)")
        pages = list(GuidePage.objects.filter(guide__is_published=True).select_related("guide"))
        todo = [(page, kind, name) for page in pages for kind, name in narration_needed(page, options["force"]).items()]
        # The long recordings first, so that the two cores finish together.
        todo.sort(key=lambda item: item[1] != "full")

        def speak(item):
            page, kind, name = item
            return narration_synthesize(page, kind, name)

        # espeak-ng and opusenc run as subprocesses, so threads use every core; rows are written here.
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            for (page, kind, _name), fields in zip(todo, pool.map(speak, todo), strict=True):
                narration_store(page, fields)
                seconds = fields.get("narration_seconds", fields.get("summary_audio_seconds", 0))
                self.stdout.write(f"  narrated {page} {kind} ({seconds / 60:.1f} min)")
        self.stdout.write(self.style.SUCCESS(f"Narration: {len(todo)} recordings generated for {len(pages)} pages"))
