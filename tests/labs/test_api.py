import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone, translation
from django.utils.translation import gettext

from accounts.models import ApiToken
from config.waits import wait_in_words
from labs.models import LabRun
from labs.presets import PRESETS
from labs.training.config import DEFAULT_CONFIG, FIELDS
from labs.training.results import DIVERGED, STORED_METRICS

CONFIG = {**DEFAULT_CONFIG, "steps": 4, "effective_batch_size": 16}


@pytest.fixture
def token(learner):
    _token, raw = ApiToken.issue(user=learner, name="script")
    return raw


def post_json(client, url, data, **headers):
    return client.post(url, json.dumps(data), content_type="application/json", headers=headers)


def test_submitting_without_login_or_token_is_refused(client, db):
    response = post_json(client, "/api/labs/runs", CONFIG)
    assert response.status_code == 401 and "error" in response.json()


def test_a_token_submission_is_stored_queued_and_answered_201(
    client, token, learner, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = post_json(
            Client(enforce_csrf_checks=True), "/api/labs/runs", CONFIG, Authorization=f"Bearer {token}"
        )
    assert response.status_code == 201
    body = response.json()
    run = LabRun.objects.get(pk=body["id"])
    assert body["status"] == "queued" and body["reused"] is False
    assert run.user == learner and run.config["steps"] == 4 and run.enqueued_at is not None


def test_a_bad_token_counts_as_no_login(client, db):
    response = post_json(client, "/api/labs/runs", CONFIG, Authorization="Bearer gac_not-a-real-token")
    assert response.status_code == 401


def test_invalid_settings_come_back_as_field_errors(client, token):
    bad = {**CONFIG, "norm": "weird", "accumulation_steps": 3, "colour": "blue"}
    response = post_json(client, "/api/labs/runs", bad, Authorization=f"Bearer {token}")
    assert response.status_code == 400
    body = response.json()
    assert {entry["field"] for entry in body["fields"]} >= {"norm", "accumulation_steps", None}  # None: no one field
    assert all(entry["message"] for entry in body["fields"]) and body["error"]
    assert LabRun.objects.count() == 0


def test_errors_come_in_the_language_of_accept_language(client, token):
    fr = {"Authorization": f"Bearer {token}", "Accept-Language": "fr"}
    response = client.post(
        "/api/labs/runs", json.dumps({**CONFIG, "accumulation_steps": 3}), content_type="application/json", headers=fr
    )
    assert response.status_code == 400
    # The catalog's French, read through gettext: a reader's rewording never breaks the test.
    with translation.override("fr"):
        error = gettext("Some settings are not valid.")
        divide = gettext(
            "accumulation_steps must divide effective_batch_size: %(effective)s is not divisible by %(n)s."
        )
    assert error != "Some settings are not valid."  # translated
    assert response.json() == {
        "error": error,
        "fields": [{"field": "accumulation_steps", "message": divide % {"effective": 16, "n": 3}}],
    }
    anonymous = client.post(
        "/api/labs/runs", json.dumps(CONFIG), content_type="application/json", headers={"Accept-Language": "hi"}
    )
    assert anonymous.status_code == 401 and anonymous.json()["error"].startswith("लॉग इन")


@pytest.mark.parametrize("raw", [b"{not json", b"[1, 2]", b"\xff\xfe", b""])
def test_a_body_that_is_not_a_json_object_is_a_400(client, token, raw):
    response = client.post(
        "/api/labs/runs", raw, content_type="application/json", headers={"Authorization": f"Bearer {token}"}
    )
    assert response.status_code == 400 and response.json()["error"]


def test_a_body_over_16_kib_is_refused_unread(client, token):
    body = json.dumps({**CONFIG, "label": "x" * 20_000})
    response = client.post(
        "/api/labs/runs", body, content_type="application/json", headers={"Authorization": f"Bearer {token}"}
    )
    assert response.status_code == 400 and response.json() == {"error": "The request body is too large.", "fields": []}


def test_a_session_submission_needs_the_csrf_token(learner):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(learner)
    refused = post_json(browser, "/api/labs/runs", CONFIG)
    assert refused.status_code == 403 and "CSRF" in refused.json()["error"]
    browser.get("/en/labs/")  # sets the CSRF cookie, as a page load does
    accepted = post_json(browser, "/api/labs/runs", CONFIG, X_CSRFToken=browser.cookies["csrftoken"].value)
    assert accepted.status_code == 201


def test_reading_a_run_gives_status_config_progress_metrics_and_curve(client, token, learner, make_run):
    run = make_run(learner, status=LabRun.Status.SUCCEEDED, device="cpu")
    body = client.get(f"/api/labs/runs/{run.pk}", headers={"Authorization": f"Bearer {token}"}).json()
    assert body["status"] == "succeeded" and body["device"] == "cpu"
    assert body["progress"] == {"done_steps": 3, "total_steps": 3, "percent": 100}
    assert [point["step"] for point in body["curve"]] == [1, 2, 3]
    assert set(body["curve"][0]) >= {"step", "loss", "grad_norm", "lr", "samples", "seconds"}
    assert body["error"] is None


# What a data-parallel run on a GPU stores (labs.training.results.stored_metrics), every field set.
STORED = {
    "final_loss": 0.42,
    "val_loss": 0.45,
    "val_accuracy": 0.875,
    "samples_per_second": 812.5,
    "tokens_per_second": None,
    "wall_seconds": 3.25,
    "peak_activation_bytes": 1_048_576,
    "activation_memory_method": "cuda_max_memory_allocated",
    "grad_equivalence_error": 2.5e-7,
    "parameter_count": 26_122,
    "dtype": "float32",
    "allreduce_calls": 6,
    "allreduce_bytes": 627_072,
    "communication_seconds": 0.125,
    "compute_seconds": 2.75,
    DIVERGED: False,
}


def test_a_run_serves_every_metric_it_stores_and_every_setting(client, token, learner, make_run):
    assert set(STORED) == {*STORED_METRICS, DIVERGED}  # a new stored metric needs a value here
    settings = {"processes": 2, "accumulation_steps": 2, "sync": "every_micro", "loss_scaling": "mean_of_rank_means"}
    run = make_run(learner, status=LabRun.Status.SUCCEEDED, config=settings, metrics=STORED)
    assert (run.config["precision"], run.config["size"]) == ("fp32", "tiny")  # stored with its defaults
    auth = {"Authorization": f"Bearer {token}"}
    for url in (f"/api/labs/runs/{run.pk}", "/api/labs/runs"):
        body = client.get(url, headers=auth).json()
        served = body if "id" in body else body["items"][0]
        assert served["metrics"] == STORED
        assert served["config"] == run.config
        assert served["config"]["sync"] == "every_micro" and served["config"]["processes"] == 2


def test_a_one_process_run_shows_its_settings_defaults(client, learner, make_run):
    run = make_run(learner, preset="memory-vs-n", status=LabRun.Status.SUCCEEDED)
    config = client.get(f"/api/labs/runs/{run.pk}").json()["config"]
    assert {key: config[key] for key in ("processes", "sync", "precision", "size", "grad_clip")} == {
        "processes": 1,
        "sync": "no_sync",
        "precision": "fp32",
        "size": "tiny",
        "grad_clip": None,
    }


def test_listing_runs_needs_a_login(client, db):
    response = client.get("/api/labs/runs")
    assert response.status_code == 401 and response.json()["error"]


def test_the_run_list_is_the_learners_own_runs_newest_first_in_pages(client, token, learner, other_learner, make_run):
    mine = [make_run(learner, config={"seed": seed}) for seed in range(3)]
    make_run(other_learner, preset="memory-vs-n")  # public, but not theirs: not listed
    auth = {"Authorization": f"Bearer {token}"}
    first = client.get("/api/labs/runs?page_size=2", headers=auth).json()
    second = client.get("/api/labs/runs?page_size=2&page=2", headers=auth).json()
    assert first["count"] == second["count"] == 3
    assert [run["id"] for run in first["items"] + second["items"]] == [run.pk for run in reversed(mine)]
    assert "curve" not in first["items"][0] and first["items"][0]["progress"]["total_steps"] == 3


def test_presets_are_listed_in_pages_in_the_readers_language(client, db):
    body = client.get("/api/labs/presets?page_size=100", headers={"Accept-Language": "fr"}).json()
    assert body["count"] == len(PRESETS) == len(body["items"])
    listed = body["items"][0]
    preset = PRESETS[listed["slug"]]
    with translation.override("fr"):
        title = gettext("Activation memory versus N")
    assert title != "Activation memory versus N"  # the catalog's French, read through gettext
    assert listed["slug"] == "memory-vs-n" and listed["title"] == title
    assert [run["config"]["accumulation_steps"] for run in listed["runs"]] == [
        config["accumulation_steps"] for _label, config in preset.configs()
    ]
    assert all(set(run["config"]) == set(FIELDS) for run in listed["runs"])
    assert client.get("/api/labs/presets?page=2&page_size=100").json()["items"] == []


def test_someone_elses_private_run_is_a_404_but_a_preset_run_is_public(client, other_learner, make_run):
    private = make_run(other_learner)
    public = make_run(other_learner, preset="memory-vs-n")
    assert client.get(f"/api/labs/runs/{private.pk}").status_code == 404
    assert client.get(f"/api/labs/runs/{public.pk}").status_code == 200


def test_cancelling_a_queued_run_ends_it_and_a_finished_one_is_a_409(client, token, learner, make_run):
    queued = make_run(learner)
    finished = make_run(learner, status=LabRun.Status.SUCCEEDED)
    auth = {"Authorization": f"Bearer {token}"}
    response = client.post(f"/api/labs/runs/{queued.pk}/cancel", headers=auth)
    assert response.status_code == 200 and response.json()["status"] == "cancelled"
    assert client.post(f"/api/labs/runs/{finished.pk}/cancel", headers=auth).status_code == 409


def test_cancelling_a_running_run_asks_its_worker_to_stop(client, token, learner, make_run):
    running = make_run(learner, status=LabRun.Status.RUNNING)
    body = client.post(f"/api/labs/runs/{running.pk}/cancel", headers={"Authorization": f"Bearer {token}"}).json()
    assert body["status"] == "running" and body["cancel_requested"] is True


def test_nobody_cancels_someone_elses_run(client, token, other_learner, make_run):
    run = make_run(other_learner, preset="memory-vs-n")
    assert (
        client.post(f"/api/labs/runs/{run.pk}/cancel", headers={"Authorization": f"Bearer {token}"}).status_code == 404
    )
    run.refresh_from_db()
    assert run.status == "queued"


def test_too_many_waiting_runs_is_a_429_with_the_reason(client, token, learner, make_run, settings):
    settings.LAB_MAX_ACTIVE_RUNS = 1
    make_run(learner)
    response = post_json(client, "/api/labs/runs", CONFIG, Authorization=f"Bearer {token}")
    assert response.status_code == 429 and "at most 1" in response.json()["error"]


def test_the_daily_budget_of_steps_times_batch_is_enforced(client, token, settings):
    settings.LAB_DAILY_SAMPLE_BUDGET = 100
    first = post_json(client, "/api/labs/runs", {**CONFIG, "steps": 4}, Authorization=f"Bearer {token}")
    second = post_json(client, "/api/labs/runs", {**CONFIG, "steps": 4, "seed": 1}, Authorization=f"Bearer {token}")
    assert first.status_code == 201  # 4 × 16 = 64 samples
    assert second.status_code == 429 and "36" in second.json()["error"]


def test_a_setting_named_twice_in_the_json_is_refused(client, token):
    """json keeps the last of two values silently; the API, like the form, refuses the body."""
    body = json.dumps({**CONFIG, "steps": 2})[:-1] + ', "steps": 400}'
    headers = {"Authorization": f"Bearer {token}"}
    response = client.post("/api/labs/runs", body, content_type="application/json", headers=headers)
    assert response.status_code == 400
    assert response.json()["error"] == 'The request body names "steps" more than once.'
    assert LabRun.objects.count() == 0


def test_a_spent_budget_says_when_it_frees_up(client, token, learner, make_run, settings):
    """Retry-After is when enough runs leave the last 24 hours, and the message says it in words:
    two runs of 32 samples and 64 wanted make 128 of 100; the older run (20 hours ago) leaves in
    4 hours, after which 32 + 64 fit."""
    settings.LAB_DAILY_SAMPLE_BUDGET = 100
    now = timezone.now()
    for hours_ago, seed in ((20, 1), (2, 2)):
        run = make_run(learner, status=LabRun.Status.SUCCEEDED, config={"steps": 2, "seed": seed}, attempts=1)
        LabRun.objects.filter(pk=run.pk).update(created_at=now - timedelta(hours=hours_ago))
    refused = post_json(client, "/api/labs/runs", {**CONFIG, "seed": 3}, Authorization=f"Bearer {token}")
    assert refused.status_code == 429
    wait = int(refused["Retry-After"])
    assert 4 * 3600 - 60 < wait <= 4 * 3600
    assert refused.json()["error"].endswith(f"or try again in {wait_in_words(wait)}.")
    assert wait_in_words(wait) in ("4 hours", "3 hours and 59 minutes")


def test_too_many_waiting_runs_says_when_the_first_should_end(client, token, learner, make_run, settings):
    settings.LAB_MAX_ACTIVE_RUNS = 1
    now = timezone.now()
    for seconds in (100, 140, 120):  # recent runs took 2 minutes (the median)
        make_run(learner, status=LabRun.Status.SUCCEEDED, started_at=now - timedelta(seconds=seconds), finished_at=now)
    make_run(learner, status=LabRun.Status.RUNNING, started_at=now - timedelta(seconds=30))
    refused = post_json(client, "/api/labs/runs", CONFIG, Authorization=f"Bearer {token}")
    assert refused.status_code == 429
    assert 85 <= int(refused["Retry-After"]) <= 90  # 120 s typical, 30 s of it done
    assert "The first of them should be done in about 2 minutes." in refused.json()["error"]


def test_submissions_are_rate_limited(clock_held, client, token, settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "lab_submit": "2/m"}
    codes = [
        post_json(client, "/api/labs/runs", {**CONFIG, "seed": s}, Authorization=f"Bearer {token}").status_code
        for s in range(3)
    ]
    assert codes == [201, 201, 429]
    refused = post_json(client, "/api/labs/runs", {**CONFIG, "seed": 9}, Authorization=f"Bearer {token}")
    assert 1 <= int(refused["Retry-After"]) <= 60
    assert f"Please wait {wait_in_words(int(refused['Retry-After']))} and try again." in refused.json()["error"]


def test_the_openapi_document_describes_the_labs_endpoints(client, db):
    schema = client.get("/api/openapi.json").json()
    assert {"/api/labs/runs", "/api/labs/runs/{run_id}", "/api/labs/runs/{run_id}/cancel"} <= set(schema["paths"])
    assert set(schema["paths"]["/api/labs/runs"]) == {"get", "post"}
    components = schema["components"]["schemas"]
    assert "LabRun" in components
    assert set(components["LabRunMetrics"]["properties"]) == {*STORED_METRICS, DIVERGED}
    assert set(components["LabRunConfig"]["properties"]) == set(FIELDS)
