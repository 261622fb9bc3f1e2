import secrets
import uuid

from django.conf import settings
from django.db import models
from django.db.models import F
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from .presets import PRESETS


def new_share_token() -> str:
    return secrets.token_urlsafe(18)


START_OVER = {"done_steps": 0, "curve": [], "validation": [], "error": ""}  # a claim's, and a restart's


class LabRunQuerySet(models.QuerySet):
    """A run's life as named transitions, which the services call. Each is one conditional UPDATE of
    the rows of this queryset still in the state it starts from, and says how many changed: 0 when
    another writer (a cancel, the sweeper, another worker) got there first."""

    def waiting(self) -> "LabRunQuerySet":
        """Queued, and not asked to cancel: what a worker may claim and the dispatcher may send."""
        return self.filter(status=LabRun.Status.QUEUED, cancel_requested=False)

    def claimed(self, run: "LabRun") -> "LabRunQuerySet":
        """`run` while its claim is still the row's (running, same claim): a worker writes only through it,
        so a worker the sweeper presumed dead never overwrites the run's new owner."""
        return self.filter(pk=run.pk, status=LabRun.Status.RUNNING, claim=run.claim)

    def claim(self, *, worker: str) -> int:
        """queued -> running, under a new claim: a run starts over (a dead worker's attempt counted)."""
        now = timezone.now()
        mine = {"claim": uuid.uuid4(), "attempts": F("attempts") + 1, "worker": worker[:200], "started_at": now}
        return self.waiting().update(status=LabRun.Status.RUNNING, heartbeat_at=now, **mine, **START_OVER)

    def sent(self) -> int:  # the broker has the queued run's message
        return self.filter(status=LabRun.Status.QUEUED).update(enqueued_at=timezone.now())

    def unsent(self) -> int:  # the broker may not have it: the dispatcher sends it (again)
        return self.waiting().update(enqueued_at=None)

    def beat(self, **progress) -> int:  # the worker is alive (and has trained `progress`)
        return self.update(heartbeat_at=timezone.now(), **progress)

    def ask_to_cancel(self) -> int:
        """One write whatever the status, so it cannot fall between a re-queue and a status check."""
        return self.filter(status__in=LabRun.ACTIVE).update(cancel_requested=True)

    def end_cancelled(self) -> int:
        """Queued runs whose learner asked to cancel end: at a cancel, a claim, a pass-on or a sweep (so a
        run re-queued while its cancel was being asked for does not wait forever)."""
        return self.filter(status=LabRun.Status.QUEUED, cancel_requested=True).end(LabRun.Status.CANCELLED)

    def end(self, status: str, error: str = "", **result) -> int:
        """-> succeeded, failed or cancelled, with `error` (an untranslated msgid) and the result's fields."""
        return self.update(status=status, error=error, finished_at=timezone.now(), **result)

    def lose_worker(self) -> int:  # running -> queued: its worker stopped its heartbeats
        return self.update(status=LabRun.Status.QUEUED, enqueued_at=None, worker="")

    def restart(self) -> int:
        """-> queued from scratch, with a fresh budget of attempts (an admin's action). Not a queued
        run, nor one its learner asked to cancel: the learner's cancel wins."""
        fresh = {"attempts": 0, "enqueued_at": None, "metrics": {}, "reused_from": None, "worker": "", **START_OVER}
        unclaimed = {"started_at": None, "heartbeat_at": None, "finished_at": None}
        queued_again = self.filter(cancel_requested=False).exclude(status=LabRun.Status.QUEUED)
        return queued_again.update(status=LabRun.Status.QUEUED, **fresh, **unclaimed)


