"""The site's one JSON API (django-ninja), mounted at the site root by config/urls.py.

Each app declares its endpoints once, in a Router in its own api.py, with pydantic schemas for
what goes in and out; this module puts them together. /api/openapi.json is generated from them, and
/api/docs/ shows it with Swagger UI (config/api_docs.py). Errors have one shape (config/api_errors.py);
authentication classes are in accounts/auth.py.
"""

import json

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from ninja import NinjaAPI
from ninja.decorators import decorate_view
from ninja.parser import Parser
from ninja.renderers import JSONRenderer

from certificates.api import keys_router as certificate_keys_router
from certificates.api import router as certificates_router
from labs.api import router as labs_router

from .api_docs import VendoredSwagger
from .api_errors import BodyUnreadable, install_error_handlers, json_method_not_allowed
from .api_headers import public_document

MAX_BODY = 16_384  # bytes; the largest body any endpoint needs is a run's settings


class _Renderer(JSONRenderer):
    json_dumps_params = {"ensure_ascii": False}  # names and score bands as people write them


def _object_without_repeats(pairs: list[tuple[str, object]]) -> dict:
    """A JSON object; one that names a key twice is refused, as the HTML forms refuse a field sent
    twice: json would keep the last value silently."""
    found: dict = {}
    for key, value in pairs:
        if key in found:
            raise BodyUnreadable(_("The request body names %(key)s more than once.") % {"key": json.dumps(key)})
        found[key] = value
    return found


class _Parser(Parser):
    def parse_body(self, request: HttpRequest):
        if len(request.body) > MAX_BODY:
            raise BodyUnreadable(_("The request body is too large."))
        try:
            return json.loads(request.body, object_pairs_hook=_object_without_repeats)
        except BodyUnreadable:
            raise
        except ValueError as exc:  # not JSON, or not UTF-8
            raise BodyUnreadable(_("The request body must be JSON.")) from exc


class CourseAPI(NinjaAPI):
    def get_content_type(self) -> str:
        return "application/json"  # JSON is UTF-8 by definition (RFC 8259): no charset parameter

    def get_openapi_operation_id(self, operation) -> str:
        return operation.view_func.__name__


api = CourseAPI(
    title="Gradient Accumulation Course API",
    version="1.0.0",
    description=(
        "Certificates can be checked by anyone; signed credentials (Open Badges 3.0 VC-JWT, RS256 or EdDSA) "
        "verify against the key the issuer's own /.well-known/jwks.json lists under their kid (never a key "
        "found elsewhere: a kid URL on another origin is a forger's), and their status against "
        "the 1EdTech revocation list their credentialStatus names or the W3C Bitstring Status List their "
        "record's status_list_entry names. Authenticated endpoints take a session (with its CSRF token "
        "for POST) or `Authorization: Bearer <token>` (tokens are created on the dashboard). Every error "
        'is {"error": "...", "fields": [{"field": "...", "message": "..."}]}, in the language of '
        "Accept-Language (en, hi, fr)."
    ),
    servers=[{"url": settings.SITE_URL}],
    urls_namespace="api",
    openapi_url=None,  # served below, with the headers of a public document
    docs_url=None,  # served below, with the document above
    docs=VendoredSwagger(),
    renderer=_Renderer(),
    parser=_Parser(),
)
install_error_handlers(api)
api.add_router("/api/labs/", labs_router)
api.add_router("/api/certificates/", certificates_router)
api.add_router("/.well-known/", certificate_keys_router)  # where verifiers look for the keys


@api.get("/api/openapi.json", summary="This document", tags=["meta"], url_name="openapi")
@decorate_view(public_document(300))
def openapi_document(request: HttpRequest) -> HttpResponse:
    document = api.get_openapi_schema(path_prefix="")
    return HttpResponse(json.dumps(document, ensure_ascii=False), content_type="application/json")


@api.get("/api/docs/", include_in_schema=False, url_name="docs")
def docs_page(request: HttpRequest) -> HttpResponse:
    return api.docs.render_page(request, api)


urls = json_method_not_allowed(api.urls)  # what config/urls.py mounts
