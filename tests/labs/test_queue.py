"""The queue: positions, the estimate from stored runs, connected workers, and what pages and the API say."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from labs import selectors, views, workers
from labs.models import LabRun


@pytest.fixture
def finished_in(make_run, learner):
    """A run that trained for `seconds` (claim to finish), as the estimate reads them."""

    def factory(seconds: float, **fields) -> LabRun:
        end = timezone.now()
        start = end - timedelta(seconds=seconds)
        return make_run(learner, status=LabRun.Status.SUCCEEDED, started_at=start, finished_at=end, **fields)

    return factory


def test_queued_runs_are_numbered_in_the_order_they_were_submitted(make_run, learner, other_learner):
    first, second, third = make_run(learner), make_run(other_learner), make_run(learner)
    make_run(learner, status=LabRun.Status.RUNNING)
    assert [selectors.queue_position(run) for run in (first, second, third)] == [1, 2, 3]


def test_a_run_that_is_not_queued_has_no_position(make_run, learner):
    assert selectors.queue_position(make_run(learner, status=LabRun.Status.RUNNING)) is None
    assert selectors.queue_position(make_run(learner, status=LabRun.Status.SUCCEEDED)) is None


def test_runs_submitted_at_the_same_instant_are_ordered_by_id(make_run, learner):
    first, second = make_run(learner), make_run(learner)
    LabRun.objects.filter(pk__in=[first.pk, second.pk]).update(created_at=timezone.now())
    first.refresh_from_db(), second.refresh_from_db()
    assert (selectors.queue_position(first), selectors.queue_position(second)) == (1, 2)


def queued(make_run, learner, seed: int) -> LabRun:
    """A queued run of its own settings (the seed makes them differ)."""
    return make_run(learner, config={"seed": seed})


def test_the_estimate_is_the_median_run_time_for_each_run_to_train_shared_among_the_workers(
    finished_in, make_run, learner
):
    for seconds in (30, 60, 600):
        finished_in(seconds, config={"seed": 100 + seconds})
    assert selectors.typical_run_seconds() == 60
    first, _second, third = (queued(make_run, learner, seed) for seed in (1, 2, 3))
    assert selectors.estimate_seconds(first, workers=1) == 60
    assert selectors.estimate_seconds(third, workers=1) == 180
    assert selectors.estimate_seconds(third, workers=2) == 90


def test_runs_ahead_with_the_same_settings_are_trained_once(finished_in, make_run, learner, other_learner):
    """A room presses "Run" on one preset: the first of the identical runs trains, and each of the
    others copies its result when a worker claims it (labs.execution). Counting each as a run to
    train told the last learner to wait forty times too long."""
    finished_in(60, config={"seed": 100})
    for _ in range(40):
        make_run(other_learner, config={"seed": 7})  # forty learners, one preset run
    mine = queued(make_run, learner, 8)
    assert selectors.queue_position(mine) == 41
    assert selectors.trainings_until(mine) == 2
    assert selectors.estimate_seconds(mine, workers=1) == 120


def test_runs_whose_twin_has_finished_or_is_training_wait_for_nothing(finished_in, make_run, learner, other_learner):
    original = finished_in(60, config={"seed": 7})
    make_run(other_learner, config={"seed": 7})  # queued while the original trained: it will copy it
    make_run(other_learner, config={"seed": 9}, status=LabRun.Status.RUNNING, started_at=original.finished_at)
    make_run(other_learner, config={"seed": 9})  # its twin is training
    mine = queued(make_run, learner, 8)
    assert selectors.trainings_until(mine) == 1


def test_a_run_in_training_adds_what_is_left_of_its_typical_time(finished_in, make_run, learner, other_learner):
    finished_in(60, config={"seed": 100})
    started = timezone.now() - timedelta(seconds=45)
    make_run(other_learner, config={"seed": 5}, status=LabRun.Status.RUNNING, started_at=started)
    estimate = selectors.estimate_seconds(queued(make_run, learner, 8), workers=1)
    assert 60 + 14 <= estimate <= 60 + 15  # about 15 s left of the one training, then this one's 60


def test_reused_results_do_not_count_in_the_estimate(finished_in):
    original = finished_in(100)
    finished_in(1, reused_from=original)
    assert selectors.typical_run_seconds() == 100


def test_there_is_no_estimate_without_a_worker_or_without_finished_runs(finished_in, make_run, learner):
    run = queued(make_run, learner, 1)
    assert selectors.estimate_seconds(run, workers=1) is None
    finished_in(60, config={"seed": 2})
    assert selectors.estimate_seconds(run, workers=0) is None


def test_the_recent_runs_are_read_only_for_a_queued_run_that_a_worker_will_take(
    learner_client, learner, make_run, finished_in
):
    """A finished run's page (or a queued one with no worker connected) gives no estimate, so it
    does not read the recent runs' times: one query fewer on every such page."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    finished_in(60)
    run = make_run(learner, status=LabRun.Status.SUCCEEDED)
    with CaptureQueriesContext(connection) as captured:
        assert learner_client.get(reverse("labs:run", args=[run.pk])).status_code == 200
    assert not any('"reused_from_id" IS NULL' in query["sql"] for query in captured.captured_queries)
    assert selectors.estimate_seconds(run, workers=1) is None


