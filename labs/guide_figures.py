"""The guides' figures, drawn from the presets' reference sweeps (labs/reference.py).

Registered with course's extension point (course/figures.py) in LabsConfig.ready(): a guide line
`{{ figure: <preset>/<name> }}` becomes one of the FIGURES below, in the page's language, with
a caption that says what to see with the reference run's own numbers. Each figure is rendered
once per sweep and language and cached; a preset whose reference sweep has not finished yet
gets a sentence and a link to its page instead.
"""

import json
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass

from django.core.cache import cache
from django.template.defaultfilters import filesizeformat
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.formats import date_format, get_format, number_format
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from redis import RedisError

from .downsample import downsample_curve
from .figures import Bar, Series, bar_chart, line_chart, window_chart
from .models import LabRun
from .presets import PRESETS
from .reference import ReferenceSweep, reference_index, reference_sweep_latest

logger = logging.getLogger(__name__)
CACHE_VERSION = 3  # bump when the drawing changes
CACHE_TIMEOUT = 24 * 3600
TABLE_ROWS = 12  # rows of the loss table behind a curve figure (every k-th step, and the last)
CURVE_POINTS = 150


@dataclass(frozen=True)
class FigureSpec:
    kind: str  # "loss" (curves), or a metric drawn as bars: "memory", "grad-error", "allreduce"
    caption: str | Promise  # what to see, with %(name)s numbers from `numbers`
    numbers: Callable[[list[LabRun]], dict[str, str]]


# ---------------------------------------------------------------- numbers in the page's language


def _fmt(value: float | None, digits: int = 3) -> str:
    if value is None or not math.isfinite(value):
        return _("diverged")
    return number_format(value, decimal_pos=digits)


def _sci(value: float | None) -> str:
    if not isinstance(value, int | float):
        return "—"
    return f"{value:.1e}".replace(".", get_format("DECIMAL_SEPARATOR"))  # 1,3e-07 in French


def _final(run: LabRun) -> float | None:
    value = run.metrics.get("final_loss")
    return None if run.metrics.get("diverged") or not isinstance(value, int | float) else value


def _finals(runs: list[LabRun]) -> str:
    return "; ".join(f"{run.label}: {_fmt(_final(run))}" for run in runs)


def _memory(runs: list[LabRun]) -> dict[str, str]:
    first, last = runs[0].metrics["peak_activation_bytes"], runs[-1].metrics["peak_activation_bytes"]
    finals = [f for f in map(_final, runs) if f is not None]
    return {
        "first": filesizeformat(first),
        "last": filesizeformat(last),
        "ratio": number_format(first / last, decimal_pos=1),
        "low": _fmt(min(finals)),
        "high": _fmt(max(finals)),
    }


def _validation(runs: list[LabRun]) -> dict[str, str]:
    first, middle, last = (run.metrics.get("val_loss") for run in runs)
    return {"first": _fmt(first), "middle": _fmt(middle), "last": _fmt(last)}


def _window_run(runs: list[LabRun]) -> LabRun:
    """The run a timeline shows: N = 4, the window the guide's text walks through."""
    return next(run for run in runs if run.config.get("accumulation_steps") == 4)


def _block_seconds(run: LabRun) -> float:
    """Average time of one micro-batch: the run's wall time over all its micro-batches."""
    return run.metrics["wall_seconds"] / (run.done_steps * run.config["accumulation_steps"])


def _window_numbers(run: LabRun) -> dict[str, str]:
    return {"micro": str(run.micro_batch_size), "ms": _fmt(_block_seconds(run) * 1000, 1), "device": run.device}


def _wall_time(runs: list[LabRun]) -> dict[str, str]:
    finals = [f for f in map(_final, runs) if f is not None]
    first, last = runs[0].metrics.get("wall_seconds"), runs[-1].metrics.get("wall_seconds")
    return {"first": _fmt(first, 2), "last": _fmt(last, 2), "low": _fmt(min(finals)), "high": _fmt(max(finals))}


def _two_finals(runs: list[LabRun]) -> dict[str, str]:
    first, last = _final(runs[0]), _final(runs[-1])
    gap = abs(first - last) / first * 100 if first and last is not None else None
    return {"first": _fmt(first), "last": _fmt(last), "gap": _fmt(gap, 1)}


def _errors(*indexes: int, names: tuple[str, ...]) -> Callable[[list[LabRun]], dict[str, str]]:
    def numbers(runs: list[LabRun]) -> dict[str, str]:
        found = {
            name: _sci(runs[i].metrics.get("grad_equivalence_error")) for name, i in zip(names, indexes, strict=True)
        }
        return {**found, "finals": _finals(runs)}

    return numbers


def _n_sweep(runs: list[LabRun]) -> dict[str, str]:
    errors = [run.metrics.get("grad_equivalence_error") or 0.0 for run in runs]
    return {"finals": _finals(runs), "last_error": _sci(errors[-1]), "max_error": _sci(max(errors))}


