"""Lab workflows on the web side and in the beat tasks: submit, cancel, requeue, and the two safety
nets (the sweeper for dead workers, the dispatcher for runs stored while Redis was down).

The run row is the source of truth: it is handed to the broker after its transaction commits, and
`enqueued_at` stays empty until the broker accepted it, so nothing is lost when Redis is down.
"""

import logging
import uuid
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from config.waits import seconds_until, wait_in_words
from labs.training import config as training_config  # CODE_VERSION read at call time
from labs.training.config import RunConfig, config_fingerprint, validate_config

from .models import LabRun, LabRunCurveChunk
from .presets import Preset
from .selectors import estimate_seconds, typical_run_seconds
from .workers import lab_run_enqueue, published_workers

logger = logging.getLogger(__name__)

# Stored in `LabRun.error` untranslated and translated when shown (see LabRun.error_message).
ERROR_WORKER_LOST = gettext_noop(
    "The worker running this experiment stopped responding several times, so it was given up. "
    "Please try again later; if it keeps happening, try fewer steps or a smaller batch."
)
ERROR_CANCELLED_WHILE_LOST = gettext_noop("Cancelled while its worker was not responding.")


class LabQuotaError(Exception):
    """A submission over the learner's limits; `retry_after`: seconds until it could pass (a 429's)."""

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def lab_run_submit(*, user: User, config: RunConfig) -> LabRun:
    return lab_runs_submit(user=user, configs=[config])[0]


def preset_run_configs(preset: Preset) -> list[RunConfig]:
    """A preset's runs, validated (this guards against a bad LAB_PRESET_MAX_STEPS)."""
    configs = []
    for _label, data in preset.configs():
        config, errors = validate_config(data)
        if config is None:
            raise ValueError(f"preset {preset.slug} has an invalid run: {errors}")
        configs.append(config)
    return configs


def lab_preset_submit(*, user: User, preset: Preset) -> list[LabRun]:
    return lab_runs_submit(user=user, configs=preset_run_configs(preset), preset=preset.slug)


@transaction.atomic
def lab_runs_submit(*, user: User, configs: list[RunConfig], preset: str = "") -> list[LabRun]:
    """Store the runs (reusing finished identical ones) and queue the rest after commit."""
    User.objects.select_for_update().filter(pk=user.pk).first()  # one submission per learner at a time
    fingerprints = [run_fingerprint(config) for config in configs]
    finished = finished_originals(fingerprints)
    _check_quotas(user, [config for config, fp in zip(configs, fingerprints, strict=True) if fp not in finished])
    return lab_runs_store(configs, fingerprints, finished, user=user, preset=preset)


def lab_runs_store(
    configs: list[RunConfig], fingerprints: list[str], finished: dict[str, LabRun], *, reference: bool = False, **fields
) -> list[LabRun]:
    """Save new runs, one sweep when there are several (a reference sweep always has its id): each with
    its finished twin's result, else queued and sent once the transaction commits. `fields`: owner, preset."""
    sweep = uuid.uuid4() if reference or len(configs) > 1 else None
    runs = []
    for index, (config, fp) in enumerate(zip(configs, fingerprints, strict=True)):
        run = LabRun(
            reference=reference,
            preset_index=index if fields.get("preset") else None,
            sweep=sweep,
            config=config.to_dict(),
            fingerprint=fp,
            code_version=training_config.CODE_VERSION,
            total_steps=config.steps,
            **fields,
        )
        source = finished.get(fp)
        if source is not None:
            for field, value in {**reused_result(source), "finished_at": timezone.now()}.items():
                setattr(run, field, value)
        run.save()
        if source is None:
            transaction.on_commit(lambda pk=run.pk: lab_run_enqueue(run_id=pk, low_priority=reference))
        runs.append(run)
    return runs


def run_fingerprint(config: RunConfig) -> str:
    """config_fingerprint with the guides this site's workers train guides-lm on (execution._train)."""
    return config_fingerprint(config, text_dir=settings.CONTENT_DIR / "guides")


