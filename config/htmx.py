"""htmx requests: when a view answers with part of a page, and the Vary header that says so."""

from django.http import HttpRequest
from django.views.decorators.vary import vary_on_headers

# A view that picks a fragment or the page by these headers must say so: otherwise a cache, the
# browser's own included, can hand a fragment to a page load (or the page to an htmx swap).
vary_on_htmx = vary_on_headers("HX-Request", "HX-History-Restore-Request")


def wants_fragment(request: HttpRequest) -> bool:
    """An htmx request for part of a page. Not the one htmx sends to restore history when its own
    cache missed (Back, Forward, reload of a pushed URL): that one must get the whole page."""
    return bool(request.htmx) and not request.htmx.history_restore_request
