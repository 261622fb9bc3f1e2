"""A certificate as the site issued it before issue 30 (fixtures/legacy_credential.json): EdDSA, the
bare RFC 7638 thumbprint as kid, the page as id and jti, no sub, a BitstringStatusListEntry as
credentialStatus; and the key directory of a site that signed it (that key active).

Signed for http://127.0.0.1:8000. A live server listens elsewhere, so for it the same credential is
signed again with the same key and header for the live server's address (the origin is the only
change): that is what the old code would have issued there."""

import json
import os
import warnings
from datetime import datetime
from pathlib import Path

from joserfc import jws
from joserfc.jwk import OKPKey

from tests.certificates.ob_verifier import unverified_header, unverified_payload

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "legacy_credential.json").read_text())
SITE_URL = FIXTURE["site_url"]
ROW = FIXTURE["certificate"]


def key() -> OKPKey:
    return OKPKey.import_key(FIXTURE["private_key_pem"])


def token_for(site_url: str) -> str:
    if site_url == SITE_URL:
        return ROW["credential"]
    payload = json.loads(json.dumps(unverified_payload(ROW["credential"])).replace(SITE_URL, site_url))
    body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # joserfc prefers the newer name "Ed25519"; the old code used "EdDSA"
        return jws.serialize_compact(unverified_header(ROW["credential"]), body, key(), algorithms=["EdDSA"])


def install(key_dir: Path, site_url: str = SITE_URL):
    """The signing key in `key_dir`, active as it was then, and the certificate row."""
    from certificates.models import Certificate

    key_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(key_dir / f"{ROW['kid']}.pem", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(FIXTURE["private_key_pem"])
    (key_dir / "active").write_text(ROW["kid"])
    fields = {name: ROW[name] for name in ("id", "name", "language", "score_percent", "score_band", "status_slot")}
    return Certificate.objects.create(
        **fields, issued_at=datetime.fromisoformat(ROW["issued_at"]), kid=ROW["kid"], credential=token_for(site_url)
    )
