"""An Open Badges 3.0 verifier written from the specifications, not from the site's code: it imports
nothing from `certificates`, reads everything through HTTP GETs like a wallet or an LMS would, and
uses only PyJWT, joserfc and jsonschema.

What it follows:
- OB 3.0 "Verify a Credential" (https://www.imsglobal.org/spec/ob/v3p0/#jwt-verify): dereference the
  header's kid to a JWK, check the signature, then the claims: iss = issuer.id, sub =
  credentialSubject.id, nbf = validFrom, jti = id, every one of them present. The key is taken only
  from the issuer: the kid must be a URL on the issuer's own origin (scheme, host and port compared
  parsed, no user info) and name a key of the issuer's JWK Set, and the JWK it dereferences to must
  be that key. A verifier that trusts whatever JWK the kid serves accepts anyone's signature over
  the issuer's name: the forger serves their own key and names the issuer as iss.
- OB 3.0 "OpenBadgeCredential Verification" (#verification): 1EdTech's AchievementCredential JSON
  Schema (a copy in schemas/), the status through 1EdTechRevocationList
  (https://www.imsglobal.org/spec/vcrl/v1p0/), the recipient through a known identifier (#verify-identifier).
- W3C Bitstring Status List v1.0 (https://www.w3.org/TR/vc-bitstring-status-list/) for the other
  status method: a signed list credential, multibase base64url of GZIP, bit 0 the first byte's MSB.
- draft-ietf-oauth-sd-jwt-vc, JWT VC Issuer Metadata: /.well-known/jwt-vc-issuer from `iss`.

`Verifier(get)` takes the GET it uses: http_get over the network against a live server, or any
callable with its signature.
"""

import base64
import gzip
import hashlib
import json
import urllib.error
import urllib.request
import warnings
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import jsonschema
import jwt as pyjwt
from joserfc import jwt as jose_jwt
from joserfc.errors import SecurityWarning
from joserfc.jwk import KeySet, import_key

SCHEMAS = Path(__file__).parent / "schemas"
ACHIEVEMENT_CREDENTIAL_SCHEMA = json.loads((SCHEMAS / "achievementcredential.json").read_text())
PROFILE_SCHEMA = json.loads((SCHEMAS / "profile.json").read_text())
ALGORITHMS = ["RS256", "EdDSA"]
REQUIRED_CLAIMS = ["iss", "sub", "jti", "nbf"]
MIN_ENTRIES = 131_072  # Bitstring Status List: the least number of entries a list may have

Get = Callable[[str, str], tuple[int, bytes]]


class NotVerified(Exception):
    """The credential fails a step of verification."""


def http_get(url: str, accept: str) -> tuple[int, bytes]:
    """(status, body) of a GET over the network, errors included."""
    request = urllib.request.Request(url, headers={"Accept": accept})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def unverified_header(token: str) -> dict:
    return pyjwt.get_unverified_header(token)


def unverified_payload(token: str) -> dict:
    return pyjwt.decode(token, options={"verify_signature": False})


def schema_errors(document: dict, schema: dict) -> list[str]:
    validator = jsonschema.validators.validator_for(schema)(schema, format_checker=jsonschema.FormatChecker())
    return [f"{list(error.path)}: {error.message}" for error in validator.iter_errors(document)]


def _numeric_date(text: str) -> int:
    return int(datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC).timestamp())


def check_claims_match_the_credential(claims: dict) -> None:
    """OB 3.0 "Verify a Credential VC-JWT Signature": each registered claim equals its property."""
    issuer = claims["issuer"]
    expected = {
        "iss": issuer["id"] if isinstance(issuer, dict) else issuer,
        "sub": claims["credentialSubject"].get("id"),
        "jti": claims.get("id"),
        "nbf": _numeric_date(claims["validFrom"]),
    }
    for claim, value in expected.items():
        if claims.get(claim) != value:
            raise NotVerified(f"{claim} {claims.get(claim)!r} is not {value!r}")


def verify_with_pyjwt(token: str, jwk: dict, issuer: str, required: list[str] = REQUIRED_CLAIMS) -> dict:
    return pyjwt.decode(
        token, key=pyjwt.PyJWK.from_dict(jwk), algorithms=ALGORITHMS, issuer=issuer, options={"require": required}
    )


