"""A worker trains only the runs it can hold: the queues it consumes follow its memory, and a run
that still reaches it is sent on to a worker that can hold it, or failed with a reason."""

import json

import pytest
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext

from labs import workers
from labs.models import LabRun
from labs.training.config import DEFAULT_CONFIG
from labs.training.sizes import SIZES
from labs.workers import ERROR_NO_GPU_WORKER, ERROR_NO_WORKER_HOLDS_SIZE, lab_run_pass_on

SMALL_GPU = workers.describe_worker("NVIDIA test GPU", 2, memory_mib=512)  # holds small, not medium
BIG_GPU = workers.describe_worker("NVIDIA H200", 2, memory_mib=141 * 1024)
CPU = workers.describe_worker("cpu", 2)


@pytest.fixture(autouse=True)
def follow_the_workers(settings):
    settings.LAB_WORKER_TTL = 60


@pytest.fixture
def broker(empty_broker):
    """The broker's Redis, every lab queue empty (no worker consumes them here, so nothing is lost)."""
    return empty_broker


def publish(name: str, described: dict) -> None:
    workers.worker_publish(name=name, **described)


def run_of_size(make_run, learner, size: str, **fields) -> LabRun:
    run = make_run(learner, **fields)
    LabRun.objects.filter(pk=run.pk).update(config={**run.config, "task": "guides-lm", "size": size})
    run.refresh_from_db()
    return run


def messages_for(client, queue_name: str, run_id: int) -> list[dict]:
    raw = client.lrange(queue_name, 0, -1)
    headers = [json.loads(message)["headers"] for message in raw]
    return [h for h in headers if h["task"] == workers.EXECUTE_RUN and h["argsrepr"] == f"[{run_id}]"]


def test_a_gpu_consumes_the_queues_of_the_sizes_its_memory_holds():
    assert SIZES["small"].memory_bytes() < 512 * 2**20 < SIZES["medium"].memory_bytes()
    assert SMALL_GPU["sizes"] == ["tiny", "small"]
    assert SMALL_GPU["queues"] == ["gpu", "cuda", "cuda.small"]
    assert BIG_GPU["queues"] == ["gpu", "cuda", "cuda.small", "cuda.medium"]
    assert CPU["queues"] == ["gpu"]


def test_each_size_goes_to_its_own_queue_and_a_tiny_run_to_every_worker():
    guides_lm = {**DEFAULT_CONFIG, "task": "guides-lm", "steps": 4, "effective_batch_size": 16}
    assert workers.queue_for({**guides_lm, "size": "medium"}) == "cuda.medium"
    assert workers.queue_for({**guides_lm, "size": "small"}) == "cuda.small"
    assert workers.queue_for({**guides_lm, "precision": "tf32"}) == "cuda"
    assert workers.queue_for(guides_lm) == "gpu"


@pytest.mark.integration  # reads the heartbeats or the broker queues back from Redis
def test_a_worker_that_holds_the_run_leaves_it_to_its_claim(make_run, learner, broker):
    run = run_of_size(make_run, learner, "small")
    assert lab_run_pass_on(run_id=run.pk, worker=SMALL_GPU) is False
    tiny = make_run(learner)
    assert lab_run_pass_on(run_id=tiny.pk, worker=CPU) is False
    for unchanged in (run, tiny):
        stored = LabRun.objects.get(pk=unchanged.pk)
        assert (stored.status, stored.attempts, stored.enqueued_at) == ("queued", 0, None)


def test_a_run_no_longer_queued_is_left_to_the_claim_which_finds_nothing(make_run, learner):
    run = run_of_size(make_run, learner, "medium", status=LabRun.Status.RUNNING, attempts=1)
    assert lab_run_pass_on(run_id=run.pk, worker=SMALL_GPU) is False
    assert LabRun.objects.get(pk=run.pk).status == "running"


