"""Run settings for the gradient-accumulation labs, and their validation.

This module must not import torch: the web process imports it to validate a
learner's form without paying for (or depending on) the training stack.

``validate_config`` takes untrusted JSON-ish input and never raises; errors
come back as sentences keyed by field name, with problems that involve no single
field (unknown settings, the compute budget) under ``"__all__"`` (Django's key for
non-field errors). Each sentence is a `Problem`: English text that keeps its message
id and parameters, translated where it is shown (labs.forms.translate_problem). These
are the only rules: the HTML form and the API schema (labs/schemas.py) call them.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import re
from dataclasses import dataclass
from typing import Any

from .problems import Problem, gettext_noop
from .sizes import GPU_ONLY_PRECISIONS, PRECISIONS, SIZE_NAMES, SIZES
from .version import guide_text_version, training_code_version

TASKS: tuple[str, ...] = ("digits-cnn", "digits-mlp", "tiny-lm", "guides-lm")
NORMS: tuple[str, ...] = ("none", "batch", "layer", "group", "rms")
SIZED_TASK = "guides-lm"  # the one task with sizes (labs/training/sizes.py); the others are tiny
LOSS_SCALINGS: tuple[str, ...] = ("mean", "sum", "mean_of_micro_means")
OPTIMIZERS: tuple[str, ...] = ("sgd", "adamw")
# Data parallelism: G processes, each accumulating N micro-batches of its share of the window.
PROCESS_COUNTS: tuple[int, ...] = (1, 2, 4)
SYNCS: tuple[str, ...] = ("no_sync", "every_micro")
MAX_PROCESSES = 4  # the default cap; a worker passes its own (settings.LAB_MAX_PROCESSES)
# A loss scaling that only differs from "mean" with several processes: each rank divides by its own
# token count (the classic mistake), so the all-reduced gradient is a mean of rank means.
PER_RANK_SCALING = "mean_of_rank_means"

# A hash of this package's files (version.py): any change to the model, data, loop or metrics
# gives a new version, so finished results stored under an older one are not reused.
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
# The widest bounds (a RunConfig may hold any); validate_config applies its device class's own.
WIDEST = DEVICE_LIMITS["cuda"]
EFFECTIVE_BATCH_RANGE = (1, WIDEST.effective_batch_size)
ACCUMULATION_RANGE = (1, 64)
STEPS_RANGE = (1, WIDEST.steps)
LEARNING_RATE_RANGE = (1e-5, 10.0)
SEED_RANGE = (0, 2**31 - 1)
GRAD_CLIP_MAX = 100.0
SAMPLE_BUDGET = DEVICE_LIMITS["cpu"].sample_budget  # steps * effective_batch_size on a CPU

NON_FIELD = "__all__"

# A sensible starting point for forms and presets (it validates).
DEFAULT_CONFIG: dict[str, Any] = {
    "task": "digits-cnn",
    "norm": "none",
    "effective_batch_size": 64,
    "accumulation_steps": 4,
    "loss_scaling": "mean",
    "optimizer": "sgd",
    "learning_rate": 0.05,
    "steps": 200,
    "seed": 0,
    "grad_clip": None,
}


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
NOT_CANONICAL = gettext_noop("%(name)s=%(got)s is not in canonical form; use validate_config for raw input.")
GPU_NEEDED = gettext_noop("%(setting)s needs a GPU worker; none is connected.")
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


@dataclass(frozen=True)
class RunConfig:
    """One training run. Construct through ``validate_config`` for untrusted input;
    direct construction checks the same rules and raises ``ValueError``."""

    task: str
    norm: str
    effective_batch_size: int
    accumulation_steps: int
    loss_scaling: str
    optimizer: str
    learning_rate: float
    steps: int
    seed: int
    grad_clip: float | None = None
    processes: int = 1
    sync: str = "no_sync"
    size: str = "tiny"
    precision: str = "fp32"

    def __post_init__(self) -> None:
        for name in ("learning_rate", "grad_clip"):  # allow RunConfig(learning_rate=1)
            value = getattr(self, name)
            if isinstance(value, int) and not isinstance(value, bool):
                object.__setattr__(self, name, float(value))
        errors: dict[str, list[Problem]] = {}
        for name, parse in _parsers(WIDEST).items():  # typed values must be what a parser returns
            value = getattr(self, name)
            try:
                if value is not None or name != "grad_clip":
                    parsed = parse(value)
                    if parsed != value or type(parsed) is not type(value):
                        raise FieldError(Problem(NOT_CANONICAL, name=name, got=show(value)))
            except FieldError as exc:
                _add(errors, name, exc.problem)
        if not errors:
            _check_cross(dataclasses.asdict(self), WIDEST, errors)
        if errors:
            raise ValueError(" ".join(m for msgs in errors.values() for m in msgs))

    @property
    def micro_batch_size(self) -> int:
        return self.effective_batch_size // (self.accumulation_steps * self.processes)

    def to_dict(self) -> dict[str, Any]:
        """Data-parallel settings at their defaults are left out, so a one-process run keeps
        the dictionary and fingerprint it had before they existed."""
        values = dataclasses.asdict(self)
        return {k: v for k, v in values.items() if k not in _DEFAULTED or v != _DEFAULTED[k]}

    def replace(self, **changes: Any) -> RunConfig:
        return dataclasses.replace(self, **changes)


FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(RunConfig))
_DEFAULTED: dict[str, Any] = {"processes": 1, "sync": "no_sync", "size": "tiny", "precision": "fp32"}
_OPTIONAL: dict[str, Any] = {"grad_clip": None, **_DEFAULTED}


def config_fingerprint(config: RunConfig, text_dir: Any = None) -> str:
    """Stable key for reusing a finished result: settings plus CODE_VERSION, and for guides-lm the
    version of the guides it reads from ``text_dir`` (default: the repository's content/guides)."""
    key: dict[str, Any] = {"config": config.to_dict(), "code": CODE_VERSION}
    if config.task == SIZED_TASK:  # its data is the guides: edited text must train again
        key["text"] = guide_text_version(text_dir)
    payload = json.dumps(key, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()


def validate_config(
    data: Any, max_processes: int = MAX_PROCESSES, device_class: str = "cpu"
) -> tuple[RunConfig | None, dict[str, list[Problem]]]:
    """Parse untrusted settings. Returns (config, {}) or (None, errors).
    ``max_processes`` is the most processes the worker machine allows; ``device_class`` ("cpu" or
    "cuda") what it is: sizes and precisions that need a GPU are refused on "cpu"."""
    try:
        config, errors = _validate(data, DEVICE_LIMITS.get(device_class, DEVICE_LIMITS["cpu"]))
        if config is not None and config.processes > max_processes:
            return None, {"processes": [Problem(TOO_MANY_PROCESSES, allowed=max_processes, got=config.processes)]}
        gpu = gpu_needed(config) if config is not None and device_class != "cuda" else None
        if gpu is not None:
            return None, {gpu[0]: [gpu[1]]}
        return config, errors
    except Exception:
        return None, {NON_FIELD: [Problem(UNREADABLE)]}


def gpu_needed(config: RunConfig) -> tuple[str, Problem] | None:
    """The setting ("size" or "precision") that needs a CUDA worker, and the sentence saying so."""
    if SIZES[config.size].needs_gpu:
        field = "size"
    elif config.precision in GPU_ONLY_PRECISIONS:
        field = "precision"
    else:
        return None
    return field, Problem(GPU_NEEDED, setting=f"{field} {getattr(config, field)}")


class FieldError(ValueError):
    def __init__(self, problem: Problem) -> None:
        super().__init__(problem)
        self.problem = problem


def show(value: Any) -> str:
    """A short, safe rendering of a learner's value for an error message."""
    try:
        text = repr(value)
    except Exception:
        text = f"a {type(value).__name__}"
    return text if len(text) <= 40 else text[:37] + "..."


# ---------------------------------------------------------------- internals

_INT_RE = re.compile(r"[+-]?\d{1,30}")
_MAX_TEXT = 64  # longer strings are not numbers we would accept anyway


def _validate(data: Any, limits: DeviceLimits) -> tuple[RunConfig | None, dict[str, list[Problem]]]:
    if not isinstance(data, dict):
        return None, {NON_FIELD: [Problem(NOT_AN_OBJECT)]}
    errors: dict[str, list[Problem]] = {}
    for key in data:
        if not isinstance(key, str):
            _add(errors, NON_FIELD, Problem(NAME_NOT_TEXT, got=show(key)))
        elif key not in FIELDS:
            _add(errors, NON_FIELD, Problem(UNKNOWN_SETTING, got=show(key), known=", ".join(FIELDS)))
    values: dict[str, Any] = {}
    for name, parse in _parsers(limits).items():
        if name not in data:
            if name in _OPTIONAL:
                values[name] = _OPTIONAL[name]
            else:
                _add(errors, name, Problem(REQUIRED, name=name))
            continue
        try:
            values[name] = parse(data[name])
        except FieldError as exc:
            _add(errors, name, exc.problem)
    # Cross-field problems too whenever their fields parsed, so a learner sees everything at once.
    if all(name in values for name in ("steps", "effective_batch_size", "accumulation_steps")):
        _check_cross(values, limits, errors)
    if errors:
        return None, errors
    return RunConfig(**values), {}


def _add(errors: dict[str, list[Problem]], key: str, message: Problem) -> None:
    errors.setdefault(key, []).append(message)


def _parsers(limits: DeviceLimits) -> dict:
    """Each field's parser (in FIELDS order), with the steps and effective batch bounds of one device class.
    A parser reads one untrusted value, returns it typed and canonical, or raises FieldError."""
    return {
        "task": _choice("task", TASKS),
        "norm": _choice("norm", NORMS),
        "effective_batch_size": _integer("effective_batch_size", 1, limits.effective_batch_size),
        "accumulation_steps": _integer("accumulation_steps", *ACCUMULATION_RANGE),
        "loss_scaling": _choice("loss_scaling", (*LOSS_SCALINGS, PER_RANK_SCALING)),
        "optimizer": _choice("optimizer", OPTIMIZERS),
        "learning_rate": _learning_rate,
        "steps": _integer("steps", 1, limits.steps),
        "seed": _integer("seed", *SEED_RANGE),
        "grad_clip": _grad_clip,
        "processes": _process_count,
        "sync": _choice("sync", SYNCS),
        "size": _choice("size", SIZE_NAMES),
        "precision": _choice("precision", PRECISIONS),
    }


def _choice(name: str, choices: tuple[str, ...]):
    def parse(value: Any) -> str:
        cleaned = value.strip().lower() if isinstance(value, str) else None
        if cleaned not in choices:
            raise FieldError(Problem(NOT_A_CHOICE, name=name, options=", ".join(choices), got=show(value)))
        return cleaned

    return parse


def _integer(name: str, low: int, high: int):
    def parse(value: Any) -> int:
        number: int | None = None
        if isinstance(value, int) and not isinstance(value, bool):  # True is not a batch size
            number = value
        elif isinstance(value, float) and value.is_integer():  # JSON clients may send 64.0
            number = int(value)
        elif isinstance(value, str) and len(value) <= _MAX_TEXT and _INT_RE.fullmatch(value.strip()):
            number = int(value.strip())
        if number is None or not low <= number <= high:
            got = show(value if number is None else number)
            raise FieldError(Problem(NOT_A_WHOLE_NUMBER, name=name, low=f"{low:,}", high=f"{high:,}", got=got))
        return number

    return parse


def _to_float(value: Any) -> float | None:
    """A finite number from a number or a short text (float() ignores surrounding spaces), else None."""
    long_text = isinstance(value, str) and len(value) > _MAX_TEXT
    if isinstance(value, bool) or not isinstance(value, int | float | str) or long_text:
        return None
    try:
        number = value if isinstance(value, float) else float(value)  # OverflowError for huge ints
    except (ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None


def _learning_rate(value: Any) -> float:
    low, high = LEARNING_RATE_RANGE
    number = _to_float(value)
    if number is None or not low <= number <= high:
        raise FieldError(
            Problem(NOT_A_NUMBER, name="learning_rate", low=f"{low:.5f}", high=f"{high:g}", got=show(value))
        )
    return number


def _grad_clip(value: Any) -> float | None:
    if value is None or (isinstance(value, str) and value.strip().lower() in ("", "none", "null")):
        return None
    number = _to_float(value)
    if number is None or not 0 < number <= GRAD_CLIP_MAX:
        raise FieldError(Problem(BAD_GRAD_CLIP, high=f"{GRAD_CLIP_MAX:g}", got=show(value)))
    return number


def _process_count(value: Any) -> int:
    number = _integer("processes", 1, max(PROCESS_COUNTS))(value)
    if number not in PROCESS_COUNTS:
        options = ", ".join(map(str, PROCESS_COUNTS))
        raise FieldError(Problem(NOT_A_CHOICE, name="processes", options=options, got=str(number)))
    return number


def _check_cross(values: dict[str, Any], limits: DeviceLimits, errors: dict[str, list[Problem]]) -> None:
    """Rules across fields, added to ``errors``; ``values`` holds at least the batch, N and steps."""
    effective = values["effective_batch_size"]
    n = values["accumulation_steps"]
    steps = values["steps"]
    g = values.get("processes") or 1
    size, precision = values.get("size") or "tiny", values.get("precision") or "fp32"
    if size != "tiny" and values.get("task") != SIZED_TASK:
        _add(errors, "size", Problem(SIZE_NEEDS_SIZED_TASK, size=size))
    if precision != "fp32" and g > 1:
        _add(errors, "precision", Problem(PRECISION_NEEDS_ONE_PROCESS, precision=precision))
    if values.get("loss_scaling") == PER_RANK_SCALING and g == 1:
        _add(errors, "loss_scaling", Problem(PER_RANK_NEEDS_PROCESSES, scaling=PER_RANK_SCALING))
    if g > 1 and (n * g > effective or effective % (n * g)):
        problem = Problem(PROCESSES_SPLIT_BATCH, effective=effective, g=g, n=n, product=g * n)
        _add(errors, "accumulation_steps", problem)
    elif n > effective:
        _add(errors, "accumulation_steps", Problem(N_ABOVE_BATCH, n=n, effective=effective))
    elif effective % n:
        _add(errors, "accumulation_steps", Problem(N_SPLITS_BATCH, effective=effective, n=n))
    elif values.get("norm") == "batch" and values.get("task") == "digits-mlp" and effective // (n * g) < 2:
        # torch refuses to train BatchNorm1d on one value per feature ("Expected more than 1 value per
        # channel"); a CNN's BatchNorm sees every pixel of a sample, so it trains.
        _add(errors, "norm", Problem(BATCH_NORM_NEEDS_TWO))
    if steps * effective > limits.sample_budget:
        samples, budget = f"{steps * effective:,}", f"{limits.sample_budget:,}"
        problem = Problem(OVER_BUDGET, budget=budget, steps=steps, effective=effective, samples=samples)
        _add(errors, NON_FIELD, problem)
