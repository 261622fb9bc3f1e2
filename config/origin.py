"""Posts that must come from the site's own pages, for a form that cannot carry a CSRF token (it
sits on pages cached for every visitor): the browser says where a post comes from in `Origin`
(every current browser sends it with a POST), else in `Referer` (the site's Referrer-Policy,
same-origin, keeps it for the site's own pages); a post that names another site, or no site at
all, is refused."""

from functools import wraps
from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpRequest
from django.utils.http import is_same_domain


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower() if parts.scheme and parts.netloc else ""


def _trusted(origin: str, request: HttpRequest) -> bool:
    """The site as this request reached it, SITE_URL, or one of CSRF_TRUSTED_ORIGINS (which may
    name subdomains, `https://*.example.org`, as Django's CSRF check allows)."""
    if not origin:
        return False
    if origin in {f"{request.scheme}://{request.get_host()}".lower(), _origin(settings.SITE_URL)}:
        return True
    scheme, _sep, host = origin.partition("://")
    for trusted in settings.CSRF_TRUSTED_ORIGINS:
        trusted_scheme, _sep, pattern = trusted.lower().partition("://")
        if trusted_scheme == scheme and (pattern == host or ("*" in pattern and is_same_domain(host, pattern[1:]))):
            return True
    return False


def comes_from_this_site(request: HttpRequest) -> bool:
    origin = request.headers.get("Origin")
    if origin is not None:
        return _trusted(origin.lower(), request)  # "null" (a sandboxed or privacy-stripped page) is no site
    return _trusted(_origin(request.headers.get("Referer", "")), request)


def same_site_posts_only(view):
    """Refuses (403, with a message that says why) a POST sent from another site's page."""

    @wraps(view)
    def guarded(request: HttpRequest, *args, **kwargs):
        if request.method == "POST" and not comes_from_this_site(request):
            from .views import cross_site_refused

            return cross_site_refused(request)
        return view(request, *args, **kwargs)

    return guarded