def verify_with_joserfc(token: str, jwk: dict, issuer: str) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SecurityWarning)  # joserfc prefers RFC 9864's "Ed25519" to "EdDSA"
        decoded = jose_jwt.decode(token, import_key(jwk), algorithms=ALGORITHMS)
    registry = jose_jwt.JWTClaimsRegistry(
        iss={"essential": True, "value": issuer},
        sub={"essential": True},
        jti={"essential": True},
        nbf={"essential": True},
    )
    registry.validate(decoded.claims)
    return decoded.claims


def recipient_matches(claims: dict, known_name: str) -> bool:
    """OB 3.0 "Verify the Recipient Using an Identifier", with a known name."""
    for identifier in claims["credentialSubject"].get("identifier", []):
        if identifier["identityType"] != "name":
            continue
        if not identifier["hashed"]:
            if identifier["identityHash"] == known_name:
                return True
            continue
        algorithm, _dollar, digest = identifier["identityHash"].partition("$")
        salted = (known_name + identifier.get("salt", "")).encode()
        if algorithm == "sha256" and hashlib.sha256(salted).hexdigest() == digest.lower():
            return True
    return False


def origin(url: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of an http(s) URL, the port filled in from the scheme; None for a URL
    with user info (`https://issuer@forger/` is the forger's host), a bad port or another scheme."""
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname or "@" in parts.netloc:
        return None
    return parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80)


def same_origin(url: str, issuer: str) -> bool:
    """`url` is served by the issuer's own site: the same scheme, host and port, compared parsed
    (a prefix test of the text passes `https://issuer.example@forger.example/`)."""
    return origin(url) is not None and origin(url) == origin(issuer)


def _bitstring(encoded: str) -> bytes:
    if not encoded.startswith("u"):
        raise NotVerified("encodedList is not multibase base64url")
    body = encoded[1:]
    return gzip.decompress(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))


