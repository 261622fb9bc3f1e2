import os
from concurrent.futures import ThreadPoolExecutor

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from course import narration
from course.models import GuidePage
from course.services import narration_needed, narration_recorded, narration_recording, narration_synthesize


class Command(BaseCommand):
    help = (
        "Generates the spoken narration (Ogg/Opus, espeak-ng) of every published guide page: "
        "its spoken summary and the full page with a chapter per section. Skips what is up to date."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--force", action="store_true", help="regenerate even when up to date")
        parser.add_argument(
            "--if-enabled",
            action="store_true",
            help="the run command's call: nothing when NARRATION_ON_START is false or espeak-ng is missing",
        )

    def handle(self, *args, force: bool = False, if_enabled: bool = False, **options) -> None:
        if if_enabled and not settings.NARRATION_ON_START:
            self.stdout.write("Narration after start-up is turned off (NARRATION_ON_START=false).")
            return
        if not narration.tools_available():
            message = "espeak-ng and opusenc are needed (Debian packages espeak-ng, opus-tools)"
            if if_enabled:  # the site runs without narration: its pages offer the browser's voice
                self.stdout.write(f"No narration recorded: {message}.")
                return
            raise CommandError(message)
        if not self.todo(force):
            self.stdout.write(self.style.SUCCESS("Narration: every recording is up to date"))
            return
        with narration_recording():
            todo = self.todo(force)  # again: another program may have recorded some while this one waited
            self.record(todo)
        self.stdout.write(self.style.SUCCESS(f"Narration: {len(todo)} recordings generated"))

    @staticmethod
    def todo(force: bool) -> list[tuple[GuidePage, str, str]]:
        pages = GuidePage.objects.filter(guide__is_published=True).select_related("guide")
        todo = [(page, kind, name) for page in pages for kind, name in narration_needed(page, force).items()]
        # The short summaries first, so every page offers something soon after start-up; then the
        # long recordings, longest first, so that the cores finish together.
        todo.sort(key=lambda item: (item[1] == "full", -len(item[0].plain_text)))
        return todo

    def record(self, todo: list[tuple[GuidePage, str, str]]) -> None:
        def speak(item):
            page, kind, name = item
            return narration_synthesize(page, kind, name)

        # espeak-ng and opusenc run as subprocesses, so threads use every core; rows are written here.
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            for (page, kind, _name), fields in zip(todo, pool.map(speak, todo), strict=True):
                narration_recorded(page, fields)
                seconds = fields.get("narration_seconds", fields.get("summary_audio_seconds", 0))
                self.stdout.write(f"  narrated {page} {kind} ({seconds / 60:.1f} min)", ending="\n")
                self.stdout.flush()
