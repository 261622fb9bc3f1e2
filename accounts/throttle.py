"""The log-in forms' guard, for learners (/<lang>/accounts/login/) and staff (/admin/login/) alike:
every posted attempt counts against two limits, per address ("login") and per user name from one
address ("login_username_address"), and every failure is logged with the name tried and the address
it came from.

There is no limit per user name from any address: it would let anyone who knows a user name lock
its owner out (ten wrong passwords, and the right one is refused everywhere). Counting the name per
address keeps guessing slow where it comes from and lets the owner in from their own address, as
django-axes' combination of user name and address does."""

import hashlib
import ipaddress
import logging
from functools import wraps

from django.conf import settings
from django.contrib.auth.signals import user_login_failed
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from config.ratelimit import client_ip, limit_exceeded, retry_after
from config.waits import wait_in_words, with_retry_after

logger = logging.getLogger(__name__)


def _network(address: str) -> str:
    """The address as django-ratelimit's per-address counters see it: an IPv6 address stands for its
    /64 (RATELIMIT_IPV6_MASK), since one machine has all of them."""
    ip = ipaddress.ip_address(address)
    mask = (
        getattr(settings, "RATELIMIT_IPV6_MASK", 64)
        if ip.version == 6
        else getattr(settings, "RATELIMIT_IPV4_MASK", 32)
    )
    return str(ipaddress.ip_network(f"{ip}/{mask}", strict=False).network_address)


def _username_address_key(_group: str, request: HttpRequest) -> str:
    """The name as typed, case folded (so that case variants share one counter), with the network it
    came from, hashed: the cache holds no user names."""
    name = request.POST.get("username", "").strip().casefold()
    return hashlib.sha256(f"{name}\n{_network(client_ip(request))}".encode()).hexdigest()


def _too_many_attempts(request: HttpRequest) -> HttpResponse:
    wait = retry_after(request) or 60
    message = _(
        "Too many log-in attempts from your network. Please wait %(wait)s and try again. If you have "
        "forgotten your password, choose a new one with “Forgot your password?”."
    ) % {"wait": wait_in_words(wait)}
    page = render(request, "error.html", {"title": _("Too many log-in attempts"), "message": message}, status=429)
    return with_retry_after(page, wait)


def login_rate_limited(view):
    """Past either limit, a 429 with Retry-After that says why and for how long; showing the form is free."""

    @wraps(view)
    def guarded(request: HttpRequest, *args, **kwargs):
        if request.method == "POST":
            # Both counters count every attempt (no short cut), so neither can be dodged by the other.
            per_address = limit_exceeded(request, "login")
            per_name_here = limit_exceeded(request, "login_username_address", key=_username_address_key)
            if per_address or per_name_here:
                logger.warning(
                    "log-in refused, too many attempts: user name %r from %s (%s)",
                    request.POST.get("username", "")[:150],
                    client_ip(request),
                    request.path,
                )
                return _too_many_attempts(request)
        return view(request, *args, **kwargs)

    return guarded


@receiver(user_login_failed, dispatch_uid="accounts.log_failed_login")
def log_failed_login(sender, credentials: dict, request: HttpRequest | None = None, **kwargs) -> None:
    """Django sends this for every wrong password, from any form; the password is never in it."""
    address = client_ip(request) if request is not None else "-"
    where = request.path if request is not None else "-"
    logger.warning(
        "log-in failed: user name %r from %s (%s)", str(credentials.get("username", ""))[:150], address, where
    )
