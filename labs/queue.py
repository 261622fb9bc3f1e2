"""Where a run stands in the queue: which workers are connected, how many runs wait, and when a
queued run should be done.

Each worker's main process writes a heartbeat key to the cache (Redis) every few seconds, with a
TTL, so a worker that dies simply disappears (`worker_heartbeat`, started from config/celery.py).
What a worker is running comes from the database: the run rows it claimed (`LabRun.worker`).
"""

import dataclasses
import functools
import logging
import math
import os
import shutil
import statistics
import subprocess
import threading
from dataclasses import dataclass

import redis
from django.conf import settings
from django.core.cache import cache
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from . import devices
from .models import LabRun

logger = logging.getLogger(__name__)
KEY_PREFIX = "labs:worker:"
RECENT_RUNS = 20  # finished runs the estimate is the median of


@dataclass(frozen=True)
class Worker:
    name: str  # the Celery hostname, as stored in LabRun.worker
    device: str  # "cpu", or the GPU's model
    running: int | None  # id of the run it trains now
    device_class: str = "cpu"  # "cpu" or "cuda" (labs.devices)
    memory_bytes: int | None = None  # CPU RAM, or the GPU's memory; None: unknown
    sizes: tuple[str, ...] = ()  # guides-lm sizes it takes
    max_processes: int | None = None


@dataclass(frozen=True)
class QueueState:
    workers: list[Worker]
    waiting: int  # queued runs


# ---------------------------------------------------------------- the worker side


def worker_device() -> str:
    """What this worker trains on, found without importing torch: the worker's parent process must
    not initialise CUDA before it forks (see labs/execution.py)."""
    if settings.LAB_WORKER_DEVICE:
        return settings.LAB_WORKER_DEVICE
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    nvidia_smi = shutil.which("nvidia-smi")
    if visible in ("", "-1") or nvidia_smi is None:
        return "cpu"
    command = [nvidia_smi, "--query-gpu=name", "--format=csv,noheader"]
    first = (visible or "").split(",")[0].strip()
    if first:
        command += ["-i", first]
    try:
        names = subprocess.run(command, capture_output=True, text=True, timeout=10, check=True).stdout.split("\n")
    except (OSError, subprocess.SubprocessError):
        return "cpu"
    return names[0].strip() or "cpu"


def worker_described() -> dict:
    """What this worker is (labs.devices.describe_worker): its heartbeat, and what its runs are checked against."""
    return devices.describe_worker(worker_device(), settings.LAB_MAX_PROCESSES, settings.LAB_WORKER_MEMORY_MIB)


@functools.cache
def this_worker() -> dict:
    """worker_described, found once per process: a pool child asks at start, not at each run."""
    return worker_described()


def worker_publish(*, name: str, device: str, **described) -> None:
    """`described`: labs.devices.describe_worker's fields (device class, memory, sizes, processes)."""
    cache.set(KEY_PREFIX + name, {**described, "name": name, "device": device}, timeout=settings.LAB_WORKER_TTL)


def worker_forget(*, name: str) -> None:
    cache.delete(KEY_PREFIX + name)


def worker_heartbeat(*, name: str) -> threading.Event:
    """Publish this worker now and every LAB_WORKER_TTL / 3 seconds; set the returned event to stop."""
    described = worker_described()
    stop = threading.Event()

    def beat() -> None:
        while True:
            try:
                worker_publish(name=name, **described)
            except Exception:  # Redis away: the key expires and the worker shows as gone until it is back
                pass
            if stop.wait(settings.LAB_WORKER_TTL / 3):
                return

    worker_publish(name=name, **described)
    threading.Thread(target=beat, name="lab-worker-heartbeat", daemon=True).start()
    return stop


# ---------------------------------------------------------------- the site side


def connected_workers() -> list[Worker]:
    workers = published_workers()
    running = dict(
        LabRun.objects.filter(status=LabRun.Status.RUNNING, worker__in=[worker.name for worker in workers])
        .order_by("started_at")
        .values_list("worker", "pk")
    )
    return [dataclasses.replace(worker, running=running.get(worker.name)) for worker in workers]


