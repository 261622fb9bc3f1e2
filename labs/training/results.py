"""What a run reports, and which of it the site stores as the run's metrics.

Torch-free, so the web process and the worker's bookkeeping (labs/execution.py, labs/export.py)
read the metric names from here without importing the trainer; ``model`` is typed only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from torch import nn


@dataclass
class RunResult:
    """Everything a finished (or stopped) run reports. ``to_dict()`` is JSON-safe:
    non-finite numbers become None. ``model`` is only set with keep_model=True
    and is never serialized."""

    config: dict[str, Any]
    status: str  # "finished" | "cancelled" | "diverged"
    steps_done: int
    curve: list[dict[str, Any]]
    validation: list[dict[str, Any]]
    final_loss: float | None
    val_loss: float | None
    val_accuracy: float | None
    device: str
    torch_version: str
    code_version: str
    dtype: str
    parameter_count: int
    wall_seconds: float  # the whole loop, validation and first-step metrics included
    validation_seconds: float  # of which validation passes
    metrics_seconds: float  # of which the full-batch reference gradient (first step)
    samples_per_second: float
    tokens_per_second: float | None
    peak_activation_bytes: int | None
    activation_memory_method: str | None
    grad_equivalence_error: float | None
    # Data-parallel runs only (processes > 1): what DDP's gradient all-reduces cost, on rank 0.
    allreduce_calls: int | None = None
    allreduce_bytes: int | None = None
    communication_seconds: float | None = None
    compute_seconds: float | None = None
    model: nn.Module | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        # Not dataclasses.asdict: it would deep-copy the model.
        return _json_safe({f.name: getattr(self, f.name) for f in fields(self) if f.name != "model"})


# The RunResult fields a stored run keeps as its metrics (LabRun.metrics); the others are stored in
# their own columns (curve, device...) or only timed by the bench (validation_seconds...). The last
# four: data-parallel runs only, DDP's gradient all-reduces, their bytes and time.
STORED_METRICS = ("final_loss", "val_loss", "val_accuracy", "samples_per_second", "tokens_per_second",
                  "wall_seconds", "peak_activation_bytes", "activation_memory_method", "grad_equivalence_error",
                  "parameter_count", "dtype", "allreduce_calls", "allreduce_bytes", "communication_seconds",
                  "compute_seconds")  # fmt: skip
DIVERGED = "diverged"  # stored beside them: True when the loss stopped being finite


def stored_metrics(result: dict[str, Any]) -> dict[str, Any]:
    """A run's metrics as the site stores them, from ``RunResult.to_dict()``."""
    metrics = {name: result.get(name) for name in STORED_METRICS}
    metrics[DIVERGED] = result["status"] == "diverged"
    return metrics


def finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _json_safe(value: Any) -> Any:
    if isinstance(value, float):
        return finite(value)
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    return value