def test_estimate_text_says_minutes():
    assert views.estimate_text(None) == ""
    assert views.estimate_text(20) == "It should be done in less than a minute."
    assert views.estimate_text(60) == "It should be done in about 1 minute."
    assert views.estimate_text(300) == "It should be done in about 5 minutes."


@pytest.mark.integration  # reads the heartbeats or the broker queues back from Redis
def test_a_published_worker_is_connected_with_the_run_it_trains(make_run, learner, settings):
    settings.LAB_WORKER_TTL = 30
    workers.worker_publish(name="gpu-1@host", device="NVIDIA H200")
    workers.worker_publish(name="cpu-1@host", device="cpu")
    running = make_run(learner, status=LabRun.Status.RUNNING, worker="gpu-1@host")
    make_run(learner)
    state = selectors.queue_state()
    assert state.waiting == 1
    assert [(w.name, w.device, w.device_class, w.running) for w in state.workers] == [
        ("cpu-1@host", "cpu", "cpu", None),
        ("gpu-1@host", "NVIDIA H200", "cuda", running.pk),  # a heartbeat without its class: told by its device
    ]
    workers.worker_forget(name="gpu-1@host")
    assert [w.name for w in workers.connected_workers()] == ["cpu-1@host"]


def test_the_device_named_in_the_settings_is_reported(settings):
    settings.LAB_WORKER_DEVICE = "NVIDIA H200"
    assert workers.worker_device() == "NVIDIA H200"


def test_without_a_gpu_the_device_is_cpu(settings, monkeypatch):
    settings.LAB_WORKER_DEVICE = ""
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    assert workers.worker_device() == "cpu"


# ---------------------------------------------------------------- pages and API


def test_a_queued_run_page_says_its_position_and_that_no_worker_is_connected(learner_client, make_run, learner):
    make_run(learner)
    run = make_run(learner)
    page = learner_client.get(f"/en/labs/runs/{run.pk}/").content.decode()
    assert "Position 2 of 2 in the queue." in page
    assert "No worker is connected right now: this run waits until one connects." in page


@pytest.mark.integration  # reads the heartbeats or the broker queues back from Redis
def test_a_queued_run_page_gives_an_estimate_when_a_worker_is_connected(learner_client, make_run, learner, finished_in):
    finished_in(120, config={"seed": 120})
    workers.worker_publish(name="w@host", device="cpu")
    run = make_run(learner)
    page = learner_client.get(f"/en/labs/runs/{run.pk}/").content.decode()
    assert "Position 1 of 1 in the queue." in page
    assert "It should be done in about 2 minutes." in page
    assert "<strong>w@host</strong> · cpu · idle" in page


def test_the_queue_panel_is_translated(learner_client, make_run, learner):
    run = make_run(learner)
    hindi = learner_client.get(f"/hi/labs/runs/{run.pk}/").content.decode()
    french = learner_client.get(f"/fr/labs/runs/{run.pk}/").content.decode()
    assert "अभी कोई worker जुड़ा नहीं है: यह run" in hindi and "क़तार में 1 में से स्थान 1।" in hindi
    assert "Aucun worker n’est connecté" in french.replace("&#x27;", "’").replace("'", "’")


