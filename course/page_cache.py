"""Public pages cached whole for visitors without a session, with Django's cache framework.

A view decorated with `@public_page(timeout=...)` promises that, for a visitor who is not signed
in and holds no session or pending message, its page depends only on the URL (the language is
part of it) and on the course content. Such a page carries nothing of the visitor's own, not even
a CSRF token (forms on it get theirs when used), so one rendering serves every such visitor.

`PublicPageCacheMiddleware` sits near the top of the middleware stack: it answers a hit before
sessions, CSRF, URL resolution and the view run, and stores a decorated view's response on the way
out, with the headers the other middleware gave it. Each entry is keyed by language and path and
remembers the content hash it was rendered from; it is served only while that is still the
current hash, so any change to the guides retires every page at once, whichever process serves
it. The current hash lives in the cache too, is recomputed from the database whenever it is
missing, and is deleted when a guide changes (signals below; `pages_changed()` for bulk updates).
Timeouts bound what the hash does not see (a quiz edited in the admin, the latest lab results).
When the cache cannot be reached, pages are rendered as if there were no cache.

Each entry also holds its body gzip-compressed, made once when it is stored, for the visitors
whose browsers accept it (nearly all): GZipMiddleware, above this one, compresses the pages
rendered for one visitor, but a cached page compressed again at every hit would cost several
times what serving it costs. Django's GZipMiddleware pads each compressed answer with random bytes
against BREACH, which guesses a secret in a page from the compressed length; a cached page holds
no secret (no CSRF token, nothing of a visitor's), so its one compressed body is sent to all.

Why not `cache_page`: it runs after the whole middleware stack, keys its entries by the Cookie
header (each returning visitor's CSRF cookie, each learner's session, gets a copy of its own) and
sends max-age, so browsers would keep a page that signing in should change. Why the hash sits in
the entry rather than in its key: one `get_many` fetches the page and the current hash together.
"""

import gzip
import hashlib
import logging
import re
from collections.abc import Callable
from functools import wraps

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import translation
from django.utils.cache import patch_vary_headers
from redis import RedisError

from .book import books_state
from .figures import figures_state
from .models import Guide, GuidePage
from .narration_status import recording
from .outside_links import settings_state

logger = logging.getLogger(__name__)

HASH_KEY = "course:content-hash"
HASH_TIMEOUT = 60  # seconds: the hash is recomputed at least this often, catching edits no signal reports
PAGE_KEY = "course:page:v2:{path}"  # v2: entries hold the gzip-compressed body too
LANGUAGE_PREFIXES = tuple(f"/{code}/" for code, _name in settings.LANGUAGES)
# Cookies that make a visitor's pages their own: a session (signed in, quiz attempts) or a message.
PERSONAL_COOKIES = (settings.SESSION_COOKIE_NAME, "messages")
ACCEPTS_GZIP = re.compile(r"\bgzip\b")  # in Accept-Encoding, as GZipMiddleware reads it


def content_hash() -> str:
    """The hash of everything the guides show, as stored in the database."""
    rows = GuidePage.objects.order_by("pk").values_list(
        "pk", "language", "title", "summary", "source_hash", "narration_file", "narration_seconds", "lab_try",
        "summary_audio_file",
        "guide__slug", "guide__order", "guide__is_published", "guide__lab_preset", "guide__related",
    )  # fmt: skip
    # Figures drawn into the guides from other apps' data (course/figures.py) count as content, and
    # so does whether the narration is being recorded (a page without its audio yet says so), and
    # where the Colab and discussion links point (set after pages were cached, they show within
    # HASH_TIMEOUT of a restart), and which books are written (the course page links them).
    state = f"{figures_state()}|recording={recording()}|links={settings_state()}|books={books_state()}"
    return hashlib.sha256((repr(list(rows)) + state).encode()).hexdigest()[:32]


def pages_changed() -> None:
    """Forgets the content hash now, and again once the transaction commits (a page rendered
    meanwhile by another process, from the rows before the change, carries the old hash)."""

    def forget() -> None:
        try:
            cache.delete(HASH_KEY)
        except RedisError as exc:  # e.g. sync_content at set-up, before Redis runs: HASH_TIMEOUT bounds it
            logger.debug("the cached content hash could not be forgotten: %s", exc)

    forget()
    transaction.on_commit(forget)


