"""API authentication: a session, or a personal token in `Authorization: Bearer <token>`.

`BearerToken` and `SessionLogin` are django-ninja auth classes (config/api.py lists them for the
operations that need a learner); `api_user` serves the operations open to everyone that show
more to their owner. A bad token is the same as no login, even with a session cookie beside it.
"""

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext as _
from ninja.errors import HttpError
from ninja.security import HttpBearer, SessionAuth

from config.api_errors import ApiError

from . import learner_versions
from .models import ApiToken


def bearer_token(request: HttpRequest) -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _space, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def token_user(raw: str):
    """The active user a personal token belongs to, or None; notes when it was last used."""
    token = ApiToken.objects.select_related("user").filter(digest=ApiToken.digest_of(raw)).first()
    if token is None or not token.user.is_active:
        return None
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
    learner_versions.bump(token.user_id, "tokens")  # the dashboard shows when each was last used
    return token.user


def api_user(request: HttpRequest):
    """The user behind the request, or AnonymousUser."""
    raw = bearer_token(request)
    if raw is None:
        return request.user
    return token_user(raw) or AnonymousUser()


class BearerToken(HttpBearer):
    """A personal API token, created on the dashboard. Token requests carry no cookies, so
    CSRF does not apply to them."""

    openapi_description = "A personal API token from the dashboard: `Authorization: Bearer <token>`."

    def authenticate(self, request: HttpRequest, token: str):
        return token_user(token.strip()) if token.strip() else None


class SessionLogin(SessionAuth):
    """A logged-in browser session. Unsafe methods need the CSRF token (X-CSRFToken), checked
    by ninja with Django's CsrfViewMiddleware; an anonymous request is a 401, not a 403."""

    param_name = settings.SESSION_COOKIE_NAME
    openapi_description = "A logged-in browser session; send the CSRF token in X-CSRFToken."

    def __call__(self, request: HttpRequest):
        if bearer_token(request) is not None or not request.user.is_authenticated:
            return None
        try:
            return super().__call__(request)
        except HttpError as refused:
            message = _("The CSRF token is missing or wrong. Reload the page, or use an API token.")
            raise ApiError(403, message) from refused
