"""The site's Ed25519 signing keys, kept outside the repository in settings.CERT_KEY_DIR.

    <CERT_KEY_DIR>/<kid>.pem   every key ever used (PKCS#8, mode 600); kid = RFC 7638 thumbprint
    <CERT_KEY_DIR>/active      the kid that signs new certificates

Retired keys stay on disk and in the JWKS: certificates signed with them must stay verifiable.
"""

import json
import os
import warnings
from pathlib import Path

from django.conf import settings
from joserfc import jws
from joserfc.errors import SecurityWarning
from joserfc.jwk import OKPKey

ACTIVE_FILE = "active"
ALGORITHM = "EdDSA"


def key_dir() -> Path:
    path = Path(settings.CERT_KEY_DIR)
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


def _write_new_key(directory: Path) -> str:
    key = OKPKey.generate_key("Ed25519", private=True)
    kid = key.thumbprint()
    path = directory / f"{kid}.pem"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(key.as_pem(private=True))
    return kid


def _active_kid(directory: Path) -> str | None:
    path = directory / ACTIVE_FILE
    return path.read_text().strip() if path.exists() else None


def ensure_signing_key() -> tuple[str, bool]:
    """(kid, created): makes the first key if there is none. Safe to run again, and at once."""
    directory = key_dir()
    kid = _active_kid(directory)
    if kid:
        return kid, False
    kid = _write_new_key(directory)
    try:
        # O_EXCL: when two processes race on a fresh machine, the first `active` file wins.
        fd = os.open(directory / ACTIVE_FILE, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        (directory / f"{kid}.pem").unlink()
        return _active_kid(directory), False
    with os.fdopen(fd, "w") as handle:
        handle.write(kid)
    return kid, True


def rotate_signing_key() -> tuple[str, str | None]:
    """(new kid, retired kid): new certificates are signed with a fresh key; the old one is kept."""
    directory = key_dir()
    retired = _active_kid(directory)
    kid = _write_new_key(directory)
    temporary = directory / f"{ACTIVE_FILE}.{os.getpid()}"
    temporary.write_text(kid)
    temporary.chmod(0o600)
    os.replace(temporary, directory / ACTIVE_FILE)
    return kid, retired


def _load(path: Path) -> OKPKey:
    return OKPKey.import_key(path.read_bytes(), {"kid": path.stem})


def active_key() -> OKPKey:
    kid, _created = ensure_signing_key()
    return _load(key_dir() / f"{kid}.pem")


def jwks() -> dict:
    """The public keys as a JWK Set, the active key first, then the retired ones."""
    directory = key_dir()
    active = _active_kid(directory)
    paths = sorted(directory.glob("*.pem"), key=lambda p: (p.stem != active, p.stat().st_mtime))
    keys = [_load(path).as_dict(private=False, use="sig", alg=ALGORITHM) for path in paths]
    return {"keys": keys}


def sign(payload: dict, typ: str) -> tuple[str, str]:
    """(kid, compact JWS) of the JSON payload, signed with the active key."""
    key = active_key()
    header = {"alg": ALGORITHM, "typ": typ, "kid": key.kid}
    body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    with warnings.catch_warnings():
        # RFC 9864 prefers the name "Ed25519", but OB 3.0 verifiers and JOSE libraries expect "EdDSA".
        warnings.simplefilter("ignore", SecurityWarning)
        token = jws.serialize_compact(header, body, key, algorithms=[ALGORITHM])
    return key.kid, token
