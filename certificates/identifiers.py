"""The identifiers a credential carries, chosen so that none of them says more about the learner than
the certificate itself does.

- The credential's `id` (its `jti`) and the learner's `credentialSubject.id` (its `sub`) are
  `urn:uuid:` names derived from the certificate's 160 random ID bits (name-based UUIDs, RFC 9562
  section 5.5). They are stable (signing the same certificate again gives the same ones), need no
  column, and cannot be turned back into the certificate ID, so a list of revoked credential ids
  (certificates/revocation_list.py) leads nobody to a certificate page, a name or a reason.
- The subject id is one per certificate, not one per learner: a per-learner id would tie together
  every credential the learner ever held (a revoked one and the one earned again later, or the
  credential under a former name and the corrected one), for anyone who sees two of them.
- The name stays the learner-facing `identifier` (identityType "name"), in plain text, or, with
  settings.CERT_IDENTIFIER_HASHED, as the salted SHA-256 IdentityHash OB 3.0 recommends. The salt is
  per certificate, so the same name hashes differently on every credential.
"""

import hashlib
import unicodedata
import uuid

from django.conf import settings

from .models import Certificate

# The namespace of this course's credential and subject names. Never change it: every issued
# credential's id and subject were derived from it.
NAMESPACE = uuid.UUID("dc708907-dfa8-4c4d-a560-160d8c54882a")


def credential_uri(certificate: Certificate) -> str:
    return f"urn:uuid:{uuid.uuid5(NAMESPACE, 'credential ' + certificate.id)}"


def subject_uri(certificate: Certificate) -> str:
    return f"urn:uuid:{uuid.uuid5(NAMESPACE, 'subject ' + certificate.id)}"


def identity_salt(certificate: Certificate) -> str:
    return hashlib.sha256(f"identity salt {certificate.id}".encode()).hexdigest()[:32]


def identity_hash(name: str, salt: str) -> str:
    """OB 3.0 IdentityHash: "sha256$" and the hex SHA-256 of the UTF-8 identifier followed by the salt.
    The name is taken in Unicode NFC, the form a verifier gets by typing it from the certificate."""
    digest = hashlib.sha256((unicodedata.normalize("NFC", name) + salt).encode()).hexdigest()
    return f"sha256${digest}"


def identity(certificate: Certificate) -> dict:
    """The credentialSubject's IdentityObject for the name as issued."""
    if not settings.CERT_IDENTIFIER_HASHED:
        return {"type": "IdentityObject", "identityType": "name", "hashed": False, "identityHash": certificate.name}
    salt = identity_salt(certificate)
    return {
        "type": "IdentityObject",
        "identityType": "name",
        "hashed": True,
        "identityHash": identity_hash(certificate.name, salt),
        "salt": salt,
    }
