"""The figures the guides may place (`{{ figure: <preset>/<name> }}`): for each, what it draws and
a caption saying what to see, filled with the reference runs' own numbers in the page's language.
labs/guide_figures.py draws them."""

import math
from collections.abc import Callable
from dataclasses import dataclass

from django.template.defaultfilters import filesizeformat
from django.utils.formats import get_format, number_format
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from .models import LabRun


@dataclass(frozen=True)
class FigureSpec:
    kind: str  # "loss" (curves), or a metric drawn as bars: "memory", "grad-error", "allreduce"
    caption: str | Promise  # what to see, with %(name)s numbers from `numbers`
    numbers: Callable[[list[LabRun]], dict[str, str]]


# ---------------------------------------------------------------- numbers in the page's language


def fmt_number(value: float | None, digits: int = 3) -> str:
    if value is None or not math.isfinite(value):
        return _("diverged")
    return number_format(value, decimal_pos=digits)


def sci(value: float | None) -> str:
    if not isinstance(value, int | float):
        return "—"
    return f"{value:.1e}".replace(".", get_format("DECIMAL_SEPARATOR"))  # 1,3e-07 in French


def final_loss(run: LabRun) -> float | None:
    value = run.metrics.get("final_loss")
    return None if run.metrics.get("diverged") or not isinstance(value, int | float) else value


def _finals(runs: list[LabRun]) -> str:
    return "; ".join(f"{run.label}: {fmt_number(final_loss(run))}" for run in runs)


def _memory(runs: list[LabRun]) -> dict[str, str]:
    first, last = runs[0].metrics["peak_activation_bytes"], runs[-1].metrics["peak_activation_bytes"]
    finals = [f for f in map(final_loss, runs) if f is not None]
    return {
        "first": filesizeformat(first),
        "last": filesizeformat(last),
        "ratio": number_format(first / last, decimal_pos=1),
        "low": fmt_number(min(finals)),
        "high": fmt_number(max(finals)),
    }


def _validation(runs: list[LabRun]) -> dict[str, str]:
    first, middle, last = (run.metrics.get("val_loss") for run in runs)
    return {"first": fmt_number(first), "middle": fmt_number(middle), "last": fmt_number(last)}


def window_run(runs: list[LabRun]) -> LabRun:
    """The run a timeline shows: N = 4, the window the guide's text walks through."""
    return next(run for run in runs if run.config.get("accumulation_steps") == 4)


def block_seconds(run: LabRun) -> float:
    """Average time of one micro-batch: the run's wall time over all its micro-batches."""
    return run.metrics["wall_seconds"] / (run.done_steps * run.config["accumulation_steps"])


def _window_numbers(run: LabRun) -> dict[str, str]:
    return {"micro": str(run.micro_batch_size), "ms": fmt_number(block_seconds(run) * 1000, 1), "device": run.device}


def _wall_time(runs: list[LabRun]) -> dict[str, str]:
    finals = [f for f in map(final_loss, runs) if f is not None]
    first, last = runs[0].metrics.get("wall_seconds"), runs[-1].metrics.get("wall_seconds")
    return {
        "first": fmt_number(first, 2),
        "last": fmt_number(last, 2),
        "low": fmt_number(min(finals)),
        "high": fmt_number(max(finals)),
    }


def _two_finals(runs: list[LabRun]) -> dict[str, str]:
    first, last = final_loss(runs[0]), final_loss(runs[-1])
    gap = abs(first - last) / first * 100 if first and last is not None else None
    return {"first": fmt_number(first), "last": fmt_number(last), "gap": fmt_number(gap, 1)}


def _errors(*indexes: int, names: tuple[str, ...]) -> Callable[[list[LabRun]], dict[str, str]]:
    def numbers(runs: list[LabRun]) -> dict[str, str]:
        found = {
            name: sci(runs[i].metrics.get("grad_equivalence_error")) for name, i in zip(names, indexes, strict=True)
        }
        return {**found, "finals": _finals(runs)}

    return numbers


def _n_sweep(runs: list[LabRun]) -> dict[str, str]:
    errors = [run.metrics.get("grad_equivalence_error") or 0.0 for run in runs]
    return {"finals": _finals(runs), "last_error": sci(errors[-1]), "max_error": sci(max(errors))}


def _allreduce(runs: list[LabRun]) -> dict[str, str]:
    finals = [f for f in map(final_loss, runs) if f is not None]
    once, every = runs[1].metrics, runs[2].metrics
    return {
        "no_sync": str(once["allreduce_calls"]),
        "every": str(every["allreduce_calls"]),
        "no_sync_bytes": filesizeformat(once["allreduce_bytes"]),
        "every_bytes": filesizeformat(every["allreduce_bytes"]),
        "ratio": number_format(every["allreduce_bytes"] / once["allreduce_bytes"], decimal_pos=1),
        "spread": fmt_number(max(finals) - min(finals), 7) if finals else "—",
    }


