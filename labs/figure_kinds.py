"""The kinds of figure the guides show (labs/figures.py lists which): loss curves, bars of one of METRICS,
the micro-batch timeline and BatchStatistics, a concept figure drawn without runs. Each draws an
accessible SVG (labs/svg.py, or templates/labs/_diagrams.html) and the table of numbers behind it.
"""

import logging
import math
from collections.abc import Callable
from typing import NamedTuple

from django.template.defaultfilters import filesizeformat
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.formats import date_format
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from .charts import CurveView, fmt_number, loss_chart, sci
from .models import LabRun
from .presets import PRESETS
from .reference import ReferenceSweep
from .svg import SUBSCRIPTS, WIDTH, Bar, bar_chart, series_class, tick_decimals

logger = logging.getLogger(__name__)
TABLE_ROWS = 12  # rows of the loss table behind a curve figure (every k-th step, and the last)
TEMPLATE = "labs/_guide_figure.html"
DIAGRAMS = "labs/_diagrams.html"  # the figures that draw an idea

Runs = list[LabRun]
Table = tuple[list[str], list[list[str]]]  # column headers, rows


def final_loss(run: LabRun) -> float | None:
    value = run.metrics.get("final_loss")
    return None if run.metrics.get("diverged") or not isinstance(value, int | float) else value


class Metric(NamedTuple):  # how the figures, their tables and the explorable panel name and write a run metric
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
        """A run missing a metric (an older code version) gets the preset's own sentence, not an error."""
        try:
            return str(self.caption) % self.numbers(reference.runs)
        except (KeyError, IndexError, TypeError, ValueError, ZeroDivisionError):
            logger.exception("figure caption of reference sweep %s", reference.sweep)
            return str(reference.preset.look_for)


class LossCurves(Figure):
    """Training loss against the optimizer step, one line per run; a log axis when losses span over 100×."""

    metric = "final_loss"
    desc = gettext_lazy("Line chart of the training loss against the optimizer step for %(count)d runs: %(labels)s.")

    def svg(self, runs: Runs, *, key: str, title: str) -> str:
        desc = str(self.desc) % {"count": len(runs), "labels": ", ".join(run.label for run in runs)}
        return loss_chart(runs, key=key, title=title, desc=desc, view=CurveView(x=self.x), log_if_wide=True)

    def table(self, runs: Runs) -> Table:  # the loss of every run at every k-th step, the first and the last
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

    def table(self, runs: Runs) -> Table:  # the runs take different steps: one row per run
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


def window_run(runs: Runs) -> tuple[LabRun, int, float]:
    """The N = 4 run (the window the guide's text walks through), its N and the average time of one
    micro-batch: the run's wall time over all its micro-batches."""
    run = next(run for run in runs if run.config.get("accumulation_steps") == 4)
    n = run.config["accumulation_steps"]
    return run, n, run.metrics["wall_seconds"] / (run.done_steps * n)