@pytest.mark.integration  # reads the heartbeats or the broker queues back from Redis
@pytest.mark.parametrize(
    ("language", "reason"),
    [
        ("en", "This run's model size needs more GPU memory than any connected worker has. Choose a smaller size."),
        ("fr", "This run's model size needs more GPU memory than any connected worker has. Choose a smaller size."),
    ],
)
def test_a_gpu_too_small_for_the_size_fails_the_run_when_no_connected_worker_holds_it(
    make_run, learner, broker, language, reason
):
    publish("small-gpu@host", SMALL_GPU)
    run = run_of_size(make_run, learner, "medium")
    assert lab_run_pass_on(run_id=run.pk, worker=SMALL_GPU) is True
    run.refresh_from_db()
    assert (run.status, run.error, run.attempts, run.worker) == ("failed", ERROR_NO_WORKER_HOLDS_SIZE, 0, "")
    assert run.finished_at is not None and run.started_at is None  # never trained
    with translation.override(language):
        assert run.error_message == gettext(reason)  # French: the catalog's, read through gettext
        assert language == "en" or gettext(reason) != reason
    assert messages_for(broker, "cuda.medium", run.pk) == []


@pytest.mark.integration  # reads the heartbeats or the broker queues back from Redis
def test_a_gpu_too_small_for_the_size_sends_the_run_on_to_a_worker_that_holds_it(make_run, learner, broker):
    publish("small-gpu@host", SMALL_GPU)
    publish("big-gpu@host", BIG_GPU)
    run = run_of_size(make_run, learner, "medium", reference=True)
    assert lab_run_pass_on(run_id=run.pk, worker=SMALL_GPU) is True
    run.refresh_from_db()
    assert (run.status, run.attempts, run.worker, run.error) == ("queued", 0, "", "")
    assert run.enqueued_at is not None
    (message,) = messages_for(broker, "cuda.medium" + "\x06\x16" + str(workers.LOW_PRIORITY), run.pk)
    assert message["timelimit"] == [settings.LAB_CUDA_HARD_TIME_LIMIT, settings.LAB_CUDA_SOFT_TIME_LIMIT]


@pytest.mark.integration  # reads the heartbeats or the broker queues back from Redis
def test_a_cpu_worker_sends_a_gpu_run_to_the_queue_of_its_size(make_run, learner, broker):
    publish("cpu@host", CPU)
    publish("small-gpu@host", SMALL_GPU)
    run = run_of_size(make_run, learner, "small")
    assert lab_run_pass_on(run_id=run.pk, worker=CPU) is True
    assert LabRun.objects.get(pk=run.pk).status == "queued"
    assert len(messages_for(broker, "cuda.small", run.pk)) == 1
    assert messages_for(broker, "gpu", run.pk) == []


@pytest.mark.integration  # reads the heartbeats or the broker queues back from Redis
@pytest.mark.parametrize("language", ["en", "hi", "fr"])
def test_a_cpu_worker_fails_a_gpu_run_when_no_gpu_worker_is_connected(make_run, learner, broker, language):
    publish("cpu@host", CPU)
    run = run_of_size(make_run, learner, "small")
    assert lab_run_pass_on(run_id=run.pk, worker=CPU) is True
    run.refresh_from_db()
    assert (run.status, run.error) == ("failed", ERROR_NO_GPU_WORKER)
    with translation.override(language):
        shown = run.error_message
    assert "GPU" in shown and (language == "en") == (shown == ERROR_NO_GPU_WORKER)


@pytest.mark.integration  # reads the heartbeats or the broker queues back from Redis
def test_a_cancel_asked_for_before_the_worker_looked_ends_the_run_cancelled(make_run, learner, broker):
    run = run_of_size(make_run, learner, "medium", cancel_requested=True)
    assert lab_run_pass_on(run_id=run.pk, worker=SMALL_GPU) is True
    run.refresh_from_db()
    assert (run.status, run.error) == ("cancelled", "")
