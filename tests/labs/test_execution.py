"""The worker side, run in this process: claim, train with labs.training, report, finish."""

import threading

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from labs import services
from labs.execution import lab_run_claim, lab_run_execute
from labs.models import LabRun
from tests.held_runs import held_at
from tests.polling import wait_for

pytestmark = pytest.mark.slow  # bin/unit leaves it out (tests/conftest.py)


@pytest.fixture(autouse=True)
def quiet_heartbeat(settings):
    """The heartbeat thread has its own database connection, which would wait on the test's
    open transaction; these runs are short enough to need no heartbeat."""
    settings.LAB_HEARTBEAT_INTERVAL = 3600


def test_a_queued_run_trains_to_succeeded_with_a_full_curve_and_metrics(learner, tiny_config):
    run = services.lab_run_submit(user=learner, config=tiny_config(steps=4))
    lab_run_execute(run_id=run.pk, worker="test@host")
    run.refresh_from_db()
    assert run.status == "succeeded" and run.attempts == 1 and run.worker == "test@host"
    assert [point["step"] for point in run.curve] == [1, 2, 3, 4]
    assert run.done_steps == 4 and run.progress_percent == 100
    assert run.device == "cpu" and run.torch_version
    assert run.metrics["final_loss"] == run.curve[-1]["loss"]
    assert run.metrics["peak_activation_bytes"] > 0 and run.metrics["grad_equivalence_error"] < 1e-4
    assert run.metrics["diverged"] is False


def test_a_redelivered_message_never_trains_twice(learner, tiny_config):
    run = services.lab_run_submit(user=learner, config=tiny_config())
    lab_run_execute(run_id=run.pk, worker="first")
    finished_at = LabRun.objects.get(pk=run.pk).finished_at
    lab_run_execute(run_id=run.pk, worker="second")
    run.refresh_from_db()
    assert run.worker == "first" and run.attempts == 1 and run.finished_at == finished_at
    assert lab_run_claim(run_id=run.pk, worker="third") is None


def test_a_run_cancelled_while_queued_is_never_claimed(learner, tiny_config):
    run = services.lab_run_submit(user=learner, config=tiny_config())
    services.lab_run_cancel(run=run)
    lab_run_execute(run_id=run.pk, worker="w")
    run.refresh_from_db()
    assert run.status == "cancelled" and run.attempts == 0 and run.curve == []


def test_a_run_whose_twin_finished_meanwhile_reuses_it_without_training(learner, make_run, tiny_config):
    waiting = services.lab_run_submit(user=learner, config=tiny_config())
    twin = make_run(learner, status=LabRun.Status.SUCCEEDED)
    lab_run_execute(run_id=waiting.pk, worker="w")
    waiting.refresh_from_db()
    assert waiting.status == "succeeded" and waiting.reused_from == twin and waiting.curve == twin.curve


def test_progress_is_written_a_few_times_per_second_not_per_step(learner, tiny_config, settings):
    def progress_writes(interval):
        settings.LAB_PROGRESS_INTERVAL = interval
        run = services.lab_run_submit(user=learner, config=tiny_config(steps=12, seed=int(interval)))
        with CaptureQueriesContext(connection) as queries:
            lab_run_execute(run_id=run.pk, worker="w")
        sql = [q["sql"] for q in queries.captured_queries]
        assert sum(q.startswith('UPDATE "labs_labrun" SET') and '"curve" = ' in q for q in sql) == 2  # claim, result
        return sum(q.startswith('INSERT INTO "labs_labruncurvechunk"') for q in sql)

    assert progress_writes(0) == 12  # every step appends its point
    assert progress_writes(60) == 2  # the first and last steps only


def test_cancelling_a_running_run_stops_training_and_keeps_the_curve_so_far(
    transactional_db, learner, tiny_config, settings, tmp_path
):
    run = services.lab_run_submit(user=learner, config=tiny_config(steps=400, task="digits-cnn"))
    held = {"run_id": run.pk, "worker": "w", "reporter": held_at(2, tmp_path / "never-released")}
    worker = threading.Thread(target=lab_run_execute, kwargs=held)
    worker.start()
    wait_for(lambda: LabRun.objects.get(pk=run.pk).done_steps >= 2, 60, "the run to reach step 2", every=0.05)
    assert services.lab_run_cancel(run=run)
    worker.join(timeout=60)
    run.refresh_from_db()
    assert run.status == "cancelled"
    assert len(run.curve) == run.done_steps == 2  # held at step 2, cancelled there


def test_a_run_held_at_a_step_goes_on_to_the_end_once_released(
    transactional_db, learner, tiny_config, settings, tmp_path
):
    release = tmp_path / "release"
    run = services.lab_run_submit(user=learner, config=tiny_config(steps=5))
    held = {"run_id": run.pk, "worker": "w", "reporter": held_at(2, release)}
    worker = threading.Thread(target=lab_run_execute, kwargs=held)
    worker.start()
    wait_for(lambda: LabRun.objects.get(pk=run.pk).done_steps >= 2, 60, "the run to reach step 2", every=0.05)
    worker.join(timeout=0.5)
    held = LabRun.objects.get(pk=run.pk)
    assert worker.is_alive() and (held.status, held.done_steps) == ("running", 2)
    release.touch()
    worker.join(timeout=60)
    run.refresh_from_db()
    assert run.status == "succeeded" and run.done_steps == 5


def test_a_queued_run_whose_cancel_was_requested_is_ended_by_its_claim_never_trained(learner, make_run):
    """The state a cancel racing with the sweeper's re-queue used to leave: queued for good."""
    run = make_run(learner, cancel_requested=True, attempts=1)
    lab_run_execute(run_id=run.pk, worker="w")
    run.refresh_from_db()
    assert run.status == "cancelled" and run.finished_at is not None
    assert run.attempts == 1 and run.worker == "" and run.curve == []
