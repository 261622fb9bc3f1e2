"""Headers for the API's public documents (certificates, status lists, keys, the OpenAPI document)."""

from collections.abc import Callable
from functools import wraps

from django.http import HttpResponse


def public_document(max_age: int) -> Callable:
    """Any site may fetch it (offline verifiers, badge wallets), and caches may keep it a while.
    Used with ninja's `decorate_view`, so error answers carry the headers too."""

    def decorator(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def with_headers(request, *args, **kwargs) -> HttpResponse:
            response = view(request, *args, **kwargs)
            response["Access-Control-Allow-Origin"] = "*"
            response["Cache-Control"] = f"public, max-age={max_age}"
            return response

        return with_headers

    return decorator
