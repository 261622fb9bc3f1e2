"""The certificates' JSON API: a certificate's record and the status lists (mounted at
/api/certificates/), and the issuer's public keys (at /.well-known/jwks.json).

Anyone may read them and any site may fetch them (offline verifiers, badge wallets): they answer
with `public_document` headers, errors included. They only read, so they need no CSRF token.
"""

import hashlib
from typing import Annotated, Literal

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.cache import get_conditional_response
from django.utils.translation import gettext as _
from ninja import Field, Router, Schema
from ninja.decorators import decorate_view

from config.api_errors import ApiError, Error
from config.api_headers import public_document
from config.ratelimit import rate_limit

from . import credentials, keys, status_list
from .models import Certificate as CertificateRow
from .models import normalize_certificate_id

router = Router(tags=["certificates"])
keys_router = Router(tags=["certificates"])  # mounted at /.well-known/, where verifiers look for it
DateTime = Annotated[str, Field(json_schema_extra={"format": "date-time"})]
Url = Annotated[str, Field(json_schema_extra={"format": "uri"})]


class Certificate(Schema):
    id: str = Field(description="Grouped form, e.g. ABCD-EFGH-IJKL-...")
    status: Literal[tuple(CertificateRow.Status.values)]
    revoked_at: DateTime | None
    revocation_reason: str | None
    superseded_by: str | None = Field(description="The ID that replaces this one.")
    name: str = Field(description="The learner's name as issued.")
    course: str
    issued_at: DateTime
    score_band: str = Field(examples=["90–100%"])
    language: Literal[tuple(code for code, _name in settings.LANGUAGES)]
    verification_url: Url
    credential: str = Field(description="OpenBadgeCredential as a VC-JWT (compact JWS, alg EdDSA, kid in the header).")
    jwks_url: Url


class PublicKey(Schema):
    kty: Literal["OKP"]
    crv: Literal["Ed25519"]
    x: str
    kid: str
    use: Literal["sig"]
    alg: Literal["EdDSA"]


class PublicKeySet(Schema):
    keys: list[PublicKey]


def certificate_json(certificate: CertificateRow) -> dict:
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
        "jwks_url": settings.SITE_URL + reverse("api:jwks"),
    }


@router.get(
    "/status/{int:number}",
    url_name="certificate_status_list",
    summary="A signed W3C Bitstring Status List: the bit of a revoked or superseded certificate is 1",
    response={404: Error},
    openapi_extra={
        "responses": {
            "200": {
                "description": "The status list credential (compact JWS).",
                "content": {status_list.LIST_MEDIA_TYPE: {"schema": {"type": "string"}}},
            },
            "304": {"description": "Not modified since the ETag sent in If-None-Match."},
        }
    },
)
@decorate_view(public_document(status_list.MAX_AGE))
def status_list_credential(request: HttpRequest, number: int) -> HttpResponse:
    """A BitstringStatusListCredential as a VC-JWT (EdDSA, kid in the header), the document a
    credential's credentialStatus.statusListCredential names. statusPurpose is revocation; encodedList
    is multibase base64url (prefix u) of the GZIP-compressed bitstring, bit 0 the most significant
    bit of the first byte. Revalidate with If-None-Match."""
    if not 1 <= number <= status_list.list_count():
        raise ApiError(404, _("There is no certificate status list with this number."))
    token = credentials.status_list_sign(number)
    etag = '"' + hashlib.sha256(token.encode()).hexdigest()[:32] + '"'
    response = HttpResponse(token, content_type=status_list.LIST_MEDIA_TYPE)
    response["ETag"] = etag
    return get_conditional_response(request, etag=etag, response=response)


@router.get(
    "/{id}",
    url_name="certificate",
    summary="A certificate, its status and its signed Open Badges 3.0 credential",
    response={200: Certificate, 404: Error, 429: Error},
)
@decorate_view(public_document(60), rate_limit("certificate_lookup"))  # one counter with the verify page
def certificate(request: HttpRequest, id: str):  # `id`: the parameter name the document gives
    """Revoked and superseded certificates are answered too. The ID may be grouped (ABCD-EFGH-...)
    or not, in any case."""
    compact = normalize_certificate_id(id)
    found = CertificateRow.objects.select_related("superseded_by").filter(pk=compact).first() if compact else None
    if found is None:
        message = _("No certificate was issued with this ID. Check it against the one printed on the certificate.")
        raise ApiError(404, message)
    return certificate_json(found)


@keys_router.get(
    "/jwks.json",
    url_name="jwks",
    summary="The issuer's public Ed25519 keys (JWK Set), active first, retired keys kept",
    response=PublicKeySet,
)
@decorate_view(public_document(300))
def jwks(request: HttpRequest):
    return keys.jwks()
