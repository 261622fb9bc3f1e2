"""Credentials that carry their status, checked the way a third party would: 1EdTech's published OB 3.0
JSON Schema, PyJWT with the published JWKS, and the status list decoded here by hand (base64url,
gzip, bit order) from the W3C Bitstring Status List spec, not with the site's own code."""

import base64
import gzip
import io
import json
from pathlib import Path

import jsonschema
import jwt
import pytest
from django.core.management import call_command
from django.urls import reverse
from pypdf import PdfReader

from certificates import credentials, services, status_list
from certificates.models import Certificate

SITE = "http://127.0.0.1:8000"
SCHEMA = json.loads((Path(__file__).parent / "schemas" / "achievementcredential.json").read_text())


def published_key(client, token: str):
    keys = jwt.PyJWKSet.from_dict(client.get("/.well-known/jwks.json").json())
    kid = jwt.get_unverified_header(token)["kid"]
    return next(k for k in keys.keys if k.key_id == kid)


def verify(client, token: str) -> dict:
    return jwt.decode(token, key=published_key(client, token), algorithms=["EdDSA"], issuer=f"{SITE}/")


def fetch_status_list(client, url: str):
    assert url.startswith(SITE)
    return client.get(url.removeprefix(SITE))


def revoked_bit(list_token: str, index: int) -> int:
    """The bit, read as the spec says: multibase "u" + base64url of GZIP; bit 0 is the first byte's MSB."""
    encoded = jwt.decode(list_token, options={"verify_signature": False})["credentialSubject"]["encodedList"]
    assert encoded[0] == "u"
    bits = gzip.decompress(base64.urlsafe_b64decode(encoded[1:] + "=" * (-len(encoded[1:]) % 4)))
    assert len(bits) * 8 >= 131_072
    return (bits[index // 8] >> (7 - index % 8)) & 1


def bits_set(list_token: str) -> int:
    encoded = jwt.decode(list_token, options={"verify_signature": False})["credentialSubject"]["encodedList"]
    bits = gzip.decompress(base64.urlsafe_b64decode(encoded[1:] + "=" * (-len(encoded[1:]) % 4)))
    return sum(bin(byte).count("1") for byte in bits)


@pytest.fixture(autouse=True)
def site_url(settings):
    settings.SITE_URL = SITE


@pytest.fixture
def token(client, certificate) -> str:
    return client.get(reverse("api:certificate", args=[certificate.display_id])).json()["credential"]


def test_a_new_credential_validates_against_1edtechs_ob30_schema(client, token):
    claims = verify(client, token)
    validator = jsonschema.validators.validator_for(SCHEMA)(SCHEMA)
    assert validator.__class__.__name__ == "Draft201909Validator"
    errors = sorted(validator.iter_errors(claims), key=lambda e: list(e.path))
    assert errors == [], [f"{list(e.path)}: {e.message}" for e in errors]
    broken = {**claims, "credentialStatus": {"type": "BitstringStatusListEntry"}}  # the schema wants an id
    assert list(validator.iter_errors(broken))


def test_the_credential_id_is_its_public_page_and_carries_a_status_entry(client, token, certificate):
    claims = verify(client, token)
    page = f"{SITE}/en/certificates/{certificate.display_id}/"
    assert claims["id"] == claims["jti"] == page
    assert client.get(page.removeprefix(SITE)).status_code == 200
    entry = claims["credentialStatus"]
    index = int(entry["statusListIndex"])
    assert entry["type"] == "BitstringStatusListEntry" and entry["statusPurpose"] == "revocation"
    assert entry["statusListIndex"] == str(index) and 0 <= index < 131_072
    assert entry["statusListCredential"] == f"{SITE}/api/certificates/status/1"
    assert entry["id"] == f"{entry['statusListCredential']}#{index}"
    assert index == certificate.status_slot % 131_072


def test_the_status_list_is_a_signed_credential_that_says_valid(client, token):
    entry = verify(client, token)["credentialStatus"]
    response = fetch_status_list(client, entry["statusListCredential"])
    assert response.status_code == 200 and response["Content-Type"] == "application/vc+jwt"
    assert response["Cache-Control"] == "public, max-age=300" and response["Access-Control-Allow-Origin"] == "*"
    assert response["ETag"].startswith('"')
    list_token = response.content.decode()
    assert jwt.get_unverified_header(list_token)["typ"] == "vc+jwt"
    status = verify(client, list_token)
    assert status["type"] == ["VerifiableCredential", "BitstringStatusListCredential"]
    assert status["id"] == entry["statusListCredential"] and status["issuer"] == f"{SITE}/"
    subject = status["credentialSubject"]
    assert subject["type"] == "BitstringStatusList" and subject["statusPurpose"] == entry["statusPurpose"]
    assert revoked_bit(list_token, int(entry["statusListIndex"])) == 0 and bits_set(list_token) == 0


def test_after_revoke_certificate_the_same_jwt_reads_revoked_offline(client, token, certificate):
    entry = verify(client, token)["credentialStatus"]
    before = fetch_status_list(client, entry["statusListCredential"])
    out = io.StringIO()
    call_command("revoke_certificate", certificate.id.lower(), reason="Exam taken by someone else.", stdout=out)
    assert f"index {entry['statusListIndex']}" in out.getvalue()
    after = fetch_status_list(client, entry["statusListCredential"])
    assert after["ETag"] != before["ETag"]
    verify(client, after.content.decode())  # still signed by us
    assert revoked_bit(after.content.decode(), int(entry["statusListIndex"])) == 1
    assert bits_set(after.content.decode()) == 1
    assert verify(client, token)["credentialStatus"] == entry  # the JWT itself is unchanged: the list says


def test_a_name_correction_sets_the_old_bit_and_gives_the_new_credential_a_clear_one(client, token, certificate):
    entry = verify(client, token)["credentialStatus"]
    client.post(reverse("certificates:correct_name", args=[certificate.display_id]), {"full_name": "Asha V. Verma"})
    replacement = Certificate.objects.get(name="Asha V. Verma")
    new_entry = verify(client, replacement.credential)["credentialStatus"]
    assert new_entry["statusListIndex"] != entry["statusListIndex"]
    list_token = fetch_status_list(client, entry["statusListCredential"]).content.decode()
    assert revoked_bit(list_token, int(entry["statusListIndex"])) == 1
    assert revoked_bit(list_token, int(new_entry["statusListIndex"])) == 0


def test_an_unchanged_list_revalidates_with_its_etag(client, token, certificate):
    url = verify(client, token)["credentialStatus"]["statusListCredential"].removeprefix(SITE)
    first = client.get(url)
    again = client.get(url, headers={"If-None-Match": first["ETag"]})
    assert again.status_code == 304 and again["ETag"] == first["ETag"]
    assert client.get(url).content == first.content  # not signed again while the bits stay the same
    services.certificate_revoke(certificate=certificate, reason="Issued by mistake.")
    changed = client.get(url, headers={"If-None-Match": first["ETag"]})
    assert changed.status_code == 200 and changed.content != first.content


def test_lists_that_do_not_exist_are_a_json_404(client, certificate):
    for number in (0, 2, 99):
        response = client.get(f"/api/certificates/status/{number}")
        assert response.status_code == 404 and "status list" in response.json()["error"]


def test_a_full_list_sends_new_certificates_to_the_next_one(client, certificate, monkeypatch, learner):
    monkeypatch.setattr(status_list, "FILL_LIMIT", 1)  # the first list is "half full" with one certificate
    replacement = services.certificate_correct_name(certificate=certificate, user=learner, name="Asha V.")
    assert replacement.status_slot // 131_072 == 1
    entry = verify(client, replacement.credential)["credentialStatus"]
    assert entry["statusListCredential"] == f"{SITE}/api/certificates/status/2"
    list_token = fetch_status_list(client, entry["statusListCredential"]).content.decode()
    assert revoked_bit(list_token, int(entry["statusListIndex"])) == 0 and bits_set(list_token) == 0
    assert client.get("/api/certificates/status/3").status_code == 404


def test_a_slot_taken_meanwhile_is_drawn_again(certificate, monkeypatch, learner):
    draws = iter([certificate.status_slot, (certificate.status_slot + 1) % 131_072])
    monkeypatch.setattr(status_list, "slot_draw", lambda: next(draws))  # as if a concurrent issue took it
    replacement = services.certificate_correct_name(certificate=certificate, user=learner, name="Asha V.")
    assert replacement.status_slot == (certificate.status_slot + 1) % 131_072
    assert json.loads(base64.urlsafe_b64decode(replacement.credential.split(".")[1] + "==="))["credentialStatus"][
        "statusListIndex"
    ] == str(replacement.status_slot)


def test_slots_are_drawn_at_random(db):
    draws = {status_list.slot_draw() for _ in range(20)}
    assert len(draws) > 15 and all(0 <= slot < 131_072 for slot in draws)


def test_a_credential_issued_before_status_lists_still_verifies(client, certificate):
    Certificate.objects.filter(pk=certificate.pk).update(status_slot=None)
    certificate.refresh_from_db()
    _kid, old_style = credentials.credential_sign(certificate)
    claims = verify(client, old_style)
    assert "credentialStatus" not in claims
    assert client.get(reverse("api:certificate", args=[certificate.display_id])).json()["status"] == "valid"


def test_the_pdf_carries_the_credential_as_an_attached_file(client, certificate):
    response = client.get(reverse("certificates:pdf", args=[certificate.display_id]))
    attachments = PdfReader(io.BytesIO(response.content)).attachments
    assert attachments["open-badge-credential.jwt"] == [certificate.credential.encode()]
    assert certificate.credential.encode() in response.content  # uncompressed: the verify page finds it
