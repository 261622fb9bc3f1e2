"""Every rate limit of the site goes through here: settings.RATE_LIMITS names the rates, requests are
counted in the cache (Redis) in django-ratelimit's windows, one round trip each, and one policy covers
a cache that cannot be reached.

    @rate_limit("certificate_pdf")                             # a view: over the rate, a 429 page
    with rate_counted(request, "quiz_answer") as over_rate:    # a hot path: reads while Redis counts
    if limit_exceeded(request, "lab_submit", key=...): ...     # anywhere else: answer as you see fit

One name is one counter: views that share a name (the certificate page and its API) share the count.
When the cache is down, requests go through and a warning is logged (RATELIMIT_FAIL_OPEN = True):
the quotas that bound real cost are counted in the database, and learners are not locked out.
"""

import ipaddress
import logging
import time
from collections.abc import Callable
from contextlib import contextmanager
from functools import lru_cache, wraps

from django.conf import settings
from django.core.cache import caches
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest
from django_ratelimit import ALL, UNSAFE
from django_ratelimit.core import (
    EXPIRATION_FUDGE,
    _get_window,
    _make_cache_key,
    _method_match,
    _split_rate,
)
from django_ratelimit.exceptions import Ratelimited
from redis import RedisError

__all__ = ["ALL", "UNSAFE", "client_ip", "limit_exceeded", "rate_counted", "rate_limit", "retry_after"]

logger = logging.getLogger(__name__)

UNKNOWN = "0.0.0.0"  # no address at all (a Unix socket without a proxy): one shared counter

# "ip", "user", "user_or_ip" (django-ratelimit's keys), or a function (group, request) -> str.
Key = str | Callable[[str, HttpRequest], str]


def _valid(address: str) -> bool:
    # Parsing an address costs more than counting the request in Redis, so the answer is kept per
    # address; a header longer than any address is parsed without keeping it, to bound the memory.
    return _parses(address) if len(address) <= 64 else _parses.__wrapped__(address)


@lru_cache(maxsize=4096)
def _parses(address: str) -> bool:
    try:
        ipaddress.ip_address(address)
    except ValueError:
        return False
    return True


def client_ip(request: HttpRequest) -> str:
    """The address IP-keyed limits count (settings.RATELIMIT_IP_META_KEY).

    Behind our reverse proxy REMOTE_ADDR is the proxy, so every learner would share one counter;
    the proxy appends the address it saw to X-Forwarded-For, and only that last entry is trusted
    (earlier ones are whatever the client sent).
    """
    if settings.BEHIND_PROXY:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")[-1].strip()
        if _valid(forwarded):
            return forwarded
    remote = request.META.get("REMOTE_ADDR", "")
    return remote if _valid(remote) else UNKNOWN


@lru_cache(maxsize=4096)
def _network(address: str, ipv4_mask: int, ipv6_mask: int) -> str:
    """The counted network of an address, as django-ratelimit masks it (RATELIMIT_IPV4_MASK, _IPV6_MASK)."""
    mask = ipv6_mask if ":" in address else ipv4_mask
    return str(ipaddress.ip_network(f"{address}/{mask}", strict=False).network_address)


def _ip_key(request: HttpRequest) -> str:
    masks = getattr(settings, "RATELIMIT_IPV4_MASK", 32), getattr(settings, "RATELIMIT_IPV6_MASK", 64)
    return _network(client_ip(request), *masks)


# django-ratelimit's simple keys, with the address read by client_ip (RATELIMIT_IP_META_KEY) directly.
_SIMPLE_KEYS: dict[str, Callable[[HttpRequest], str]] = {
    "ip": _ip_key,
    "user": lambda request: str(request.user.pk),
    "user_or_ip": lambda request: str(request.user.pk) if request.user.is_authenticated else _ip_key(request),
}


def limit_exceeded(request: HttpRequest, name: str, *, key: Key = "ip", method: str | list = ALL) -> bool:
    """Counts this request against settings.RATE_LIMITS[name]; True once it is over the rate.

    The rate is read on each request, so operators and tests can change it. `method` limits the
    counting to some HTTP methods (e.g. "POST": showing a form is free, sending it counts).
    """
    try:
        return _count(request, name, key, method)
    except (RedisError, OSError) as exc:  # the documented policy: let it through, say so in the log
        logger.warning("rate limit %r not checked, the cache is unreachable: %s", name, exc)
        return False


