"""Whether the site answers where SITE_URL says it does. Every certificate, its QR code and its signed
credential name SITE_URL for good, so a SITE_URL the site does not answer at makes dead links that no
later fix reaches: staff are warned at start-up (certificates/checks.py, config/gunicorn.conf.py) and on the admin
pages (templates/admin/base_site.html)."""

from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpRequest
from django.http.request import validate_host
from django.utils.translation import gettext as _

# The hosts Django accepts when DEBUG is on and ALLOWED_HOSTS is empty (HttpRequest.get_host).
DEBUG_HOSTS = [".localhost", "127.0.0.1", "[::1]"]


def _host_and_port(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    return (parts.hostname or "").rstrip("."), parts.port or (443 if parts.scheme == "https" else 80)


def site_url_host_refused(site_url: str, allowed_hosts: list[str], debug: bool) -> str:
    """What to say when ALLOWED_HOSTS refuses SITE_URL's host, so every request that follows a
    certificate's link or QR code gets a 400; empty when it is accepted. In English: for logs."""
    host = (urlsplit(site_url).hostname or "").rstrip(".")
    allowed = allowed_hosts or (DEBUG_HOSTS if debug else [])
    if not host or validate_host(host, allowed):
        return ""
    return (
        f"SITE_URL is {site_url} but ALLOWED_HOSTS ({', '.join(allowed) or 'empty'}) refuses the host {host}: "
        "certificates, their QR codes and signed credentials would link to an address this site does not "
        "answer at. Add the host to ALLOWED_HOSTS or set SITE_URL to the site's public address."
    )


def answers_elsewhere(request: HttpRequest) -> bool:
    """The request reached the site at another host or port than SITE_URL names. A port missing from
    either side is SITE_URL's scheme's default: behind a proxy the request's scheme may be plain HTTP."""
    site_host, site_port = _host_and_port(settings.SITE_URL)
    default_port = 443 if settings.SITE_URL.startswith("https:") else 80
    request_parts = urlsplit(f"//{request.get_host()}")
    request_host = (request_parts.hostname or "").rstrip(".")
    return (request_host, request_parts.port or default_port) != (site_host, site_port)


def staff_warning(request: HttpRequest) -> str:
    """The admin's warning when the staff member reached the site elsewhere than SITE_URL."""
    if not (request.user.is_authenticated and request.user.is_staff) or not answers_elsewhere(request):
        return ""
    return _(
        "You reached this site at %(here)s, but SITE_URL is %(site_url)s. Certificates issued now carry "
        "links and QR codes to %(site_url)s, which stay dead if the site does not answer there. Set "
        "SITE_URL to the address learners and verifiers use."
    ) % {"here": f"{request.scheme}://{request.get_host()}", "site_url": settings.SITE_URL}
