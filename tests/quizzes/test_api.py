"""The site's OpenAPI document (quizzes/openapi.py) and the registry other apps write into."""

import pytest

from quizzes import openapi


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
