"""Whole course pages cached for anonymous visitors, per language and content version.

A guide page is the same for every anonymous visitor except for the CSRF token (the newsletter
form and htmx's header carry it), which belongs to the visitor. So the page is rendered once
with a placeholder where the token goes, and each response gets the visitor's own token: the
cookie and the token stay correct per visitor, exactly as without the cache.

Signed-in learners are never served from the cache (their page records reading progress and
shows their menu), nor are visitors with a message waiting or requests with a query string (so
that nobody can fill the cache with made-up URLs).

Each web process keeps the pages it rendered in its memory (at most every guide × language), so
a hit costs no database query, no template and no network round trip. Any change to guides
bumps a content version kept in Redis; a process re-reads it at most every RECHECK_SECONDS and
drops its pages when it changed (the process that made the change, at once). Pages are never
shared through Redis, so a restarted site always starts from fresh pages. When Redis cannot be
reached, pages are rendered for each request as if there were no cache. PAGE_TIMEOUT bounds
staleness after database edits that bypass the models (e.g. QuerySet.update in a shell).
"""

import logging
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
from redis import RedisError

from .models import Guide, GuidePage

logger = logging.getLogger(__name__)

PAGE_TIMEOUT = 600  # seconds a rendered page is kept
RECHECK_SECONDS = 1.0  # how often a process asks Redis whether the content changed
VERSION_KEY = "course:pages:version"
# Letters and dashes only, so that HTML escaping leaves it intact wherever the template puts it.
CSRF_PLACEHOLDER = "csrf-token-placeholder-c0ur5e-page-cache"


class _ProcessPages:
    """This process's pages of the current content version: (language, path) -> (expiry, parts)."""

    version = ""
    checked_at = float("-inf")
    pages: dict[tuple[str, str], tuple[float, list[bytes]]] = {}

    @classmethod
    def use(cls, version: str) -> None:
        if version != cls.version:
            cls.version, cls.pages = version, {}
        cls.checked_at = time.monotonic()

    @classmethod
    def refresh(cls) -> None:
        """Raises RedisError when Redis cannot be reached."""
        if time.monotonic() - cls.checked_at >= RECHECK_SECONDS:
            cls.use(cache.get_or_set(VERSION_KEY, lambda: uuid.uuid4().hex, None))


_unreachable_reported: list[bool] = []


def pages_changed() -> None:
    """Retires every cached page: now, so this process sees its own change at once, and again
    after the transaction commits, so a page rendered meanwhile from the old rows is not kept."""

    def bump() -> None:
        version = uuid.uuid4().hex
        _ProcessPages.use(version)
        try:
            cache.set(VERSION_KEY, version, None)
        except RedisError as exc:  # e.g. sync_content at set-up, before Redis runs
            if not _unreachable_reported:  # once per process: a sync changes many rows
                _unreachable_reported.append(True)
                logger.warning("cached guide pages of running web processes could not be retired: %s", exc)

    bump()
    transaction.on_commit(bump)


def forget_process_pages() -> None:
    """Drops this process's pages, so the next request re-reads the version (tests clear Redis)."""
    _ProcessPages.version, _ProcessPages.checked_at, _ProcessPages.pages = "", float("-inf"), {}


@receiver([post_save, post_delete], sender=Guide)
@receiver([post_save, post_delete], sender=GuidePage)
def _guide_saved(sender, **kwargs) -> None:
    pages_changed()


def _cacheable(request: HttpRequest) -> bool:
    if request.method != "GET" or request.GET or request.user.is_authenticated:
        return False
    if len(get_messages(request)):  # looks without consuming them
        return False
    try:
        _ProcessPages.refresh()
    except RedisError:
        return False
    return True


def _with_visitor_token(request: HttpRequest, parts: list[bytes]) -> HttpResponse:
    token = get_token(request).encode()  # also makes the CSRF middleware set the visitor's cookie
    return HttpResponse(token.join(parts))


def cache_for_anonymous(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """For views returning a TemplateResponse whose only per-visitor part is the CSRF token."""

    @wraps(view)
    def cached_view(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not _cacheable(request):
            return view(request, *args, **kwargs)
        key = (get_language(), request.path)
        expires_at, parts = _ProcessPages.pages.get(key, (0.0, []))
        if time.monotonic() >= expires_at:
            response = view(request, *args, **kwargs)
            if not isinstance(response, TemplateResponse) or response.status_code != 200:
                return response
            response.context_data["csrf_token"] = CSRF_PLACEHOLDER  # overrides the context processor
            parts = response.render().content.split(CSRF_PLACEHOLDER.encode())
            _ProcessPages.pages[key] = (time.monotonic() + PAGE_TIMEOUT, parts)
        return _with_visitor_token(request, parts)

    return cached_view
