"""The labs' worker side: which Celery queue a run goes to, each worker's heartbeat, the check a
worker makes when it takes a run, and the limits the site accepts from the connected workers.

Every worker consumes LAB_QUEUE, `gpu` (operators start every worker with `-Q gpu`): the runs any CPU
trains, so one machine without a GPU runs the site alone. A CUDA worker adds, itself at start
(config/celery.py), `cuda` (tiny runs that need a GPU) and the queue of each GPU size its memory
holds (`cuda.small`, `cuda.medium`). A heartbeat is a cache key with a TTL: a dead worker simply
disappears. Nothing here imports torch: the main process finds its GPU with nvidia-smi and must not
initialise CUDA before it forks; only the pool child loads torch (`pool_child_prepare`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import os
import subprocess
import threading
from collections.abc import Iterable, Mapping
from typing import Any

import redis
from django.conf import settings
from django.core.cache import cache
from django.utils.translation import gettext_noop

from config.celery import app as celery_app
from labs.training import config as lab_config
from labs.training.sizes import SIZES

from .models import LabRun

logger = logging.getLogger(__name__)

LAB_QUEUE = "gpu"  # every worker's, CPU or GPU; the name operators start workers with
CUDA_QUEUE = "cuda"
EXECUTE_RUN = "labs.tasks.execute_run"  # sent by name: labs.tasks imports this module
# Redis keeps one list per priority step and a worker takes from the step-0 list first: learners'
# runs (no priority, i.e. 0) always go before the site's reference runs (kombu's priority_steps).
LOW_PRIORITY = 9
KEY_PREFIX = "labs:worker:"

ERROR_NO_GPU_WORKER = gettext_noop(
    "This run needs a GPU worker, and none is connected now. "
    "Submit it again when one is, or choose settings a CPU can run."
)
ERROR_NO_WORKER_HOLDS_SIZE = gettext_noop(
    "This run's model size needs more GPU memory than any connected worker has. Choose a smaller size."
)


def queue_for(config: Mapping[str, Any]) -> str:
    needs = lab_config.run_needs(config)
    if needs.gpu_size:
        return f"{CUDA_QUEUE}.{needs.gpu_size}"
    return CUDA_QUEUE if needs.device_class == "cuda" else LAB_QUEUE


def queues_for(device_class: str, sizes: Iterable[str]) -> list[str]:
    if device_class != "cuda":
        return [LAB_QUEUE]
    return [LAB_QUEUE, CUDA_QUEUE, *(f"{CUDA_QUEUE}.{name}" for name in sizes if SIZES[name].needs_gpu)]


def can_hold(config: Mapping[str, Any], worker: Mapping[str, Any]) -> bool:
    needs = lab_config.run_needs(config)
    return (needs.device_class == "cpu" or worker["device_class"] == "cuda") and config["size"] in worker["sizes"]


def lab_run_enqueue(*, run_id: int, low_priority: bool = False) -> bool:
    """Hand a queued run to the broker, on its queue. False when the broker is unreachable: the run
    stays stored with no `enqueued_at` and the dispatcher sends it once Redis is back."""
    options = {"priority": LOW_PRIORITY} if low_priority else {}
    config = LabRun.objects.filter(pk=run_id).values_list("config", flat=True).first()
    queue = queue_for(config) if config else LAB_QUEUE  # a run deleted meanwhile: its worker finds nothing
    if queue != LAB_QUEUE:  # a GPU run may take longer; on LAB_QUEUE the worker's own limits apply
        options.update(soft_time_limit=settings.LAB_CUDA_SOFT_TIME_LIMIT, time_limit=settings.LAB_CUDA_HARD_TIME_LIMIT)
    try:
        # One connection attempt: kombu would otherwise retry for seconds, holding a web worker
        # (and the learner) for every submission while Redis is down. The dispatcher sends it later.
        with celery_app.connection_for_write() as connection:
            connection.ensure_connection(max_retries=0)
            celery_app.send_task(EXECUTE_RUN, args=[run_id], queue=queue, retry=False, connection=connection, **options)
    except Exception as exc:
        logger.warning("lab run %s stored but not sent to the broker: %s", run_id, exc)
        return False
    LabRun.objects.filter(pk=run_id).sent()
    return True


def sizes_that_fit(device_class: str, memory_bytes: int | None) -> list[str]:
    """CPU sizes on a CPU; on a GPU, those whose memory_bytes fit (every size when its memory is unknown)."""
    if device_class != "cuda":
        return [name for name, size in SIZES.items() if not size.needs_gpu]
    return [name for name, size in SIZES.items() if memory_bytes is None or size.memory_bytes() <= memory_bytes]


def _nvidia_smi(query: str) -> str | None:
    """One field of the first visible GPU, or None when nvidia-smi is absent (OSError) or cannot say."""
    command = ["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader,nounits"]
    first = os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")[0].strip()
    if first:
        command += ["-i", first]
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=10, check=True).stdout.split("\n")[0]
    except (OSError, subprocess.SubprocessError):
        return None


def worker_device() -> str:
    """What this worker trains on: LAB_WORKER_DEVICE, else the first visible GPU's model, else "cpu"."""
    if settings.LAB_WORKER_DEVICE:
        return settings.LAB_WORKER_DEVICE
    if os.environ.get("CUDA_VISIBLE_DEVICES") in ("", "-1"):
        return "cpu"
    return (_nvidia_smi("name") or "").strip() or "cpu"


