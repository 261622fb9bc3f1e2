"""Running one lab run inside the Celery worker: claim, train, report, finish.

torch is imported inside the functions that train: the web process imports this app without torch,
and the worker's parent never touches CUDA before it forks. Every write is conditional on the row
still being ours (LabRunQuerySet.claimed), so a worker presumed dead never overwrites the new owner.
"""

import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Any, Self

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import close_old_connections, connection, transaction
from django.utils.translation import gettext_noop

from labs.training.results import stored_metrics

from .models import LabRun, LabRunCurveChunk
from .services import finished_originals, reused_result

logger = logging.getLogger(__name__)

ERROR_TIME_LIMIT = gettext_noop(
    "The experiment took longer than the time limit and was stopped. Try fewer steps or a smaller batch."
)
ERROR_UNEXPECTED = gettext_noop("Training stopped with an unexpected error. The details are in the worker's log.")
ERROR_INVALID = gettext_noop("The stored settings are no longer valid for this version of the labs.")
ERROR_NEEDS_GPU = gettext_noop("This run needs a GPU worker, and the worker that took it has none.")


def lab_run_claim(*, run_id: int, worker: str) -> LabRun | None:
    """queued -> running, exactly once: a duplicate message finds nothing; a cancelled run ends here."""
    if LabRun.objects.filter(pk=run_id).claim(worker=worker) != 1:
        LabRun.objects.filter(pk=run_id).end_cancelled()
        return None
    LabRunCurveChunk.objects.filter(run_id=run_id).delete()  # a dead worker's points: the run starts over
    return LabRun.objects.get(pk=run_id)


def lab_run_execute(*, run_id: int, worker: str, reporter: Callable[..., "Reporter"] | None = None) -> None:
    """Claim, train and finish the run; ``reporter`` makes its Reporter (tests/held_runs.py holds a step)."""
    run = lab_run_claim(run_id=run_id, worker=worker)
    if run is None:
        return
    # One line per claim: an operator (and the scale-out test) sees each run was trained once.
    logger.info("lab run %s claimed by %s (attempt %s)", run.pk, worker, run.attempts)
    mine = LabRun.objects.claimed(run)
    twin = finished_originals([run.fingerprint]).get(run.fingerprint)
    # An identical run may have finished while this one waited.
    make_reporter = reporter or Reporter
    fields = reused_result(twin) if twin is not None else _train_reporting(run, make_reporter(mine, run_id=run.pk))
    _finish(mine, run.pk, **fields)
    if fields["status"] != LabRun.Status.FAILED:
        _reference_done(run)


def _train_reporting(run: LabRun, reporter: "Reporter") -> dict[str, Any]:
    with reporter:
        try:
            return _train(run, reporter)
        except SoftTimeLimitExceeded:
            error = ERROR_TIME_LIMIT
        except Exception:
            logger.exception("lab run %s failed", run.pk)
            error = ERROR_UNEXPECTED
    return {"status": LabRun.Status.FAILED, "error": error, "curve": reporter.curve, "done_steps": len(reporter.curve)}


def _reference_done(run: LabRun) -> None:  # a reference sweep's last run brings its figures to the guides
    if not run.reference:
        return
    from .reference import reference_run_finished

    try:
        reference_run_finished(run)
    except Exception:  # the run is stored; the figures' cache timeouts bound the delay
        logger.exception("the guides could not be told that reference run %s finished", run.pk)


def _train(run: LabRun, reporter: "Reporter") -> dict[str, Any]:  # the fields the run ends with
    from labs.training.config import ANY_GPU, run_needs, validate_config
    from labs.training.loop import device_class, run_experiment  # torch: imported in the worker child only

    config, _errors = validate_config(run.config, ANY_GPU)
    if config is None:
        return {"status": LabRun.Status.FAILED, "error": ERROR_INVALID}
    if device_class() == "cpu" and run_needs(run.config).device_class == "cuda":  # the last guard (labs.workers)
        return {"status": LabRun.Status.FAILED, "error": ERROR_NEEDS_GPU}
    _limit_cpu_threads()
    guides = settings.CONTENT_DIR / "guides"  # guides-lm's text
    result = run_experiment(config, on_progress=reporter.on_progress, should_stop=reporter.stop.is_set, text_dir=guides)
    result = result.to_dict()
    status = LabRun.Status.CANCELLED if result["status"] == "cancelled" else LabRun.Status.SUCCEEDED
    copied = {field: result[field] for field in ("curve", "validation", "device", "torch_version")}
    return {"status": status, **copied, "metrics": stored_metrics(result), "done_steps": result["steps_done"]}


def _limit_cpu_threads() -> None:
    """More torch threads than free cores makes small models many times slower on a CPU (they fight the
    web process and each other): half the cores, or LAB_TORCH_THREADS."""
    import torch

    threads = settings.LAB_TORCH_THREADS or max(1, (os.cpu_count() or 2) // 2)
    if torch.get_num_threads() != threads:
        torch.set_num_threads(threads)


def _finish(mine, run_id: int, **fields: Any) -> None:
    """The worker's last write: the whole curve once, as one document, and its chunks deleted."""
    with transaction.atomic():
        if mine.end(**fields):  # not ours: the new owner's chunks stay
            LabRunCurveChunk.objects.filter(run_id=run_id).delete()


class Reporter:
    """Progress and liveness of one claimed run. `on_progress` writes at most every LAB_PROGRESS_INTERVAL
    seconds, the points since the last write as one LabRunCurveChunk; a thread beats every
    LAB_HEARTBEAT_INTERVAL seconds, so a run is alive while torch loads or a step is slow. Both learn
    that the learner cancelled or the row is no longer ours, and `stop` tells the loop."""

    def __init__(self, mine, *, run_id: int) -> None:
        self.mine = mine
        self.run_id = run_id
        self.curve: list[dict[str, Any]] = []
        self.written = 0  # points of `curve` already in chunks
        self.chunks = 0
        self.stop = threading.Event()
        self.done = threading.Event()
        self.last_write = 0.0
        self.thread = threading.Thread(target=self._beat, name="lab-heartbeat", daemon=True)

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        self.thread.join(timeout=30)

    def on_progress(self, point: dict[str, Any], done_steps: int, total_steps: int) -> None:
        self.curve.append(point)
        if time.monotonic() - self.last_write >= settings.LAB_PROGRESS_INTERVAL or done_steps >= total_steps:
            self.write(done_steps)

    def write(self, done_steps: int) -> None:
        """One progress write while the run is ours and not cancelled (else `stop` is set)."""
        self.last_write = time.monotonic()
        points = self.curve[self.written :]
        with transaction.atomic():
            if not self.mine.filter(cancel_requested=False).beat(done_steps=done_steps):
                self.stop.set()
                return
            if points:
                LabRunCurveChunk.objects.create(
                    run_id=self.run_id, seq=self.chunks, last_step=points[-1]["step"], points=points
                )
        self.written, self.chunks = len(self.curve), self.chunks + (1 if points else 0)

    def _beat(self) -> None:
        close_old_connections()
        try:
            while not self.done.wait(settings.LAB_HEARTBEAT_INTERVAL):
                alive = self.mine.beat()
                if not alive or self.mine.filter(cancel_requested=True).exists():
                    self.stop.set()
        except Exception:  # the worker goes on; the sweeper will judge by the missing heartbeats
            logger.exception("lab heartbeat thread failed")
        finally:
            connection.close()
