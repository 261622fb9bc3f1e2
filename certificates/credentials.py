"""Open Badges 3.0 credentials as VC-JWT (https://www.imsglobal.org/spec/ob/v3p0/#jwt-proof), the
signed status documents that say whether they still hold, and the documents that lead a verifier
from a credential to the issuer's keys.

The JWT payload is the OpenBadgeCredential itself plus the registered claims OB 3.0 requires: `iss`
(issuer.id), `jti` (id), `nbf` (validFrom) and `sub` (credentialSubject.id). The ids are urn:uuid
names (identifiers.py); the certificate's public page is the credential's `evidence`. The header's
`kid` is a URL that answers the public JWK (keys.py). The key is RSA (RS256) or Ed25519 (EdDSA), as
settings.CERT_SIGNING_ALGORITHM says.

`credentialStatus` is the 1EdTech revocation list (revocation_list.py), the only status method in
OB 3.0's verification steps. OB 3.0 allows one credentialStatus (CredentialStatus [0..1] in its data
model; 1EdTech's JSON Schema has it as one object, so an array fails validation), so the W3C Bitstring
Status List entry the certificate also has (status_list.py) is not in the credential: the certificate's
API record gives it. Credentials signed before (EdDSA, bare-thumbprint kid, no `sub`, id the page URL)
carry the bitstring entry and keep verifying: published_jwks lists their keys under their old kid.
"""

import hashlib
from datetime import UTC, datetime

from django.conf import settings
from django.core.cache import cache
from django.urls import reverse
from django.utils import translation

from quizzes.content import EXAM_SLUG

from . import identifiers, keys, revocation_list, status_list
from .models import Certificate

VC_CONTEXT = "https://www.w3.org/ns/credentials/v2"
OB_CONTEXT = "https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json"
CID_CONTEXT = "https://www.w3.org/ns/cid/v1"  # W3C Controlled Identifiers v1.0: verificationMethod
CONTEXT = [VC_CONTEXT, OB_CONTEXT]
COURSE_NAME = "Gradient Accumulation Course"


def issuer_id() -> str:
    return settings.SITE_URL + "/"


def verification_url(certificate: Certificate, language: str | None = None) -> str:
    with translation.override(language or certificate.language):
        return settings.SITE_URL + reverse("certificates:verify", args=[certificate.display_id])


def achievement_id() -> str:
    with translation.override("en"):
        return settings.SITE_URL + reverse("quizzes:quiz", args=[EXAM_SLUG])


def _timestamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def credential_payload(certificate: Certificate) -> dict:
    issued = certificate.issued_at.replace(microsecond=0)
    achievement = achievement_id()
    credential_id = identifiers.credential_uri(certificate)
    subject_id = identifiers.subject_uri(certificate)
    payload = {
        "@context": CONTEXT,
        "id": credential_id,
        "type": ["VerifiableCredential", "OpenBadgeCredential"],
        "name": f"{COURSE_NAME}: certificate of completion",
        "issuer": {"id": issuer_id(), "type": ["Profile"], "name": settings.CERT_ISSUER_NAME, "url": issuer_id()},
        "validFrom": _timestamp(issued),
        "credentialSubject": {
            "id": subject_id,
            "type": ["AchievementSubject"],
            "identifier": [identifiers.identity(certificate)],
            "achievement": {
                "id": achievement,
                "type": ["Achievement"],
                "achievementType": "Certificate",
                "name": COURSE_NAME,
                "description": "Passed the final exam of the Gradient Accumulation Course.",
                "criteria": {"narrative": f"Score at least {round(settings.QUIZ_PASS_MARK * 100)}% on the final exam."},
                "inLanguage": certificate.language,
                "resultDescription": [
                    {
                        "id": f"{achievement}#score-band",
                        "type": ["ResultDescription"],
                        "name": "Score band",
                        "resultType": "ext:ScoreBand",
                    }
                ],
            },
            "result": [
                {"type": ["Result"], "resultDescription": f"{achievement}#score-band", "value": certificate.score_band}
            ],
        },
        "evidence": [{"type": ["Evidence"], "id": verification_url(certificate)}],
        "iss": issuer_id(),
        "jti": credential_id,
        "sub": subject_id,
        "nbf": int(issued.timestamp()),
    }
    if certificate.status_slot is not None:  # certificates issued before status lists have no slot
        payload["credentialStatus"] = revocation_list.entry(certificate)
    return payload


