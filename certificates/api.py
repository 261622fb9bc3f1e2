"""The certificates' JSON API: a certificate's record, the status lists and the issuer's public keys.

These views only read, so they are exempt from CSRF: a POST (or any other method) gets the 405
of @require_GET instead of the CSRF failure page, which API clients could not act on.
"""

import hashlib

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse
from django.utils.cache import get_conditional_response
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET

from config.ratelimit import rate_limit

from . import credentials, keys, status_list
from .models import Certificate, normalize_certificate_id


def _public(response: HttpResponse, max_age: int) -> HttpResponse:
    """Public documents: any site may fetch them (offline verifiers, badge wallets)."""
    response["Access-Control-Allow-Origin"] = "*"
    response["Cache-Control"] = f"public, max-age={max_age}"
    return response


def certificate_json(certificate: Certificate) -> dict:
    return {
        "id": certificate.display_id,
        "status": str(certificate.status),
        "revoked_at": certificate.revoked_at.isoformat() if certificate.revoked_at else None,
        "revocation_reason": certificate.revocation_reason or None,
        "superseded_by": certificate.superseded_by.display_id if certificate.superseded_by_id else None,
        "name": certificate.name,
        "course": credentials.COURSE_NAME,
        "issued_at": certificate.issued_at.isoformat(),
        "score_band": certificate.score_band,
        "language": certificate.language,
        "verification_url": credentials.verification_url(certificate),
        "credential": certificate.credential,
        "jwks_url": settings.SITE_URL + reverse("certificates_api:jwks"),
    }


@csrf_exempt  # read-only, see the module docstring
@require_GET
@rate_limit("certificate_lookup")  # one counter with the verification page
def certificate(request: HttpRequest, certificate_id: str) -> JsonResponse:
    compact = normalize_certificate_id(certificate_id)
    found = Certificate.objects.select_related("superseded_by").filter(pk=compact).first() if compact else None
    if found is None:
        error = {
            "error": _("No certificate was issued with this ID. Check it against the one printed on the certificate.")
        }
        return _public(JsonResponse(error, status=404), 60)
    return _public(JsonResponse(certificate_json(found), json_dumps_params={"ensure_ascii": False}), 60)


@csrf_exempt  # read-only, see the module docstring
@require_GET
def status_list_credential(request: HttpRequest, number: int) -> HttpResponse:
    """A W3C Bitstring Status List credential as a VC-JWT; a verifier revalidates it with its ETag."""
    if not 1 <= number <= status_list.list_count():
        error = {"error": _("There is no certificate status list with this number.")}
        return _public(JsonResponse(error, status=404), 60)
    token = credentials.status_list_sign(number)
    etag = '"' + hashlib.sha256(token.encode()).hexdigest()[:32] + '"'
    response = HttpResponse(token, content_type=status_list.LIST_MEDIA_TYPE)
    response["ETag"] = etag
    return _public(get_conditional_response(request, etag=etag, response=response), status_list.MAX_AGE)


@csrf_exempt  # read-only, see the module docstring
@require_GET
def jwks(request: HttpRequest) -> JsonResponse:
    return _public(JsonResponse(keys.jwks()), 300)
