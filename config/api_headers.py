"""Headers for the API's public documents (certificates, status lists, keys, the OpenAPI document)."""

from collections.abc import Callable
from functools import wraps

from django.http import HttpResponse
from django_ratelimit.exceptions import Ratelimited

from .views import rate_limited


def public_document(max_age: int) -> Callable:
    """Any site may fetch it (offline verifiers, badge wallets), and caches may keep it a while.
    Used with ninja's `decorate_view`, so error answers carry the headers too; put it after a
    rate limit there (decorate_view wraps in order), so that the 429 carries the CORS headers as
    well: without them another site's verifier sees only a network error, not the wait."""

    def decorator(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def with_headers(request, *args, **kwargs) -> HttpResponse:
            try:
                response = view(request, *args, **kwargs)
                response["Cache-Control"] = f"public, max-age={max_age}"
            except Ratelimited:
                response = rate_limited(request)
                response["Cache-Control"] = "no-store"  # this client's count, not a document to share
            response["Access-Control-Allow-Origin"] = "*"
            response["Access-Control-Expose-Headers"] = "Retry-After"  # read by a 429's cross-site client
            return response

        return with_headers

    return decorator
