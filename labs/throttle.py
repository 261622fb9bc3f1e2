"""The submission rate limit, shared by the pages and the API: one counter per learner."""

from django.http import HttpRequest

from config.ratelimit import limit_exceeded


def submission_throttled(request: HttpRequest, user) -> bool:
    """Over RATE_LIMITS["lab_submit"]; the learner is passed in (an API client is known by its token)."""
    return limit_exceeded(request, "lab_submit", key=lambda _group, _request: str(user.pk))
