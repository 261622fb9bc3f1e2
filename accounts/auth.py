"""API authentication: a session, or a personal token in `Authorization: Bearer <token>`."""

from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest
from django.utils import timezone

from .models import ApiToken


def bearer_token(request: HttpRequest) -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def api_user(request: HttpRequest):
    """The user behind the request, or AnonymousUser. A bad token is the same as no login."""
    raw = bearer_token(request)
    if raw is None:
        return request.user
    token = ApiToken.objects.select_related("user").filter(digest=ApiToken.digest_of(raw)).first()
    if token is None or not token.user.is_active:
        return AnonymousUser()
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
    return token.user


def uses_token(request: HttpRequest) -> bool:
    """Token requests carry no cookies, so CSRF does not apply to them."""
    return bearer_token(request) is not None
