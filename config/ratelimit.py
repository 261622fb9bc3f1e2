"""Helpers for django-ratelimit: the client address it counts, and rates read from settings."""

import ipaddress
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest

UNKNOWN = "0.0.0.0"  # no address at all (a Unix socket without a proxy): one shared counter


def _valid(address: str) -> bool:
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


def setting_rate(name: str) -> Callable[[str, HttpRequest], str]:
    """A rate read from settings on each request, so operators and tests can change it."""
    return lambda _group, _request: getattr(settings, name)
