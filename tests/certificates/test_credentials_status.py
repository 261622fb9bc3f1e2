"""Credentials that carry their status, checked the way a third party would: 1EdTech's published OB 3.0
JSON Schema, PyJWT with the published JWKS, the 1EdTech revocation list the credential names, and the
W3C status list (its entry in the certificate's API record) decoded here by hand (base64url, gzip,
bit order) from the Bitstring Status List spec, not with the site's own code."""

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
    return jwt.decode(token, key=published_key(client, token), algorithms=["RS256", "EdDSA"], issuer=f"{SITE}/")


def bitstring_entry(client, certificate) -> dict:
    return client.get(reverse("api:certificate", args=[certificate.display_id])).json()["status_list_entry"]


def revocation_list(client, claims: dict) -> dict:
    response = client.get(claims["credentialStatus"]["id"].removeprefix(SITE))
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    return response.json()


def listed_as_revoked(client, claims: dict) -> bool:
    listed = revocation_list(client, claims)["revokedCredential"]
    return any(item["id"] == claims["id"] and item["revoked"] for item in listed)


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


def test_the_credential_names_its_page_and_the_1edtech_revocation_list(client, token, certificate):
    claims = verify(client, token)
    page = f"{SITE}/en/certificates/{certificate.display_id}/"
    assert claims["evidence"] == [{"type": ["Evidence"], "id": page}]
    assert client.get(page.removeprefix(SITE)).status_code == 200
    status = {"id": f"{SITE}/api/certificates/revocations/1", "type": "1EdTechRevocationList"}
    assert claims["credentialStatus"] == status
    listed = revocation_list(client, claims)
    assert listed == {"id": claims["credentialStatus"]["id"], "issuer": f"{SITE}/", "revokedCredential": []}


def test_the_api_record_gives_the_w3c_status_list_entry(client, token, certificate):
    entry = bitstring_entry(client, certificate)
    index = int(entry["statusListIndex"])
    assert entry["type"] == "BitstringStatusListEntry" and entry["statusPurpose"] == "revocation"
    assert entry["statusListIndex"] == str(index) and 0 <= index < 131_072
    assert entry["statusListCredential"] == f"{SITE}/api/certificates/status/1"
    assert entry["id"] == f"{entry['statusListCredential']}#{index}"
    assert index == certificate.status_slot % 131_072


def test_the_status_list_is_a_signed_credential_that_says_valid(client, token, certificate):
    entry = bitstring_entry(client, certificate)
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


def test_after_revoke_certificate_both_lists_say_revoked(client, token, certificate):
    claims = verify(client, token)
    entry = bitstring_entry(client, certificate)
    before = fetch_status_list(client, entry["statusListCredential"])
    assert not listed_as_revoked(client, claims)
    out = io.StringIO()
    call_command("revoke_certificate", certificate.id.lower(), reason="Exam taken by someone else.", stdout=out)
    assert f"index {entry['statusListIndex']}" in out.getvalue() and claims["id"] in out.getvalue()
    after = fetch_status_list(client, entry["statusListCredential"])
    assert after["ETag"] != before["ETag"]
    verify(client, after.content.decode())  # still signed by us
    assert revoked_bit(after.content.decode(), int(entry["statusListIndex"])) == 1
    assert bits_set(after.content.decode()) == 1
    assert listed_as_revoked(client, claims)
    listed = revocation_list(client, claims)
    assert listed["revokedCredential"] == [{"id": claims["id"], "revoked": True}]  # no reason, no name
    assert "Exam taken" not in json.dumps(listed) and certificate.display_id not in json.dumps(listed)
    assert verify(client, token) == claims  # the JWT itself is unchanged: the lists say


def test_a_name_correction_withdraws_the_old_credential_and_not_the_new_one(client, token, certificate):
    claims = verify(client, token)
    entry = bitstring_entry(client, certificate)
    client.post(reverse("certificates:correct_name", args=[certificate.display_id]), {"full_name": "Asha V. Verma"})
    replacement = Certificate.objects.get(name="Asha V. Verma")
    new_claims = verify(client, replacement.credential)
    new_entry = bitstring_entry(client, replacement)
    assert new_entry["statusListIndex"] != entry["statusListIndex"]
    list_token = fetch_status_list(client, entry["statusListCredential"]).content.decode()
    assert revoked_bit(list_token, int(entry["statusListIndex"])) == 1
    assert revoked_bit(list_token, int(new_entry["statusListIndex"])) == 0
    assert listed_as_revoked(client, claims) and not listed_as_revoked(client, new_claims)