def memory_bytes(device_class: str) -> int | None:
    """The GPU's memory (nvidia-smi, MiB), or the machine's RAM; None when it cannot say."""
    try:
        if device_class == "cuda":
            return int(float(_nvidia_smi("memory.total") or "")) * 2**20
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return None


def describe_worker(device: str, max_processes: int, memory_mib: int = 0) -> dict[str, Any]:
    """Its heartbeat. `memory_mib` (LAB_WORKER_MEMORY_MIB): a share of a GPU that several workers use."""
    device_class = "cpu" if device == "cpu" else "cuda"
    memory = memory_mib * 2**20 if memory_mib else memory_bytes(device_class)
    sizes = sizes_that_fit(device_class, memory)
    return {
        "device": device,
        "device_class": device_class,
        "memory_bytes": memory,
        "sizes": sizes,
        "max_processes": max_processes,
        "queues": queues_for(device_class, sizes),
    }


@functools.cache  # a pool child asks at start, not at each run
def this_worker() -> dict[str, Any]:
    return describe_worker(worker_device(), settings.LAB_MAX_PROCESSES, settings.LAB_WORKER_MEMORY_MIB)


def worker_queues_select(queues: Any) -> None:
    """At start (Celery's `app.amqp.queues`): add the GPU queues this worker's device holds, drop those
    it cannot (`-Q gpu,cuda` on a CPU, a size too big for its memory: it would only pass them on)."""
    mine = this_worker()["queues"]
    for name in mine:
        if name.startswith(CUDA_QUEUE):
            queues.select_add(name)
    for name in list(queues.consume_from):
        if name.startswith(CUDA_QUEUE) and name not in mine:
            queues.deselect(name)


def worker_publish(*, name: str, device: str, **described: Any) -> None:
    cache.set(KEY_PREFIX + name, {**described, "name": name, "device": device}, timeout=settings.LAB_WORKER_TTL)


def worker_forget(*, name: str) -> None:
    cache.delete(KEY_PREFIX + name)


def worker_heartbeat(*, name: str) -> threading.Event:
    """Publish this worker now and every LAB_WORKER_TTL / 3 seconds; set the returned event to stop."""
    described = this_worker()
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(settings.LAB_WORKER_TTL / 3):
            # Redis away: the key expires and the worker shows as gone until it is back
            with contextlib.suppress(Exception):
                worker_publish(name=name, **described)

    worker_publish(name=name, **described)
    threading.Thread(target=beat, name="lab-worker-heartbeat", daemon=True).start()
    return stop


def pool_child_prepare() -> dict[str, Any]:
    """Load torch and train one step in the pool child (config/celery.py), so a first run starts as fast
    as later ones; CUDA starts here, never in the main process (a CUDA context does not survive a fork)."""
    from labs.training.process import training_process_prepare

    state = {"pid": os.getpid(), **training_process_prepare(cuda=this_worker()["device_class"] == "cuda")}
    logger.info(
        "pool child %(pid)s ready to train: torch loaded and warmed up in %(seconds).1f s (already loaded by the main "
        "process: %(torch_inherited)s), CUDA initialised here: %(cuda)s (before: %(cuda_inherited)s)",
        state,
    )
    return state