class Verifier:
    def __init__(self, get: Get = http_get) -> None:
        self.get = get

    def fetch(self, url: str, accept: str = "application/json") -> bytes:
        status, body = self.get(url, accept)
        if status != 200:
            raise NotVerified(f"GET {url} answered {status}")
        return body

    def fetch_json(self, url: str) -> dict:
        return json.loads(self.fetch(url))

    def dereference_kid(self, kid: str, issuer: str) -> dict:
        """OB 3.0 "Dereferencing the Public Key": the kid is an HTTP URL whose answer is a JWK; here
        also a URL of the issuer's origin, answering the key the issuer's JWK Set lists under it."""
        if urlsplit(kid).scheme not in ("http", "https"):
            raise NotVerified(f"kid {kid!r} is not a URL")
        if not same_origin(kid, issuer):
            raise NotVerified(f"kid {kid!r} is not on the origin of the issuer {issuer!r}")
        published = self.issuer_key_by_kid(kid, issuer)  # before any GET of the kid itself
        jwk = self.fetch_json(kid)
        if {"d", "p", "q", "dp", "dq", "qi"} & set(jwk):
            raise NotVerified("the published JWK holds private key material")
        if jwk != published:
            raise NotVerified(f"kid {kid!r} answers another key than the issuer's JWK Set lists under it")
        return jwk

    def verify(self, token: str, issuer: str) -> dict:
        """Every step of OB 3.0 verification but the status: the verified payload."""
        header = unverified_header(token)
        if set(header) - {"alg", "kid", "jwk", "typ"}:
            raise NotVerified(f"JOSE header {sorted(header)} has members OB 3.0 does not allow")
        jwk = self.dereference_kid(header["kid"], issuer)
        claims = verify_with_pyjwt(token, jwk, issuer)
        if verify_with_joserfc(token, jwk, issuer) != claims:
            raise NotVerified("PyJWT and joserfc read different claims")
        check_claims_match_the_credential(claims)
        errors = schema_errors(claims, ACHIEVEMENT_CREDENTIAL_SCHEMA)
        if errors:
            raise NotVerified(f"1EdTech's AchievementCredential schema: {errors}")
        return claims

    def revoked_by_1edtech_list(self, claims: dict) -> bool:
        """1EdTech Revocation List Status Method: revoked when the credential's id is listed with
        `revoked` true or absent."""
        status = claims["credentialStatus"]
        if status["type"] != "1EdTechRevocationList":
            raise NotVerified(f"credentialStatus is a {status['type']}")
        listed = self.fetch_json(status["id"])
        if listed.get("id") != status["id"] or listed.get("issuer") != claims["iss"]:
            raise NotVerified("the revocation list is not the one the credential names, or not its issuer's")
        return any(item["id"] == claims["id"] and item.get("revoked", True) for item in listed["revokedCredential"])

    def revoked_by_bitstring(self, entry: dict, issuer: str) -> bool:
        """W3C Bitstring Status List: the signed list credential, and the entry's bit in it."""
        if entry["type"] != "BitstringStatusListEntry" or entry["statusPurpose"] != "revocation":
            raise NotVerified(f"not a revocation BitstringStatusListEntry: {entry}")
        token = self.fetch(entry["statusListCredential"], accept="application/vc+jwt").decode()
        if unverified_header(token)["typ"] != "vc+jwt":
            raise NotVerified("the status list is not a vc+jwt")
        listed = pyjwt.decode(
            token, key=pyjwt.PyJWK.from_dict(self.issuer_key(token, issuer)), algorithms=ALGORITHMS, issuer=issuer
        )
        subject = listed["credentialSubject"]
        if listed["id"] != entry["statusListCredential"] or subject["statusPurpose"] != entry["statusPurpose"]:
            raise NotVerified("the status list is not the one the entry names")
        bits = _bitstring(subject["encodedList"])
        if len(bits) * 8 < MIN_ENTRIES:
            raise NotVerified("the status list is shorter than the spec's 131,072 entries")
        index = int(entry["statusListIndex"])
        return bool((bits[index // 8] >> (7 - index % 8)) & 1)

    def issuer_metadata(self, issuer: str) -> dict:
        """JWT VC Issuer Metadata at /.well-known/jwt-vc-issuer inserted between host and path (any
        terminating "/" of the path removed)."""
        parts = urlsplit(issuer)
        path = "/.well-known/jwt-vc-issuer" + parts.path.rstrip("/")
        metadata = self.fetch_json(urlunsplit((parts.scheme, parts.netloc, path, "", "")))
        if metadata.get("issuer") != issuer:
            raise NotVerified(f"metadata issuer {metadata.get('issuer')!r} is not {issuer!r}")
        if ("jwks" in metadata) == ("jwks_uri" in metadata):
            raise NotVerified("the metadata must have exactly one of jwks and jwks_uri")
        return metadata

    def issuer_jwks(self, issuer: str) -> dict:
        metadata = self.issuer_metadata(issuer)
        if "jwks_uri" in metadata and not same_origin(metadata["jwks_uri"], issuer):
            raise NotVerified(f"jwks_uri {metadata['jwks_uri']!r} is not on the origin of the issuer {issuer!r}")
        jwks = metadata["jwks"] if "jwks" in metadata else self.fetch_json(metadata["jwks_uri"])
        KeySet.import_key_set(jwks)  # a valid JWK Set, or this raises
        return jwks

    def issuer_key_by_kid(self, kid: str, issuer: str) -> dict:
        """The key the issuer's own JWK Set (the one its metadata points to) lists under `kid`."""
        jwk = next((key for key in self.issuer_jwks(issuer)["keys"] if key.get("kid") == kid), None)
        if jwk is None:
            raise NotVerified(f"no published key has kid {kid!r}")
        return jwk

    def issuer_key(self, token: str, issuer: str) -> dict:
        """The key a token's kid names in the JWK Set the issuer metadata points to."""
        return self.issuer_key_by_kid(unverified_header(token)["kid"], issuer)

    def verify_with_issuer_keys(self, token: str, issuer: str, required: list[str] = REQUIRED_CLAIMS) -> dict:
        """The other way to the key: the issuer metadata's JWK Set, looked up by kid."""
        return verify_with_pyjwt(token, self.issuer_key(token, issuer), issuer, required)
