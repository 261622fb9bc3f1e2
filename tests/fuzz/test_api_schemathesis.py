"""schemathesis against the live /api/openapi.json: every operation, with a real API token.

The document is fetched through the site's own WSGI application (config.wsgi), and every
generated request goes through the whole middleware stack in this process, inside the test's
database transaction. Lab runs it submits are stored and stay queued: their hand-over to the
broker is an on-commit callback, and the test transaction never commits, so nothing is sent to
Redis and nothing trains here (test_a_submission_is_handed_to_the_broker_without_waiting checks
that hand-over on its own).

Checks: no 5xx, every status code and content type documented, every body matches its schema,
positive and negative data (schemathesis' defaults), methods the document does not list get 405.
"""

import time
from datetime import timedelta

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.utils import timezone
from hypothesis import HealthCheck, settings

from accounts.models import ApiToken
from config.wsgi import application
from labs.models import LabRun
from labs.training.config import CODE_VERSION, config_fingerprint, validate_config
from tests.factories import TINY_RUN

pytestmark = pytest.mark.slow  # bin/unit leaves it out (tests/conftest.py)

# Loaded at collection: the document needs no database, only the URL configuration.
schema = schemathesis.openapi.from_wsgi("/api/openapi.json", application)
# Over WSGI schemathesis reads a body as it comes, and it asks for gzip, which GZipMiddleware then
# sends: every call asks for plain bodies (tests/test_compression.py covers the compression).
PLAIN = {"Accept-Encoding": "identity"}

MAX_EXAMPLES = 150  # per operation and generation mode: about 15 s for the whole file


@pytest.fixture
def site(db, settings, tmp_path):
    """The WSGI app on the test database. Django closes the connection when a request ends,
    which would end the test transaction: its test client disconnects that handler, so do we."""
    settings.CERT_KEY_DIR = tmp_path / "keys"
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # Rate limits and quotas would answer 429 to most examples; tests/test_security.py covers them.
    settings.RATELIMIT_ENABLE = False
    settings.LAB_MAX_ACTIVE_RUNS = 10_000
    settings.LAB_DAILY_SAMPLE_BUDGET = 10**12
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield application
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def learner_with_token(site):
    from tests.factories import account

    user = account("fuzzer", full_name="Ada Fuzz")
    _token, raw = ApiToken.issue(user=user, name="schemathesis")
    return user, raw


@pytest.fixture
def bearer(learner_with_token) -> dict[str, str]:
    return {"Authorization": f"Bearer {learner_with_token[1]}", **PLAIN}


# The settings' cross-field rules (N divides the batch, steps × batch within the budget) cannot be
# written in JSON Schema, so schema-valid settings may get the documented 400 with field messages.
CROSS_FIELD_RULES = {"/api/labs/runs": [schemathesis.checks.positive_data_acceptance]}


@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.filter_too_much],
)
def test_every_operation_answers_as_documented(case, bearer):
    excluded = CROSS_FIELD_RULES.get(case.operation.path, [])
    response = case.call_and_validate(headers=bearer, excluded_checks=excluded)
    assert response.status_code < 500


def test_every_documented_operation_is_fuzzed():
    """schemathesis leaves out the document's own path; anything else missing means a definition
    it could not read."""
    documented = {f"{method.upper()} {path}" for path, item in schema.raw_schema["paths"].items() for method in item}
    fuzzed = {result.ok().label for result in schema.get_all_operations()}
    assert documented - fuzzed == {"GET /api/openapi.json"}


# Generated ids rarely name a stored row, so the success answers are checked on real rows too.


def _run(user, status: str, **fields) -> LabRun:
    config, _errors = validate_config(TINY_RUN)
    finished = status in (LabRun.Status.SUCCEEDED, LabRun.Status.FAILED, LabRun.Status.CANCELLED)
    point = {"grad_norm": 1.0, "lr": 0.05, "tokens": None}
    curve = [{**point, "step": s, "loss": 2.0 / s, "samples": 16 * s, "seconds": 0.1 * s} for s in (1, 2, 3)]
    return LabRun.objects.create(
        user=user,
        config=config.to_dict(),
        fingerprint=config_fingerprint(config),
        code_version=CODE_VERSION,
        status=status,
        total_steps=3,
        done_steps=3 if finished else 0,
        curve=curve if finished else [],
        metrics={"final_loss": 0.5, "val_accuracy": 0.9, "diverged": False} if finished else {},
        finished_at=timezone.now() if finished else None,
        **fields,
    )