def forget_page(viewname: str, *args) -> None:
    """Drops one page, in every language, whose content the hash does not cover (a certificate
    whose status changed): now, and again once the transaction commits, as for pages_changed()."""
    keys = []
    for language, _name in settings.LANGUAGES:
        with translation.override(language):
            keys.append(page_key(reverse(viewname, args=args)))

    def forget() -> None:
        try:
            cache.delete_many(keys)
        except RedisError as exc:  # the page's timeout bounds it
            logger.warning("a cached page could not be forgotten: %s", exc)

    forget()
    transaction.on_commit(forget)


@receiver([post_save, post_delete], sender=Guide)
@receiver([post_save, post_delete], sender=GuidePage)
def _guide_saved(sender, **kwargs) -> None:
    pages_changed()


def public_page(*, timeout: int) -> Callable:
    """Marks a view's page as the same for every visitor without a session (see the module's
    docstring); the view must return a TemplateResponse, whose template sees `public_page`."""

    def decorator(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def marked_view(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            response = view(request, *args, **kwargs)
            if getattr(request, "public_page_key", None) and isinstance(response, TemplateResponse):
                response.context_data["public_page"] = True  # templates leave out per-visitor tokens
                response.public_page_timeout = timeout
            return response

        return marked_view

    return decorator


def _is_personal(request: HttpRequest) -> bool:
    return any(name in request.COOKIES for name in PERSONAL_COOKIES)


def page_key(path: str) -> str:
    """The cache key of the page at `path`; a long path (e.g. a made-up certificate ID) by its
    digest, as cache keys stay under 250 characters (Django warns about longer ones)."""
    if len(path) > 200:
        path = "sha256:" + hashlib.sha256(path.encode()).hexdigest()
    return PAGE_KEY.format(path=path)


def _page_key(request: HttpRequest) -> str | None:
    """The cache key for this request, or None when its page may be the visitor's own."""
    if request.method != "GET" or request.META.get("QUERY_STRING"):
        return None  # a query string never reaches the cache, so nobody can fill it with made-up URLs
    if not request.path.startswith(LANGUAGE_PREFIXES) or _is_personal(request):
        return None
    return page_key(request.path)


def _answer(request: HttpRequest, headers: dict, body: bytes, gzipped: bytes) -> HttpResponse:
    """The cached page, compressed when the visitor's browser accepts gzip and it is shorter so."""
    if len(gzipped) < len(body) and ACCEPTS_GZIP.search(request.META.get("HTTP_ACCEPT_ENCODING", "")):
        response = HttpResponse(gzipped, headers=headers)
        response.headers["Content-Encoding"] = "gzip"  # GZipMiddleware leaves it as it is
        response.headers["Content-Length"] = str(len(gzipped))
    else:
        response = HttpResponse(body, headers=headers)
    patch_vary_headers(response, ("Accept-Encoding",))
    return response


def content_version() -> str | None:
    """The current content hash, for the cache keys of template fragments that show the guides (a
    signed-in learner's pages cache what is the same for everyone: `{% cache ... content_version %}`),
    so that a content sync or a figure's new data retires them as it retires whole pages. None when
    the cache cannot be reached: the template then renders the fragment without the cache."""
    try:
        return _current_hash(cache.get(HASH_KEY))
    except RedisError:
        return None


def _current_hash(cached: str | None) -> str:
    if cached is None:
        cached = content_hash()
        cache.set(HASH_KEY, cached, HASH_TIMEOUT)
    return cached


class PublicPageCacheMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        key = _page_key(request)
        if key is None:
            return self.get_response(request)
        request.get_host()  # refuses a Host outside ALLOWED_HOSTS, as the rest of the stack would
        try:
            found = cache.get_many([HASH_KEY, key])
            current = _current_hash(found.get(HASH_KEY))
        except RedisError:
            return self.get_response(request)
        entry = found.get(key)
        if entry is not None and entry[0] == current:
            return _answer(request, *entry[1:])
        request.public_page_key = key
        response = self.get_response(request)
        if getattr(response, "public_page_timeout", None) and response.status_code == 200 and not response.cookies:
            return _answer(request, *self._store(key, current, response))
        return response

    @staticmethod
    def _store(key: str, current: str, response: HttpResponse) -> tuple[dict, bytes, bytes]:
        page = (dict(response.headers), response.content, gzip.compress(response.content, mtime=0))
        try:
            cache.set(key, (current, *page), response.public_page_timeout)
        except RedisError:
            pass  # the visitor has the page; the next one renders it again
        return page
