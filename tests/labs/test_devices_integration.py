"""Real workers and the two queues: a CPU worker publishes what it is, trains tiny runs and never
takes a run that needs a GPU; a worker that says it has a GPU consumes the `cuda` queue too."""

import pytest

from labs import services, workers
from labs.execution import ERROR_NEEDS_GPU
from labs.models import LabRun
from labs.training.config import RunConfig
from tests.polling import wait_for

pytestmark = pytest.mark.integration


def _published(prefix: str) -> workers.Worker:
    found = lambda: [w for w in workers.published_workers() if w.name.startswith(prefix)]  # noqa: E731
    return wait_for(found, 60, f"the heartbeat of {prefix}")[0]


def _gpu_run(tiny_config) -> RunConfig:
    return tiny_config(steps=2).replace(task="guides-lm", norm="layer", size="small")


def test_a_cpu_worker_trains_a_tiny_run_and_leaves_a_gpu_run_to_a_gpu_worker(
    make_worker, learner, tiny_config, empty_broker
):
    make_worker("cpu-only", LAB_WORKER_DEVICE="cpu").start()
    worker = _published("cpu-only@")
    assert (worker.device, worker.device_class, worker.sizes) == ("cpu", "cpu", ("tiny",))
    assert worker.memory_bytes > 0 and worker.max_processes >= 1
    # The GPU run is sent first: on one shared queue the worker would take it before the tiny one.
    gpu_run = services.lab_run_submit(user=learner, config=_gpu_run(tiny_config))
    tiny_run = services.lab_run_submit(user=learner, config=tiny_config(steps=2))
    wait_for(lambda: LabRun.objects.filter(pk=tiny_run.pk, status="succeeded").exists(), 120, "the tiny run")
    gpu_run.refresh_from_db()
    assert (gpu_run.status, gpu_run.worker, gpu_run.attempts) == ("queued", "", 0)
    assert gpu_run.enqueued_at is not None  # in the broker's `cuda` list, where no CPU worker looks


def test_a_worker_that_says_it_has_a_gpu_consumes_the_cuda_queue(make_worker, learner, tiny_config, empty_broker):
    # LAB_WORKER_DEVICE names a GPU this machine lacks: the worker consumes `cuda`, takes the run,
    # and its torch, finding no CUDA, fails it with the reason a learner reads.
    gpu_run = services.lab_run_submit(user=learner, config=_gpu_run(tiny_config))
    make_worker("says-gpu", LAB_WORKER_DEVICE="NVIDIA H200").start()
    worker = _published("says-gpu@")
    assert (worker.device_class, worker.sizes) == ("cuda", ("tiny", "small", "medium"))
    wait_for(lambda: LabRun.objects.filter(pk=gpu_run.pk, status="failed").exists(), 120, "the GPU run")
    gpu_run.refresh_from_db()
    assert gpu_run.error == ERROR_NEEDS_GPU and gpu_run.worker.startswith("says-gpu@")
