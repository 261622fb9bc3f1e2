"""Open Badges 3.0 credentials as VC-JWT (OB 3.0 section 8.2), signed with the site's Ed25519 key.

The JWT payload is the OpenBadgeCredential itself, plus the registered claims OB 3.0 asks for
(`iss`, `jti`, `nbf`; no `sub` because the subject is identified by name, not by an id). Anyone can
verify it offline against /.well-known/jwks.json; revocation is reported by the API and the
verification page, since a signed document cannot change after issue.
"""

import json
import warnings

from django.conf import settings
from django.urls import reverse
from django.utils import translation
from joserfc import jws
from joserfc.errors import SecurityWarning

from . import keys
from .content import EXAM_SLUG
from .models import Certificate

ALGORITHM = "EdDSA"
CONTEXT = ["https://www.w3.org/ns/credentials/v2", "https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json"]
COURSE_NAME = "Gradient Accumulation Course"


def issuer_id() -> str:
    return settings.SITE_URL + "/"


def verification_url(certificate: Certificate, language: str | None = None) -> str:
    with translation.override(language or certificate.language):
        return settings.SITE_URL + reverse("certificates:verify", args=[certificate.display_id])


def credential_url(certificate: Certificate) -> str:
    return settings.SITE_URL + reverse("quizzes_api:certificate", args=[certificate.display_id])


def achievement_id() -> str:
    with translation.override("en"):
        return settings.SITE_URL + reverse("quizzes:quiz", args=[EXAM_SLUG])


def credential_payload(certificate: Certificate) -> dict:
    issued = certificate.issued_at.replace(microsecond=0)
    achievement = achievement_id()
    return {
        "@context": CONTEXT,
        "id": credential_url(certificate),
        "type": ["VerifiableCredential", "OpenBadgeCredential"],
        "name": f"{COURSE_NAME}: certificate of completion",
        "issuer": {"id": issuer_id(), "type": ["Profile"], "name": settings.CERT_ISSUER_NAME, "url": issuer_id()},
        "validFrom": issued.strftime("%Y-%m-%dT%H:%M:%SZ"),
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
        "jti": credential_url(certificate),
        "nbf": int(issued.timestamp()),
    }


def credential_sign(certificate: Certificate) -> tuple[str, str]:
    """(kid, compact JWS) for the certificate, signed with the active key."""
    key = keys.active_key()
    header = {"alg": ALGORITHM, "typ": "JWT", "kid": key.kid}
    payload = json.dumps(credential_payload(certificate), ensure_ascii=False, separators=(",", ":")).encode()
    with warnings.catch_warnings():
        # RFC 9864 prefers the name "Ed25519", but OB 3.0 verifiers and JOSE libraries expect "EdDSA".
        warnings.simplefilter("ignore", SecurityWarning)
        token = jws.serialize_compact(header, payload, key, algorithms=[ALGORITHM])
    return key.kid, token
