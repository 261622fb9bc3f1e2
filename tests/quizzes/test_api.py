import pytest
from django.core.management import call_command
from django.urls import reverse

from quizzes import openapi


def test_the_certificate_api_returns_the_credential_and_status(client, certificate):
    response = client.get(f"/api/certificates/{certificate.display_id}")
    assert response.status_code == 200
    data = response.json()
    assert data["id"] == certificate.display_id and data["status"] == "valid"
    assert data["name"] == "Asha Verma" and data["score_band"] == "90–100%" and data["language"] == "en"
    assert data["credential"] == certificate.credential
    assert data["jwks_url"].endswith("/.well-known/jwks.json")
    assert data["verification_url"].endswith(reverse("certificates:verify", args=[certificate.display_id]))
    assert "email" not in response.text and "asha@example.com" not in response.text


def test_the_api_accepts_the_compact_lowercase_id(client, certificate):
    assert client.get(f"/api/certificates/{certificate.id.lower()}").json()["id"] == certificate.display_id


def test_a_superseded_certificate_names_its_replacement(client, learner_client, certificate):
    learner_client.post(reverse("certificates:correct_name", args=[certificate.display_id]), {"full_name": "Asha V."})
    data = client.get(f"/api/certificates/{certificate.display_id}").json()
    assert data["status"] == "superseded" and data["superseded_by"]
    assert client.get(f"/api/certificates/{data['superseded_by']}").json()["name"] == "Asha V."


def test_the_openapi_document_describes_the_certificate_api(client, db):
    response = client.get("/api/openapi.json")
    assert response.status_code == 200
    document = response.json()
    assert document["openapi"].startswith("3.1")
    assert {"/api/certificates/{id}", "/.well-known/jwks.json", "/api/openapi.json"} <= set(document["paths"])
    assert "Certificate" in document["components"]["schemas"]


@pytest.fixture
def clean_registry():
    paths, components = openapi._paths.copy(), {k: v.copy() for k, v in openapi._components.items()}
    yield
    openapi._paths.clear()
    openapi._paths.update(paths)
    openapi._components.clear()
    openapi._components.update(components)


def test_other_apps_join_the_document_at_request_time(client, db, clean_registry):
    openapi.register(
        paths={
            "/api/example/things": {
                "post": {"operationId": "makeThing", "responses": {"202": {"description": "queued"}}}
            }
        },
        components={
            "schemas": {"ExampleThing": {"type": "object"}},
            "securitySchemes": {"exampleAuth": {"type": "http", "scheme": "bearer"}},
        },
    )
    document = client.get("/api/openapi.json").json()
    assert document["paths"]["/api/example/things"]["post"]["operationId"] == "makeThing"
    assert "ExampleThing" in document["components"]["schemas"] and "Certificate" in document["components"]["schemas"]
    assert document["components"]["securitySchemes"]["exampleAuth"]["scheme"] == "bearer"


def test_registering_twice_is_harmless_but_a_clash_is_refused(clean_registry):
    spec = {"/api/x": {"get": {"responses": {"200": {"description": "ok"}}}}}
    openapi.register(spec, {})
    openapi.register(spec, {})
    with pytest.raises(ValueError, match="already registered"):
        openapi.register({"/api/x": {"get": {"responses": {}}}}, {})
    with pytest.raises(ValueError, match="already registered"):
        openapi.register({}, {"schemas": {"Certificate": {"type": "string"}}})


def test_ensure_signing_key_is_idempotent_and_keeps_the_key_private(signing_key_dir, capsys):
    call_command("ensure_signing_key")
    call_command("ensure_signing_key")
    output = capsys.readouterr().out
    assert "created" in output and "already present" in output
    (pem,) = signing_key_dir.glob("*.pem")
    assert pem.stat().st_mode & 0o077 == 0
    assert "PRIVATE KEY" in pem.read_text()


def test_rotating_keeps_the_retired_key_published(client, db, signing_key_dir):
    call_command("ensure_signing_key")
    first = client.get("/.well-known/jwks.json").json()["keys"][0]["kid"]
    call_command("rotate_signing_key")
    keys = [k["kid"] for k in client.get("/.well-known/jwks.json").json()["keys"]]
    assert len(keys) == 2 and keys[1] == first and keys[0] != first