def _counter(request: HttpRequest, name: str, key: Key, method: str | list) -> tuple[str, int, int, int]:
    """django-ratelimit's get_usage (same windows, same cache keys): the counter's cache key, the
    limit, how long the counter lives, and when its window ends (a Unix time)."""
    rate = settings.RATE_LIMITS[name]
    limit, period = _split_rate(rate)
    value = key(name, request) if callable(key) else _SIMPLE_KEYS[key](request)
    window_end = _get_window(value, period)
    cache_key = _make_cache_key(name, window_end, rate, value, method)
    return cache_key, limit, period + EXPIRATION_FUDGE, window_end


def _over(request: HttpRequest, count: int, limit: int, window_end: int) -> bool:
    """Whether `count` is over `limit`; if so, the request notes how long until the window ends."""
    if count <= limit:
        return False
    wait = max(1, window_end - int(time.time()))
    request.rate_limit_retry_after = max(wait, getattr(request, "rate_limit_retry_after", 0))
    return True


def retry_after(request: HttpRequest) -> int | None:
    """Seconds until the counter that refused this request starts afresh (the longest, if several did)."""
    return getattr(request, "rate_limit_retry_after", None)


def _count(request: HttpRequest, name: str, key: Key, method: str | list) -> bool:
    """Counted in one round trip to Redis where django-ratelimit's add-then-incr takes two: every
    answer to a quiz question pays for it."""
    if not settings.RATELIMIT_ENABLE or not _method_match(request, method):
        return False
    cache_key, limit, timeout, window_end = _counter(request, name, key, method)
    cache = caches[settings.RATELIMIT_USE_CACHE]
    if hasattr(cache, "count"):  # config.cache's Redis backend
        return _over(request, cache.count(cache_key, timeout), limit, window_end)
    if cache.add(cache_key, 1, timeout):  # any other cache: django-ratelimit's way
        return _over(request, 1, limit, window_end)
    return _over(request, cache.incr(cache_key), limit, window_end)


@contextmanager
def rate_counted(request: HttpRequest, name: str, *, key: Key = "ip", method: str | list = ALL):
    """limit_exceeded in two halves, for a view's hot path: the count is sent to Redis on entry and
    the function yielded reads it (True once over the rate), so the view reads what it needs while
    Redis answers. The view must ask before it changes anything; the reply is read on exit if not.

        with rate_counted(request, "quiz_answer", key="user_or_ip") as over_rate:
            attempt = ...  # reads only
            if over_rate():
                raise Ratelimited
    """
    pending = _send_count(request, name, key, method)
    answer: list[bool] = []

    def over_rate() -> bool:
        if not answer:
            answer.append(pending())
        return answer[0]

    try:
        yield over_rate
    finally:
        over_rate()  # frees the connection; the request was counted either way


def _send_count(request: HttpRequest, name: str, key: Key, method: str | list) -> Callable[[], bool]:
    def not_over() -> bool:
        return False

    if not settings.RATELIMIT_ENABLE or not _method_match(request, method):
        return not_over
    cache = caches[settings.RATELIMIT_USE_CACHE]
    if not hasattr(cache, "count_sent"):  # any other cache: counted at once
        exceeded = limit_exceeded(request, name, key=key, method=method)
        return lambda: exceeded
    cache_key, limit, timeout, window_end = _counter(request, name, key, method)
    try:
        reply = cache.count_sent(cache_key, timeout)
    except (RedisError, OSError) as exc:
        logger.warning("rate limit %r not checked, the cache is unreachable: %s", name, exc)
        return not_over

    def over() -> bool:
        try:
            return _over(request, reply(), limit, window_end)
        except (RedisError, OSError) as exc:
            logger.warning("rate limit %r not checked, the cache is unreachable: %s", name, exc)
            return False

    return over


def rate_limit(name: str, *, key: Key = "ip", method: str | list = ALL):
    """A view decorator: past the rate, RatelimitMiddleware answers with RATELIMIT_VIEW (a 429)."""
    if name not in settings.RATE_LIMITS:
        raise ImproperlyConfigured(f"No rate named {name!r} in settings.RATE_LIMITS")

    def decorator(view):
        @wraps(view)
        def limited_view(request: HttpRequest, *args, **kwargs):
            if limit_exceeded(request, name, key=key, method=method):
                raise Ratelimited
            return view(request, *args, **kwargs)

        return limited_view

    return decorator