def _allreduce(runs: list[LabRun]) -> dict[str, str]:
    finals = [f for f in map(_final, runs) if f is not None]
    return {
        "no_sync": str(runs[1].metrics.get("allreduce_calls")),
        "every": str(runs[2].metrics.get("allreduce_calls")),
        "spread": _fmt(max(finals) - min(finals), 7) if finals else "—",
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
        lambda runs: _window_numbers(_window_run(runs)),
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
    ("data-parallel-no-sync", "allreduce"): FigureSpec(
        "allreduce",
        gettext_lazy(
            "Gradient all-reduces of each run. Two processes make %(no_sync)s with no_sync and %(every)s when "
            "they synchronize after every micro-batch, for final losses within %(spread)s of each other."
        ),
        _allreduce,
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


# ---------------------------------------------------------------- drawing


def _svg(spec: FigureSpec, reference: ReferenceSweep, key: str) -> str:
    runs, title = reference.runs, str(reference.preset.title)
    labels = ", ".join(run.label for run in runs)
    if spec.kind in CURVE_KINDS:
        x_key = "samples" if spec.kind == "loss-samples" else "step"
        series = [
            Series(
                run.label, [(p[x_key], p["loss"]) for p in downsample_curve(run.curve, CURVE_POINTS) if _is_number(p)]
            )
            for run in runs
        ]
        losses = [y for s in series for _x, y in s.points if isinstance(y, int | float) and y > 0]
        log_y = bool(losses) and max(losses) / min(losses) > 100
        if x_key == "samples":
            desc = _("Line chart of the training loss against the samples seen for %(count)d runs: %(labels)s.")
        else:
            desc = _("Line chart of the training loss against the optimizer step for %(count)d runs: %(labels)s.")
        return line_chart(
            series,
            id_prefix=key,
            title=title,
            desc=desc % {"count": len(runs), "labels": labels},
            x_label=_("samples seen") if x_key == "samples" else _("optimizer step"),
            y_label=_("training loss") + (f" ({_('logarithmic')})" if log_y else ""),
            log_y=log_y,
            fmt=lambda value, decimals: number_format(value, decimal_pos=decimals),
        )
    if spec.kind == "window":
        run = _window_run(runs)
        n = run.config["accumulation_steps"]
        desc = _(
            "Timeline of one optimizer step: %(n)d micro-batches of a forward and a backward pass, each loss "
            "divided by %(n)d, their gradients adding up in .grad, then one optimizer step."
        ) % {"n": n}
        return window_chart(
            n=n,
            block_seconds=_block_seconds(run),
            id_prefix=key,
            title=title,
            desc=desc,
            time_label=_("time (ms)"),
            mean_label=_("mean gradient"),
            fmt=lambda value, decimals: number_format(value, decimal_pos=decimals),
        )
    metric = BAR_METRICS[spec.kind]
    values = [float(run.metrics.get(metric) or 0) for run in runs]
    unit, value_label = 1, _metric_name(spec.kind)
    if spec.kind == "memory":  # ticks in one binary unit (0, 0.5, 1.0 MiB), not decimal bytes
        unit = 1024 ** max(0, min(3, int(math.log(max(max(values), 1), 1024))))
        value_label = f"{value_label} ({_unit_name(unit)})"
    bars = [Bar(run.label, value / unit, _bar_text(spec.kind, run)) for run, value in zip(runs, values, strict=True)]
    desc = _("Bar chart of %(metric)s for %(count)d runs: %(values)s.") % {
        "metric": _metric_name(spec.kind),
        "count": len(runs),
        "values": "; ".join(f"{bar.label}: {bar.text}" for bar in bars),
    }
    return bar_chart(
        bars,
        id_prefix=key,
        title=title,
        desc=desc,
        value_label=value_label,
        log=spec.kind == "grad-error",
        fmt=_tick_text(spec.kind),
    )


def _is_number(point: dict) -> bool:
    loss = point.get("loss")  # a diverged run records None
    return isinstance(loss, int | float) and math.isfinite(loss)


def _unit_name(unit: int) -> str:
    """The page language's name of a binary unit ("KiB", "Kio", ...), as filesizeformat writes it."""
    return filesizeformat(2 * unit).split()[-1]  # "2.0 MB": the unit in the plural, without the number


def _tick_text(kind: str) -> Callable[[float, int], str]:
    if kind == "grad-error":
        return lambda value, _decimals: _sci(value)
    return lambda value, decimals: number_format(value, decimal_pos=decimals)


def _bar_text(kind: str, run: LabRun) -> str:
    value = run.metrics.get(BAR_METRICS[kind])
    if value is None:
        return "—"
    if kind == "memory":
        return filesizeformat(value)
    if kind == "wall-time":
        return _fmt(value, 2)
    return _sci(value) if kind == "grad-error" else str(value)


def _metric_name(kind: str) -> str:
    return {
        "wall-time": _("wall time (seconds)"),
        "memory": _("peak activation memory"),
        "grad-error": _("gradient-equivalence error"),
        "allreduce": _("gradient all-reduces"),
    }[kind]


def _table(spec: FigureSpec, runs: list[LabRun]) -> tuple[list[str], list[list[str]]]:
    """Column headers and rows of the data table behind the figure."""
    if spec.kind == "window":
        run = _window_run(runs)
        n, ms = run.config["accumulation_steps"], _block_seconds(run) * 1000
        return [_("micro-batch"), _("time (ms)"), ".grad"], [
            [str(k), f"{_fmt(ms * (k - 1), 1)} – {_fmt(ms * k, 1)}", f"g1/{n} + … + g{k}/{n}" if k > 1 else f"g1/{n}"]
            for k in range(1, n + 1)
        ]
    if spec.kind == "loss-samples":  # the runs take different steps: one row per run
        header = [_("Run"), _("samples seen"), _("Final loss"), _("Validation loss")]
        return header, [
            [run.label, str(run.curve[-1].get("samples")), _fmt(_final(run), 4), _fmt(run.metrics.get("val_loss"), 4)]
            for run in runs
        ]
    if spec.kind != "loss":
        header = [_("Run"), _metric_name(spec.kind), _("Final loss")]
        return header, [[run.label, _bar_text(spec.kind, run), _fmt(_final(run), 4)] for run in runs]
    steps = max(len(run.curve) for run in runs)
    every = max(1, math.ceil(steps / TABLE_ROWS))
    wanted = sorted({*range(every, steps + 1, every), 1, steps})
    by_step = [{p["step"]: p.get("loss") for p in run.curve} for run in runs]
    rows = [[str(step)] + [_fmt(losses.get(step), 4) for losses in by_step] for step in wanted]
    return [_("optimizer step")] + [run.label for run in runs], rows


def _figure_html(preset: str, name: str, spec: FigureSpec, reference: ReferenceSweep | None) -> str:
    link = reverse("labs:preset", args=[preset])
    context = {"preset_url": link, "preset_title": PRESETS[preset].title, "key": f"figure-{preset}-{name}"}
    if reference is None:
        return render_to_string("labs/_guide_figure.html", {**context, "missing": True})
    header, rows = _table(spec, reference.runs)
    context |= {
        "svg": _svg(spec, reference, context["key"]),
        "caption": _caption(spec, reference),
        "header": header,
        "rows": rows,
        "date": date_format(reference.finished_at, "DATE_FORMAT"),
        "device": reference.devices,
        "code_version": reference.code_version,
    }
    return render_to_string("labs/_guide_figure.html", context)


def _caption(spec: FigureSpec, reference: ReferenceSweep) -> str:
    """What to see, with the runs' numbers; a run missing a metric (an older code version) gets
    the preset's own sentence instead of an error on the guide page."""
    try:
        return str(spec.caption) % spec.numbers(reference.runs)
    except (KeyError, IndexError, TypeError, ValueError, ZeroDivisionError):
        logger.exception("figure caption of reference sweep %s", reference.sweep)
        return str(reference.preset.look_for)


class ReferenceFigures:
    """The provider course/figures.py calls for each figure line of a guide."""

    def render(self, preset: str, name: str, language: str) -> str:
        spec = FIGURES.get((preset, name))
        if spec is None:
            return ""  # tests/labs/test_figures.py checks every guide names a known figure
        sweep = reference_index().get(preset, "none")
        key = f"labs:figure:{CACHE_VERSION}:{preset}:{name}:{language}:{sweep}"

        def build() -> str:
            return _figure_html(preset, name, spec, reference_sweep_latest(preset) if sweep != "none" else None)

        return _cached(key, language, build)

    def state(self) -> str:
        """Which sweep each figure is drawn from, and how figures are drawn (CACHE_VERSION)."""
        return json.dumps({"drawing": CACHE_VERSION, "sweeps": reference_index()}, sort_keys=True)


reference_figures = ReferenceFigures()


def reference_curves(reference: ReferenceSweep, language: str) -> str:
    """The reference sweep's loss curves as SVG, for its preset's page."""
    key = f"labs:reference-curves:{CACHE_VERSION}:{reference.sweep}:{language}"
    return _cached(key, language, lambda: _svg(LOSS_CURVES, reference, f"reference-{reference.preset.slug}"))


def _cached(key: str, language: str, build: Callable[[], str]) -> str:
    """Drawn once per sweep and language; without the cache (Redis away) drawn every time."""
    try:
        cached = cache.get(key)
    except RedisError:
        cached = None
    if cached is not None:
        return cached
    with translation.override(language):
        html = build()
    try:
        cache.set(key, html, CACHE_TIMEOUT)
    except RedisError:
        pass
    return html