@pytest.mark.integration  # reads the heartbeats or the broker queues back from Redis
def test_the_api_gives_a_queue_block_on_a_run(learner_client, make_run, learner, finished_in):
    finished_in(90, config={"seed": 90})
    workers.worker_publish(name="w@host", device="cpu")
    make_run(learner, config={"seed": 1})
    run = make_run(learner, config={"seed": 2})  # other settings: both train
    body = learner_client.get(f"/api/labs/runs/{run.pk}").json()
    assert body["queue"] == {"position": 2, "waiting": 2, "workers_connected": 1, "estimate_seconds": 180}


@pytest.mark.integration  # reads the heartbeats or the broker queues back from Redis
def test_the_api_queue_lists_workers_and_the_waiting_count(client, make_run, learner):
    workers.worker_publish(name="w@host", device="NVIDIA H200")
    running = make_run(learner, status=LabRun.Status.RUNNING, worker="w@host")
    make_run(learner)
    body = client.get("/api/labs/queue").json()
    ((worker),) = body["workers"]
    assert (worker["name"], worker["device"], worker["running"], body["waiting"]) == (
        "w@host",
        "NVIDIA H200",
        running.pk,
        1,
    )


def test_the_live_poll_updates_every_listed_run_and_stops_when_none_is_active(learner_client, make_run, learner):
    queued = make_run(learner)
    done = make_run(learner, status=LabRun.Status.SUCCEEDED)
    body = learner_client.get("/en/labs/live/", headers={"HX-Request": "true"}).content.decode()
    assert f'id="pick-status-{queued.pk}" data-hx-swap-oob="true"' in body
    assert f'id="pick-status-{done.pk}" data-hx-swap-oob="true"' in body
    assert 'id="lab-queue"' in body and "data-hx-trigger" in body
    LabRun.objects.filter(pk=queued.pk).update(status=LabRun.Status.SUCCEEDED)
    body = learner_client.get("/en/labs/live/", headers={"HX-Request": "true"}).content.decode()
    assert "data-hx-trigger" not in body


def test_wide_tables_scroll_in_a_named_focusable_box(learner_client, make_run, learner):
    run = make_run(learner, status=LabRun.Status.SUCCEEDED)
    page = learner_client.get(f"/en/labs/compare/?run={run.pk}").content.decode()
    assert 'class="lab-scroll" tabindex="0" role="region" aria-label="Settings and results of each run"' in page
    assert 'aria-label="Your runs"' in page


def test_the_compare_poll_brings_the_listed_runs_and_the_queue_in_one_request(learner_client, make_run, learner):
    compared = make_run(learner, status=LabRun.Status.RUNNING)
    listed = make_run(learner)
    page = learner_client.get(f"/en/labs/compare/?run={compared.pk}").content.decode()
    view = "x=step&amp;y=linear&amp;smooth=0&amp;validation=shown&amp;lines=styled"  # the chart's, kept by the poll
    assert f"/en/labs/compare/?run={compared.share_ref}&amp;{view}&amp;live=1" in page
    assert 'id="lab-live" hidden>' in page  # the results table's poll covers the list
    poll = learner_client.get(f"/en/labs/compare/?run={compared.pk}&live=1", headers={"HX-Request": "true"})
    body = poll.content.decode()
    assert 'id="lab-results"' in body and f'id="pick-status-{listed.pk}" data-hx-swap-oob="true"' in body
    assert 'id="lab-queue"' in body and 'id="lab-live" hidden data-hx-swap-oob="true">' in body


def test_the_preset_page_poll_gets_the_results_only(client, make_run, learner):
    run = make_run(learner, status=LabRun.Status.RUNNING, preset="memory-vs-n")
    body = client.get(f"/en/labs/compare/?run={run.pk}", headers={"HX-Request": "true"}).content.decode()
    assert 'id="lab-results"' in body and "lab-queue" not in body and "pick-status" not in body


def test_a_run_still_answers_while_redis_is_away(client, learner, make_run, settings):
    """With the cache's Redis unreachable, a run's page and API answer; no worker can be shown."""
    run = make_run(learner)
    nobody_listens = "redis://127.0.0.1:1/0"  # port 1: refused at once
    settings.CACHES = {"default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": nobody_listens}}
    assert workers.connected_workers() == []
    assert selectors.run_queue(run)["workers_connected"] == 0
