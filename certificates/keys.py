"""The site's signing keys, kept outside the repository in settings.CERT_KEY_DIR.

    <CERT_KEY_DIR>/<thumbprint>.pem   every key ever used (PKCS#8, mode 600): RSA for RS256, Ed25519 for EdDSA
    <CERT_KEY_DIR>/active             the thumbprint of the key that signs new credentials

A key's file is named by its RFC 7638 thumbprint. The `kid` in a signature's header is the URL that
serves the public key as a JWK (key_url): OB 3.0 asks for "a URI that can be dereferenced to an
object of type JWK" (https://www.imsglobal.org/spec/ob/v3p0/#joseheader). Credentials signed
before that carry the bare thumbprint as their kid; credentials.published_jwks lists their keys
under it too.

settings.CERT_SIGNING_ALGORITHM picks the algorithm (RS256, the one OB 3.0 requires every verifier to
support, or EdDSA). When the active key is of the other kind, the next signature makes a key of the
chosen kind and activates it: the old key is retired, never deleted. Retired keys stay on disk and
in the JWKS, since credentials signed with them must stay verifiable.
"""

import fcntl
import json
import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from django.conf import settings
from django.urls import reverse
from joserfc import jws
from joserfc.errors import SecurityWarning
from joserfc.jwk import OKPKey, RSAKey

ACTIVE_FILE = "active"
LOCK_FILE = ".lock"
RS256 = "RS256"
EDDSA = "EdDSA"
ALGORITHMS = (RS256, EDDSA)
# RFC 7518 section 3.3 asks for at least 2048 bits; 3072 bits (about 128-bit security, NIST SP 800-57
# part 1) because a certificate never expires and its signature must stay unforgeable for decades.
RSA_KEY_BITS = 3072

SigningKey = RSAKey | OKPKey


def key_dir() -> Path:
    path = Path(settings.CERT_KEY_DIR)
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


def algorithm_of(key: SigningKey) -> str:
    return RS256 if isinstance(key, RSAKey) else EDDSA


def key_url(thumbprint: str) -> str:
    """The key's `kid`: the address that answers its public JWK."""
    return settings.SITE_URL + reverse("api:certificate_key", args=[thumbprint])


@contextmanager
def _locked(directory: Path) -> Iterator[None]:
    """One process at a time makes or activates a key (several web and worker processes may sign)."""
    fd = os.open(directory / LOCK_FILE, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _generate(algorithm: str) -> SigningKey:
    if algorithm == RS256:
        return RSAKey.generate_key(RSA_KEY_BITS, private=True)
    return OKPKey.generate_key("Ed25519", private=True)


def _write_new_key(directory: Path, algorithm: str) -> str:
    key = _generate(algorithm)
    thumbprint = key.thumbprint()
    fd = os.open(directory / f"{thumbprint}.pem", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(key.as_pem(private=True))
    return thumbprint


def _activate(directory: Path, thumbprint: str) -> None:
    temporary = directory / f"{ACTIVE_FILE}.{os.getpid()}"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(thumbprint)
    os.replace(temporary, directory / ACTIVE_FILE)


def _active_thumbprint(directory: Path) -> str | None:
    path = directory / ACTIVE_FILE
    if not path.exists():
        return None
    return path.read_text().strip() or None


@lru_cache(maxsize=64)
def _parse(path: str, modified_ns: int) -> SigningKey:
    # Our own files: cryptography's RSA consistency check (about 0.25 s for a 3072-bit key) is skipped.
    private = serialization.load_pem_private_key(
        Path(path).read_bytes(), password=None, unsafe_skip_rsa_key_validation=True
    )
    thumbprint = Path(path).stem
    if isinstance(private, rsa.RSAPrivateKey):
        return RSAKey.import_key(private, {"kid": thumbprint})
    return OKPKey.import_key(private, {"kid": thumbprint})


def _load(path: Path) -> SigningKey:
    return _parse(str(path), path.stat().st_mtime_ns)


def _active_matches(directory: Path, thumbprint: str | None) -> bool:
    return bool(thumbprint) and algorithm_of(_load(directory / f"{thumbprint}.pem")) == settings.CERT_SIGNING_ALGORITHM


def ensure_signing_key() -> tuple[str, bool]:
    """(thumbprint, created): the active key, made first if there is none or if it is not of the
    configured algorithm. Safe to run again, and from several processes at once."""
    directory = key_dir()
    thumbprint = _active_thumbprint(directory)
    if _active_matches(directory, thumbprint):
        return thumbprint, False
    with _locked(directory):
        thumbprint = _active_thumbprint(directory)  # another process may have made it meanwhile
        if _active_matches(directory, thumbprint):
            return thumbprint, False
        thumbprint = _write_new_key(directory, settings.CERT_SIGNING_ALGORITHM)
        _activate(directory, thumbprint)
        return thumbprint, True


def rotate_signing_key() -> tuple[str, str | None]:
    """(new thumbprint, retired thumbprint): new credentials are signed with a fresh key of the
    configured algorithm; the old one is kept and stays published."""
    directory = key_dir()
    with _locked(directory):
        retired = _active_thumbprint(directory)
        thumbprint = _write_new_key(directory, settings.CERT_SIGNING_ALGORITHM)
        _activate(directory, thumbprint)
    return thumbprint, retired


def active_key() -> SigningKey:
    thumbprint, _created = ensure_signing_key()
    return _load(key_dir() / f"{thumbprint}.pem")


def all_keys() -> list[SigningKey]:
    """Every key ever used, the active one first, then the retired ones from the newest."""
    directory = key_dir()
    active = _active_thumbprint(directory)
    paths = sorted(directory.glob("*.pem"), key=lambda p: (p.stem != active, -p.stat().st_mtime_ns, p.stem))
    return [_load(path) for path in paths]


def public_jwk(key: SigningKey, kid: str) -> dict:
    """The public half as a JWK, never with private members ("d", "p", ...)."""
    return {**key.as_dict(private=False, use="sig", alg=algorithm_of(key)), "kid": kid}


def find_key(thumbprint: str) -> SigningKey | None:
    return next((key for key in all_keys() if key.kid == thumbprint), None)


def sign(payload: dict, typ: str) -> tuple[str, str]:
    """(kid, compact JWS) of the JSON payload, signed with the active key; the header carries only
    alg, typ and kid (OB 3.0 allows no other JOSE header)."""
    key = active_key()
    algorithm = algorithm_of(key)
    kid = key_url(key.kid)
    header = {"alg": algorithm, "typ": typ, "kid": kid}
    body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    with warnings.catch_warnings():
        # RFC 9864 prefers the name "Ed25519", but OB 3.0 verifiers and JOSE libraries expect "EdDSA".
        warnings.simplefilter("ignore", SecurityWarning)
        token = jws.serialize_compact(header, body, key, algorithms=[algorithm])
    return kid, token
