from datetime import timedelta

import pytest
from django.utils import timezone

from labs import services
from labs.models import LabRun
from labs.presets import PRESETS


def test_identical_finished_settings_reuse_the_stored_result(learner, make_run, tiny_config):
    original = make_run(learner, status=LabRun.Status.SUCCEEDED)
    run = services.lab_run_submit(user=learner, config=tiny_config())
    assert run.status == "succeeded" and run.reused_from == original
    assert run.curve == original.curve and run.metrics == original.metrics


def test_a_different_code_version_or_seed_trains_again(learner, make_run, tiny_config):
    make_run(learner, status=LabRun.Status.SUCCEEDED, fingerprint="under-an-older-code-version", code_version="2020.1")
    assert services.lab_run_submit(user=learner, config=tiny_config()).status == "queued"
    make_run(learner, status=LabRun.Status.SUCCEEDED)
    assert services.lab_run_submit(user=learner, config=tiny_config(seed=7)).status == "queued"


def test_failed_or_cancelled_runs_are_never_reused(learner, make_run, tiny_config):
    make_run(learner, status=LabRun.Status.FAILED)
    make_run(learner, status=LabRun.Status.CANCELLED)
    assert services.lab_run_submit(user=learner, config=tiny_config()).reused_from is None


def test_reused_runs_cost_nothing_from_the_daily_budget(learner, make_run, tiny_config):
    make_run(learner, status=LabRun.Status.SUCCEEDED)
    before = services.lab_budget_spent(user=learner)
    services.lab_run_submit(user=learner, config=tiny_config())
    assert services.lab_budget_spent(user=learner) == before


def test_a_run_cancelled_before_it_started_is_refunded(learner, tiny_config):
    run = services.lab_run_submit(user=learner, config=tiny_config())
    assert services.lab_budget_spent(user=learner) == run.cost
    services.lab_run_cancel(run=run)
    assert services.lab_budget_spent(user=learner) == 0


def test_a_preset_is_one_sweep_whose_cost_is_checked_as_a_whole(learner, settings):
    settings.LAB_MAX_ACTIVE_RUNS = 2
    with pytest.raises(services.LabQuotaError):
        services.lab_preset_submit(user=learner, preset=PRESETS["layernorm-n-sweep"])
    assert LabRun.objects.count() == 0


def test_the_dispatcher_sends_runs_the_broker_never_got(learner, make_run):
    old = timezone.now() - timedelta(minutes=1)
    pending = make_run(learner)
    LabRun.objects.filter(pk=pending.pk).update(created_at=old)
    fresh = make_run(learner)  # its own on_commit is still about to send it
    assert services.lab_runs_dispatch_pending() == 1
    pending.refresh_from_db(), fresh.refresh_from_db()
    assert pending.enqueued_at is not None and fresh.enqueued_at is None


def _stale(run, seconds=3600):
    LabRun.objects.filter(pk=run.pk).update(heartbeat_at=timezone.now() - timedelta(seconds=seconds))


def test_the_sweeper_requeues_a_run_whose_worker_went_silent(learner, make_run):
    run = make_run(learner, status=LabRun.Status.RUNNING, attempts=1)
    _stale(run)
    assert services.lab_runs_sweep_stale()["requeued"] == 1
    run.refresh_from_db()
    assert run.status == "queued" and run.enqueued_at is not None


def test_the_sweeper_leaves_a_run_with_a_fresh_heartbeat_alone(learner, make_run):
    run = make_run(learner, status=LabRun.Status.RUNNING, attempts=1, heartbeat_at=timezone.now())
    assert services.lab_runs_sweep_stale()["requeued"] == 0
    run.refresh_from_db()
    assert run.status == "running"


def test_the_sweeper_fails_a_run_after_the_last_attempt_with_a_reason(learner, make_run, settings):
    run = make_run(learner, status=LabRun.Status.RUNNING, attempts=settings.LAB_MAX_ATTEMPTS)
    _stale(run)
    services.lab_runs_sweep_stale()
    run.refresh_from_db()
    assert run.status == "failed" and "stopped responding" in run.error_message and run.finished_at


def test_the_sweeper_ends_a_silent_run_the_learner_cancelled(learner, make_run):
    run = make_run(learner, status=LabRun.Status.RUNNING, attempts=1, cancel_requested=True)
    _stale(run)
    services.lab_runs_sweep_stale()
    run.refresh_from_db()
    assert run.status == "cancelled"


def test_runs_queued_for_too_long_are_sent_again(learner, make_run, settings):
    run = make_run(learner, enqueued_at=timezone.now() - timedelta(seconds=settings.LAB_RESEND_AFTER + 5))
    assert services.lab_runs_sweep_stale()["resent"] == 1
    run.refresh_from_db()
    assert run.enqueued_at is None  # the dispatcher picks it up


def test_requeue_starts_a_failed_run_from_scratch(learner, make_run, django_capture_on_commit_callbacks):
    run = make_run(learner, status=LabRun.Status.FAILED, attempts=3, error="boom")
    with django_capture_on_commit_callbacks(execute=True):
        assert services.lab_run_requeue(run=run)
    run.refresh_from_db()
    assert run.status == "queued" and run.attempts == 0 and run.curve == [] and run.enqueued_at is not None
