"""The guides' figures: a guide line `{{ figure: <preset>/<name> }}` becomes one of FIGURES, drawn in
the page's language as an accessible SVG (labs/svg.py), with a caption that says what to see with
the reference runs' own numbers and the table of numbers behind it.

One class per kind of figure. Most are drawn from a preset's reference sweep (labs/reference.py): a
preset whose sweep has not finished yet gets a sentence and a link to its page instead. A concept
figure (BatchStatistics) shows an idea rather than a run, drawn from a small description of the data,
so it renders whether or not a sweep has finished. Each figure is drawn once per sweep and language
and cached; labs/explorable_figures.py places it in the guides.

The run and compare pages draw their runs' loss curves with the same code (`runs_chart`), as their
controls choose: a CurveView read from the page's query string.
"""

import hashlib
import json
import logging
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import NamedTuple

from django.conf import settings
from django.template.defaultfilters import filesizeformat
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.formats import date_format, get_format, number_format
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from labs.training.version import code_without_prose

from .downsample import CHART_POINTS_PER_RUN, downsample_curve
from .models import LabRun
from .presets import PRESETS
from .reference import ReferenceSweep, cached, reference_index, reference_sweep_latest
from .svg import (
    AXIS,
    ON_SERIES,
    SUBSCRIPTS,
    WIDTH,
    Bar,
    Series,
    bar_chart,
    line_chart,
    series_class,
    svg_open,
    svg_text,
    tick_decimals,
)

logger = logging.getLogger(__name__)
# What draws a figure or an explorable panel: this app's code for it, its templates, and the
# translated captions. Cached figures and panels carry a hash of them (drawing_version), so a change
# to any retires them, with no number to remember to bump.
DRAWING_CODE = ("figures.py", "svg.py", "downsample.py", "explorable_figures.py", "presets.py")
DRAWING_TEMPLATES = ("labs/_guide_figure.html", "labs/_explorable.html")


APP_DIR = Path(__file__).resolve().parent


