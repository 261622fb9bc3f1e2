"""A run's curve while it trains: appended in chunks, one insert per progress write, never the
growing document; stored whole once at the end; started over by a new claim."""

import threading

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from labs import services
from labs.execution import Reporter, lab_run_claim, lab_run_execute
from labs.models import LabRun, LabRunCurveChunk
from tests.held_runs import held_at
from tests.polling import wait_for


@pytest.fixture(autouse=True)
def quiet_heartbeat(settings):
    settings.LAB_HEARTBEAT_INTERVAL = 3600  # see tests/labs/test_execution.py


def point(step):
    return {"step": step, "loss": 1.0 / step, "grad_norm": 0.5, "lr": 0.05, "samples": 16 * step, "seconds": step}


def claimed_reporter(learner, tiny_config, steps=6):
    run = services.lab_run_submit(user=learner, config=tiny_config(steps=steps))
    run = lab_run_claim(run_id=run.pk, worker="w")
    mine = LabRun.objects.filter(pk=run.pk, status=LabRun.Status.RUNNING, claim=run.claim)
    return run, Reporter(mine, run_id=run.pk)


def chunk_steps(run):
    return [[p["step"] for p in chunk.points] for chunk in LabRunCurveChunk.objects.filter(run=run).order_by("seq")]


def test_each_progress_write_inserts_only_the_points_since_the_last_one(learner, tiny_config, settings):
    settings.LAB_PROGRESS_INTERVAL = 0
    run, reporter = claimed_reporter(learner, tiny_config)
    with CaptureQueriesContext(connection) as queries:
        for step in range(1, 5):
            reporter.on_progress(point(step), step, 6)
    sql = [q["sql"] for q in queries.captured_queries]
    assert sum(q.startswith('INSERT INTO "labs_labruncurvechunk"') for q in sql) == 4
    assert not any('"curve"' in q for q in sql if q.startswith('UPDATE "labs_labrun"'))  # never the document
    assert chunk_steps(run) == [[1], [2], [3], [4]]
    chunks = LabRunCurveChunk.objects.filter(run=run).order_by("seq")
    assert [(c.seq, c.last_step) for c in chunks] == [(0, 1), (1, 2), (2, 3), (3, 4)]
    run.refresh_from_db()
    assert run.curve == [] and run.done_steps == 4
    assert run.curve_points() == [point(s) for s in range(1, 5)]


def test_points_between_writes_wait_for_the_next_write_in_one_chunk(learner, tiny_config, settings):
    settings.LAB_PROGRESS_INTERVAL = 60
    run, reporter = claimed_reporter(learner, tiny_config)
    for step in range(1, 7):
        reporter.on_progress(point(step), step, 6)
    assert chunk_steps(run) == [[1], [2, 3, 4, 5, 6]]  # the first write, then the last step's


def test_a_worker_whose_run_was_claimed_again_appends_nothing_and_stops(learner, tiny_config, settings):
    settings.LAB_PROGRESS_INTERVAL = 0
    run, stale = claimed_reporter(learner, tiny_config)
    stale.on_progress(point(1), 1, 6)
    LabRun.objects.filter(pk=run.pk).update(status=LabRun.Status.QUEUED)  # the sweeper's re-queue
    again = lab_run_claim(run_id=run.pk, worker="second")
    assert again.curve_points() == [] and again.done_steps == 0
    assert LabRunCurveChunk.objects.filter(run=run).count() == 0  # the new claim starts the curve over
    stale.on_progress(point(2), 2, 6)
    assert stale.stop.is_set() and LabRunCurveChunk.objects.filter(run=run).count() == 0


def test_a_cancelled_run_appends_nothing_more(learner, tiny_config, settings):
    settings.LAB_PROGRESS_INTERVAL = 0
    run, reporter = claimed_reporter(learner, tiny_config)
    reporter.on_progress(point(1), 1, 6)
    assert services.lab_run_cancel(run=run)
    reporter.on_progress(point(2), 2, 6)
    assert reporter.stop.is_set() and chunk_steps(run) == [[1]]


@pytest.mark.slow  # trains a model (torch): make test runs it, make unit leaves it out
def test_a_finished_run_keeps_its_whole_curve_in_one_document_and_no_chunks(learner, tiny_config, settings):
    settings.LAB_PROGRESS_INTERVAL = 0
    run = services.lab_run_submit(user=learner, config=tiny_config(steps=5))
    lab_run_execute(run_id=run.pk, worker="w")
    run.refresh_from_db()
    assert run.status == "succeeded" and [p["step"] for p in run.curve] == [1, 2, 3, 4, 5]
    assert run.curve_points() == run.curve and not LabRunCurveChunk.objects.filter(run=run).exists()


def test_a_run_the_sweeper_failed_shows_the_points_its_worker_appended(learner, tiny_config, settings):
    settings.LAB_PROGRESS_INTERVAL = 0
    run, reporter = claimed_reporter(learner, tiny_config)
    for step in (1, 2):
        reporter.on_progress(point(step), step, 6)
    LabRun.objects.filter(pk=run.pk).update(status=LabRun.Status.FAILED)  # its worker was lost for good
    run.refresh_from_db()
    assert [p["step"] for p in run.curve_points()] == [1, 2]
    assert services.lab_run_requeue(run=run)  # the admin starts it again: from nothing
    run.refresh_from_db()
    assert run.curve_points() == [] and not LabRunCurveChunk.objects.filter(run=run).exists()


@pytest.mark.slow  # trains a model (torch): make test runs it, make unit leaves it out
def test_a_run_held_mid_way_has_its_points_in_chunks_until_it_ends(
    transactional_db, learner, tiny_config, settings, tmp_path
):
    settings.LAB_PROGRESS_INTERVAL = 0
    run = services.lab_run_submit(user=learner, config=tiny_config(steps=5))
    held = {"run_id": run.pk, "worker": "w", "reporter": held_at(3, tmp_path / "release")}
    worker = threading.Thread(target=lab_run_execute, kwargs=held)
    worker.start()
    wait_for(lambda: LabRun.objects.get(pk=run.pk).done_steps >= 3, 60, "the run to reach step 3", every=0.05)
    held = LabRun.objects.get(pk=run.pk)
    assert held.curve == [] and chunk_steps(held) == [[1], [2], [3]]
    assert [p["step"] for p in held.curve_points()] == [1, 2, 3]
    (tmp_path / "release").touch()
    worker.join(timeout=60)
    run.refresh_from_db()
    assert run.status == "succeeded" and [p["step"] for p in run.curve] == [1, 2, 3, 4, 5]
    assert not LabRunCurveChunk.objects.filter(run=run).exists()
