"""Site-wide views: rate-limit answer, error pages, health check, the benchmarks' baseline."""

from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET


def rate_limited(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    message = _("You are going a little fast. Please wait a minute and try again.")
    if request.path.startswith("/api/"):
        return JsonResponse({"error": message}, status=429)
    return render(request, "error.html", {"title": _("Too many requests"), "message": message}, status=429)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    message = _("The request could not be understood. Please go back and try again.")
    return render(request, "error.html", {"title": _("Bad request"), "message": message}, status=400)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    message = _("You do not have access to this page.")
    return render(request, "error.html", {"title": _("Access denied"), "message": message}, status=403)


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    message = _("We could not find that page. It may have moved; try the course index.")
    return render(request, "error.html", {"title": _("Page not found"), "message": message}, status=404)


def server_error(request: HttpRequest) -> HttpResponse:
    message = _("Something went wrong on our side. Please try again in a moment.")
    return render(request, "error.html", {"title": _("Server error"), "message": message}, status=500)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    message = _("Your session expired or the form was sent twice. Reload the page and try again.")
    return render(request, "error.html", {"title": _("Form expired"), "message": message}, status=403)


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

BIG = b"x" * 41400
def ping_big(request):
    return HttpResponse(BIG, content_type="text/html")
