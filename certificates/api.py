"""The certificates' JSON API: a certificate's record, its status documents, the issuer's profile and
keys (mounted at /api/certificates/), and the documents verifiers look for under /.well-known/: the
JWK Set and the JWT VC Issuer Metadata.

Anyone may read them and any site may fetch them (offline verifiers, badge wallets): they answer
with `public_document` headers, errors included. They only read, so they need no CSRF token.
"""

import hashlib
import json
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
KEY_MAX_AGE = 86_400  # a key's JWK never changes; the sets that list the keys change on rotation


class BitstringStatusListEntry(Schema):
    id: Url
    type: Literal["BitstringStatusListEntry"]
    statusPurpose: Literal["revocation"]
    statusListIndex: str
    statusListCredential: Url


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
    credential: str = Field(
        description="OpenBadgeCredential as a VC-JWT (compact JWS, alg RS256 or EdDSA, kid the URL of its key)."
    )
    jwks_url: Url
    status_list_entry: BitstringStatusListEntry | None = Field(
        description=(
            "The certificate's bit in the W3C Bitstring Status List. The credential's own credentialStatus "
            "names the 1EdTech revocation list (OB 3.0 allows one), so verifiers that read only the W3C "
            "method find the entry here. Null for certificates issued before status lists."
        )
    )


class RsaPublicKey(Schema):
    kty: Literal["RSA"]
    n: str
    e: str
    kid: str
    use: Literal["sig"]
    alg: Literal["RS256"]


class Ed25519PublicKey(Schema):
    kty: Literal["OKP"]
    crv: Literal["Ed25519"]
    x: str
    kid: str
    use: Literal["sig"]
    alg: Literal["EdDSA"]


PublicKey = RsaPublicKey | Ed25519PublicKey


class PublicKeySet(Schema):
    keys: list[PublicKey]


class VerificationMethod(Schema):
    id: Url
    type: Literal["JsonWebKey"]
    controller: Url
    publicKeyJwk: PublicKey


class IssuerProfile(Schema):
    context: list[Url] = Field(alias="@context")
    id: Url
    type: list[Literal["Profile"]]
    name: str
    url: Url
    description: str
    verificationMethod: list[VerificationMethod]
    assertionMethod: list[Url]


class JwtVcIssuerMetadata(Schema):
    issuer: Url = Field(description="Identical to the `iss` of every credential.")
    jwks_uri: Url


class RevokedCredential(Schema):
    id: str = Field(description="The revoked credential's `id` (a urn:uuid).")
    revoked: Literal[True]


class RevocationList(Schema):
    id: Url
    issuer: Url
    revokedCredential: list[RevokedCredential]


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
        "status_list_entry": status_list.entry(certificate) if certificate.status_slot is not None else None,
    }


def _with_etag(request: HttpRequest, body: str, content_type: str) -> HttpResponse:
    etag = '"' + hashlib.sha256(body.encode()).hexdigest()[:32] + '"'
    response = HttpResponse(body, content_type=content_type)
    response["ETag"] = etag
    return get_conditional_response(request, etag=etag, response=response)


def _list_exists(number: int) -> bool:
    return 1 <= number <= status_list.list_count()


NOT_MODIFIED = {"304": {"description": "Not modified since the ETag sent in If-None-Match."}}


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
            **NOT_MODIFIED,
        }
    },
)
@decorate_view(public_document(status_list.MAX_AGE))
def status_list_credential(request: HttpRequest, number: int) -> HttpResponse:
    """A BitstringStatusListCredential as a VC-JWT (kid in the header), the document a certificate's
    status_list_entry (and the credentialStatus of credentials issued before the 1EdTech revocation
    list) names. statusPurpose is revocation; encodedList is multibase base64url (prefix u) of the
    GZIP-compressed bitstring, bit 0 the most significant bit of the first byte. Revalidate with
    If-None-Match."""
    if not _list_exists(number):
        raise ApiError(404, _("There is no certificate status list with this number."))
    return _with_etag(request, credentials.status_list_sign(number), status_list.LIST_MEDIA_TYPE)


@router.get(
    "/revocations/{int:number}",
    url_name="certificate_revocation_list",
    summary="A 1EdTech Revocation List: the ids of revoked and superseded credentials",
    response={200: RevocationList, 404: Error},
    openapi_extra={"responses": NOT_MODIFIED},
)
@decorate_view(public_document(status_list.MAX_AGE))
def revocation_list(request: HttpRequest, number: int) -> HttpResponse:
    """The document a credential's credentialStatus (type 1EdTechRevocationList) names: a credential
    whose id is in revokedCredential no longer counts (revoked, or superseded by a corrected one).
    Revalidate with If-None-Match."""
    if not _list_exists(number):
        raise ApiError(404, _("There is no certificate status list with this number."))
    document = credentials.revocation_list_document(number)
    return _with_etag(request, json.dumps(document, separators=(",", ":")), "application/json")


@router.get(
    "/issuer",
    url_name="certificate_issuer",
    summary="The issuer's Open Badges 3.0 Profile, with its public keys as verification methods",
    response=IssuerProfile,
    by_alias=True,
)
@decorate_view(public_document(300))
def issuer(request: HttpRequest):
    """Its id is the credentials' issuer.id and iss; each verification method's id is a kid URL."""
    return credentials.issuer_profile()


@router.get(
    "/keys/{thumbprint}",
    url_name="certificate_key",
    summary="One public key as a JWK: the document a credential's kid names",
    response={200: PublicKey, 404: Error},
)
@decorate_view(public_document(KEY_MAX_AGE))
def key(request: HttpRequest, thumbprint: str):
    """The kid in a credential's header is this URL (OB 3.0: a URI that dereferences to a JWK). The
    path ends with the key's RFC 7638 thumbprint."""
    found = keys.find_key(thumbprint)
    if found is None:
        raise ApiError(404, _("We never published a key with this name."))
    return keys.public_jwk(found, keys.key_url(found.kid))


@router.get(
    "/{id}",
    url_name="certificate",
    summary="A certificate, its status and its signed Open Badges 3.0 credential",
    response={200: Certificate, 404: Error, 429: Error},
)
@decorate_view(rate_limit("certificate_lookup"), public_document(60))  # one counter with the verify page
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
    summary="The issuer's public keys (JWK Set): every key ever used, the active one first",
    response=PublicKeySet,
)
@decorate_view(public_document(300))
def jwks(request: HttpRequest):
    """Each key under its kid URL; the keys of credentials signed before kid URLs also under their
    bare RFC 7638 thumbprint, the kid those credentials carry."""
    return credentials.published_jwks()


@keys_router.get(
    "/jwt-vc-issuer",
    url_name="jwt_vc_issuer",
    summary="JWT VC Issuer Metadata: the issuer identifier and where its keys are",
    response=JwtVcIssuerMetadata,
)
@decorate_view(public_document(3600))
def jwt_vc_issuer(request: HttpRequest):
    """As draft-ietf-oauth-sd-jwt-vc defines it, at /.well-known/jwt-vc-issuer followed by the
    path of the issuer identifier (here none: the issuer is the site's root)."""
    return credentials.jwt_vc_issuer_metadata()
