"""Site-wide views: rate-limit answer, error pages, health check, the benchmarks' baseline."""

from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from .api_errors import error_body
from .ratelimit import retry_after
from .waits import please_wait, with_retry_after


def _error(request: HttpRequest, title: str, message: str, status: int) -> HttpResponse:
    """An error page, or under /api/ the API's one JSON error shape, so API clients never parse HTML."""
    if request.path.startswith("/api/"):
        return JsonResponse(error_body(message), status=status)
    return render(request, "error.html", {"title": title, "message": message}, status=status)


def rate_limited(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """The 429 of every rate limit: Retry-After and the message say how long until its window ends."""
    wait = retry_after(request) or 60  # a view that answers 429 itself without counting: a minute
    return with_retry_after(_error(request, _("Too many requests"), please_wait(wait), 429), wait)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    message = _("The request could not be understood. Please go back and try again.")
    return _error(request, _("Bad request"), message, 400)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    message = _("You do not have access to this page.")
    return _error(request, _("Access denied"), message, 403)


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    message = _("We could not find that page. It may have moved; try the course index.")
    return _error(request, _("Page not found"), message, 404)


def server_error(request: HttpRequest) -> HttpResponse:
    message = _("Something went wrong on our side. Please try again in a moment.")
    return _error(request, _("Server error"), message, 500)


def cross_site_refused(request: HttpRequest) -> HttpResponse:
    """A form that carries no CSRF token, posted from another site (config/origin.py)."""
    message = _("This form can only be sent from the course's own pages. Open the page again and send it from there.")
    return _error(request, _("Form sent from another site"), message, 403)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    message = _("Your session expired or the form was sent twice. Reload the page and try again.")
    return _error(request, _("Form expired"), message, 403)


@require_GET
def health(request: HttpRequest) -> JsonResponse:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok"})


@require_GET
def ping(request: HttpRequest) -> HttpResponse:
    """The smallest page the site serves (no database, no template): bench/load.py compares
    every page's throughput with it, measured by the same server in the same run."""
    return HttpResponse("ok", content_type="text/plain")
