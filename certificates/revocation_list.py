"""Certificate status as a 1EdTech Revocation List (https://www.imsglobal.org/spec/vcrl/v1p0/), the one
status method the Open Badges 3.0 verification steps read (https://www.imsglobal.org/spec/ob/v3p0/#verification).

A credential's `credentialStatus` is {"id": <list URL>, "type": "1EdTechRevocationList"}. A verifier
GETs that URL and finds the credential revoked when its `id` is in the list's `revokedCredential`
with `revoked` true or absent. `revokedCredential` (singular) is the name 1EdTech's own validator
reads: https://github.com/1EdTech/digital-credentials-public-validator/blob/38254719cf0a490a403c9c812b01e6ab0678f2f3/inspector-vc/src/main/java/org/oneedtech/inspect/vc/probe/RevocationListProbe.java
(changed from "revokedCredentials" in its commit 45734fa, tested against 1EdTech's reference app).

List n holds the certificates of W3C status list n (status_list.py): one URL for up to 65,536
certificates, so fetching it says nothing about which credential is being checked. Revoked and
superseded certificates are listed alike, as on the bitstring. The list shows only credential ids,
which are urn:uuid names that lead to no certificate (identifiers.py), in sorted order (not the order
of revocation), and no revocation reason (a reason typed by staff could name someone; it stays on
the certificate's own page for whoever holds its ID). A withdrawn certificate whose credential
predates this list (it carries only the bitstring entry) is listed too, under an id its credential
does not have: that entry matches nothing and tells nothing.
"""

from django.conf import settings
from django.urls import reverse

from . import identifiers, status_list
from .models import Certificate

METHOD = "1EdTechRevocationList"


def list_url(number: int) -> str:
    return settings.SITE_URL + reverse("api:certificate_revocation_list", args=[number])


def entry(certificate: Certificate) -> dict:
    """The credential's `credentialStatus`."""
    return {"id": list_url(status_list.list_number(certificate)), "type": METHOD}


def document(number: int, issuer: str) -> dict:
    """Revocation list `number` (from 1), as JSON."""
    withdrawn = status_list.withdrawn(number).only("id")
    revoked = sorted(identifiers.credential_uri(certificate) for certificate in withdrawn)
    return {
        "id": list_url(number),
        "issuer": issuer,
        "revokedCredential": [{"id": credential_id, "revoked": True} for credential_id in revoked],
    }
