"""A lab run's settings, declared once: the pydantic model `RunConfig` gives each setting's name,
type, range, default, label (`title`) and help (`description`), and the rules across settings.
The HTML form (labs.forms), the API schema (labs.schemas), the exports and the trainer read it.
Adding a setting is one declaration below (its label and help marked with gettext_noop, and
translated in locale/); a run stored before it existed keeps its fingerprint (`config_fingerprint`).

No torch, no Django: the web process validates a learner's form with this module alone.
``validate_config`` takes untrusted input and never raises: its errors are `Problem`s (English
text that keeps its message id and parameters, translated where shown) keyed by field, those of
no single field (unknown settings, the budget) under ``"__all__"`` (Django's non-field key).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal, get_args, get_origin

import annotated_types
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from .problems import Problem, gettext_noop
from .sizes import GPU_ONLY_PRECISIONS, PRECISIONS, SIZE_NAMES, SIZES
from .version import guide_text_version, training_code_version

TASKS: tuple[str, ...] = ("digits-cnn", "digits-mlp", "tiny-lm", "guides-lm")
NORMS: tuple[str, ...] = ("none", "batch", "layer", "group", "rms")
SIZED_TASK = "guides-lm"  # the one task with sizes (labs/training/sizes.py); the others are tiny
LOSS_SCALINGS: tuple[str, ...] = ("mean", "sum", "mean_of_micro_means")
# A loss scaling that only differs from "mean" with several processes: each rank divides by its own
# token count (the classic mistake), so the all-reduced gradient is a mean of rank means.
PER_RANK_SCALING = "mean_of_rank_means"
OPTIMIZERS: tuple[str, ...] = ("sgd", "adamw")
# Data parallelism: G processes, each accumulating N micro-batches of its share of the window.
PROCESS_COUNTS: tuple[int, ...] = (1, 2, 4)
SYNCS: tuple[str, ...] = ("no_sync", "every_micro")
MAX_PROCESSES = 4  # the default cap; a site passes its own (settings.LAB_MAX_PROCESSES)

# What runs in this package (version.py): results stored under an older version are not reused.
CODE_VERSION: str = training_code_version()


@dataclass(frozen=True)
class DeviceLimits:
    """What one run may ask for on a device class ("cpu" or "cuda"): a run stays within a
    couple of minutes on a 2-core CPU; a GPU trains more steps and samples in that time."""

    steps: int
    effective_batch_size: int
    sample_budget: int  # steps * effective_batch_size


DEVICE_LIMITS: dict[str, DeviceLimits] = {
    "cpu": DeviceLimits(steps=500, effective_batch_size=256, sample_budget=64_000),
    # The same batch: step 1's full-batch reference gradient holds the whole window's activations at
    # once (about 40 GB for medium at 256 sequences, in float32).
    "cuda": DeviceLimits(steps=2_000, effective_batch_size=256, sample_budget=256_000),
}
EFFECTIVE_BATCH_RANGE = (1, DEVICE_LIMITS["cuda"].effective_batch_size)  # the widest: any RunConfig
ACCUMULATION_RANGE = (1, 64)
STEPS_RANGE = (1, DEVICE_LIMITS["cuda"].steps)
SEED_RANGE = (0, 2**31 - 1)
SAMPLE_BUDGET = DEVICE_LIMITS["cpu"].sample_budget  # steps * effective_batch_size on a CPU

NON_FIELD = "__all__"

# Settings the trainer cannot run, refused before they are queued (tests/labs/training/test_config_space.py).
BATCH_NORM_NEEDS_TWO = gettext_noop(
    "Batch normalization cannot train the digits-mlp model on micro-batches of one sample: it normalizes "
    "each feature over the micro-batch, and a single sample leaves nothing to compare. Use micro-batches "
    "of at least 2 samples (a larger effective batch or a smaller N), or another normalization."
)
UNREADABLE = gettext_noop("These settings could not be read. Please check every field.")
NOT_AN_OBJECT = gettext_noop("The settings must be a set of named fields (a JSON object).")
REQUIRED = gettext_noop("%(name)s is required.")
NAME_NOT_TEXT = gettext_noop("Setting names must be text; got %(got)s.")
UNKNOWN_SETTING = gettext_noop("%(got)s is not a known setting. The settings are: %(known)s.")
REPEATED_SETTING = gettext_noop("%(name)s is given more than once; give each setting once.")
NOT_A_CHOICE = gettext_noop("%(name)s must be one of: %(options)s; got %(got)s.")
NOT_A_WHOLE_NUMBER = gettext_noop("%(name)s must be a whole number from %(low)s to %(high)s; got %(got)s.")
NOT_A_NUMBER = gettext_noop("%(name)s must be a number from %(low)s to %(high)s; got %(got)s.")
BAD_GRAD_CLIP = gettext_noop(
    "grad_clip must be empty (no clipping) or a number above 0 and at most %(high)s; got %(got)s."
)
TOO_MANY_PROCESSES = gettext_noop("processes must be at most %(allowed)s on this worker machine; got %(got)s.")
GPU_NEEDED = gettext_noop("%(setting)s needs a GPU worker; none is connected.")
SIZE_TOO_BIG = gettext_noop(
    "size %(size)s needs more GPU memory than any connected worker has; the largest size they take is %(largest)s."
)
SIZE_NEEDS_SIZED_TASK = gettext_noop("size %(size)s is for the guides-lm task; the other tasks have one size, tiny.")
PRECISION_NEEDS_ONE_PROCESS = gettext_noop("precision %(precision)s trains in one process; set processes to 1.")
PER_RANK_NEEDS_PROCESSES = gettext_noop("loss_scaling %(scaling)s needs processes of 2 or more.")
PROCESSES_SPLIT_BATCH = gettext_noop(
    "processes × accumulation_steps must divide effective_batch_size, so every process gets whole "
    "micro-batches: %(effective)s is not divisible by %(g)s × %(n)s = %(product)s."
)
N_ABOVE_BATCH = gettext_noop(
    "accumulation_steps (%(n)s) cannot be larger than effective_batch_size (%(effective)s): every "
    "micro-batch needs at least one sample."
)
N_SPLITS_BATCH = gettext_noop(
    "accumulation_steps must divide effective_batch_size: %(effective)s is not divisible by %(n)s."
)
OVER_BUDGET = gettext_noop(
    "steps × effective_batch_size must be at most %(budget)s samples; this run would use %(steps)s × "
    "%(effective)s = %(samples)s. Lower steps or effective_batch_size."
)

_INT_RE = re.compile(r"[+-]?\d{1,30}")
_MAX_TEXT = 64  # longer strings are not numbers we would accept anyway


def _choice(value: Any) -> Any:
    """Choices in any case, with spaces around; whole numbers as numbers (processes), not True."""
    if isinstance(value, bool):
        raise ValueError("not a choice")
    if isinstance(value, str) and len(value) <= _MAX_TEXT:
        value = value.strip().lower()
        return int(value) if value.isascii() and value.isdigit() else value
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _whole_number(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):  # True is not a batch size
        return value
    if isinstance(value, float) and value.is_integer():  # JSON clients may send 64.0
        return int(value)
    if isinstance(value, str) and len(value) <= _MAX_TEXT and _INT_RE.fullmatch(value.strip()):
        return int(value.strip())
    raise ValueError("not a whole number")


def _finite_number(value: Any) -> float:
    """A finite number from a number or a short text (float() ignores surrounding spaces)."""
    long_text = isinstance(value, str) and len(value) > _MAX_TEXT
    if not isinstance(value, bool) and isinstance(value, int | float | str) and not long_text:
        try:
            number = float(value)  # OverflowError for huge ints
        except (ValueError, OverflowError):
            number = math.nan
        if math.isfinite(number):
            return number
    raise ValueError("not a finite number")


def _number_or_empty(value: Any) -> float | None:
    if value is None or (isinstance(value, str) and value.strip().lower() in ("", "none", "null")):
        return None
    return _finite_number(value)


def Choice(*options: Any) -> Any:
    return Annotated[Literal[options], BeforeValidator(_choice)]


WholeNumber = Annotated[int, BeforeValidator(_whole_number)]
Number = Annotated[float, BeforeValidator(_finite_number)]
NumberOrEmpty = Annotated[float | None, BeforeValidator(_number_or_empty)]


class RunConfig(BaseModel):
    """One training run. Untrusted input goes through ``validate_config`` (its errors as the
    learner reads them); direct construction checks the same rules and raises ``ValueError``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task: Choice(*TASKS) = Field(title=gettext_noop("Task"))
    norm: Choice(*NORMS) = Field(title=gettext_noop("Normalization layer"))
    effective_batch_size: WholeNumber = Field(
        title=gettext_noop("Effective batch size"), ge=EFFECTIVE_BATCH_RANGE[0], le=EFFECTIVE_BATCH_RANGE[1]
    )
    accumulation_steps: WholeNumber = Field(
        title=gettext_noop("Accumulation factor (N)"),
        description=gettext_noop("The micro-batch is the effective batch ÷ N."),
        ge=ACCUMULATION_RANGE[0],
        le=ACCUMULATION_RANGE[1],
    )
    loss_scaling: Choice(*LOSS_SCALINGS, PER_RANK_SCALING) = Field(
        title=gettext_noop("Loss scaling"),
        description=gettext_noop(
            "mean: correct; sum: forgets to divide by N; mean_of_micro_means: averages per-micro-batch means."
        ),
    )
    optimizer: Choice(*OPTIMIZERS) = Field(title=gettext_noop("Optimizer"))
    learning_rate: Number = Field(title=gettext_noop("Learning rate"), ge=1e-5, le=10.0)
    steps: WholeNumber = Field(title=gettext_noop("Optimizer steps"), ge=STEPS_RANGE[0], le=STEPS_RANGE[1])
    seed: WholeNumber = Field(title=gettext_noop("Seed"), ge=SEED_RANGE[0], le=SEED_RANGE[1])
    grad_clip: NumberOrEmpty = Field(
        None,
        title=gettext_noop("Gradient clipping (max norm)"),
        description=gettext_noop("Leave empty for no clipping."),
        gt=0,
        le=100.0,
    )
    processes: Choice(*PROCESS_COUNTS) = Field(
        1,
        title=gettext_noop("Processes (G)"),
        description=gettext_noop(
            "Data parallelism: each process takes an equal share of the effective batch (b × N × G)."
        ),
    )
    sync: Choice(*SYNCS) = Field(
        "no_sync",
        title=gettext_noop("Gradient all-reduce"),
        description=gettext_noop(
            "no_sync: once per step (after the last micro-batch); every_micro: after every micro-batch."
        ),
    )
    size: Choice(*SIZE_NAMES) = Field(
        "tiny",
        title=gettext_noop("Model size (guides-lm)"),
        description=gettext_noop("tiny runs on a CPU; small and medium need a GPU worker."),
    )
    precision: Choice(*PRECISIONS) = Field(
        "fp32",
        title=gettext_noop("Precision"),
        description=gettext_noop(
            "fp32: exact (TF32 off); tf32: GPU only; bf16 and fp16: autocast, fp16 with a loss scaler."
        ),
    )

    @model_validator(mode="after")
    def _follows_the_rules(self) -> RunConfig:
        problems = _rules(self.to_dict(), DEVICE_LIMITS["cuda"])
        if problems:
            raise ValueError(" ".join(problem for _field, problem in problems))
        return self

    @property
    def micro_batch_size(self) -> int:
        return self.effective_batch_size // (self.accumulation_steps * self.processes)

    def to_dict(self) -> dict[str, Any]:
        """Every setting, as a run stores it."""
        return self.model_dump()

    def replace(self, **changes: Any) -> RunConfig:
        return RunConfig(**(self.to_dict() | changes))