class LabRun(models.Model):
    """One training experiment. This row, not the Celery message, is the source of truth:
    workers claim it with a conditional update and write their progress here (LabRunQuerySet)."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("Queued")
        RUNNING = "running", _("Running")
        SUCCEEDED = "succeeded", _("Succeeded")
        FAILED = "failed", _("Failed")
        CANCELLED = "cancelled", _("Cancelled")

    ACTIVE = (Status.QUEUED, Status.RUNNING)

    objects = LabRunQuerySet.as_manager()

    # None for the site's own reference sweeps (`reference`), which belong to no learner.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="lab_runs"
    )
    reference = models.BooleanField(default=False)  # a reference sweep of a preset, run for everyone
    preset = models.SlugField(blank=True)  # runs of a preset are public
    sweep = models.UUIDField(null=True, blank=True, db_index=True)  # runs submitted by one click
    preset_index = models.PositiveSmallIntegerField(null=True, blank=True)  # which run of the preset
    config = models.JSONField()
    fingerprint = models.CharField(max_length=64, db_index=True)  # config + code version
    code_version = models.CharField(max_length=20)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.QUEUED, db_index=True)
    cancel_requested = models.BooleanField(default=False)
    attempts = models.PositiveSmallIntegerField(default=0)  # claims so far (a dead worker costs one)
    claim = models.UUIDField(null=True, blank=True)  # set by each claim; a worker writes only under its own
    worker = models.CharField(max_length=200, blank=True)
    done_steps = models.PositiveIntegerField(default=0)
    total_steps = models.PositiveIntegerField(default=0)
    curve = models.JSONField(default=list, blank=True)
    validation = models.JSONField(default=list, blank=True)
    metrics = models.JSONField(default=dict, blank=True)
    device = models.CharField(max_length=200, blank=True)
    torch_version = models.CharField(max_length=40, blank=True)
    error = models.TextField(blank=True)
    reused_from = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    share_token = models.CharField(max_length=32, unique=True, default=new_share_token)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    enqueued_at = models.DateTimeField(null=True, blank=True)  # None: not yet handed to the broker
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("lab run")
        verbose_name_plural = _("lab runs")
        indexes = [
            models.Index(fields=["status", "heartbeat_at"]),
            models.Index(fields=["user", "created_at"]),
            models.Index(fields=["reference", "preset", "created_at"]),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.label}"

    @property
    def label(self) -> str:
        """Legend text: the preset's name for this run (in the reader's language), else its settings."""
        preset = PRESETS.get(self.preset)
        if preset and self.preset_index is not None and self.preset_index < len(preset.runs):
            return str(preset.runs[self.preset_index].label)
        c = self.config
        scaling = c.get("loss_scaling", "")
        return (
            f"{c.get('task')} · {c.get('norm')} · N = {c.get('accumulation_steps')} · {scaling} · {c.get('optimizer')}"
        )

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE

    @property
    def is_public(self) -> bool:
        return bool(self.preset)

    def get_absolute_url(self) -> str:  # for whoever may see the run: its public page, or the share link
        if self.is_public:
            return reverse("labs:run", args=[self.pk])
        return reverse("labs:shared", args=[self.share_token])

    @property
    def share_ref(self) -> str:
        """How a link names this run: its id when public, else its unguessable share token."""
        return str(self.pk) if self.is_public else self.share_token

    @property
    def progress_percent(self) -> int:
        if self.status == self.Status.SUCCEEDED:
            return 100
        return int(100 * self.done_steps / self.total_steps) if self.total_steps else 0

    @property
    def cost(self) -> int:  # of the daily budget: optimizer steps × effective batch
        return self.config["steps"] * self.config["effective_batch_size"]

    @property
    def micro_batch_size(self) -> int:
        """Samples in one forward pass, B / (N × G): RunConfig.micro_batch_size, for stored settings."""
        config = self.config
        return config["effective_batch_size"] // (config["accumulation_steps"] * config["processes"])

    @property
    def error_message(self) -> str:
        """The stored reason (an untranslated msgid) in the reader's language."""
        return gettext(self.error) if self.error else ""

    def visible_to(self, user) -> bool:
        return self.is_public or (user.is_authenticated and self.user_id is not None and user.pk == self.user_id)

    @property
    def curve_is_chunked(self) -> bool:
        """True while the curve lives in its chunks: steps written, and no finished curve yet."""
        return not self.curve and self.done_steps > 0

    def curve_points(self) -> list[dict]:
        """The whole loss curve: the finished run's document, else the points its worker appended so far."""
        if not self.curve_is_chunked:
            return self.curve
        # In seq order (Meta.ordering); from prefetch_related when the caller read several runs' at once.
        return [point for chunk in self.curve_chunks.all() for point in chunk.points]


class LabRunCurveChunk(models.Model):
    """The points a running run's worker appended at one progress write, so a long run never rewrites a
    growing document. Its last write stores the whole curve in LabRun.curve and deletes the chunks."""

    run = models.ForeignKey(LabRun, on_delete=models.CASCADE, related_name="curve_chunks")
    seq = models.PositiveIntegerField()  # 0, 1, 2... in the order they were written
    last_step = models.PositiveIntegerField()  # of its last point: a page after step s skips the chunks up to s
    points = models.JSONField()

    class Meta:
        ordering = ["run", "seq"]
        constraints = [models.UniqueConstraint(fields=["run", "seq"], name="labs_curve_chunk_run_seq")]

    def __str__(self) -> str:
        return f"run #{self.run_id} chunk {self.seq}"


class FigurePrediction(models.Model):
    """What a learner predicted a guide figure would show (labs/explorable_figures.py), and what the
    reference runs bore out then (empty when they had no result yet)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="figure_predictions")
    preset = models.SlugField()
    figure = models.SlugField()  # the figure's name within the preset: "loss", "memory"...
    predicted = models.CharField(max_length=60)
    answer = models.CharField(max_length=60, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at", "-id"]
        verbose_name = _("figure prediction")
        verbose_name_plural = _("figure predictions")
        constraints = [
            models.UniqueConstraint(fields=["user", "preset", "figure"], name="labs_one_prediction_per_figure")
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.preset}/{self.figure}: {self.predicted}"

    @property
    def is_right(self) -> bool | None:
        return None if not self.answer else self.predicted == self.answer