def drawing_version(
    code_dir: Path = APP_DIR, template_dir: Path | None = None, locale_dirs: Iterable[Path] | None = None
) -> str:
    """A hash of the drawing code without its prose (docstrings, comments), the templates' bytes and
    the compiled catalogs (django.mo) in ``locale_dirs`` (default: the site's)."""
    template_dir = template_dir or settings.BASE_DIR / "templates"
    locale_dirs = settings.LOCALE_PATHS if locale_dirs is None else locale_dirs
    digest = hashlib.sha256()
    for name in DRAWING_CODE:
        digest.update(code_without_prose((code_dir / name).read_text()).encode() + b"\0")
    for name in DRAWING_TEMPLATES:
        digest.update((template_dir / name).read_bytes() + b"\0")
    for catalog in sorted(path for folder in locale_dirs for path in Path(folder).glob("*/LC_MESSAGES/django.mo")):
        digest.update(catalog.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


CACHE_VERSION = drawing_version()
CACHE_TIMEOUT = 24 * 3600
TABLE_ROWS = 12  # rows of the loss table behind a curve figure (every k-th step, and the last)
CURVE_POINTS = 150
TEMPLATE = "labs/_guide_figure.html"

Runs = list[LabRun]
Table = tuple[list[str], list[list[str]]]  # column headers, rows


# ---------------------------------------------------------------- numbers in the page's language


def fmt_number(value: float | None, digits: int = 3) -> str:
    """Also the charts' tick formatter (labs/svg.py): (value, decimals) -> text."""
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


def _finite_finals(runs: Runs) -> list[float]:
    return [f for f in map(final_loss, runs) if f is not None]


class Metric(NamedTuple):
    """How the figures, their tables and the explorable panel name and write a stored run metric."""

    name: str | Promise
    text: Callable[[float], str]


# The metrics runs are compared by (labs/training/results.py), in the order the explorable panel lists them.
METRICS = {
    "final_loss": Metric(gettext_lazy("Final loss"), lambda value: fmt_number(value, 4)),
    "val_loss": Metric(gettext_lazy("Validation loss"), lambda value: fmt_number(value, 4)),
    "grad_equivalence_error": Metric(gettext_lazy("gradient-equivalence error"), sci),
    "peak_activation_bytes": Metric(gettext_lazy("peak activation memory"), filesizeformat),
    "wall_seconds": Metric(gettext_lazy("wall time (seconds)"), lambda value: fmt_number(value, 2)),
    "allreduce_calls": Metric(gettext_lazy("gradient all-reduces"), str),
}


# ---------------------------------------------------------------- the kinds of figure


class Figure:
    """A figure drawn from a reference sweep's runs. `caption` says what to see, with %(name)s
    numbers that `numbers(runs)` gives."""

    from_runs = True  # False: a concept figure, drawn without any run
    x = "step"  # what a run's loss is drawn against, here or when a learner explores one run
    metric: str | None = None  # the one of METRICS that ranks the runs: what labs/explorable_figures.py asks to predict

    def __init__(self, caption: str | Promise = "", numbers: Callable[[Runs], dict[str, str]] | None = None) -> None:
        self.caption = caption
        self.numbers = numbers or (lambda runs: {})

    def svg(self, runs: Runs, *, key: str, title: str) -> str:
        raise NotImplementedError

    def table(self, runs: Runs) -> Table:
        raise NotImplementedError

    def html(self, preset: str, key: str, reference: ReferenceSweep | None) -> str:
        context = {
            "preset_url": reverse("labs:preset", args=[preset]),
            "preset_title": PRESETS[preset].title,
            "key": key,
        }
        if reference is None:
            return render_to_string(TEMPLATE, {**context, "missing": True})
        header, rows = self.table(reference.runs)
        context |= {
            "svg": self.svg(reference.runs, key=key, title=str(reference.preset.title)),
            "caption": self._caption(reference),
            "header": header,
            "rows": rows,
            "date": date_format(reference.finished_at, "DATE_FORMAT"),
            "device": reference.devices,
            "code_version": reference.code_version,
        }
        return render_to_string(TEMPLATE, context)

    def _caption(self, reference: ReferenceSweep) -> str:
        """What to see, with the runs' numbers; a run missing a metric (an older code version) gets
        the preset's own sentence instead of an error on the guide page."""
        try:
            return str(self.caption) % self.numbers(reference.runs)
        except (KeyError, IndexError, TypeError, ValueError, ZeroDivisionError):
            logger.exception("figure caption of reference sweep %s", reference.sweep)
            return str(reference.preset.look_for)


# What a loss chart's x axis may be: a field of each curve point, and the axis's label.
X_AXES = {
    "step": gettext_lazy("optimizer step"),
    "samples": gettext_lazy("samples seen"),
    "seconds": gettext_lazy("seconds"),
}
SMOOTH_MAX = 0.95  # the moving average's largest weight: beyond it the line barely follows the loss
SMOOTH_STEP = 0.05  # the controls' steps


@dataclass(frozen=True)
class CurveView:
    """How a loss chart draws its runs. The guides' figures draw with the defaults; the run and
    compare pages as their controls choose (`curve_view`)."""

    x: str = "step"  # one of X_AXES
    log_y: bool = False
    smooth: float = 0.0  # the weight of an exponential moving average of the training loss; 0: none
    validation: bool = False  # each run's validation checks drawn as markers
    styled: bool = True  # each run its own dash pattern and marker shape, not colour alone
    points: int = CURVE_POINTS  # at most, per run (labs/downsample.py)

    def query(self) -> list[tuple[str, str]]:
        """The view as the controls' form sends it: for a link that shows the chart this way."""
        return [
            ("x", self.x),
            ("y", "log" if self.log_y else "linear"),
            ("smooth", f"{self.smooth:g}"),
            ("validation", "shown" if self.validation else "hidden"),
            ("lines", "styled" if self.styled else "solid"),
        ]


def curve_view(query) -> CurveView:
    """The run and compare pages' chart as their URL's query (a QueryDict) sets it. A value the
    controls cannot send falls back to its default, so an old or edited link still shows a chart;
    smoothing is brought into [0, SMOOTH_MAX] and to the controls' steps."""
    try:
        smooth = float(query.get("smooth") or 0)
    except ValueError:
        smooth = 0.0
    if not math.isfinite(smooth):
        smooth = 0.0
    smooth = round(round(min(SMOOTH_MAX, max(0.0, smooth)) / SMOOTH_STEP) * SMOOTH_STEP, 2)
    return CurveView(
        x=query.get("x") if query.get("x") in X_AXES else "step",
        log_y=query.get("y") == "log",
        smooth=smooth,
        validation=query.get("validation") != "hidden",
        styled=query.get("lines") != "solid",
        points=CHART_POINTS_PER_RUN,
    )


def _finite(value) -> bool:
    return isinstance(value, int | float) and math.isfinite(value)


def smoothed(values: Sequence[float | None], weight: float) -> list[float | None]:
    """An exponential moving average, corrected for its start (as TensorBoard smooths): the first
    points are not pulled toward zero. A missing loss stays missing and leaves the average alone."""
    average, count, found = 0.0, 0, []
    for value in values:
        if not _finite(value):
            found.append(value)
            continue
        average = weight * average + (1 - weight) * value
        count += 1
        found.append(average / (1 - weight**count))
    return found


def loss_series(run: LabRun, view: CurveView) -> Series:
    """The run's training loss against `view.x`, without a diverged run's missing losses, and its
    validation checks as marks (each at the training curve's x of its step) when the view has them."""
    curve = run.curve_points()
    if view.smooth:
        losses = smoothed([p.get("loss") for p in curve], view.smooth)
        curve = [{**p, "loss": loss} for p, loss in zip(curve, losses, strict=True)]
    points = downsample_curve(curve, view.points)
    line = [(p[view.x], p["loss"]) for p in points if _finite(p.get("loss")) and _finite(p.get(view.x))]
    marks = []
    if view.validation:
        at_step = {p.get("step"): p for p in curve}
        for check in run.validation or []:
            x = check.get("step") if view.x == "step" else at_step.get(check.get("step"), {}).get(view.x)
            if _finite(x) and _finite(check.get("loss")):
                marks.append((x, check["loss"]))
    return Series(run.label, line, marks)


def loss_chart(
    runs: Runs, *, key: str, title: str, desc: str, view: CurveView = CurveView(), log_if_wide: bool = False
) -> str:
    """The runs' training loss as `view` says; with `log_if_wide`, on a log axis when losses span over 100×."""
    series = [loss_series(run, view) for run in runs]
    losses = [y for s in series for _x, y in s.points if y > 0]
    log_y = view.log_y or (log_if_wide and bool(losses) and max(losses) / min(losses) > 100)
    y_label = _("loss") if any(s.marks for s in series) else _("training loss")  # validation loss too
    return line_chart(
        series,
        id_prefix=key,
        title=title,
        desc=desc,
        x_label=str(X_AXES[view.x]),
        y_label=y_label + (f" ({_('logarithmic')})" if log_y else ""),
        log_y=log_y,
        styled=view.styled,
        fmt=fmt_number,
    )


RUNS_CHART_DESC = {
    "step": gettext_lazy("Line chart of the training loss against the optimizer step for: %(labels)s."),
    "samples": gettext_lazy("Line chart of the training loss against the samples seen for: %(labels)s."),
    "seconds": gettext_lazy("Line chart of the training loss against the wall time in seconds for: %(labels)s."),
}


def _last_loss(run: LabRun) -> str:
    curve = run.curve_points()
    return fmt_number(curve[-1].get("loss"), 4) if curve else "—"


def runs_chart(runs: Runs, view: CurveView, *, key: str, title: str) -> str:
    """The run and compare pages' chart. Its description says what the drawing shows: the runs, the
    view's choices and each run's last training loss (the exports and tables have every number)."""
    sentences = [str(RUNS_CHART_DESC[view.x]) % {"labels": ", ".join(run.label for run in runs)}]
    if view.validation and any(run.validation for run in runs):
        sentences.append(_("Markers show each run's validation loss at its evaluations."))
    if view.log_y:
        sentences.append(_("The loss axis is logarithmic."))
    if view.smooth:
        sentences.append(smoothing_text(view))
    lasts = "; ".join(f"{run.label}: {_last_loss(run)}" for run in runs)
    sentences.append(_("Last training loss: %(values)s.") % {"values": lasts})
    return loss_chart(runs, key=key, title=title, desc=" ".join(sentences), view=view)


def smoothing_text(view: CurveView) -> str:
    return _("The training loss is smoothed: an exponential moving average of weight %(weight)s.") % {
        "weight": fmt_number(view.smooth, 2)
    }


class LossCurves(Figure):
    """Training loss against the optimizer step, one line per run; a log axis when losses span over 100×."""

    metric = "final_loss"
    desc = gettext_lazy("Line chart of the training loss against the optimizer step for %(count)d runs: %(labels)s.")

    def svg(self, runs: Runs, *, key: str, title: str) -> str:
        desc = str(self.desc) % {"count": len(runs), "labels": ", ".join(run.label for run in runs)}
        return loss_chart(runs, key=key, title=title, desc=desc, view=CurveView(x=self.x), log_if_wide=True)

    def table(self, runs: Runs) -> Table:
        """The loss of every run at every k-th step, the first and the last."""
        steps = max(len(run.curve) for run in runs)
        every = max(1, math.ceil(steps / TABLE_ROWS))
        wanted = sorted({*range(every, steps + 1, every), 1, steps})
        by_step = [{p["step"]: p.get("loss") for p in run.curve} for run in runs]
        rows = [[str(step)] + [fmt_number(losses.get(step), 4) for losses in by_step] for step in wanted]
        return [_("optimizer step")] + [run.label for run in runs], rows


class LossBySamples(LossCurves):
    """Training loss against the samples seen: runs of different batches on one axis."""

    metric = "val_loss"
    x = "samples"
    desc = gettext_lazy("Line chart of the training loss against the samples seen for %(count)d runs: %(labels)s.")

    def table(self, runs: Runs) -> Table:
        """The runs take different steps: one row per run."""
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


def _window_run(runs: Runs) -> tuple[LabRun, int, float]:
    """The N = 4 run (the window the guide's text walks through), its N and the average time of one
    micro-batch: the run's wall time over all its micro-batches."""
    run = next(run for run in runs if run.config.get("accumulation_steps") == 4)
    n = run.config["accumulation_steps"]
    return run, n, run.metrics["wall_seconds"] / (run.done_steps * n)


class MicroBatchWindow(Figure):
    """One optimizer step of the N = 4 run on a time axis: N micro-batches (forward, backward,
    loss / N) one after the other, the gradient adding up in .grad below them, then one step."""

    def svg(self, runs: Runs, *, key: str, title: str) -> str:
        _run, n, block_seconds = _window_run(runs)
        desc = _(
            "Timeline of one optimizer step: %(n)d micro-batches of a forward and a backward pass, each loss "
            "divided by %(n)d, their gradients adding up in .grad, then one optimizer step."
        ) % {"n": n}
        left, top, right = 56, 28, WIDTH - 150
        block = (right - left) / n
        row = 54
        parts = svg_open(key, title, desc, 190)
        for i in range(n):
            x = left + i * block
            parts.append(
                f'<rect x="{x + 1:.1f}" y="{top}" width="{block - 2:.1f}" height="{row}" rx="4" '
                f'class="{series_class(0)}" fill="currentColor"/>'
            )
            parts.append(svg_text(x + block / 2, top + 22, "fwd → bwd", extra=f" {ON_SERIES}"))
            parts.append(svg_text(x + block / 2, top + 42, f"loss / {n}", extra=f" {ON_SERIES}"))
            parts.append(svg_text(x + block / 2, top + row + 22, f"g{i + 1}/{n}" if i == 0 else f"+ g{i + 1}/{n}"))
        parts.append(f'<line {AXIS} stroke-width="2" x1="{right + 8}" y1="{top}" x2="{right + 8}" y2="{top + row}"/>')
        parts.append(svg_text(8, top + row + 22, ".grad", "start"))
        parts.append(svg_text(right + 16, top + 22, "optimizer.step()", "start"))
        parts.append(svg_text(right + 16, top + 42, "zero_grad()", "start"))
        parts.append(svg_text(right + 16, top + row + 22, f"= {_('mean gradient')}", "start"))
        axis = top + row + 44
        parts.append(f'<line {AXIS} x1="{left}" y1="{axis}" x2="{right}" y2="{axis}"/>')
        decimals = tick_decimals([0.0, block_seconds * 1000])[0]
        for i in range(n + 1):
            x = left + i * block
            parts.append(f'<line {AXIS} x1="{x:.1f}" y1="{axis - 4}" x2="{x:.1f}" y2="{axis + 4}"/>')
            parts.append(svg_text(x, axis + 18, fmt_number(i * block_seconds * 1000, decimals)))
        parts.append(svg_text((left + right) / 2, axis + 40, _("time (ms)")))
        return "".join([*parts, "</svg>"])

    def table(self, runs: Runs) -> Table:
        _run, n, block_seconds = _window_run(runs)
        ms = block_seconds * 1000
        return [_("micro-batch"), _("time (ms)"), ".grad"], [
            [
                str(k),
                f"{fmt_number(ms * (k - 1), 1)} – {fmt_number(ms * k, 1)}",
                f"g1/{n} + … + g{k}/{n}" if k > 1 else f"g1/{n}",
            ]
            for k in range(1, n + 1)
        ]


class MetricBars(Figure):
    """One bar per run of one of METRICS, labelled with its value."""

    metric = ""
    log = False  # for values that span orders of magnitude

    @property
    def name(self) -> str:
        return str(METRICS[self.metric].name)

    def tick(self, value: float, decimals: int) -> str:
        """A log axis's powers of ten written as the values are (1.0e-07)."""
        return METRICS[self.metric].text(value) if self.log else fmt_number(value, decimals)

    def unit(self, values: list[float]) -> tuple[int, str]:
        """What the bars' values are divided by, and the axis's label."""
        return 1, self.name

    def text(self, run: LabRun) -> str:
        value = run.metrics.get(self.metric)
        return "—" if value is None else METRICS[self.metric].text(value)

    def svg(self, runs: Runs, *, key: str, title: str) -> str:
        values = [float(run.metrics.get(self.metric) or 0) for run in runs]
        unit, value_label = self.unit(values)
        bars = [Bar(run.label, value / unit, self.text(run)) for run, value in zip(runs, values, strict=True)]
        desc = _("Bar chart of %(metric)s for %(count)d runs: %(values)s.") % {
            "metric": self.name,
            "count": len(runs),
            "values": "; ".join(f"{bar.label}: {bar.text}" for bar in bars),
        }
        return bar_chart(
            bars, id_prefix=key, title=title, desc=desc, value_label=value_label, log=self.log, fmt=self.tick
        )

    def table(self, runs: Runs) -> Table:
        header = [_("Run"), self.name, _("Final loss")]
        return header, [[run.label, self.text(run), fmt_number(final_loss(run), 4)] for run in runs]


class WallTimeBars(MetricBars):
    metric = "wall_seconds"


class MemoryBars(MetricBars):
    metric = "peak_activation_bytes"

    def unit(self, values: list[float]) -> tuple[int, str]:
        """Ticks in one binary unit (0, 0.5, 1.0 MiB), not decimal bytes; the unit named as
        filesizeformat names it in the page's language ("KiB", "Kio", ...)."""
        unit = 1024 ** max(0, min(3, int(math.log(max(max(values), 1), 1024))))
        return unit, f"{self.name} ({filesizeformat(2 * unit).split()[-1]})"


class ErrorBars(MetricBars):
    metric = "grad_equivalence_error"
    log = True  # from 1e-7 to 1e-1


class AllReduceBars(MetricBars):
    metric = "allreduce_calls"

    def table(self, runs: Runs) -> Table:
        """The bars count calls; the table adds what they sent."""
        header = [_("Run"), self.name, _("bytes sent"), _("Final loss")]
        return header, [
            [
                run.label,
                self.text(run),
                "—" if run.metrics.get("allreduce_bytes") is None else filesizeformat(run.metrics["allreduce_bytes"]),
                fmt_number(final_loss(run), 4),
            ]
            for run in runs
        ]


class BatchStatistics(Figure):
    """A concept figure: what a normalization layer computes its statistics over, in one window of
    `batch` samples split into `n` micro-batches. The samples seen three ways: one batch with one mean
    and deviation (μ, σ); N micro-batches, each with its own (BatchNorm under accumulation); every
    sample normalized by itself (LayerNorm). One dot per sample."""

    from_runs = False

    def __init__(self, *, batch: int, n: int) -> None:
        super().__init__()
        self.batch, self.n, self.micro = batch, n, batch // n
        self.counts = {"batch": batch, "n": n, "micro": self.micro}  # what the caption and the drawing name

    def html(self, preset: str, key: str, reference: ReferenceSweep | None) -> str:
        title = _("Which samples a normalization layer sees in one window")
        caption = _(
            "One window of an effective batch of %(batch)d samples in %(n)d micro-batches of %(micro)d. BatchNorm "
            "normalizes each micro-batch with its own mean and deviation over %(micro)d samples instead of one pair "
            "over all %(batch)d, and updates its running statistics %(n)d times instead of once; LayerNorm looks at "
            "one sample at a time, so accumulation changes nothing for it."
        )
        rows = [
            [
                str(k),
                f"{(k - 1) * self.micro + 1}–{k * self.micro}",
                _("μ%(k)d, σ%(k)d over %(micro)d samples") % {"k": k, "micro": self.micro},
                _("each sample's own mean and deviation"),
            ]
            for k in range(1, self.n + 1)
        ]
        context = {
            "key": key,
            "concept": True,
            "svg": self.svg([], key=key, title=title),
            "caption": caption % self.counts,
            "table_title": title,
            "header": [_("micro-batch"), _("samples"), _("BatchNorm normalizes with"), _("LayerNorm normalizes with")],
            "rows": rows,
        }
        return render_to_string(TEMPLATE, context)

    def svg(self, runs: Runs, *, key: str, title: str) -> str:
        batch, n, micro, numbers = self.batch, self.n, self.micro, self.counts
        desc = (
            _(
                "Diagram of %(batch)d samples, one dot each, shown three ways. As one batch, BatchNorm computes one "
                "mean μ and one standard deviation σ over all %(batch)d. With accumulation, %(n)d micro-batches of "
                "%(micro)d samples each get their own μ and σ. LayerNorm frames every sample alone: each is "
                "normalized by itself, in one batch or in micro-batches."
            )
            % numbers
        )
        row_labels = (_("one batch"), "BatchNorm", "LayerNorm")  # names, not words to translate
        notes = (
            _("BatchNorm without accumulation: μ, σ over %(batch)d samples") % numbers,
            _("statistics per micro-batch; running buffers updated %(n)d times") % numbers,
            _("each sample normalized by itself: same result as one batch of %(batch)d") % numbers,
        )
        left, right, row, top = 120, WIDTH - 16, 84, 16
        width = (right - left) / batch
        parts = svg_open(key, title, desc, top + 3 * row + 8)
        for r, (label, note) in enumerate(zip(row_labels, notes, strict=True)):
            y = top + r * row
            parts.append(svg_text(8, y + 24, label, "start", extra=' font-weight="700"'))
            parts.append(svg_text(left, y + row - 14, note, "start"))
            groups = [(0, batch)] if r == 0 else [(k * micro, micro) for k in range(n)] if r == 1 else []
            for k, (first, count) in enumerate(groups):
                x = left + first * width
                parts.append(
                    f'<rect x="{x + 1:.1f}" y="{y + 4}" width="{count * width - 2:.1f}" height="46" rx="4" '
                    f'fill="none" class="{series_class(r)}" stroke="currentColor" stroke-width="2"/>'
                )
                sub = "" if r == 0 else str(k + 1).translate(SUBSCRIPTS)
                in_colour = f' class="{series_class(r)}" fill="currentColor"'
                parts.append(svg_text(x + count * width / 2, y + 44, f"μ{sub} σ{sub}", extra=in_colour))
            for i in range(batch):
                cx = left + (i + 0.5) * width
                if r == 2:  # LayerNorm: each sample inside its own frame
                    parts.append(
                        f'<rect x="{cx - width / 2 + 0.5:.1f}" y="{y + 4}" width="{width - 1:.1f}" height="46" '
                        f'fill="none" class="{series_class(r)}" stroke="currentColor" stroke-width="1"/>'
                    )
                parts.append(
                    f'<circle cx="{cx:.1f}" cy="{y + 20}" r="{min(3.0, width / 3):.1f}" '
                    f'class="{series_class(r)}" fill="currentColor"/>'
                )
        return "".join([*parts, "</svg>"])


# ---------------------------------------------------------------- the figures and their captions' numbers


def _finals(runs: Runs) -> str:
    return "; ".join(f"{run.label}: {fmt_number(final_loss(run))}" for run in runs)


def _final_range(runs: Runs) -> dict[str, str]:
    finals = _finite_finals(runs)
    return {"low": fmt_number(min(finals)), "high": fmt_number(max(finals))}


def _memory(runs: Runs) -> dict[str, str]:
    first, last = runs[0].metrics["peak_activation_bytes"], runs[-1].metrics["peak_activation_bytes"]
    return {
        "first": filesizeformat(first),
        "last": filesizeformat(last),
        "ratio": number_format(first / last, decimal_pos=1),
        **_final_range(runs),
    }


def _validation(runs: Runs) -> dict[str, str]:
    first, middle, last = (run.metrics.get("val_loss") for run in runs)
    return {"first": fmt_number(first), "middle": fmt_number(middle), "last": fmt_number(last)}


def _wall_time(runs: Runs) -> dict[str, str]:
    first, last = runs[0].metrics.get("wall_seconds"), runs[-1].metrics.get("wall_seconds")
    return {"first": fmt_number(first, 2), "last": fmt_number(last, 2), **_final_range(runs)}


def _window(runs: Runs) -> dict[str, str]:
    run, _n, block_seconds = _window_run(runs)
    return {"micro": str(run.micro_batch_size), "ms": fmt_number(block_seconds * 1000, 1), "device": run.device}


def _two_finals(runs: Runs) -> dict[str, str]:
    first, last = final_loss(runs[0]), final_loss(runs[-1])
    gap = abs(first - last) / first * 100 if first and last is not None else None
    return {"first": fmt_number(first), "last": fmt_number(last), "gap": fmt_number(gap, 1)}


def _errors(**indexes: int) -> Callable[[Runs], dict[str, str]]:
    """The gradient-equivalence errors of the runs at these indexes, by name, and the final losses."""

    def numbers(runs: Runs) -> dict[str, str]:
        found = {name: sci(runs[i].metrics.get("grad_equivalence_error")) for name, i in indexes.items()}
        return {**found, "finals": _finals(runs)}

    return numbers


def _n_sweep(runs: Runs) -> dict[str, str]:
    errors = [run.metrics.get("grad_equivalence_error") or 0.0 for run in runs]
    return {"finals": _finals(runs), "last_error": sci(errors[-1]), "max_error": sci(max(errors))}


def _allreduce(runs: Runs) -> dict[str, str]:
    finals = _finite_finals(runs)
    once, every = runs[1].metrics, runs[2].metrics
    return {
        "no_sync": str(once["allreduce_calls"]),
        "every": str(every["allreduce_calls"]),
        "no_sync_bytes": filesizeformat(once["allreduce_bytes"]),
        "every_bytes": filesizeformat(every["allreduce_bytes"]),
        "ratio": number_format(every["allreduce_bytes"] / once["allreduce_bytes"], decimal_pos=1),
        "spread": fmt_number(max(finals) - min(finals), 7) if finals else "—",
    }


FIGURES: dict[tuple[str, str], Figure] = {
    ("memory-vs-n", "memory"): MemoryBars(
        gettext_lazy(
            "Peak activation memory of each run of the same CNN at an effective batch of 64. It falls from "
            "%(first)s at N = 1 to %(last)s at N = 8, %(ratio)s times less, while the final loss stays between "
            "%(low)s and %(high)s: the effective batch did not change."
        ),
        _memory,
    ),
    ("forgot-divide-sgd", "loss"): LossCurves(
        gettext_lazy(
            "Training loss with SGD at N = 8. The run that divides each micro-batch loss by N ends at "
            "%(first)s; the run that only sums them, and so takes steps 8 times too large, ends at %(last)s."
        ),
        _two_finals,
    ),
    ("forgot-divide-adamw", "loss"): LossCurves(
        gettext_lazy(
            "Training loss with AdamW at N = 8. The divided run ends at %(first)s and the run that only sums "
            "at %(last)s, %(gap)s %% apart: Adam divides by its own running scale, so the factor of 8 hides."
        ),
        _two_finals,
    ),
    ("batchnorm-n-sweep", "loss"): LossCurves(
        gettext_lazy(
            "BatchNorm at an effective batch of 64 in micro-batches of 64, 16 and 4 samples. Final losses: "
            "%(finals)s. The gradient-equivalence error against the full batch reaches %(last_error)s at N = 16."
        ),
        _n_sweep,
    ),
    ("batchnorm-n-sweep", "micro-batch-statistics"): BatchStatistics(batch=64, n=8),
    ("layernorm-n-sweep", "loss"): LossCurves(
        gettext_lazy(
            "LayerNorm at N = 1, 4 and 16: the curves lie on top of each other. Final losses: %(finals)s; the "
            "largest gradient-equivalence error is %(max_error)s."
        ),
        _n_sweep,
    ),
    ("groupnorm-vs-batchnorm-tiny", "grad-error"): ErrorBars(
        gettext_lazy(
            "Gradient-equivalence error of each run against the full batch, on a logarithmic scale. With "
            "micro-batches of 2 samples (N = 16), BatchNorm's error is %(batch)s and GroupNorm's %(group)s."
        ),
        _errors(batch=1, group=3),
    ),
    ("token-normalization", "loss"): LossCurves(
        gettext_lazy(
            "Training loss of the tiny language model. The mean over the window's tokens follows the full "
            "batch, with a gradient-equivalence error of %(tokens)s; the mean of micro-batch means has an "
            "error of %(means)s. Final losses: %(finals)s."
        ),
        _errors(tokens=1, means=2),
    ),
    ("batch-size-vs-samples", "loss-by-samples"): LossBySamples(
        gettext_lazy(
            "Training loss against samples seen, for the same 8,000 samples at effective batches of 16, 64 and "
            "256. The validation loss ends at %(first)s with batch 16, %(middle)s with 64 and %(last)s with 256."
        ),
        _validation,
    ),
    ("memory-vs-n", "window"): MicroBatchWindow(
        gettext_lazy(
            "One optimizer step of the reference run with N = 4: four micro-batches of %(micro)s samples, "
            "%(ms)s ms each on average on %(device)s. Each backward pass adds its share to .grad; the optimizer "
            "steps once, after the fourth, and the gradients are then cleared."
        ),
        _window,
    ),
    ("memory-vs-n", "wall-time"): WallTimeBars(
        gettext_lazy(
            "Wall time of each run. The four runs train on the same 64 samples per optimizer step and their final "
            "losses stay between %(low)s and %(high)s, but splitting the batch into N = 8 micro-batches takes "
            "%(last)s s against %(first)s s at N = 1."
        ),
        _wall_time,
    ),
    ("data-parallel-no-sync", "loss"): LossCurves(
        gettext_lazy(
            "Training loss at an effective batch of 64: one process with N = 4, and two processes with N = 2 "
            "each, with no_sync and synchronizing after every micro-batch. The curves lie on top of each other. "
            "Final losses: %(finals)s; the largest gradient-equivalence error is %(max_error)s."
        ),
        _n_sweep,
    ),
    ("data-parallel-no-sync", "allreduce"): AllReduceBars(
        gettext_lazy(
            "Gradient all-reduces of each run. Two processes make %(no_sync)s all-reduces sending %(no_sync_bytes)s "
            "with no_sync, and %(every)s sending %(every_bytes)s when they synchronize after every micro-batch: "
            "%(ratio)s times more bytes, for final losses within %(spread)s of each other."
        ),
        _allreduce,
    ),
    ("transformer-lm-n-norm", "grad-error"): ErrorBars(
        gettext_lazy(
            "Gradient-equivalence error of each run of the small transformer against the full batch, on a "
            "logarithmic scale (an N = 1 run is the full batch: no error). At N = 4, LayerNorm's error is "
            "%(layer)s, RMSNorm's %(rms)s and BatchNorm's %(batch)s."
        ),
        _errors(layer=1, rms=3, batch=5),
    ),
}


# ---------------------------------------------------------------- served to the guides and the preset pages


class ReferenceFigures:
    """A guide's figure with every run: what labs/explorable_figures.py shows before a learner picks one."""

    def render(self, preset: str, name: str, language: str) -> str:
        figure = FIGURES.get((preset, name))
        if figure is None:
            return ""  # tests/labs/test_figures.py checks every guide names a known figure
        sweep = reference_index().get(preset, "none") if figure.from_runs else "concept"

        def build() -> str:
            reference = reference_sweep_latest(preset) if sweep not in ("concept", "none") else None
            return figure.html(preset, f"figure-{preset}-{name}", reference)

        with translation.override(language):  # drawn once per sweep and language
            return cached(f"labs:figure:{CACHE_VERSION}:{preset}:{name}:{language}:{sweep}", build, CACHE_TIMEOUT)

    def state(self) -> str:
        """Which sweep each figure is drawn from, and how figures are drawn (drawing_version)."""
        return json.dumps({"drawing": CACHE_VERSION, "sweeps": reference_index()}, sort_keys=True)


reference_figures = ReferenceFigures()


def reference_curves(reference: ReferenceSweep, language: str) -> str:
    """The reference sweep's loss curves as SVG, for its preset's page."""
    key = f"labs:reference-curves:{CACHE_VERSION}:{reference.sweep}:{language}"
    with translation.override(language):
        title = str(reference.preset.title)
        draw = partial(LossCurves().svg, reference.runs, key=f"reference-{reference.preset.slug}", title=title)
        return cached(key, draw, CACHE_TIMEOUT)