FIELDS: tuple[str, ...] = tuple(RunConfig.model_fields)
# The settings of the first runs stored. The ones added since are left out of a fingerprint at
# their default, so a run stored before a setting existed keeps its fingerprint (and its reuse).
FIRST_FIELDS = FIELDS[: FIELDS.index("grad_clip") + 1]
_PARSERS = {name: TypeAdapter(Annotated[f.annotation, *f.metadata]) for name, f in RunConfig.model_fields.items()}


def config_fingerprint(config: RunConfig, text_dir: Any = None) -> str:
    """Stable key for reusing a finished result: settings plus CODE_VERSION, and for guides-lm the
    version of the guides it reads from ``text_dir`` (default: the repository's content/guides)."""
    defaults = {name: field.default for name, field in RunConfig.model_fields.items()}
    sparse = {k: v for k, v in config.to_dict().items() if k in FIRST_FIELDS or v != defaults[k]}
    key: dict[str, Any] = {"config": sparse, "code": CODE_VERSION}
    if config.task == SIZED_TASK:  # its data is the guides: edited text must train again
        key["text"] = guide_text_version(text_dir)
    payload = json.dumps(key, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()


# ---------------------------------------------------------------- what a run needs, and who can take it


@dataclass(frozen=True)
class Needs:
    """What a run needs of a worker: "cuda" or "cpu", and the GPU size (None: any worker's memory)."""

    device_class: str
    gpu_size: str | None = None
    setting: str | None = None  # the setting that asks for the GPU: "size" or "precision"; None: the limits


def run_needs(config: Mapping[str, Any]) -> Needs:
    """The one answer to "needs a GPU, which size": a GPU size or precision, or more steps, batch
    or samples than a CPU run may have. The queue (labs.workers), the form and API checks
    (`refusals`) and the worker's last guard derive from it."""
    size, precision = config["size"], config["precision"]
    if SIZES[size].needs_gpu:
        return Needs("cuda", size, "size")
    if precision in GPU_ONLY_PRECISIONS:
        return Needs("cuda", None, "precision")
    cpu, steps, batch = DEVICE_LIMITS["cpu"], config["steps"], config["effective_batch_size"]
    over = steps > cpu.steps or batch > cpu.effective_batch_size or steps * batch > cpu.sample_budget
    return Needs("cuda" if over else "cpu")


@dataclass(frozen=True)
class Limits:
    """What runs can be taken now: the device class ("cuda" while a CUDA worker is connected), the
    guides-lm sizes a connected worker holds and the most processes. The site builds them from the
    workers' heartbeats (labs.workers.site_limits) and passes them in; nothing here reads them."""

    device_class: str = "cpu"
    sizes: tuple[str, ...] = tuple(name for name in SIZE_NAMES if not SIZES[name].needs_gpu)
    max_processes: int = MAX_PROCESSES
    device_classes: tuple[str, ...] = ()  # of the connected workers, e.g. ("cpu", "cuda"); empty: none

    @property
    def run(self) -> DeviceLimits:  # steps, effective batch and samples one run may have
        return DEVICE_LIMITS[self.device_class]


ANY_GPU = Limits("cuda", SIZE_NAMES)  # what a GPU worker with enough memory takes


def refusals(config: RunConfig, limits: Limits) -> dict[str, list[Problem]]:
    """Why the workers that `limits` describes cannot take a valid run (nothing: they can)."""
    needs = run_needs(config.to_dict())
    if config.processes > limits.max_processes:
        return {"processes": [Problem(TOO_MANY_PROCESSES, allowed=limits.max_processes, got=config.processes)]}
    if needs.setting and limits.device_class != "cuda":
        setting = f"{needs.setting} {getattr(config, needs.setting)}"
        return {needs.setting: [Problem(GPU_NEEDED, setting=setting)]}
    if needs.gpu_size and needs.gpu_size not in limits.sizes:
        largest = limits.sizes[-1] if limits.sizes else SIZE_NAMES[0]
        return {"size": [Problem(SIZE_TOO_BIG, size=needs.gpu_size, largest=largest)]}
    return {}


# ---------------------------------------------------------------- untrusted settings


CPU_ONLY = Limits()


def validate_config(data: Any, limits: Limits = CPU_ONLY) -> tuple[RunConfig | None, dict[str, list[Problem]]]:
    """Parse untrusted settings for the workers `limits` describes (default: CPU workers only).
    Returns (config, {}) or (None, errors), every problem at once."""
    try:
        if not isinstance(data, dict):
            return None, {NON_FIELD: [Problem(NOT_AN_OBJECT)]}
        values, errors = _parse_fields(data, limits)
        # Rules across fields too whenever their fields parsed, so a learner sees everything at once.
        if all(name in values for name in ("steps", "effective_batch_size", "accumulation_steps")):
            for field, problem in _rules(values, limits.run):
                errors.setdefault(field, []).append(problem)
        if errors:
            return None, errors
        config = RunConfig.model_construct(**values)  # parsed, and the rules checked above: no second pass
        refused = refusals(config, limits)
        return (None, refused) if refused else (config, {})
    except Exception:
        return None, {NON_FIELD: [Problem(UNREADABLE)]}


def _parse_fields(data: dict, limits: Limits) -> tuple[dict[str, Any], dict[str, list[Problem]]]:
    errors: dict[str, list[Problem]] = {}
    for key in data:
        if not isinstance(key, str):
            errors.setdefault(NON_FIELD, []).append(Problem(NAME_NOT_TEXT, got=show(key)))
        elif key not in FIELDS:
            problem = Problem(UNKNOWN_SETTING, got=show(key), known=", ".join(FIELDS))
            errors.setdefault(NON_FIELD, []).append(problem)
    values: dict[str, Any] = {}
    for name, field in RunConfig.model_fields.items():
        if name not in data:
            if field.is_required():
                errors[name] = [Problem(REQUIRED, name=name)]
            else:
                values[name] = field.default
            continue
        try:
            value = _PARSERS[name].validate_python(data[name])
        except ValidationError as exc:
            errors[name] = [_field_problem(name, exc.errors()[0]["input"], limits)]
            continue
        device_bound = getattr(limits.run, name, None)  # steps, batch: within the declared range, above this
        if device_bound is not None and value > device_bound:
            errors[name] = [_field_problem(name, value, limits)]
        else:
            values[name] = value
    return values, errors


def declared_range(name: str) -> tuple[Any, Any]:
    """A number's range as RunConfig declares it (the widest: a GPU's); None where it has no bound."""
    low = high = None
    for constraint in RunConfig.model_fields[name].metadata:
        if isinstance(constraint, annotated_types.Ge | annotated_types.Gt):
            low = constraint.ge if isinstance(constraint, annotated_types.Ge) else constraint.gt
        elif isinstance(constraint, annotated_types.Le):
            high = constraint.le
    return low, high


def _bounds(name: str, limits: Limits) -> tuple[Any, Any]:
    """A number's range within what the device class allows (steps, effective batch)."""
    low, high = declared_range(name)
    return low, getattr(limits.run, name, high)


def _field_problem(name: str, got: Any, limits: Limits) -> Problem:
    """The sentence for a setting that did not parse, from its declaration."""
    annotation = RunConfig.model_fields[name].annotation
    low, high = _bounds(name, limits)
    if get_origin(annotation) is Literal:
        return Problem(NOT_A_CHOICE, name=name, options=", ".join(map(str, get_args(annotation))), got=show(got))
    if annotation is int:
        return Problem(NOT_A_WHOLE_NUMBER, name=name, low=f"{low:,}", high=f"{high:,}", got=show(got))
    if annotation is float:
        return Problem(NOT_A_NUMBER, name=name, low=f"{low:.5f}", high=f"{high:g}", got=show(got))
    return Problem(BAD_GRAD_CLIP, high=f"{high:g}", got=show(got))


def show(value: Any) -> str:
    """A short, safe rendering of a learner's value for an error message."""
    try:
        text = repr(value)
    except Exception:
        text = f"a {type(value).__name__}"
    return text if len(text) <= 40 else text[:37] + "..."


def _rules(values: dict[str, Any], limits: DeviceLimits) -> list[tuple[str, Problem]]:
    """Rules across settings, as (field, problem); ``values`` holds at least the batch, N and steps
    (a setting that did not parse is missing, and the rules about it wait until it does)."""
    effective, n, steps = values["effective_batch_size"], values["accumulation_steps"], values["steps"]
    g = values.get("processes")
    size, precision, task = values.get("size"), values.get("precision"), values.get("task")
    problems = []
    if size and size != SIZE_NAMES[0] and task and task != SIZED_TASK:
        problems.append(("size", Problem(SIZE_NEEDS_SIZED_TASK, size=size)))
    if precision and precision != PRECISIONS[0] and g and g > 1:
        problems.append(("precision", Problem(PRECISION_NEEDS_ONE_PROCESS, precision=precision)))
    if values.get("loss_scaling") == PER_RANK_SCALING and g == 1:
        problems.append(("loss_scaling", Problem(PER_RANK_NEEDS_PROCESSES, scaling=PER_RANK_SCALING)))
    g = g or 1  # processes that did not parse: the rules of one process
    if g > 1 and (n * g > effective or effective % (n * g)):
        problem = Problem(PROCESSES_SPLIT_BATCH, effective=effective, g=g, n=n, product=g * n)
        problems.append(("accumulation_steps", problem))
    elif n > effective:
        problems.append(("accumulation_steps", Problem(N_ABOVE_BATCH, n=n, effective=effective)))
    elif effective % n:
        problems.append(("accumulation_steps", Problem(N_SPLITS_BATCH, effective=effective, n=n)))
    elif values.get("norm") == "batch" and task == "digits-mlp" and effective // (n * g) < 2:
        # torch refuses to train BatchNorm1d on one value per feature ("Expected more than 1 value per
        # channel"); a CNN's BatchNorm sees every pixel of a sample, so it trains.
        problems.append(("norm", Problem(BATCH_NORM_NEEDS_TWO)))
    if steps * effective > limits.sample_budget:
        samples, budget = f"{steps * effective:,}", f"{limits.sample_budget:,}"
        problem = Problem(OVER_BUDGET, budget=budget, steps=steps, effective=effective, samples=samples)
        problems.append((NON_FIELD, problem))
    return problems


# A sensible starting point for forms and tests (it validates).
DEFAULT_CONFIG: dict[str, Any] = RunConfig(
    task="digits-cnn",
    norm="none",
    effective_batch_size=64,
    accumulation_steps=4,
    loss_scaling="mean",
    optimizer="sgd",
    learning_rate=0.05,
    steps=200,
    seed=0,
).to_dict()
