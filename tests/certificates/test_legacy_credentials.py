"""A credential issued before issue 30 (EdDSA, bare-thumbprint kid, no sub, the page as id, a
BitstringStatusListEntry), exactly as stored then (fixtures/legacy_credential.json), keeps verifying
after the change: its key is still published under the kid it carries, its status list still
answers, and a site that now signs with RS256 keeps its old key."""

import pytest
from django.core.management import call_command

from tests.certificates import legacy
from tests.certificates.ob_verifier import (
    ACHIEVEMENT_CREDENTIAL_SCHEMA,
    NotVerified,
    Verifier,
    schema_errors,
    unverified_header,
)

ISSUER = legacy.SITE_URL + "/"


@pytest.fixture
def old_site(settings, signing_key_dir, db):
    settings.SITE_URL = legacy.SITE_URL
    return legacy.install(signing_key_dir)


@pytest.fixture
def verifier(client) -> Verifier:
    """The verifier's GETs, answered by the site through Django's test client."""

    def get(url: str, accept: str) -> tuple[int, bytes]:
        assert url.startswith(legacy.SITE_URL), url
        response = client.get(url.removeprefix(legacy.SITE_URL), headers={"Accept": accept})
        return response.status_code, response.content

    return Verifier(get)


def test_the_stored_credential_verifies_against_the_published_keys(old_site, verifier):
    token = old_site.credential
    assert token == legacy.ROW["credential"]  # the bytes issued then, untouched
    assert unverified_header(token) == {"alg": "EdDSA", "typ": "JWT", "kid": legacy.ROW["kid"]}
    claims = verifier.verify_with_issuer_keys(token, ISSUER, required=["iss", "jti", "nbf"])
    assert claims["jti"] == claims["id"] == f"{legacy.SITE_URL}/hi/certificates/{old_site.display_id}/"
    assert "sub" not in claims and "id" not in claims["credentialSubject"]
    assert schema_errors(claims, ACHIEVEMENT_CREDENTIAL_SCHEMA) == []  # OB 3.0 allows identifier without id


def test_its_key_is_published_under_both_its_old_kid_and_its_url(old_site, verifier):
    keys = verifier.issuer_jwks(ISSUER)["keys"]
    by_kid = {key["kid"]: key for key in keys}
    url_kid = f"{legacy.SITE_URL}/api/certificates/keys/{legacy.ROW['kid']}"
    assert set(by_kid) == {url_kid, legacy.ROW["kid"]}
    assert by_kid[url_kid]["x"] == by_kid[legacy.ROW["kid"]]["x"] and by_kid[url_kid]["alg"] == "EdDSA"
    assert verifier.dereference_kid(url_kid, ISSUER) == by_kid[url_kid]


def test_a_strict_ob30_verifier_says_exactly_what_it_lacks(old_site, verifier):
    """What the old format misses, and why it is not re-signed: the bytes in the learner's PDF are the
    ones that must keep verifying."""
    with pytest.raises(NotVerified, match="is not a URL"):
        verifier.verify(old_site.credential, ISSUER)
    with pytest.raises(Exception, match='"sub"'):
        verifier.verify_with_issuer_keys(old_site.credential, ISSUER)


def test_its_status_list_entry_still_says_valid_then_revoked(old_site, verifier):
    entry = verifier.verify_with_issuer_keys(old_site.credential, ISSUER, required=["iss"])["credentialStatus"]
    assert entry["statusListCredential"] == f"{legacy.SITE_URL}/api/certificates/status/1"
    assert verifier.revoked_by_bitstring(entry, ISSUER) is False
    call_command("revoke_certificate", old_site.display_id, reason="Issued by mistake.")
    assert verifier.revoked_by_bitstring(entry, ISSUER) is True
    record = verifier.fetch_json(f"{legacy.SITE_URL}/api/certificates/{old_site.display_id}")
    assert record["status"] == "revoked" and record["status_list_entry"] == entry


def test_a_site_that_now_signs_with_rs256_keeps_the_old_key(old_site, verifier, learner, passed_exam, learner_client):
    """The first RS256 signature after the upgrade makes an RSA key and retires the Ed25519 one."""
    from django.urls import reverse

    from certificates.models import Certificate

    learner_client.post(reverse("certificates:claim", args=["final-exam", passed_exam.key]))
    new = Certificate.objects.get(user=learner)
    assert unverified_header(new.credential)["alg"] == "RS256"
    keys = verifier.issuer_jwks(ISSUER)["keys"]
    assert [key["kty"] for key in keys] == ["RSA", "OKP", "OKP"]  # active first; the old key twice
    assert keys[0]["kid"] == new.kid
    assert verifier.verify(new.credential, ISSUER)["sub"].startswith("urn:uuid:")
    verifier.verify_with_issuer_keys(old_site.credential, ISSUER, required=["iss", "jti", "nbf"])
