"""A worker's check when it takes a run: it trains only what it can hold.

Queues already route runs by what they need (labs.devices.queue_for), but a message can still
reach a worker that cannot hold its run: one sent before the worker's memory or queues changed, or
a worker started with `-Q` naming a queue too big for it. Such a run is not claimed (it keeps its
attempts): it goes back to its size's queue when a connected worker can hold it, and fails with a
reason the learner reads when none can. Nothing is dropped: the row stays queued until one of
those writes lands, and a re-send that the broker refuses is left to the dispatcher.
"""

import logging
from collections.abc import Mapping
from typing import Any

import redis
from django.utils import timezone
from django.utils.translation import gettext_noop

from . import devices, queue
from .models import LabRun
from .services import lab_run_enqueue, lab_runs_end_cancelled_queued

logger = logging.getLogger(__name__)

ERROR_NO_GPU_WORKER = gettext_noop(
    "This run needs a GPU worker, and none is connected now. "
    "Submit it again when one is, or choose settings a CPU can run."
)
ERROR_NO_WORKER_HOLDS_SIZE = gettext_noop(
    "This run's model size needs more GPU memory than any connected worker has. Choose a smaller size."
)


def lab_run_pass_on(*, run_id: int, worker: Mapping[str, Any]) -> bool:
    """True when `worker` (labs.queue.this_worker: its device class and sizes) cannot hold the
    queued run: the run was sent on or failed here, and this worker must not train it. False
    otherwise, including for a run no longer queued (the claim then finds nothing to take)."""
    row = LabRun.objects.filter(pk=run_id, status=LabRun.Status.QUEUED).values("config", "reference").first()
    if row is None or _holds(worker, row["config"]):
        return False
    queued = LabRun.objects.filter(pk=run_id, status=LabRun.Status.QUEUED, cancel_requested=False)
    try:
        connected = [vars(other) for other in queue.heartbeats()]
    except redis.RedisError:  # who is connected is unknown: send it on rather than fail it
        connected = None
    if connected is not None and not any(_holds(other, row["config"]) for other in connected):
        error = _reason(row["config"], connected)
        queued.update(status=LabRun.Status.FAILED, error=error, finished_at=timezone.now())
    elif queued.update(enqueued_at=None):  # from here the dispatcher re-sends it if the broker refuses
        logger.info("lab run %s passed on: this worker cannot hold it", run_id)
        lab_run_enqueue(run_id=run_id, low_priority=row["reference"])
    lab_runs_end_cancelled_queued(run_id=run_id)  # a learner's cancel still ends it as cancelled
    return True


def _holds(worker: Mapping[str, Any], config: Mapping[str, Any]) -> bool:
    return devices.can_hold(config, device_class=worker["device_class"], sizes=worker["sizes"])


def _reason(config: Mapping[str, Any], connected: list[Mapping[str, Any]]) -> str:
    if any(other["device_class"] == "cuda" for other in connected) and config.get("size", "tiny") != "tiny":
        return ERROR_NO_WORKER_HOLDS_SIZE
    return ERROR_NO_GPU_WORKER
