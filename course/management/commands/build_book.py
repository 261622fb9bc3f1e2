import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from course.book import book_hash, build_book
from course.page_cache import pages_changed

FOLLOW_INTERVAL = 30  # seconds between looks at the figures' data while following


class Command(BaseCommand):
    help = (
        "Writes the course as one EPUB 3 book per language (MEDIA_ROOT/books/), linked from the course "
        "page. Skips a book that is current."
    )

    def add_arguments(self, parser) -> None:
        languages = [code for code, _name in settings.LANGUAGES]
        parser.add_argument("--language", action="append", choices=languages, help="only this language (repeatable)")
        parser.add_argument("--force", action="store_true", help="write the books even when current")
        parser.add_argument(
            "--follow",
            type=int,
            default=0,
            metavar="SECONDS",
            help="then keep the books current for this long (the run command's call: the reference runs "
            "whose figures the books show are trained after start-up)",
        )

    def handle(self, *args, language=None, force: bool = False, follow: int = 0, **options) -> None:
        languages = language or [code for code, _name in settings.LANGUAGES]
        self.build(languages, force)
        until = time.monotonic() + follow
        hashes = {code: book_hash(code) for code in languages}
        while time.monotonic() < until:
            time.sleep(min(FOLLOW_INTERVAL, max(0.0, until - time.monotonic())))
            changed = [code for code in languages if book_hash(code) != hashes[code]]
            if changed:
                self.build(changed, force=False)
                hashes.update({code: book_hash(code) for code in changed})

    def build(self, languages: list[str], force: bool) -> None:
        written = 0
        for code in languages:
            try:
                result = build_book(code, force=force)
            except (OSError, ValueError) as exc:
                raise CommandError(f"the {code} book could not be written: {exc}") from exc
            written += result.written
            state = "written" if result.written else "current"
            self.stdout.write(f"Book ({code}): {result.path.name}, {result.path.stat().st_size:,} bytes, {state}")
        if written:
            pages_changed()  # the course page links the new books
        self.stdout.write(self.style.SUCCESS(f"Books: {written} written, {len(languages) - written} current"))
