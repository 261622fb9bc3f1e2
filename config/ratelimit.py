"""Every rate limit of the site goes through here: settings.RATE_LIMITS names the rates, and
django-ratelimit's public `get_usage` counts requests in the cache (Redis); one policy covers a
cache that cannot be reached.

    @rate_limit("certificate_pdf")                           # a view: over the rate, a 429 page
    if limit_exceeded(request, "lab_submit", key=...): ...   # anywhere else: answer as you see fit

One name is one counter (django-ratelimit's group): views that share a name (the certificate page
and its API) share the count. A counter per address allows CLASSROOM_SIZE times its rate to an
address in settings.CLASSROOM_NETWORKS (a workshop behind one NAT address); counters per learner
and custom keys (the log-in's user name and address) never change. When the cache is down,
requests go through and a warning is logged: the quotas that bound real cost are counted in the
database, and learners are not locked out.
django-ratelimit's own RATELIMIT_FAIL_OPEN covers a cache that answers without counting; Django's
Redis backend raises instead, hence the except below.
"""

import ipaddress
import logging
from collections.abc import Callable
from functools import wraps

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest
from django_ratelimit import ALL, UNSAFE
from django_ratelimit.core import get_usage
from django_ratelimit.exceptions import Ratelimited
from redis import RedisError

__all__ = ["ALL", "UNSAFE", "client_ip", "in_classroom", "limit_exceeded", "rate_limit", "retry_after"]

logger = logging.getLogger(__name__)

UNKNOWN = "0.0.0.0"  # no address at all (a Unix socket without a proxy): one shared counter

# "ip", "user", "user_or_ip" (django-ratelimit's keys), or a function (group, request) -> str.
Key = str | Callable[[str, HttpRequest], str]


def _valid(address: str) -> bool:
    try:
        ipaddress.ip_address(address)
    except ValueError:
        return False
    return True


def client_ip(request: HttpRequest) -> str:
    """The address IP-keyed limits count (settings.RATELIMIT_IP_META_KEY names this function).

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


def in_classroom(address: str) -> bool:
    """Whether the address is in one of the networks an operator trusts for a workshop."""
    if not settings.CLASSROOM_NETWORKS or not _valid(address):
        return False
    ip = ipaddress.ip_address(address)
    return any(ip in ipaddress.ip_network(network) for network in settings.CLASSROOM_NETWORKS)


def _counts_per_address(request: HttpRequest, key: Key) -> bool:
    """django-ratelimit's "ip" key, or "user_or_ip" for a visitor who is not signed in."""
    if key == "user_or_ip":
        user = getattr(request, "user", None)
        return not (user is not None and user.is_authenticated)
    return key == "ip"


def _rate(request: HttpRequest, name: str, key: Key) -> str:
    """The rate of `name` for this request: a classroom's address shares one counter among its
    learners, so it allows CLASSROOM_SIZE times as many in the same period."""
    rate = settings.RATE_LIMITS[name]
    if _counts_per_address(request, key) and in_classroom(client_ip(request)):
        count, period = rate.split("/", 1)
        return f"{int(count) * settings.CLASSROOM_SIZE}/{period}"
    return rate


def limit_exceeded(request: HttpRequest, name: str, *, key: Key = "ip", method: str | list = ALL) -> bool:
    """Counts this request against settings.RATE_LIMITS[name]; True once it is over the rate.

    The rate is read on each request, so operators and tests can change it. `method` limits the
    counting to some HTTP methods (e.g. "POST": showing a form is free, sending it counts). Once
    over, the request notes how long until the counter's window ends (see retry_after).
    """
    try:
        usage = get_usage(request, group=name, key=key, rate=_rate(request, name, key), method=method, increment=True)
    except (RedisError, OSError) as exc:  # the documented policy: let it through, say so in the log
        logger.warning("rate limit %r not checked, the cache is unreachable: %s", name, exc)
        return False
    if usage is None or not usage["should_limit"]:
        return False
    wait = max(1, usage["time_left"])
    request.rate_limit_retry_after = max(wait, getattr(request, "rate_limit_retry_after", 0))
    return True


def retry_after(request: HttpRequest) -> int | None:
    """Seconds until the counter that refused this request starts afresh (the longest, if several did)."""
    return getattr(request, "rate_limit_retry_after", None)


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