def published_workers() -> list[Worker]:
    """The workers' heartbeats alone (no database): what each is, not what it runs."""
    try:
        return heartbeats()
    except redis.RedisError:  # Redis away: no heartbeat can be read, and the pages must still answer
        logger.warning("the worker heartbeats cannot be read: Redis does not answer")
        return []


def heartbeats() -> list[Worker]:
    """published_workers, raising redis.RedisError when Redis does not answer (no worker is not the same)."""
    names, found = _published_workers()
    return [_worker(found[KEY_PREFIX + name], None) for name in names if KEY_PREFIX + name in found]


def _worker(published: dict, running: int | None) -> Worker:
    device = published["device"]
    device_class = published.get("device_class") or devices.device_class_of(device)  # a worker from before
    return Worker(
        name=published["name"],
        device=device,
        running=running,
        device_class=device_class,
        memory_bytes=published.get("memory_bytes"),
        sizes=tuple(published.get("sizes") or devices.sizes_that_fit(device_class, None)),
        max_processes=published.get("max_processes"),
    )


def site_limits(workers: list[Worker] | None = None) -> devices.Limits:
    """The limits that apply now: what the connected workers can run (or LAB_DEVICE_CLASS)."""
    workers = published_workers() if workers is None else workers
    return devices.limits_for(workers, override=settings.LAB_DEVICE_CLASS, max_processes=settings.LAB_MAX_PROCESSES)


def _published_workers() -> tuple[list[str], dict]:
    if not hasattr(cache, "keys_starting_with"):  # a cache that cannot list keys (the unit tests'): no heartbeat read
        return [], {}
    names = sorted(key[len(KEY_PREFIX) :] for key in cache.keys_starting_with(KEY_PREFIX))
    return names, cache.get_many([KEY_PREFIX + name for name in names])


def queue_state() -> QueueState:
    return QueueState(workers=connected_workers(), waiting=LabRun.objects.filter(status=LabRun.Status.QUEUED).count())


def queue_position(run: LabRun) -> int | None:
    """1 for the next run a worker takes. Runs are dispatched in the order they were submitted,
    learners' runs before the site's reference runs (sent at a lower priority)."""
    if run.status != LabRun.Status.QUEUED:
        return None
    queued = LabRun.objects.filter(status=LabRun.Status.QUEUED)
    same_rank = queued.filter(reference=run.reference)
    ahead = same_rank.filter(created_at__lt=run.created_at).count()
    ahead += same_rank.filter(created_at=run.created_at, pk__lt=run.pk).count()
    if run.reference:
        ahead += queued.filter(reference=False).count()
    return ahead + 1


def typical_run_seconds() -> float | None:
    """Median time from claim to finish of recent runs that really trained (not reused results)."""
    recent = (
        LabRun.objects.filter(status=LabRun.Status.SUCCEEDED, reused_from__isnull=True)
        .exclude(started_at=None)
        .exclude(finished_at=None)
        .order_by("-finished_at")
        .values_list("started_at", "finished_at")[:RECENT_RUNS]
    )
    seconds = [(finished - started).total_seconds() for started, finished in recent]
    return statistics.median(seconds) if seconds else None


def estimate_seconds(*, position: int | None, workers: int) -> float | None:
    """Until a queued run is done: its turn comes after the runs ahead, shared among the workers."""
    typical = typical_run_seconds()
    if position is None or not workers or typical is None:
        return None
    return typical * math.ceil(position / workers)


def run_queue(run: LabRun, state: QueueState | None = None) -> dict:
    """The API's `queue` block of a run (and what its page says)."""
    state = state or queue_state()
    position = queue_position(run)
    return {
        "position": position,
        "waiting": state.waiting,
        "workers_connected": len(state.workers),
        "estimate_seconds": estimate_seconds(position=position, workers=len(state.workers)),
    }


def estimate_text(seconds: float | None) -> str:
    if seconds is None:
        return ""
    if seconds < 60:
        return _("It should be done in less than a minute.")
    minutes = round(seconds / 60)
    return ngettext(
        "It should be done in about %(minutes)d minute.", "It should be done in about %(minutes)d minutes.", minutes
    ) % {"minutes": minutes}
