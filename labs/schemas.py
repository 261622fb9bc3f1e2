"""The labs API's bodies as pydantic schemas (django-ninja turns them into /api/openapi.json).

The run settings' choices and limits are labs.training.config's, and its validate_config checks
every input (the same rules, messages and leniency as the HTML form and the trainer): the field
types below describe them, they add no rule of their own.
"""

from typing import Annotated, Any, Literal

from django.utils.translation import gettext as _
from ninja import Schema
from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, create_model, field_validator, model_validator

from config.api_errors import invalid_fields
from labs.training import config as lab_config
from labs.training.results import DIVERGED
from labs.training.sizes import SIZES
from labs.workers import site_limits, validate_for

from .export import RUN_METRICS
from .forms import translated_problems
from .models import LabRun as LabRunRow
from .selectors import CURVE_PAGE_DEFAULT, CURVE_PAGE_MAX

DateTime = Annotated[str, Field(json_schema_extra={"format": "date-time"})]


def _between(bounds: tuple, description: str = "") -> Any:
    return Field(ge=bounds[0], le=bounds[1], description=description or None)


class LabRunSettings(BaseModel):
    """A lab run's settings. Text for numbers ("64") and choices in any case are accepted too."""

    model_config = ConfigDict(extra="forbid")

    task: Literal[lab_config.TASKS]
    norm: Literal[lab_config.NORMS]
    effective_batch_size: int = _between(lab_config.EFFECTIVE_BATCH_RANGE)
    accumulation_steps: int = _between(
        lab_config.ACCUMULATION_RANGE, "N; must divide effective_batch_size (micro-batch = effective ÷ N)."
    )
    loss_scaling: Literal[(*lab_config.LOSS_SCALINGS, lab_config.PER_RANK_SCALING)] = Field(
        description=f"{lab_config.PER_RANK_SCALING}: with 2 or more processes only, each divides by its own "
        "token count (the mistake the data-parallel lab shows)."
    )
    optimizer: Literal[lab_config.OPTIMIZERS]
    learning_rate: float = _between(lab_config.LEARNING_RATE_RANGE)
    steps: int = _between(
        lab_config.STEPS_RANGE,
        "Optimizer steps. A run may have at most "
        + "; ".join(
            f"{limit.steps} steps, a batch of {limit.effective_batch_size} and steps × effective_batch_size "
            f"≤ {limit.sample_budget} on {device_class}"
            for device_class, limit in lab_config.DEVICE_LIMITS.items()
        )
        + " (cuda while a worker with a GPU is connected: GET /api/labs/queue).",
    )
    seed: int = _between(lab_config.SEED_RANGE)
    processes: Literal[lab_config.PROCESS_COUNTS] = Field(
        1,
        description="G: DistributedDataParallel processes; G × N must divide effective_batch_size. "
        "Capped by the worker (LAB_MAX_PROCESSES).",
    )
    sync: Literal[lab_config.SYNCS] = Field(
        "no_sync", description="no_sync: one all-reduce per optimizer step; every_micro: one per micro-batch."
    )
    size: Literal[lab_config.SIZE_NAMES] = Field(
        "tiny",
        description="guides-lm only. "
        + " ".join(spec.describe() for spec in SIZES.values())
        + " Sizes that need a GPU are refused unless a connected worker has one that holds them "
        "(GET /api/labs/queue lists the sizes accepted now).",
    )
    precision: Literal[lab_config.PRECISIONS] = Field(
        "fp32",
        description="fp32: exact float32 (TF32 off); tf32: TF32 matmuls (GPU only); bf16: autocast; "
        "fp16: autocast with a GradScaler (scale per micro-batch, unscale once per window; skipped steps on the "
        "curve). One process only.",
    )
    grad_clip: float | None = Field(
        None,
        gt=0,
        le=lab_config.GRAD_CLIP_MAX,
        description="Max gradient norm, applied after accumulation; null: no clipping.",
    )

    @model_validator(mode="before")
    @classmethod
    def _follows_the_lab_rules(cls, data: Any) -> Any:
        config, problems = validate_for(data, site_limits())
        if config is None:
            raise invalid_fields(_("Some settings are not valid."), translated_problems(problems))
        return config.to_dict()

    def run_config(self) -> lab_config.RunConfig:
        return lab_config.RunConfig(**self.model_dump())


class LabRunCreated(Schema):
    id: int
    status: str
    reused: bool = Field(description="True when identical settings had been trained: the stored result.")
    url: str


class LabRunProgress(Schema):
    done_steps: int
    total_steps: int
    percent: int


METRIC_TYPES = {"dtype": str, "activation_memory_method": str, DIVERGED: bool}  # the others are numbers
LabRunMetrics = create_model(
    "LabRunMetrics",
    __base__=Schema,
    **{name: (METRIC_TYPES.get(name, int | float) | None, None) for name in RUN_METRICS},
)
# A stored run's settings, each one (those left at their default too); typed as submitted, without
# validate_for's rules: a run stored under other site limits still reads back.
LabRunConfig = create_model(
    "LabRunConfig", __base__=Schema, **{name: (f.annotation, f) for name, f in LabRunSettings.model_fields.items()}
)