FIGURES: dict[tuple[str, str], FigureSpec] = {
    ("memory-vs-n", "memory"): FigureSpec(
        "memory",
        gettext_lazy(
            "Peak activation memory of each run of the same CNN at an effective batch of 64. It falls from "
            "%(first)s at N = 1 to %(last)s at N = 8, %(ratio)s times less, while the final loss stays between "
            "%(low)s and %(high)s: the effective batch did not change."
        ),
        _memory,
    ),
    ("forgot-divide-sgd", "loss"): FigureSpec(
        "loss",
        gettext_lazy(
            "Training loss with SGD at N = 8. The run that divides each micro-batch loss by N ends at "
            "%(first)s; the run that only sums them, and so takes steps 8 times too large, ends at %(last)s."
        ),
        _two_finals,
    ),
    ("forgot-divide-adamw", "loss"): FigureSpec(
        "loss",
        gettext_lazy(
            "Training loss with AdamW at N = 8. The divided run ends at %(first)s and the run that only sums "
            "at %(last)s, %(gap)s %% apart: Adam divides by its own running scale, so the factor of 8 hides."
        ),
        _two_finals,
    ),
    ("batchnorm-n-sweep", "loss"): FigureSpec(
        "loss",
        gettext_lazy(
            "BatchNorm at an effective batch of 64 in micro-batches of 64, 16 and 4 samples. Final losses: "
            "%(finals)s. The gradient-equivalence error against the full batch reaches %(last_error)s at N = 16."
        ),
        _n_sweep,
    ),
    ("layernorm-n-sweep", "loss"): FigureSpec(
        "loss",
        gettext_lazy(
            "LayerNorm at N = 1, 4 and 16: the curves lie on top of each other. Final losses: %(finals)s; the "
            "largest gradient-equivalence error is %(max_error)s."
        ),
        _n_sweep,
    ),
    ("groupnorm-vs-batchnorm-tiny", "grad-error"): FigureSpec(
        "grad-error",
        gettext_lazy(
            "Gradient-equivalence error of each run against the full batch, on a logarithmic scale. With "
            "micro-batches of 2 samples (N = 16), BatchNorm's error is %(batch)s and GroupNorm's %(group)s."
        ),
        _errors(1, 3, names=("batch", "group")),
    ),
    ("token-normalization", "loss"): FigureSpec(
        "loss",
        gettext_lazy(
            "Training loss of the tiny language model. The mean over the window's tokens follows the full "
            "batch, with a gradient-equivalence error of %(tokens)s; the mean of micro-batch means has an "
            "error of %(means)s. Final losses: %(finals)s."
        ),
        _errors(1, 2, names=("tokens", "means")),
    ),
    ("batch-size-vs-samples", "loss-by-samples"): FigureSpec(
        "loss-samples",
        gettext_lazy(
            "Training loss against samples seen, for the same 8,000 samples at effective batches of 16, 64 and "
            "256. The validation loss ends at %(first)s with batch 16, %(middle)s with 64 and %(last)s with 256."
        ),
        _validation,
    ),
    ("memory-vs-n", "window"): FigureSpec(
        "window",
        gettext_lazy(
            "One optimizer step of the reference run with N = 4: four micro-batches of %(micro)s samples, "
            "%(ms)s ms each on average on %(device)s. Each backward pass adds its share to .grad; the optimizer "
            "steps once, after the fourth, and the gradients are then cleared."
        ),
        lambda runs: _window_numbers(window_run(runs)),
    ),
    ("memory-vs-n", "wall-time"): FigureSpec(
        "wall-time",
        gettext_lazy(
            "Wall time of each run. The four runs train on the same 64 samples per optimizer step and their final "
            "losses stay between %(low)s and %(high)s, but splitting the batch into N = 8 micro-batches takes "
            "%(last)s s against %(first)s s at N = 1."
        ),
        _wall_time,
    ),
    ("data-parallel-no-sync", "loss"): FigureSpec(
        "loss",
        gettext_lazy(
            "Training loss at an effective batch of 64: one process with N = 4, and two processes with N = 2 "
            "each, with no_sync and synchronizing after every micro-batch. The curves lie on top of each other. "
            "Final losses: %(finals)s; the largest gradient-equivalence error is %(max_error)s."
        ),
        _n_sweep,
    ),
    ("data-parallel-no-sync", "allreduce"): FigureSpec(
        "allreduce",
        gettext_lazy(
            "Gradient all-reduces of each run. Two processes make %(no_sync)s all-reduces sending %(no_sync_bytes)s "
            "with no_sync, and %(every)s sending %(every_bytes)s when they synchronize after every micro-batch: "
            "%(ratio)s times more bytes, for final losses within %(spread)s of each other."
        ),
        _allreduce,
    ),
    ("transformer-lm-n-norm", "grad-error"): FigureSpec(
        "grad-error",
        gettext_lazy(
            "Gradient-equivalence error of each run of the small transformer against the full batch, on a "
            "logarithmic scale (an N = 1 run is the full batch: no error). At N = 4, LayerNorm's error is "
            "%(layer)s, RMSNorm's %(rms)s and BatchNorm's %(batch)s."
        ),
        _errors(1, 3, 5, names=("layer", "rms", "batch")),
    ),
}

CURVE_KINDS = ("loss", "loss-samples")
LOSS_CURVES = FigureSpec("loss", "", lambda runs: {})  # the preset page's chart: no caption of its own
BAR_METRICS = {
    "wall-time": "wall_seconds",
    "memory": "peak_activation_bytes",
    "grad-error": "grad_equivalence_error",
    "allreduce": "allreduce_calls",
}
