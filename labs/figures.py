"""The guides' figures: a guide line `{{ figure: <preset>/<name> }}` becomes one of FIGURES, drawn in
the page's language as an accessible SVG (labs/svg.py), with a caption that says what to see with
the reference runs' own numbers and the table of numbers behind it.

One class per kind of figure. Most are drawn from a preset's reference sweep (labs/reference.py): a
preset whose sweep has not finished yet gets a sentence and a link to its page instead. A concept
figure (BatchStatistics) shows an idea rather than a run, drawn from a small description of the data,
so it renders whether or not a sweep has finished. Each figure is drawn once per sweep and language
and cached; labs/explorable_figures.py places it in the guides.

Loss curves are drawn by labs/charts.py, which the run and compare pages share.
"""

import hashlib
import json
import logging
import math
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import NamedTuple

from django.conf import settings
from django.template.defaultfilters import filesizeformat
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.formats import date_format, number_format
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from labs.training.version import code_without_prose

from .charts import CurveView, fmt_number, loss_chart, sci
from .models import LabRun
from .presets import PRESETS
from .reference import ReferenceSweep, cached, reference_index, reference_sweep_latest
from .svg import (
    SUBSCRIPTS,
    WIDTH,
    Bar,
    bar_chart,
    series_class,
    tick_decimals,
)

logger = logging.getLogger(__name__)
# What draws a figure or an explorable panel: this app's code for it, its templates, and the
# translated captions. Cached figures and panels carry a hash of them (drawing_version), so a change
# to any retires them, with no number to remember to bump.
DRAWING_CODE = ("figures.py", "charts.py", "svg.py", "downsample.py", "explorable_figures.py", "presets.py")
DRAWING_TEMPLATES = ("labs/_guide_figure.html", "labs/_explorable.html", "labs/_diagrams.html")


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
TEMPLATE = "labs/_guide_figure.html"
DIAGRAMS = "labs/_diagrams.html"  # the figures that draw an idea

Runs = list[LabRun]
Table = tuple[list[str], list[list[str]]]  # column headers, rows


# ---------------------------------------------------------------- numbers in the page's language


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
    """One bar per run of one of METRICS, labelled with its value: on a log axis for values that span
    orders of magnitude (`log`), in one binary unit for bytes (`in_binary_units`), and with a table
    column of what each run's all-reduces sent (`bytes_sent`)."""

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

    def tick(self, value: float, decimals: int) -> str:
        """A log axis's powers of ten written as the values are (1.0e-07)."""
        return METRICS[self.metric].text(value) if self.log else fmt_number(value, decimals)

    def unit(self, values: list[float]) -> tuple[int, str]:
        """What the bars' values are divided by, and the axis's label. Bytes: ticks in one binary unit
        (0, 0.5, 1.0 MiB), named as filesizeformat names it in the page's language ("KiB", "Kio", ...)."""
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
    ("memory-vs-n", "memory"): MetricBars(
        "peak_activation_bytes",
        gettext_lazy(
            "Peak activation memory of each run of the same CNN at an effective batch of 64. It falls from "
            "%(first)s at N = 1 to %(last)s at N = 8, %(ratio)s times less, while the final loss stays between "
            "%(low)s and %(high)s: the effective batch did not change."
        ),
        _memory,
        in_binary_units=True,
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
    ("groupnorm-vs-batchnorm-tiny", "grad-error"): MetricBars(
        "grad_equivalence_error",
        gettext_lazy(
            "Gradient-equivalence error of each run against the full batch, on a logarithmic scale. With "
            "micro-batches of 2 samples (N = 16), BatchNorm's error is %(batch)s and GroupNorm's %(group)s."
        ),
        _errors(batch=1, group=3),
        log=True,  # from 1e-7 to 1e-1
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
    ("memory-vs-n", "wall-time"): MetricBars(
        "wall_seconds",
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
    ("data-parallel-no-sync", "allreduce"): MetricBars(
        "allreduce_calls",
        gettext_lazy(
            "Gradient all-reduces of each run. Two processes make %(no_sync)s all-reduces sending %(no_sync_bytes)s "
            "with no_sync, and %(every)s sending %(every_bytes)s when they synchronize after every micro-batch: "
            "%(ratio)s times more bytes, for final losses within %(spread)s of each other."
        ),
        _allreduce,
        bytes_sent=True,
    ),
    ("transformer-lm-n-norm", "grad-error"): MetricBars(
        "grad_equivalence_error",
        gettext_lazy(
            "Gradient-equivalence error of each run of the small transformer against the full batch, on a "
            "logarithmic scale (an N = 1 run is the full batch: no error). At N = 4, LayerNorm's error is "
            "%(layer)s, RMSNorm's %(rms)s and BatchNorm's %(batch)s."
        ),
        _errors(layer=1, rms=3, batch=5),
        log=True,
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
