"""The JSON API as a whole (config/api.py): the generated OpenAPI document and the one error shape."""

import json

from django.test import Client

from labs.training import config as lab_config


def test_the_openapi_document_is_generated_from_every_router_and_public(client, db):
    response = client.get("/api/openapi.json")
    assert response.status_code == 200 and response["Access-Control-Allow-Origin"] == "*"
    document = response.json()
    assert document["openapi"].startswith("3.1")
    assert {
        "/api/labs/runs",
        "/api/labs/runs/{run_id}",
        "/api/labs/runs/{run_id}/cancel",
        "/api/labs/runs/{run_id}/curve",
        "/api/labs/queue",
        "/api/certificates/{id}",
        "/api/certificates/status/{number}",
        "/api/certificates/revocations/{number}",
        "/api/certificates/issuer",
        "/api/certificates/keys/{thumbprint}",
        "/.well-known/jwks.json",
        "/.well-known/jwt-vc-issuer",
        "/api/openapi.json",
    } == set(document["paths"])
    assert {"Certificate", "PublicKeySet", "LabRun", "LabRunSettings", "Error"} <= set(
        document["components"]["schemas"]
    )
    assert set(document["components"]["securitySchemes"]) == {"BearerToken", "SessionLogin"}


def test_the_run_settings_schema_takes_its_choices_and_limits_from_the_trainer_config(client, db):
    schema = client.get("/api/openapi.json").json()["components"]["schemas"]["LabRunSettings"]
    fields = schema["properties"]
    assert fields["task"]["enum"] == list(lab_config.TASKS) and fields["norm"]["enum"] == list(lab_config.NORMS)
    assert (fields["steps"]["minimum"], fields["steps"]["maximum"]) == lab_config.STEPS_RANGE
    assert fields["processes"]["enum"] == list(lab_config.PROCESS_COUNTS)
    assert schema["additionalProperties"] is False
    assert set(fields) == set(lab_config.FIELDS)


def test_errors_outside_any_operation_have_the_same_shape(client, db):
    for path in ("/api/no-such-thing", "/api/labs/runs/not-a-number"):
        response = client.get(path, headers={"Accept-Language": "fr"})
        assert response.status_code == 404 and response["Content-Type"] == "application/json"
        assert set(response.json()) == {"error", "fields"} and response.json()["fields"] == []


def test_a_session_needs_the_csrf_token_but_a_bearer_token_does_not(learner):
    from accounts.models import ApiToken

    browser = Client(enforce_csrf_checks=True)
    browser.force_login(learner)
    refused = browser.post("/api/labs/runs/1/cancel", headers={"Accept-Language": "fr"})
    assert refused.status_code == 403 and refused.json()["fields"] == [] and "CSRF" in refused.json()["error"]
    _token, raw = ApiToken.issue(user=learner, name="script")
    with_token = Client(enforce_csrf_checks=True).post(
        "/api/labs/runs/1/cancel",
        json.dumps({}),
        content_type="application/json",
        headers={"Authorization": f"Bearer {raw}"},
    )
    assert with_token.status_code == 404  # past authentication: no run 1 of theirs
