from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from labs import services
from labs.execution import lab_run_claim
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


def test_a_run_failed_before_it_started_is_refunded_but_one_that_trained_is_not(learner, tiny_config):
    never_started = services.lab_run_submit(user=learner, config=tiny_config())
    LabRun.objects.filter(pk=never_started.pk).update(status=LabRun.Status.FAILED, attempts=0)
    assert services.lab_budget_spent(user=learner) == 0
    LabRun.objects.filter(pk=never_started.pk).update(attempts=1)  # it trained, then failed
    assert services.lab_budget_spent(user=learner) == never_started.cost


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


def test_requeue_refuses_a_run_its_learner_asked_to_cancel(learner, make_run):
    running = make_run(learner, status=LabRun.Status.RUNNING, attempts=1, cancel_requested=True)
    cancelled = make_run(learner, status=LabRun.Status.CANCELLED, attempts=1, cancel_requested=True)
    assert not services.lab_run_requeue(run=running) and not services.lab_run_requeue(run=cancelled)
    running.refresh_from_db(), cancelled.refresh_from_db()
    assert (running.status, running.cancel_requested) == ("running", True) and cancelled.status == "cancelled"


# Races, made deterministic: another process's action runs just before the n-th write of the
# service under test, on the same real rows, in this thread.


@contextmanager
def _before_write(number: int, action: Callable[[], object]) -> Iterator[list]:
    """Run `action` once, just before the `number`-th UPDATE of a lab run; yields [its result]."""
    writes, fired, results = 0, False, []

    def wrapper(execute, sql, params, many, context):
        nonlocal writes, fired
        if not fired and sql.startswith('UPDATE "labs_labrun"'):
            writes += 1
            if writes == number:
                fired = True  # before the action: its own writes pass straight through
                results.append(action())
        return execute(sql, params, many, context)

    with connection.execute_wrapper(wrapper):
        yield results


@pytest.mark.parametrize("write", [1, 2, 3])
def test_a_cancel_landing_while_the_sweeper_requeues_a_silent_run_ends_it_cancelled(learner, make_run, write):
    run = make_run(learner, status=LabRun.Status.RUNNING, attempts=1)
    _stale(run)
    with _before_write(write, lambda: services.lab_run_cancel(run=run)) as cancel:
        services.lab_runs_sweep_stale()
    assert cancel == [True], "the cancel never ran inside the sweep"
    run.refresh_from_db()
    assert run.status == "cancelled" and run.finished_at is not None


@pytest.mark.parametrize("write", [1, 2])
def test_a_sweep_landing_inside_a_cancel_of_a_silent_run_ends_it_cancelled(learner, make_run, write):
    run = make_run(learner, status=LabRun.Status.RUNNING, attempts=1)
    _stale(run)
    with _before_write(write, services.lab_runs_sweep_stale) as sweep:
        assert services.lab_run_cancel(run=run)
    assert sweep, "the sweep never ran inside the cancel"
    run.refresh_from_db()
    assert run.status == "cancelled" and run.finished_at is not None


def test_a_claim_landing_inside_a_cancel_of_a_queued_run_ends_it_cancelled_untrained(learner, make_run):
    run = make_run(learner)
    with _before_write(2, lambda: lab_run_claim(run_id=run.pk, worker="w")) as claim:
        assert services.lab_run_cancel(run=run)
    assert claim == [None], "the claim never ran inside the cancel, or it claimed a cancelled run"
    run.refresh_from_db()
    assert run.status == "cancelled" and run.attempts == 0


def test_an_admin_requeue_landing_inside_a_cancel_leaves_the_cancel_to_the_worker(learner, make_run):
    run = make_run(learner, status=LabRun.Status.RUNNING, attempts=1, heartbeat_at=timezone.now())
    with _before_write(2, lambda: services.lab_run_requeue(run=run)) as requeue:
        assert services.lab_run_cancel(run=run)
    assert requeue == [False]
    run.refresh_from_db()
    assert (run.status, run.cancel_requested, run.attempts) == ("running", True, 1)  # its worker stops it


def test_a_queued_run_with_a_cancel_request_is_ended_not_dispatched_forever(learner, make_run):
    """The state the old race left behind: queued, cancel requested, never claimed."""
    run = make_run(learner, cancel_requested=True, attempts=1)
    LabRun.objects.filter(pk=run.pk).update(created_at=timezone.now() - timedelta(minutes=1))
    assert services.lab_runs_dispatch_pending() == 0
    run.refresh_from_db()
    assert run.status == "cancelled" and run.enqueued_at is None and run.finished_at is not None


def test_the_sweeper_ends_a_queued_run_with_a_cancel_request_instead_of_resending_it(learner, make_run, settings):
    old = timezone.now() - timedelta(seconds=settings.LAB_RESEND_AFTER + 5)
    run = make_run(learner, cancel_requested=True, attempts=1, enqueued_at=old)
    counts = services.lab_runs_sweep_stale()
    assert (counts["cancelled"], counts["resent"]) == (1, 0)
    run.refresh_from_db()
    assert run.status == "cancelled"