def finished_originals(fingerprints: list[str]) -> dict[str, LabRun]:
    """The first original succeeded run of each fingerprint (same settings, seed and code version)."""
    originals = LabRun.objects.filter(
        fingerprint__in=fingerprints, status=LabRun.Status.SUCCEEDED, reused_from__isnull=True
    ).order_by("-finished_at")
    return {run.fingerprint: run for run in originals}  # the last one kept: the first to finish


COPIED_RESULT_FIELDS = ("curve", "validation", "metrics", "device", "torch_version", "done_steps", "total_steps")


def reused_result(source: LabRun) -> dict[str, Any]:
    """The fields a run ends with when it reuses its finished twin's result (finished_at aside)."""
    copied = {field: getattr(source, field) for field in COPIED_RESULT_FIELDS}
    return {"status": LabRun.Status.SUCCEEDED, "reused_from": source, **copied}


def _check_quotas(user: User, configs: list[RunConfig]) -> None:
    if not configs:
        return
    now = timezone.now()
    active = LabRun.objects.filter(user=user, status__in=LabRun.ACTIVE).count()
    limit = settings.LAB_MAX_ACTIVE_RUNS
    if active + len(configs) > limit:
        message = _(
            "You can have at most %(limit)d experiments waiting or running, and you have %(active)d. "
            "Wait for some to finish or cancel one, then try again."
        ) % {"limit": limit, "active": active}
        wait, estimated = first_active_run_done_in(user=user, now=now)
        if estimated:
            message += " " + _("The first of them should be done in about %(wait)s.") % {"wait": wait_in_words(wait)}
        raise LabQuotaError(message, retry_after=wait)
    budget = settings.LAB_DAILY_SAMPLE_BUDGET
    wanted = sum(config.steps * config.effective_batch_size for config in configs)
    spent = lab_budget_spent(user=user)
    if spent + wanted > budget:
        wait = seconds_until(lab_budget_frees_at(user=user, wanted=wanted, now=now), now)
        raise LabQuotaError(
            _(
                "This would train on %(wanted)s samples, but only %(left)s of your %(budget)s samples "
                "for the last 24 hours are left. Lower the steps or the batch size, or try again in %(wait)s."
            )
            % {
                "wanted": f"{wanted:,}",
                "left": f"{max(0, budget - spent):,}",
                "budget": f"{budget:,}",
                "wait": wait_in_words(wait),
            },
            retry_after=wait,
        )


def first_active_run_done_in(*, user: User, now) -> tuple[int, bool]:
    """Seconds until the learner's first active run should end, and whether that is an estimate from
    recent runs (else: the longest a run may take)."""
    longest = settings.LAB_HARD_TIME_LIMIT
    active = list(LabRun.objects.filter(user=user, status__in=LabRun.ACTIVE).order_by("created_at", "pk"))
    running = [run for run in active if run.status == LabRun.Status.RUNNING and run.started_at]
    if running:
        elapsed = max((now - run.started_at).total_seconds() for run in running)  # the oldest ends first
        typical = typical_run_seconds()
        if typical is not None and typical > elapsed:
            return max(1, round(typical - elapsed)), True
        return max(1, round(longest - elapsed)), False
    queued = [run for run in active if run.status == LabRun.Status.QUEUED]
    workers = len(published_workers())  # none when Redis does not answer
    estimate = estimate_seconds(queued[0], workers=workers) if queued else None
    return (max(1, round(estimate)), True) if estimate is not None else (longest, False)


def _budget_runs(user: User, since):
    """The runs that count against the daily budget: not reused results, nor runs that ended before they
    started (cancelled while queued, or failed as no worker could hold them: workers.lab_run_pass_on)."""
    return LabRun.objects.filter(user=user, created_at__gte=since, reused_from__isnull=True).exclude(
        status__in=(LabRun.Status.CANCELLED, LabRun.Status.FAILED), attempts=0
    )


def lab_budget_spent(*, user: User) -> int:
    runs = _budget_runs(user, timezone.now() - timedelta(hours=24))
    return sum(run.cost for run in runs.only("config"))