class MicroBatchWindow(Figure):
    """One optimizer step of the N = 4 run on a time axis: N micro-batches, .grad adding up, one step."""

    def svg(self, runs: Runs, *, key: str, title: str) -> str:
        _run, n, block_seconds = window_run(runs)
        desc = _(
            "Timeline of one optimizer step: %(n)d micro-batches of a forward and a backward pass, each loss "
            "divided by %(n)d, their gradients adding up in .grad, then one optimizer step."
        ) % {"n": n}
        left, right = 56, 490  # the time axis, as the template draws it
        block, decimals = (right - left) / n, tick_decimals([0.0, block_seconds * 1000])[0]
        starts = [left + i * block for i in range(n + 1)]
        grads = [f"g1/{n}", *(f"+ g{i}/{n}" for i in range(2, n + 1))]
        return render_to_string(
            DIAGRAMS + "#micro-batch-window",
            {
                "key": key,
                "title": title,
                "desc": desc,
                "n": n,
                "width": f"{block - 2:.1f}",
                "blocks": [(f"{x + 1:.1f}", f"{x + block / 2:.1f}", g) for x, g in zip(starts, grads, strict=False)],
                "ticks": [(f"{x:.1f}", fmt_number(i * block_seconds * 1000, decimals)) for i, x in enumerate(starts)],
            },
        )

    def table(self, runs: Runs) -> Table:
        _run, n, block_seconds = window_run(runs)
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
    """One bar per run of one of METRICS: on a log axis (`log`), in one binary unit for bytes
    (`in_binary_units`), with a table column of what each run's all-reduces sent (`bytes_sent`)."""

    def __init__(
        self,
        metric: str,
        caption: str | Promise,
        numbers: Callable[[Runs], dict[str, str]],
        *,
        log: bool = False,
        in_binary_units: bool = False,
        bytes_sent: bool = False,
    ) -> None:
        super().__init__(caption, numbers)
        self.metric, self.log, self.in_binary_units, self.bytes_sent = metric, log, in_binary_units, bytes_sent

    @property
    def name(self) -> str:
        return str(METRICS[self.metric].name)

    def tick(self, value: float, decimals: int) -> str:  # a log axis's powers of ten as the values are: 1.0e-07
        return METRICS[self.metric].text(value) if self.log else fmt_number(value, decimals)

    def unit(self, values: list[float]) -> tuple[int, str]:
        """What the bars' values are divided by, and the axis's label. Bytes: ticks in one binary unit
        (0, 0.5, 1.0 MiB), named as filesizeformat names it in the page's language ("Kio" in French)."""
        if not self.in_binary_units:
            return 1, self.name
        unit = 1024 ** max(0, min(3, int(math.log(max(max(values), 1), 1024))))
        return unit, f"{self.name} ({filesizeformat(2 * unit).split()[-1]})"

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
        sent = [_("bytes sent")] if self.bytes_sent else []
        rows = []
        for run in runs:
            value = run.metrics.get("allreduce_bytes")
            sent_text = ["—" if value is None else filesizeformat(value)] if self.bytes_sent else []
            rows.append([run.label, self.text(run), *sent_text, fmt_number(final_loss(run), 4)])
        return [_("Run"), self.name, *sent, _("Final loss")], rows


class BatchStatistics(Figure):
    """A concept figure: the samples of one window (a dot each) as one batch with one μ, σ; as `n`
    micro-batches with their own (BatchNorm under accumulation); each normalized by itself (LayerNorm)."""

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
        left, width = 120, (WIDTH - 16 - 120) / batch  # each sample's share of the row
        rows = [
            (_("one batch"), _("BatchNorm without accumulation: μ, σ over %(batch)d samples"), [(0, batch, "")]),
            ("BatchNorm", _("statistics per micro-batch; running buffers updated %(n)d times"), [
                (k * micro, micro, str(k + 1).translate(SUBSCRIPTS)) for k in range(n)
            ]),
            ("LayerNorm", _("each sample normalized by itself: same result as one batch of %(batch)d"), []),
        ]  # fmt: skip
        dots = [left + (i + 0.5) * width for i in range(batch)]
        context = {
            "key": key,
            "title": title,
            "desc": desc,
            "dots": [f"{cx:.1f}" for cx in dots],
            "radius": f"{min(3.0, width / 3):.1f}",
            "frame_width": f"{width - 1:.1f}",
            "rows": [
                {
                    "y": 16 + r * 84,
                    "colour": series_class(r),
                    "label": label,  # BatchNorm and LayerNorm are names, not words to translate
                    "note": note % numbers,
                    "groups": [
                        (f"{left + first * width + 1:.1f}", f"{count * width - 2:.1f}",
                         f"{left + (first + count / 2) * width:.1f}", f"μ{sub} σ{sub}")
                        for first, count, sub in groups
                    ],
                    "frames": [f"{cx - width / 2 + 0.5:.1f}" for cx in dots] if r == 2 else [],
                }
                for r, (label, note, groups) in enumerate(rows)
            ],
        }  # fmt: skip
        return render_to_string(DIAGRAMS + "#batch-statistics", context)
