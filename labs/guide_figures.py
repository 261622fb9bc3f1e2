"""The guides' figures, drawn from the presets' reference sweeps (labs/reference.py).

Registered with course's extension point (course/figures.py) in LabsConfig.ready(): a guide line
`{{ figure: <preset>/<name> }}` becomes one of the FIGURES of labs/figure_specs.py, in the page's
language, with a caption that says what to see with the reference run's own numbers. Each figure
is rendered once per sweep and language and cached; a preset whose reference sweep has not
finished yet gets a sentence and a link to its page instead.
"""

import json
import logging
import math
from collections.abc import Callable

from django.core.cache import cache
from django.template.defaultfilters import filesizeformat
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.formats import date_format, number_format
from django.utils.translation import gettext as _
from redis import RedisError

from .concept_figures import CONCEPT_FIGURES
from .downsample import downsample_curve
from .figure_specs import (
    BAR_METRICS,
    CURVE_KINDS,
    FIGURES,
    LOSS_CURVES,
    FigureSpec,
    block_seconds,
    final_loss,
    fmt_number,
    sci,
    window_run,
)
from .figures import Bar, Series, bar_chart, line_chart, window_chart
from .models import LabRun
from .presets import PRESETS
from .reference import ReferenceSweep, reference_index, reference_sweep_latest

logger = logging.getLogger(__name__)
CACHE_VERSION = 5  # bump when the drawing changes
CACHE_TIMEOUT = 24 * 3600
TABLE_ROWS = 12  # rows of the loss table behind a curve figure (every k-th step, and the last)
CURVE_POINTS = 150


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
        run = window_run(runs)
        n = run.config["accumulation_steps"]
        desc = _(
            "Timeline of one optimizer step: %(n)d micro-batches of a forward and a backward pass, each loss "
            "divided by %(n)d, their gradients adding up in .grad, then one optimizer step."
        ) % {"n": n}
        return window_chart(
            n=n,
            block_seconds=block_seconds(run),
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
        return lambda value, _decimals: sci(value)
    return lambda value, decimals: number_format(value, decimal_pos=decimals)


def _bar_text(kind: str, run: LabRun) -> str:
    value = run.metrics.get(BAR_METRICS[kind])
    if value is None:
        return "—"
    if kind == "memory":
        return filesizeformat(value)
    if kind == "wall-time":
        return fmt_number(value, 2)
    return sci(value) if kind == "grad-error" else str(value)


def _bytes(value: int | None) -> str:
    return "—" if value is None else filesizeformat(value)


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
        run = window_run(runs)
        n, ms = run.config["accumulation_steps"], block_seconds(run) * 1000
        return [_("micro-batch"), _("time (ms)"), ".grad"], [
            [
                str(k),
                f"{fmt_number(ms * (k - 1), 1)} – {fmt_number(ms * k, 1)}",
                f"g1/{n} + … + g{k}/{n}" if k > 1 else f"g1/{n}",
            ]
            for k in range(1, n + 1)
        ]
    if spec.kind == "loss-samples":  # the runs take different steps: one row per run
        header = [_("Run"), _("samples seen"), _("Final loss"), _("Validation loss")]
        return header, [
            [
                run.label,
                str(run.curve[-1].get("samples")),
                fmt_number(final_loss(run), 4),
                fmt_number(run.metrics.get("val_loss"), 4),
            ]
            for run in runs
        ]
    if spec.kind == "allreduce":  # the bars count calls; the table adds what they sent
        header = [_("Run"), _metric_name(spec.kind), _("bytes sent"), _("Final loss")]
        return header, [
            [
                run.label,
                _bar_text(spec.kind, run),
                _bytes(run.metrics.get("allreduce_bytes")),
                fmt_number(final_loss(run), 4),
            ]
            for run in runs
        ]
    if spec.kind != "loss":
        header = [_("Run"), _metric_name(spec.kind), _("Final loss")]
        return header, [[run.label, _bar_text(spec.kind, run), fmt_number(final_loss(run), 4)] for run in runs]
    steps = max(len(run.curve) for run in runs)
    every = max(1, math.ceil(steps / TABLE_ROWS))
    wanted = sorted({*range(every, steps + 1, every), 1, steps})
    by_step = [{p["step"]: p.get("loss") for p in run.curve} for run in runs]
    rows = [[str(step)] + [fmt_number(losses.get(step), 4) for losses in by_step] for step in wanted]
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


def _concept_html(preset: str, name: str) -> str:
    key = f"figure-{preset}-{name}"
    context = {"key": key, "concept": True, **CONCEPT_FIGURES[(preset, name)].context(key)}
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
        if (preset, name) in CONCEPT_FIGURES:  # drawn from a description, with or without a sweep
            key = f"labs:figure:{CACHE_VERSION}:{preset}:{name}:{language}:concept"
            return _cached(key, language, lambda: _concept_html(preset, name))
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
