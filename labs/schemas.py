"""The labs API's bodies as pydantic schemas (in /api/openapi.json); a run's settings are RunConfig's,
checked by validate_config, as the form's and the trainer's are.
"""

from typing import Annotated, Any, Literal

from django.utils.translation import gettext as _
from ninja import Schema
from pydantic import ConfigDict, Field, ValidationInfo, create_model, field_validator, model_validator

from config.api_errors import invalid_fields
from labs.training import config as lab_config
from labs.training.config import RunConfig
from labs.training.results import DIVERGED
from labs.training.sizes import SIZES

from .export import RUN_METRICS
from .forms import translated_problems
from .models import LabRun as LabRunRow
from .selectors import CURVE_PAGE_DEFAULT, CURVE_PAGE_MAX, is_id

DateTime = Annotated[str, Field(json_schema_extra={"format": "date-time"})]


def _what_the_workers_allow(schema: dict[str, Any]) -> None:
    """Notes beside the settings' own descriptions: what depends on the workers."""
    fields = schema["properties"]
    limits = "; ".join(
        f"{limit.steps} steps, a batch of {limit.effective_batch_size} and steps × effective_batch_size "
        f"≤ {limit.sample_budget} on {device_class}"
        for device_class, limit in lab_config.DEVICE_LIMITS.items()
    )
    fields["steps"]["description"] = f"A run may have at most {limits} (cuda while a worker with a GPU is connected)."
    fields["size"]["description"] += " " + " ".join(spec.describe() for spec in SIZES.values())
    fields["loss_scaling"]["description"] += (
        f" {lab_config.PER_RANK_SCALING}: with 2 or more processes only, each divides by its own token count."
    )
    fields["processes"]["description"] += " Capped by the workers (LAB_MAX_PROCESSES)."
    for name in ("steps", "size", "processes"):
        fields[name]["description"] += " GET /api/labs/queue says what is accepted now."


class LabRunSettings(RunConfig):
    """A lab run's settings. Text for numbers ("64") and choices in any case are accepted too."""

    model_config = ConfigDict(json_schema_extra=_what_the_workers_allow)

    @model_validator(mode="before")
    @classmethod
    def _follows_the_lab_rules(cls, data: Any) -> Any:
        """Every rule but what the connected workers take now: the view checks that (labs.api.run_create)."""
        config, problems = lab_config.validate_config(data, lab_config.ANY_GPU)
        if config is None:
            raise invalid_fields(_("Some settings are not valid."), translated_problems(problems))
        return config.to_dict()


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
# A stored run's settings, typed as submitted, without the rules: a run stored under other limits still reads back.
LabRunConfig = create_model(
    "LabRunConfig", __base__=Schema, **{name: (f.annotation, f) for name, f in RunConfig.model_fields.items()}
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
    return int(text) if is_id(text := str(value)) else None


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
