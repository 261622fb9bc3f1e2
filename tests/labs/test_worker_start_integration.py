"""Real workers: the pool child loads torch when it starts (the main process that forks it never
does), and a worker whose GPU cannot hold a size neither consumes its queue nor trains its runs."""

import json
import re

import pytest

from labs import services, workers
from labs.models import LabRun
from labs.workers import ERROR_NO_WORKER_HOLDS_SIZE
from tests.polling import wait_for

pytestmark = pytest.mark.integration
READY = re.compile(
    r"pool child (\d+) ready to train: torch loaded and warmed up in [\d.]+ s "
    r"\(already loaded by the main process: (\w+)\), CUDA initialised here: (\w+) \(before: (\w+)\)"
)


def test_the_pool_child_has_torch_before_its_first_run_and_the_main_process_never_loads_it(
    make_worker, learner, tiny_config, empty_broker
):
    worker = make_worker("warm", LAB_WORKER_DEVICE="cpu").start()
    run = services.lab_run_submit(user=learner, config=tiny_config(steps=2))
    wait_for(lambda: LabRun.objects.filter(pk=run.pk, status="succeeded").exists(), 120, "the run")
    log = worker.log_path.read_text()
    ready, claimed = READY.search(log), log.find(f"lab run {run.pk} claimed by warm@")
    assert ready is not None, log[-3000:]
    # torch came from the child's own import, not from the main process; CUDA (none here) was not
    # initialised before the fork, and the run was claimed only after the child was ready.
    assert ready.group(2, 3, 4) == ("False", "False", "False")
    assert 0 <= ready.start() < claimed
    assert int(ready.group(1)) != worker.process.pid


def test_a_gpu_too_small_for_a_size_skips_its_queue_and_fails_a_run_sent_to_it_anyway(
    make_worker, learner, tiny_config, empty_broker
):
    # A worker that says it has a 512 MiB GPU: it holds `small`, not `medium` (labs.training.sizes).
    worker = make_worker("small-gpu", LAB_WORKER_DEVICE="NVIDIA test GPU", LAB_WORKER_MEMORY_MIB="512").start()
    published = wait_for(lambda: workers.published_workers(), 60, "the worker's heartbeat")[0]
    assert (published.sizes, published.memory_bytes) == (("tiny", "small"), 512 * 2**20)
    medium = tiny_config(steps=2).replace(task="guides-lm", norm="layer", size="medium")
    routed = services.lab_run_submit(user=learner, config=medium)  # to `cuda.medium`
    misrouted = services.lab_run_submit(user=learner, config=medium.replace(seed=1))  # also, and then:
    workers.celery_app.send_task(workers.EXECUTE_RUN, args=[misrouted.pk], queue="cuda.small")
    wait_for(lambda: LabRun.objects.filter(pk=misrouted.pk, status="failed").exists(), 120, "the misrouted run")
    misrouted.refresh_from_db()
    assert (misrouted.error, misrouted.attempts, misrouted.worker) == (ERROR_NO_WORKER_HOLDS_SIZE, 0, "")
    # The routed run waits in the queue of its size, which this worker does not consume.
    routed.refresh_from_db()
    assert (routed.status, routed.attempts) == ("queued", 0)
    waiting = [json.loads(raw)["headers"]["argsrepr"] for raw in empty_broker.lrange("cuda.medium", 0, -1)]
    assert sorted(waiting) == sorted([f"[{routed.pk}]", f"[{misrouted.pk}]"])
    banner = worker.log_path.read_text().split("[tasks]")[0]
    assert "> cuda.small" in banner and "cuda.medium" not in banner