def credential_sign(certificate: Certificate) -> tuple[str, str]:
    """(kid, compact JWS) for the certificate, signed with the active key."""
    return keys.sign(credential_payload(certificate), "JWT")


def legacy_kids() -> set[str]:
    """The bare-thumbprint kids that credentials signed before kid URLs carry."""
    stored = Certificate.objects.exclude(kid__contains="/").values_list("kid", flat=True).distinct()
    return set(stored)


def published_jwks() -> dict:
    """Every key ever used, as a JWK Set: each under its kid URL, and the keys of credentials signed
    before kid URLs a second time under their bare thumbprint, the kid those credentials carry."""
    legacy = legacy_kids()
    entries = []
    for key in keys.all_keys():
        entries.append(keys.public_jwk(key, keys.key_url(key.kid)))
        if key.kid in legacy:
            entries.append(keys.public_jwk(key, key.kid))
    return {"keys": entries}


def issuer_profile() -> dict:
    """The issuer's OB 3.0 Profile, with its keys as W3C Controlled Identifiers verification methods:
    each method's id is a kid URL, so a verifier can check that a credential's key is the issuer's."""
    methods = [
        {
            "id": keys.key_url(key.kid),
            "type": "JsonWebKey",
            "controller": issuer_id(),
            "publicKeyJwk": keys.public_jwk(key, keys.key_url(key.kid)),
        }
        for key in keys.all_keys()
    ]
    return {
        "@context": [*CONTEXT, CID_CONTEXT],
        "id": issuer_id(),
        "type": ["Profile"],
        "name": settings.CERT_ISSUER_NAME,
        "url": issuer_id(),
        "description": f"Issues the certificates of the {COURSE_NAME} as Open Badges 3.0 credentials.",
        "verificationMethod": methods,
        "assertionMethod": [method["id"] for method in methods],
    }


def jwt_vc_issuer_metadata() -> dict:
    """JWT VC Issuer Metadata (draft-ietf-oauth-sd-jwt-vc, "JWT VC Issuer Metadata"): `issuer` is
    identical to the credentials' `iss`, and exactly one of jwks_uri and jwks is given."""
    return {"issuer": issuer_id(), "jwks_uri": settings.SITE_URL + reverse("api:jwks")}


def revocation_list_document(number: int) -> dict:
    return revocation_list.document(number, issuer_id())


def status_list_payload(number: int, bits: bytes, valid_from: datetime) -> dict:
    url = status_list.list_url(number)
    return {
        "@context": ["https://www.w3.org/ns/credentials/v2"],
        "id": url,
        "type": ["VerifiableCredential", "BitstringStatusListCredential"],
        "issuer": issuer_id(),
        "validFrom": _timestamp(valid_from),
        "credentialSubject": {
            "id": f"{url}#list",
            "type": "BitstringStatusList",
            "statusPurpose": status_list.PURPOSE,
            "encodedList": status_list.encode(bits),
            "ttl": status_list.MAX_AGE * 1000,  # milliseconds
        },
        "iss": issuer_id(),
        "jti": url,
        "iat": int(valid_from.timestamp()),
    }


def status_list_sign(number: int) -> str:
    """Status list `number` as a VC-JWT (typ vc+jwt). Signed again only when its bits, the signing
    key or the site's address change: until then the same token (same ETag, same validFrom, the
    moment these bits were first published) is served."""
    bits = status_list.bitstring(number)
    thumbprint, _created = keys.ensure_signing_key()
    digest = hashlib.sha256(f"{settings.SITE_URL} {thumbprint} ".encode() + bits).hexdigest()
    cache_key = f"status-list:v2:{number}:{digest}"  # v2: kid URLs
    token = cache.get(cache_key)
    if token is None:
        now = datetime.now(UTC).replace(microsecond=0)
        _kid, token = keys.sign(status_list_payload(number, bits, now), "vc+jwt")
        cache.add(cache_key, token, timeout=7 * 24 * 3600)  # a concurrent signer may have won: serve its token
        token = cache.get(cache_key) or token
    return token
