"""Open Badges 3.0 credentials as VC-JWT (OB 3.0 section 8.2), signed with the site's Ed25519 key,
and the signed status lists that say whether they still hold.

The JWT payload is the OpenBadgeCredential itself, plus the registered claims OB 3.0 asks for
(`iss`, `jti`, `nbf`; no `sub` because the subject is identified by name, not by an id). Its `id` (and
`jti`) is the certificate's public verification page. Its `credentialStatus` points at a W3C Bitstring
Status List (certificates/status_list.py) served as a VC-JWT signed with the same keys, so a verifier holding
only the JWT learns of a revocation or a correction from the issuer's published documents. Anyone can
verify both offline against /.well-known/jwks.json.
"""

import hashlib
from datetime import UTC, datetime

from django.conf import settings
from django.core.cache import cache
from django.urls import reverse
from django.utils import translation

from quizzes.content import EXAM_SLUG

from . import keys, status_list
from .models import Certificate

ALGORITHM = keys.ALGORITHM
CONTEXT = ["https://www.w3.org/ns/credentials/v2", "https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json"]
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
    payload = {
        "@context": CONTEXT,
        "id": verification_url(certificate),
        "type": ["VerifiableCredential", "OpenBadgeCredential"],
        "name": f"{COURSE_NAME}: certificate of completion",
        "issuer": {"id": issuer_id(), "type": ["Profile"], "name": settings.CERT_ISSUER_NAME, "url": issuer_id()},
        "validFrom": _timestamp(issued),
        "credentialSubject": {
            "type": ["AchievementSubject"],
            "identifier": [
                {"type": "IdentityObject", "identityType": "name", "hashed": False, "identityHash": certificate.name}
            ],
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
        "jti": verification_url(certificate),
        "nbf": int(issued.timestamp()),
    }
    if certificate.status_slot is not None:  # certificates issued before status lists have no bit
        payload["credentialStatus"] = status_list.entry(certificate)
    return payload


def credential_sign(certificate: Certificate) -> tuple[str, str]:
    """(kid, compact JWS) for the certificate, signed with the active key."""
    return keys.sign(credential_payload(certificate), "JWT")


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
    kid, _created = keys.ensure_signing_key()
    digest = hashlib.sha256(f"{settings.SITE_URL} {kid} ".encode() + bits).hexdigest()
    cache_key = f"status-list:{number}:{digest}"
    token = cache.get(cache_key)
    if token is None:
        now = datetime.now(UTC).replace(microsecond=0)
        _kid, token = keys.sign(status_list_payload(number, bits, now), "vc+jwt")
        cache.add(cache_key, token, timeout=7 * 24 * 3600)  # a concurrent signer may have won: serve its token
        token = cache.get(cache_key) or token
    return token