@pytest.mark.parametrize("status_list_document", ["bitstring", "1edtech"])
def test_an_unchanged_list_revalidates_with_its_etag(client, token, certificate, status_list_document):
    if status_list_document == "bitstring":
        url = bitstring_entry(client, certificate)["statusListCredential"].removeprefix(SITE)
    else:
        url = verify(client, token)["credentialStatus"]["id"].removeprefix(SITE)
    first = client.get(url)
    assert first["Cache-Control"] == "public, max-age=300" and first["Access-Control-Allow-Origin"] == "*"
    again = client.get(url, headers={"If-None-Match": first["ETag"]})
    assert again.status_code == 304 and again["ETag"] == first["ETag"]
    assert client.get(url).content == first.content  # not signed again while the bits stay the same
    services.certificate_revoke(certificate=certificate, reason="Issued by mistake.")
    changed = client.get(url, headers={"If-None-Match": first["ETag"]})
    assert changed.status_code == 200 and changed.content != first.content


def test_lists_that_do_not_exist_are_a_json_404(client, certificate):
    for kind in ("status", "revocations"):
        for number in (0, 2, 99):
            response = client.get(f"/api/certificates/{kind}/{number}")
            assert response.status_code == 404 and "status list" in response.json()["error"]


def test_a_full_list_sends_new_certificates_to_the_next_one(client, certificate, monkeypatch, learner):
    monkeypatch.setattr(status_list, "FILL_LIMIT", 1)  # the first list is "half full" with one certificate
    replacement = services.certificate_correct_name(certificate=certificate, user=learner, name="Asha V.")
    assert replacement.status_slot // 131_072 == 1
    claims = verify(client, replacement.credential)
    assert claims["credentialStatus"]["id"] == f"{SITE}/api/certificates/revocations/2"
    assert revocation_list(client, claims)["revokedCredential"] == []  # the superseded one is in list 1
    entry = bitstring_entry(client, replacement)
    assert entry["statusListCredential"] == f"{SITE}/api/certificates/status/2"
    list_token = fetch_status_list(client, entry["statusListCredential"]).content.decode()
    assert revoked_bit(list_token, int(entry["statusListIndex"])) == 0 and bits_set(list_token) == 0
    assert client.get("/api/certificates/status/3").status_code == 404
    assert client.get("/api/certificates/revocations/3").status_code == 404


def test_a_slot_taken_meanwhile_is_drawn_again(client, certificate, monkeypatch, learner):
    draws = iter([certificate.status_slot, (certificate.status_slot + 1) % 131_072])
    monkeypatch.setattr(status_list, "slot_draw", lambda: next(draws))  # as if a concurrent issue took it
    replacement = services.certificate_correct_name(certificate=certificate, user=learner, name="Asha V.")
    assert replacement.status_slot == (certificate.status_slot + 1) % 131_072
    assert bitstring_entry(client, replacement)["statusListIndex"] == str(replacement.status_slot)


def test_slots_are_drawn_at_random(db):
    draws = {status_list.slot_draw() for _ in range(20)}
    assert len(draws) > 15 and all(0 <= slot < 131_072 for slot in draws)


def test_a_credential_issued_before_status_lists_still_verifies(client, certificate):
    Certificate.objects.filter(pk=certificate.pk).update(status_slot=None)
    certificate.refresh_from_db()
    _kid, old_style = credentials.credential_sign(certificate)
    claims = verify(client, old_style)
    assert "credentialStatus" not in claims
    record = client.get(reverse("api:certificate", args=[certificate.display_id])).json()
    assert record["status"] == "valid" and record["status_list_entry"] is None


def test_the_pdf_carries_the_credential_as_an_attached_file(client, certificate):
    response = client.get(reverse("certificates:pdf", args=[certificate.display_id]))
    attachments = PdfReader(io.BytesIO(response.content)).attachments
    assert attachments["open-badge-credential.jwt"] == [certificate.credential.encode()]
    assert certificate.credential.encode() in response.content  # uncompressed: the verify page finds it
