"""Whole course pages cached for anonymous visitors, per language and content version.

A guide page is the same for every anonymous visitor except for the CSRF token (the newsletter
form and htmx's header carry it), which belongs to the visitor. So the page is rendered once
with a placeholder where the token goes, and each response gets the visitor's own token: the
cookie and the token stay correct per visitor, exactly as without the cache.

Signed-in learners are never served from the cache (their page records reading progress and
shows their menu), nor are visitors with a message waiting or requests with a query string (so
that nobody can fill the cache with made-up URLs).

Any change to guides bumps the content version in Redis, which retires every cached page.
Rendered pages are shared through Redis and kept in each web process's memory; a process
re-reads the version at most every RECHECK_SECONDS, so a hit costs no network round trip, and a
content change reaches every process within that time (at once in the process that made it).
PAGE_TIMEOUT bounds staleness after raw database edits that bypass the models (e.g.
QuerySet.update in a shell).
"""

import time
import uuid
from collections.abc import Callable
from functools import wraps

from django.contrib.messages import get_messages
from django.core.cache import cache
from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.template.response import TemplateResponse
from django.utils.translation import get_language

from .models import Guide, GuidePage

PAGE_TIMEOUT = 600  # seconds a rendered page is kept
RECHECK_SECONDS = 1.0  # how often a process asks Redis whether the content changed
VERSION_KEY = "course:pages:version"
# Letters and dashes only, so that HTML escaping leaves it intact wherever the template puts it.
CSRF_PLACEHOLDER = "csrf-token-placeholder-c0ur5e-page-cache"


class _ProcessPages:
    """This process's copy of the current version's pages (at most every guide × language)."""

    version = ""
    checked_at = float("-inf")
    bodies: dict[str, tuple[float, list[bytes]]] = {}  # key -> (expires at, time.time(); page parts)

    @classmethod
    def use(cls, version: str) -> None:
        if version != cls.version:
            cls.version, cls.bodies = version, {}
        cls.checked_at = time.monotonic()

    @classmethod
    def current_version(cls) -> str:
        if time.monotonic() - cls.checked_at >= RECHECK_SECONDS:
            cls.use(cache.get_or_set(VERSION_KEY, lambda: uuid.uuid4().hex, None))
        return cls.version


def pages_changed() -> None:
    """Retires every cached page: now, so this process sees its own change at once, and again
    after the transaction commits, so a page rendered meanwhile from the old rows is not kept."""

    def bump() -> None:
        version = uuid.uuid4().hex
        cache.set(VERSION_KEY, version, None)
        _ProcessPages.use(version)

    bump()
    transaction.on_commit(bump)


def forget_process_pages() -> None:
    """Drops this process's copies, so the next request re-reads the version (tests clear Redis)."""
    _ProcessPages.version, _ProcessPages.checked_at, _ProcessPages.bodies = "", float("-inf"), {}


@receiver([post_save, post_delete], sender=Guide)
@receiver([post_save, post_delete], sender=GuidePage)
def _guide_saved(sender, **kwargs) -> None:
    pages_changed()


def _cacheable(request: HttpRequest) -> bool:
    return (
        request.method == "GET"
        and not request.GET
        and not request.user.is_authenticated
        and len(get_messages(request)) == 0  # looks without consuming them
    )


def _page_parts(key: str) -> list[bytes] | None:
    """The page split around the token, from memory, else from Redis (rendered by another
    process); None when neither has it."""
    expires_at, parts = _ProcessPages.bodies.get(key) or cache.get(key) or (0.0, None)
    if time.time() >= expires_at:
        return None
    _ProcessPages.bodies[key] = (expires_at, parts)
    return parts


def _store_page(key: str, body: bytes) -> list[bytes]:
    entry = (time.time() + PAGE_TIMEOUT, body.split(CSRF_PLACEHOLDER.encode()))  # one deadline everywhere
    cache.set(key, entry, PAGE_TIMEOUT)
    _ProcessPages.bodies[key] = entry
    return entry[1]


def _with_visitor_token(request: HttpRequest, parts: list[bytes]) -> HttpResponse:
    token = get_token(request).encode()  # also makes the CSRF middleware set the visitor's cookie
    return HttpResponse(token.join(parts))


def cache_for_anonymous(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """For views returning a TemplateResponse whose only per-visitor part is the CSRF token."""

    @wraps(view)
    def cached_view(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not _cacheable(request):
            return view(request, *args, **kwargs)
        key = f"course:page:{_ProcessPages.current_version()}:{get_language()}:{request.path}"
        parts = _page_parts(key)
        if parts is None:
            response = view(request, *args, **kwargs)
            if not isinstance(response, TemplateResponse) or response.status_code != 200:
                return response
            response.context_data["csrf_token"] = CSRF_PLACEHOLDER  # overrides the context processor
            parts = _store_page(key, response.render().content)
        return _with_visitor_token(request, parts)

    return cached_view
