"""The signed credential, checked the way an employer would: PyJWT (not our signing library) and the
published JWKS, nothing else from the site."""

import base64
import copy
import json

import jwt
import pytest
from django.core.management import call_command
from django.urls import reverse

from certificates.models import Certificate


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(part: str) -> bytes:
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def verify(client, token: str) -> dict:
    keys = jwt.PyJWKSet.from_dict(client.get("/.well-known/jwks.json").json())
    kid = jwt.get_unverified_header(token)["kid"]
    key = next(k for k in keys.keys if k.key_id == kid)
    return jwt.decode(
        token,
        key=key,
        algorithms=["RS256", "EdDSA"],
        issuer="http://127.0.0.1:8000/",
        options={"require": ["iss", "sub", "nbf", "jti"]},
    )


def leaf_paths(value, path=()):
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaf_paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from leaf_paths(item, (*path, index))
    else:
        yield path


def tampered(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    return f"{value}x"


@pytest.fixture
def token(client, certificate, settings) -> str:
    settings.SITE_URL = "http://127.0.0.1:8000"
    return client.get(reverse("api:certificate", args=[certificate.display_id])).json()["credential"]


def test_the_credential_verifies_against_the_published_keys(client, token, certificate):
    claims = verify(client, token)
    assert claims["type"] == ["VerifiableCredential", "OpenBadgeCredential"]
    assert claims["credentialSubject"]["identifier"][0]["identityHash"] == "Asha Verma"
    assert claims["credentialSubject"]["result"][0]["value"] == "90–100%"
    assert claims["jti"] == claims["id"] and claims["sub"] == claims["credentialSubject"]["id"]
    assert certificate.display_id in claims["evidence"][0]["id"]
    assert claims["nbf"] == int(certificate.issued_at.replace(microsecond=0).timestamp())
    header = jwt.get_unverified_header(token)
    assert header == {"alg": "RS256", "typ": "JWT", "kid": certificate.kid}
    assert certificate.kid.startswith("http://127.0.0.1:8000/api/certificates/keys/")


def test_every_tampered_field_fails_verification(client, token):
    header, payload, signature = token.split(".")
    claims = json.loads(unb64(payload))
    paths = list(leaf_paths(claims))
    assert len(paths) > 25
    for path in paths:
        changed = copy.deepcopy(claims)
        target = changed
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = tampered(target[path[-1]])
        forged = ".".join([header, b64(json.dumps(changed, ensure_ascii=False).encode()), signature])
        with pytest.raises(jwt.InvalidSignatureError):
            verify(client, forged)


def test_a_tampered_header_or_signature_fails(client, token):
    header, payload, signature = token.split(".")
    flipped = bytearray(unb64(signature))
    flipped[0] ^= 1
    with pytest.raises(jwt.InvalidSignatureError):
        verify(client, ".".join([header, payload, b64(bytes(flipped))]))
    unsigned = b64(json.dumps({"alg": "none", "kid": jwt.get_unverified_header(token)["kid"]}).encode())
    with pytest.raises(jwt.InvalidTokenError):
        verify(client, f"{unsigned}.{payload}.")
    other_kid = b64(json.dumps({"alg": "RS256", "typ": "JWT", "kid": "someone-else"}).encode())
    with pytest.raises(StopIteration):  # no such key is published
        verify(client, f"{other_kid}.{payload}.{signature}")
    kid = jwt.get_unverified_header(token)["kid"]
    as_eddsa = b64(json.dumps({"alg": "EdDSA", "typ": "JWT", "kid": kid}).encode())
    with pytest.raises(jwt.InvalidTokenError):  # an RSA key never verifies as another algorithm
        verify(client, f"{as_eddsa}.{payload}.{signature}")


def test_after_rotation_old_credentials_still_verify_and_new_ones_use_the_new_key(
    client, token, certificate, learner_client
):
    call_command("rotate_signing_key")
    keys = client.get("/.well-known/jwks.json").json()["keys"]
    assert len(keys) == 2 and keys[1]["kid"] == certificate.kid  # retired, still published
    assert verify(client, token)["evidence"][0]["id"].endswith(f"/certificates/{certificate.display_id}/")
    learner_client.post(reverse("certificates:correct_name", args=[certificate.display_id]), {"full_name": "Asha V."})
    replacement = Certificate.objects.get(name="Asha V.")
    assert replacement.kid == keys[0]["kid"] != certificate.kid
    new_token = client.get(reverse("api:certificate", args=[replacement.display_id])).json()["credential"]
    assert verify(client, new_token)["credentialSubject"]["identifier"][0]["identityHash"] == "Asha V."


def test_the_jwks_publishes_only_public_keys(client, certificate):
    response = client.get("/.well-known/jwks.json")
    assert response["Access-Control-Allow-Origin"] == "*"
    (key,) = response.json()["keys"]
    assert set(key) == {"kty", "n", "e", "kid", "use", "alg"}
    assert (key["kty"], key["alg"], key["kid"]) == ("RSA", "RS256", certificate.kid)
    assert len(jwt.utils.base64url_decode(key["n"])) * 8 == 3072


def test_with_eddsa_the_jwks_publishes_an_ed25519_key(client, settings, learner_client, passed_exam):
    settings.CERT_SIGNING_ALGORITHM = "EdDSA"
    learner_client.post(reverse("certificates:claim", args=["final-exam", passed_exam.key]))
    certificate = Certificate.objects.get()
    (key,) = client.get("/.well-known/jwks.json").json()["keys"]
    assert set(key) == {"kty", "crv", "x", "kid", "use", "alg"}
    assert (key["kty"], key["crv"], key["alg"], key["kid"]) == ("OKP", "Ed25519", "EdDSA", certificate.kid)
    assert jwt.get_unverified_header(certificate.credential)["alg"] == "EdDSA"


def test_a_kid_url_answers_its_public_jwk(client, certificate):
    path = certificate.kid.removeprefix("http://127.0.0.1:8000")
    response = client.get(path)
    assert response.status_code == 200 and response["Access-Control-Allow-Origin"] == "*"
    assert response.json() == client.get("/.well-known/jwks.json").json()["keys"][0]
    missing = client.get("/api/certificates/keys/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
    assert missing.status_code == 404 and "key" in missing.json()["error"]


def test_the_key_documents_are_public_and_cacheable(client, certificate):
    paths = {
        "/.well-known/jwt-vc-issuer": 3600,
        "/.well-known/jwks.json": 300,
        "/api/certificates/issuer": 300,
        certificate.kid.removeprefix("http://127.0.0.1:8000"): 86_400,  # a key never changes
    }
    for path, max_age in paths.items():
        response = client.get(path)
        assert response.status_code == 200 and response["Content-Type"] == "application/json", path
        assert (
            response["Access-Control-Allow-Origin"] == "*" and response["Cache-Control"] == f"public, max-age={max_age}"
        )
