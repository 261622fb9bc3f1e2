"""The JSON API as a whole (config/api.py): the generated OpenAPI document, its docs page and the
one error shape, which every error under /api/ has."""

import html as html_lib
import json
import re

import pytest
from django.contrib.staticfiles import finders
from django.test import Client
from django.utils import translation
from django.utils.translation import gettext

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
        "/api/labs/presets",
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


def test_the_docs_page_is_swagger_ui_from_our_own_static_files(client, db):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    sources = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert "/static/vendor/swagger-ui/swagger-ui-bundle.js" in sources and "/static/js/api-docs.js" in sources
    assert all(source.startswith("/static/") for source in sources), sources  # no CDN
    for source in sources:
        assert finders.find(source.removeprefix("/static/")), f"{source} is not in static/"
    settings = json.loads(html_lib.unescape(re.search(r'data-swagger-settings="([^"]*)"', html).group(1)))
    assert settings["url"] == "/api/openapi.json" and settings["validatorUrl"] is None
    assert "/api/docs/" not in client.get("/api/openapi.json").json()["paths"]


def error_shape(response) -> dict:
    assert response["Content-Type"] == "application/json", response.content[:200]
    body = response.json()
    assert set(body) == {"error", "fields"} and body["error"], body
    return body


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("put", "/api/labs/queue", "GET"),
        ("delete", "/api/labs/runs", "GET, POST"),
        ("get", "/api/labs/runs/1/cancel", "POST"),
    ],
)
def test_a_method_a_path_does_not_take_is_a_json_405_with_allow(client, db, method, path, allowed):
    response = getattr(client, method)(path, headers={"Accept-Language": "fr"})
    assert response.status_code == 405 and response["Allow"] == allowed
    english = "This address does not take %(method)s requests, only %(allowed)s."
    with translation.override("fr"):
        expected = gettext(english) % {"method": method.upper(), "allowed": allowed}
    assert expected != english % {"method": method.upper(), "allowed": allowed}  # the catalog's French
    assert error_shape(response)["error"] == expected


def test_an_unexpected_failure_is_a_json_500(client, db, monkeypatch):
    from labs import selectors

    def broken(**kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(selectors, "run_visible", broken)
    response = Client(raise_request_exception=False).get("/api/labs/runs/1", headers={"Accept-Language": "hi"})
    assert response.status_code == 500 and "<html" not in response.content.decode()
    assert error_shape(response)["fields"] == []


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("page=0", "Cette valeur doit être supérieure ou égale à 1."),
        ("page=99999999999999999999", "Cette valeur doit être inférieure ou égale à 1000000."),
        ("page_size=101", "Cette valeur doit être inférieure ou égale à 100."),
        ("page=deux", "Cette valeur doit être un nombre entier."),
    ],
)
def test_a_query_out_of_range_names_the_value_in_json(client, db, query, message):
    response = client.get(f"/api/labs/presets?{query}", headers={"Accept-Language": "fr"})
    assert response.status_code == 400
    field = query.split("=")[0]
    assert error_shape(response)["fields"] == [{"field": field, "message": message}]


def test_a_rate_limited_api_request_is_a_json_429(clock_held, client, db, settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "certificate_lookup": "1/m"}
    client.get("/api/certificates/AAAA")
    response = client.get("/api/certificates/AAAA")
    assert response.status_code == 429 and int(response["Retry-After"]) > 0
    assert "Please wait" in error_shape(response)["error"]


def cors_headers(response) -> dict[str, str]:
    return {name: value for name, value in response.headers.items() if name.lower().startswith("access-control-")}


def test_a_rate_limited_public_document_still_answers_other_sites(clock_held, client, db, settings):
    """A verifier on another site reads the 429 (and its Retry-After) as it reads the 200: without
    the CORS headers the browser hides the answer and the verifier sees only a network error. The
    429 is no public document: no cache may keep it for others."""
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "certificate_lookup": "1/m"}
    other_site = {"Origin": "https://wallet.example"}
    found = client.get("/api/certificates/issuer", headers=other_site)
    assert found.status_code == 200 and cors_headers(found)["Access-Control-Allow-Origin"] == "*"
    assert client.get("/api/certificates/AAAA", headers=other_site).status_code == 404
    limited = client.get("/api/certificates/AAAA", headers=other_site)
    assert limited.status_code == 429 and int(limited["Retry-After"]) > 0
    assert cors_headers(limited) == cors_headers(found)
    assert "retry-after" in cors_headers(limited)["Access-Control-Expose-Headers"].lower()
    assert "public" not in limited.get("Cache-Control", "")


def test_the_dashboard_links_to_the_docs_page(learner):
    client = Client()
    client.force_login(learner)
    html = client.get("/hi/accounts/dashboard/").content.decode()
    assert 'href="/api/docs/"' in html and "API का दस्तावेज़ (अंग्रेज़ी में)" in html
