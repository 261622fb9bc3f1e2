"""The submission rate limit, shared by the pages and the API (one counter per learner)."""

import logging

from django.conf import settings
from django.http import HttpRequest
from django_ratelimit.core import is_ratelimited

logger = logging.getLogger(__name__)


def submission_throttled(request: HttpRequest, user) -> bool:
    """True when the learner submitted more than LAB_SUBMIT_RATE allows.

    The counters live in the cache (Redis). When Redis is down a submission still goes through
    and is stored, to be dispatched when Redis is back; the quotas counted in the database
    (active runs, daily budget) still bound what it can cost.
    """
    try:
        return is_ratelimited(
            request,
            group="labs:submit",
            key=lambda _group, _request: str(user.pk),
            rate=settings.LAB_SUBMIT_RATE,
            increment=True,
        )
    except Exception as exc:
        logger.warning("lab submission rate limit unavailable: %s", exc)
        return False
