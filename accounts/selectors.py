"""What the dashboard shows of the account itself (its sections, registered in apps.py)."""

from .services import profile_for


def greeting_context(user) -> dict:
    return {"profile": profile_for(user), "username": user.get_username()}


def tokens_context(user) -> dict:
    """The learner's API tokens (the section caches this, not its HTML: its forms carry the request's CSRF token)."""
    return {"tokens": list(user.api_tokens.all())}