def lab_budget_frees_at(*, user: User, wanted: int, now):
    """When enough of the learner's runs have left the last 24 hours for `wanted` more samples."""
    window = timedelta(hours=24)
    runs = list(_budget_runs(user, now - window).order_by("created_at").only("config", "created_at"))
    spent = sum(run.cost for run in runs)
    for run in runs:
        spent -= run.cost
        if spent + wanted <= settings.LAB_DAILY_SAMPLE_BUDGET:
            return run.created_at + window
    return (runs[-1].created_at if runs else now) + window


def lab_run_cancel(*, run: LabRun) -> bool:
    """Cancel a queued run at once, or ask its worker to stop; False when it had already ended. The ask
    is one write whatever the status, so it cannot fall between a sweeper's re-queue and a status
    check: a queued run ends here, at its claim or in the next sweep, whichever comes first."""
    if not LabRun.objects.filter(pk=run.pk).ask_to_cancel():
        return False
    LabRun.objects.filter(pk=run.pk).end_cancelled()
    return True


def lab_run_requeue(*, run: LabRun) -> bool:
    """Admin action: start a run again from scratch (LabRunQuerySet.restart says when it is refused)."""
    updated = LabRun.objects.filter(pk=run.pk).restart()
    if updated:
        LabRunCurveChunk.objects.filter(run=run).delete()  # a lost worker's points, like the curve above
        transaction.on_commit(lambda: lab_run_enqueue(run_id=run.pk, low_priority=run.reference))
    return bool(updated)


def lab_runs_sweep_stale() -> dict[str, int]:
    """Re-queue (bounded) or end the runs whose worker stopped its heartbeats, end cancelled queued runs,
    and resend runs queued so long Redis may have lost them (a duplicate is harmless: one claim wins)."""
    now = timezone.now()
    counts = {"requeued": 0, "failed": 0, "cancelled": 0, "resent": 0}
    stale = LabRun.objects.filter(status=LabRun.Status.RUNNING).filter(
        Q(heartbeat_at__lt=now - timedelta(seconds=settings.LAB_STALE_AFTER)) | Q(heartbeat_at__isnull=True)
    )
    for run in stale:
        outcome = _settle_stale(run)
        if outcome:
            counts[outcome] += 1
    counts["cancelled"] += LabRun.objects.end_cancelled()
    resend_before = now - timedelta(seconds=settings.LAB_RESEND_AFTER)
    counts["resent"] = LabRun.objects.filter(enqueued_at__lt=resend_before).unsent()
    return counts


def _settle_stale(run: LabRun) -> str | None:
    """Fail or re-queue one silent run, or end it cancelled: each write checks the row again, so a
    cancel that lands after `run` was read still wins."""
    # Only if nothing changed since we looked: a late heartbeat means the worker lives.
    same = LabRun.objects.filter(pk=run.pk, status=LabRun.Status.RUNNING, heartbeat_at=run.heartbeat_at)
    not_cancelled = same.filter(cancel_requested=False)
    if run.attempts >= settings.LAB_MAX_ATTEMPTS:
        if not_cancelled.end(LabRun.Status.FAILED, ERROR_WORKER_LOST):
            return "failed"
    elif not_cancelled.lose_worker():
        logger.warning("lab run %s lost its worker (attempt %s); re-queued", run.pk, run.attempts)
        lab_run_enqueue(run_id=run.pk, low_priority=run.reference)
        return "requeued"
    if same.end(LabRun.Status.CANCELLED, ERROR_CANCELLED_WHILE_LOST):
        return "cancelled"  # only a cancelled run is left in `same` here
    return None


def lab_runs_dispatch_pending() -> int:
    """Send the queued runs the broker never got, up to the first failure; a cancelled one is ended."""
    LabRun.objects.end_cancelled()
    grace = timezone.now() - timedelta(seconds=2)  # leave fresh submissions to their own on_commit
    pending = LabRun.objects.waiting().filter(enqueued_at__isnull=True, created_at__lt=grace)
    sent = 0
    for run_id, reference in pending.order_by("created_at").values_list("pk", "reference")[:500]:
        if not lab_run_enqueue(run_id=run_id, low_priority=reference):
            break
        sent += 1
    return sent