def lab_run_pass_on(*, run_id: int, worker: Mapping[str, Any]) -> bool:
    """True when `worker` cannot hold the queued run (a message sent before its memory or queues changed,
    or `-Q` naming a queue too big for it). The run is not claimed (it keeps its attempts): it goes back
    to its size's queue when a connected worker can hold it, and fails with a reason when none can."""
    row = LabRun.objects.filter(pk=run_id, status=LabRun.Status.QUEUED).values("config", "reference").first()
    if row is None or can_hold(row["config"], worker):
        return False
    queued = LabRun.objects.filter(pk=run_id).waiting()
    try:
        connected = [vars(other) for other in heartbeats()]
    except redis.RedisError:  # who is connected is unknown: send it on rather than fail it
        connected = None
    if connected is not None and not any(can_hold(row["config"], other) for other in connected):
        gpu_connected = any(other["device_class"] == "cuda" for other in connected)
        too_big = gpu_connected and lab_config.run_needs(row["config"]).gpu_size is not None
        error = ERROR_NO_WORKER_HOLDS_SIZE if too_big else ERROR_NO_GPU_WORKER
        queued.end(LabRun.Status.FAILED, error)
    elif queued.unsent():  # from here the dispatcher re-sends it if the broker refuses
        logger.info("lab run %s passed on: this worker cannot hold it", run_id)
        lab_run_enqueue(run_id=run_id, low_priority=row["reference"])
    LabRun.objects.filter(pk=run_id).end_cancelled()  # a learner's cancel still ends it as cancelled
    return True


@dataclasses.dataclass(frozen=True)
class Worker:
    name: str  # the Celery hostname, as stored in LabRun.worker
    device: str  # "cpu", or the GPU's model
    running: int | None  # id of the run it trains now
    device_class: str = "cpu"  # "cpu" or "cuda"
    memory_bytes: int | None = None  # CPU RAM, or the GPU's memory; None: unknown
    sizes: tuple[str, ...] = ()  # guides-lm sizes it takes
    max_processes: int | None = None


@functools.cache  # one connection pool per process and address, as the cache backend keeps its own
def _redis_client(location: str) -> redis.Redis:
    return redis.Redis.from_url(location, socket_connect_timeout=2, socket_timeout=2)


def heartbeats() -> list[Worker]:
    """The workers' heartbeats (no database); redis.RedisError when Redis does not answer. The cache API
    cannot list keys: SCAN (never KEYS) on the cache's Redis; another cache holds no other process's."""
    location = settings.CACHES["default"].get("LOCATION", "")
    if not isinstance(location, str) or not location.startswith(("redis://", "rediss://", "unix://")):
        return []
    prefix = cache.make_key(KEY_PREFIX)
    found = _redis_client(location).scan_iter(match=prefix + "*", count=100)
    published = cache.get_many([KEY_PREFIX + key.decode()[len(prefix) :] for key in found])
    return sorted(map(_worker, published.values()), key=lambda worker: worker.name)


def _worker(published: dict) -> Worker:
    device_class = published.get("device_class") or ("cpu" if published["device"] == "cpu" else "cuda")  # an old one
    sizes = tuple(published.get("sizes") or sizes_that_fit(device_class, None))
    fields = {field.name: published.get(field.name) for field in dataclasses.fields(Worker)}
    return Worker(**fields | {"device_class": device_class, "sizes": sizes})


def published_workers() -> list[Worker]:  # none when Redis does not answer: the pages must still answer
    try:
        return heartbeats()
    except redis.RedisError:
        logger.warning("the worker heartbeats cannot be read: Redis does not answer")
        return []


def connected_workers() -> list[Worker]:  # each with the run it trains now
    workers = published_workers()
    running = dict(
        LabRun.objects.filter(status=LabRun.Status.RUNNING, worker__in=[worker.name for worker in workers])
        .order_by("started_at")
        .values_list("worker", "pk")
    )
    return [dataclasses.replace(worker, running=running.get(worker.name)) for worker in workers]


def site_limits(workers: list[Worker] | None = None) -> lab_config.Limits:
    """What the site accepts now: LAB_DEVICE_CLASS fixes the device class, empty follows the workers.
    Runs any CPU trains are always accepted, even with no worker: they wait until one comes."""
    workers = published_workers() if workers is None else workers
    connected = tuple(sorted({worker.device_class for worker in workers}))
    if settings.LAB_DEVICE_CLASS in ("cpu", "cuda"):
        device_class = settings.LAB_DEVICE_CLASS
        sizes = sizes_that_fit(device_class, None)
    else:
        device_class = "cuda" if "cuda" in connected else "cpu"
        gpu_sizes = [name for worker in workers if worker.device_class == "cuda" for name in worker.sizes]
        sizes = sizes_that_fit("cpu", None) + gpu_sizes
    ordered = tuple(name for name in SIZES if name in sizes)
    return lab_config.Limits(device_class, ordered, settings.LAB_MAX_PROCESSES, connected)