def test_stored_runs_answer_in_the_documented_shape(learner_with_token, bearer):
    user, _raw = learner_with_token
    runs = [
        _run(user, LabRun.Status.QUEUED),
        _run(user, LabRun.Status.RUNNING, device="cpu", torch_version="2.5.1"),
        _run(user, LabRun.Status.SUCCEEDED, device="cuda:0 NVIDIA H200"),
        _run(user, LabRun.Status.FAILED, error="Training stopped with an unexpected error."),
        _run(user, LabRun.Status.CANCELLED, preset="memory-vs-n", preset_index=0),
    ]
    detail = schema["/api/labs/runs/{run_id}"]["GET"]
    cancel = schema["/api/labs/runs/{run_id}/cancel"]["POST"]
    curve = schema["/api/labs/runs/{run_id}/curve"]["GET"]
    for run in runs:
        response = detail.Case(path_parameters={"run_id": run.pk}).call_and_validate(headers=bearer)
        assert response.status_code == 200 and response.json()["status"] == run.status
        page = curve.Case(path_parameters={"run_id": run.pk}, query={"limit": 2}).call_and_validate(headers=bearer)
        assert page.status_code == 200 and len(page.json()["points"]) == min(2, len(run.curve))
    expected = {"queued": 200, "running": 200, "succeeded": 409, "failed": 409, "cancelled": 409}
    for run in runs:
        response = cancel.Case(path_parameters={"run_id": run.pk}).call_and_validate(headers=bearer)
        assert response.status_code == expected[run.status], response.text


def test_certificates_in_every_status_answer_in_the_documented_shape(learner_with_token, bearer):
    from certificates import services
    from quizzes.models import Attempt, Quiz

    user, _raw = learner_with_token
    exam = Quiz.objects.create(slug="final-exam", is_exam=True, title={"en": "Final exam"})

    def passed_attempt() -> Attempt:  # finished now: the valid one is passed after the revocation
        now = timezone.now()
        return Attempt.objects.create(
            quiz=exam, user=user, language="hi", question_ids=[1], started_at=now - timedelta(minutes=9),
            finished_at=now, correct_count=1, passed=True,
        )  # fmt: skip

    superseded = services.certificate_issue(attempt=passed_attempt(), user=user)
    replacement = services.certificate_correct_name(certificate=superseded, user=user, name="Ada Lovelace Fuzz")
    services.certificate_revoke(certificate=replacement, reason="Issued by mistake in a test.")
    valid = services.certificate_issue(attempt=passed_attempt(), user=user)
    operation = schema["/api/certificates/{id}"]["GET"]
    for certificate, status in ((valid, "valid"), (superseded, "superseded"), (replacement, "revoked")):
        for written in (certificate.display_id, certificate.id.lower()):
            response = operation.Case(path_parameters={"id": written}).call_and_validate(headers=PLAIN)
            assert response.status_code == 200 and response.json()["status"] == status
    keys = schema["/.well-known/jwks.json"]["GET"].Case().call_and_validate(headers=PLAIN)
    assert keys.json()["keys"], "signing a certificate made a key, so the JWK Set lists it"


def test_a_submission_is_handed_to_the_broker_without_waiting(
    learner_with_token, bearer, django_capture_on_commit_callbacks
):
    """No worker consumes the test broker: sending must not wait for one, and nothing trains here."""
    operation = schema["/api/labs/runs"]["POST"]
    started = time.monotonic()
    with django_capture_on_commit_callbacks(execute=True):
        response = operation.Case(body=dict(TINY_RUN, seed=12345)).call_and_validate(headers=bearer)
    elapsed = time.monotonic() - started
    assert response.status_code == 201, response.text
    run = LabRun.objects.get(pk=response.json()["id"])
    assert run.enqueued_at is not None  # the real Redis took the message
    assert run.status == LabRun.Status.QUEUED and run.done_steps == 0
    assert elapsed < 3, f"submitting took {elapsed:.1f}s"
