"""The log-in forms' guard, for learners (/<lang>/accounts/login/) and staff (/admin/login/) alike:
every posted attempt counts against two limits, per address ("login") and per user name
("login_username", so that many addresses cannot share out the guessing of one password), and
every failure is logged with the name tried and the address it came from."""

import hashlib
import logging
from functools import wraps

from django.contrib.auth.signals import user_login_failed
from django.dispatch import receiver
from django.http import HttpRequest
from django_ratelimit.exceptions import Ratelimited

from config.ratelimit import client_ip, limit_exceeded

logger = logging.getLogger(__name__)


def _username_key(_group: str, request: HttpRequest) -> str:
    """The name as typed, case folded (so that case variants share one counter), hashed: the cache
    holds no user names."""
    name = request.POST.get("username", "").strip().casefold()
    return hashlib.sha256(name.encode()).hexdigest()


def login_rate_limited(view):
    """Past either limit, RatelimitMiddleware answers 429 with Retry-After; showing the form is free."""

    @wraps(view)
    def guarded(request: HttpRequest, *args, **kwargs):
        if request.method == "POST":
            # Both counters count every attempt (no short cut), so neither can be dodged by the other.
            per_address = limit_exceeded(request, "login")
            per_name = limit_exceeded(request, "login_username", key=_username_key)
            if per_address or per_name:
                logger.warning(
                    "log-in refused, too many attempts: user name %r from %s (%s)",
                    request.POST.get("username", "")[:150],
                    client_ip(request),
                    request.path,
                )
                raise Ratelimited
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
