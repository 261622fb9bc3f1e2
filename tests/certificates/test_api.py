"""The certificate JSON API: a certificate's record, looked up by anyone."""

from django.urls import reverse


def test_the_certificate_api_returns_the_credential_and_status(client, certificate):
    response = client.get(f"/api/certificates/{certificate.display_id}")
    assert response.status_code == 200
    data = response.json()
    assert data["id"] == certificate.display_id and data["status"] == "valid"
    assert data["name"] == "Asha Verma" and data["score_band"] == "90–100%" and data["language"] == "en"
    assert data["credential"] == certificate.credential
    assert data["jwks_url"].endswith("/.well-known/jwks.json")
    assert data["status_list_entry"]["statusListIndex"] == str(certificate.status_slot % 131_072)
    assert data["verification_url"].endswith(reverse("certificates:verify", args=[certificate.display_id]))
    assert "email" not in response.text and "asha@example.com" not in response.text


def test_the_api_accepts_the_compact_lowercase_id(client, certificate):
    assert client.get(f"/api/certificates/{certificate.id.lower()}").json()["id"] == certificate.display_id


def test_a_superseded_certificate_names_its_replacement(client, learner_client, certificate):
    learner_client.post(reverse("certificates:correct_name", args=[certificate.display_id]), {"full_name": "Asha V."})
    data = client.get(f"/api/certificates/{certificate.display_id}").json()
    assert data["status"] == "superseded" and data["superseded_by"]
    assert client.get(f"/api/certificates/{data['superseded_by']}").json()["name"] == "Asha V."
