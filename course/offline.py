"""Offline reading: what the service worker (templates/course/service_worker.js) keeps, and what a
"Save for offline" control stores ahead.

The worker's cache of guide pages is named after the content hash (page_cache.content_version),
which the worker's script carries: a new deployment's content changes the script, the browser
installs the new worker, and it fetches the learner's saved pages again into a cache of the new
name before the old one is dropped, so no stale guide outlives a content change.
"""

import json
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.templatetags.static import static
from django.urls import reverse
from django.utils import translation

from .models import GuidePage

# The pages a learner can read offline, by their path after /<language>/: the guides, their list,
# the course page and the home page. Everything else (quizzes, labs, the dashboard, search) needs
# the server, and offline shows the "needs a connection" page.
LANGUAGE_CODES = "|".join(code for code, _name in settings.LANGUAGES)
READING_PATHS = rf"^/(?:{LANGUAGE_CODES})/(?:guides/(?:[a-z0-9-]+/)?|course/)?$"
# What the "needs a connection" pages use, kept when the worker installs (hashed names: never stale).
OFFLINE_PAGE_STATIC = ("css/site.css", "js/site.js", "vendor/htmx/htmx.min.js", "img/favicon.svg")
LIST_PAGES = ("course:home", "course:overview", "course:guide_index")  # saved with the guides
WORKBOX_MODULES = ("core", "routing", "strategies", "precaching", "expiration", "range-requests", "cacheable-response")


@dataclass(frozen=True)
class Narration:
    url: str
    size: int  # bytes


@dataclass(frozen=True)
class OfflineBundle:
    """What "Save for offline" stores in one language: every guide and the pages that list them,
    and, when the learner asks, the guides' narration (large: its size is said beside it)."""

    pages: list[str]
    narration: list[Narration]

    @property
    def narration_size(self) -> int:
        return sum(item.size for item in self.narration)

    @property
    def guide_count(self) -> int:
        return len(self.pages) - len(LIST_PAGES)

    @property
    def pages_json(self) -> str:
        return json.dumps(self.pages)

    @property
    def narration_json(self) -> str:
        return json.dumps([item.url for item in self.narration])


def _file_size(url: str) -> int:
    path = Path(settings.MEDIA_ROOT) / url.removeprefix(settings.MEDIA_URL)
    try:
        return path.stat().st_size
    except OSError:
        return 0  # listed in the database, not (yet) on disk: not offered


def offline_bundle(pages: list[GuidePage], language: str) -> OfflineBundle:
    """`pages`: the published guides of `language`, in order (their audio file fields loaded)."""
    with translation.override(language):
        urls = [reverse(name) for name in LIST_PAGES]
        urls += [reverse("course:guide_detail", args=[page.guide.slug]) for page in pages]
    audio = [url for page in pages for url in (page.summary_audio_url, page.narration_url, page.narration_chapters_url)]
    narration = [Narration(url, size) for url in audio if url and (size := _file_size(url))]
    return OfflineBundle(pages=urls, narration=narration)


def offline_page_urls() -> list[str]:
    """The "needs a connection" page in every language (the worker answers with the one of the
    language the learner was reading in)."""
    urls = []
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            urls.append(reverse("course:offline"))
    return urls


def worker_config(version: str) -> dict:
    """What the worker's script is told (templates/course/service_worker.js, as JSON)."""
    return {
        "version": version,
        "workbox": [static(f"vendor/workbox/workbox-{name}.prod.js") for name in WORKBOX_MODULES],
        "offline_pages": offline_page_urls(),
        "offline_static": [static(path) for path in OFFLINE_PAGE_STATIC],
        "reading_paths": READING_PATHS,
        "static_prefix": settings.STATIC_URL,
        "media_prefix": settings.MEDIA_URL,
        "languages": [code for code, _name in settings.LANGUAGES],
    }