class LabPresetRun(Schema):
    label: str
    config: LabRunConfig


class LabPreset(Schema):
    """A one-click experiment: a small sweep of runs, and what to look for when comparing them."""

    slug: str
    title: str
    summary: str
    look_for: str
    data_parallel: bool = Field(description="Some run trains with several processes.")
    runs: list[LabPresetRun]


class LabCurvePoint(Schema):
    model_config = ConfigDict(extra="allow")

    step: int
    loss: float | None = None
    grad_norm: float | None = Field(None, description="Before clipping.")
    lr: float | None = None
    samples: int | None = None
    tokens: int | None = Field(None, description="tiny-lm and guides-lm only.")
    skipped: bool | None = Field(None, description="fp16 only: the GradScaler skipped this step (inf or NaN).")
    loss_scale: float | None = Field(None, description="fp16 only: the GradScaler's scale after this step.")
    seconds: float | None = None


LAST_STEP = 2**31 - 1  # the largest step a run stores (LabRunCurveChunk.last_step)


class LabCurvePageQuery(Schema):
    """Which page of a run's curve: the points after step `after`, at most `limit` of them."""

    after: int = Field(
        0, ge=0, le=LAST_STEP, description="The step to start after: 0 for the first page, then the last `next`."
    )
    limit: int = Field(CURVE_PAGE_DEFAULT, ge=1, le=CURVE_PAGE_MAX, description="Points at most on this page.")

    @field_validator("after", "limit", mode="before")
    @classmethod
    def _whole_number_in_range(cls, value: Any, info: ValidationInfo) -> int:
        number = _whole_number(value)
        if info.field_name == "after" and (number is None or not 0 <= number <= LAST_STEP):
            message = _("The step to start after must be a whole number from 0 to %(max)d.") % {"max": LAST_STEP}
        elif info.field_name == "limit" and (number is None or not 1 <= number <= CURVE_PAGE_MAX):
            message = _("The number of points must be a whole number from 1 to %(max)d.") % {"max": CURVE_PAGE_MAX}
        else:
            return number
        raise invalid_fields(_("This page of the curve cannot be given."), [(info.field_name, message)])


def _whole_number(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    text = str(value)
    return int(text) if text.isascii() and text.isdigit() and len(text) < 19 else None


class LabCurvePage(Schema):
    """A page of a run's loss curve, in step order."""

    points: list[LabCurvePoint]
    next: int | None = Field(
        description="Pass it as `after` for the next page; null: no more points are stored yet "
        "(a running run stores more as it trains)."
    )
    status: Literal[tuple(LabRunRow.Status.values)]
    done_steps: int
    total_steps: int


class LabQueuePosition(Schema):
    position: int | None = Field(ge=1, description="1: the next run a worker takes. null unless queued.")
    waiting: int = Field(ge=0, description="Runs queued, from every learner.")
    workers_connected: int = Field(ge=0, description="0: the run waits for one.")
    estimate_seconds: float | None = Field(description="Until a queued run should be done; null when unknown.")


class LabRunSummary(Schema):
    """A run without its loss curve, as the cancel answer gives it."""

    id: int
    status: Literal[tuple(LabRunRow.Status.values)]
    label: str
    preset: str | None
    config: LabRunConfig
    code_version: str
    progress: LabRunProgress
    device: str | None = Field(examples=["cuda:0 NVIDIA H200", "cpu"])
    torch_version: str | None
    metrics: LabRunMetrics
    validation: list[dict[str, Any]]
    reused_from: int | None = Field(description="Set when identical settings had been trained: the stored result.")
    cancel_requested: bool
    error: str | None = Field(description="Why the run failed.")
    created_at: DateTime
    finished_at: DateTime | None


class LabRun(LabRunSummary):
    """A run: status, progress, metrics, its loss curve and its place in the queue."""

    curve: list[LabCurvePoint]
    queue: LabQueuePosition


class LabWorker(Schema):
    name: str
    device: str = Field(examples=["cpu", "NVIDIA H200"])
    device_class: Literal["cpu", "cuda"]
    memory_bytes: int | None = Field(description="CPU RAM, or the GPU's memory; null when unknown.")
    sizes: list[str] = Field(description="guides-lm sizes this worker takes.")
    max_processes: int | None
    running: int | None = Field(description="Id of the run it trains now.")


class LabQueue(Schema):
    workers: list[LabWorker]
    waiting: int = Field(ge=0)
    device_classes: list[Literal["cpu", "cuda"]] = Field(description="Of the connected workers.")
    sizes: list[str] = Field(description="guides-lm sizes a submission may ask for now.")
    max_processes: int
    limits: str = Field(description="The same, in a sentence in the reader's language.")
