"""The guides' figures: a guide line `{{ figure: <preset>/<name> }}` becomes one of FIGURES, a kind of
labs/figure_kinds.py with a caption that says what to see with the reference runs' own numbers. Each
is drawn once per reference sweep and language and cached (labs/explorable_figures.py places it); a
preset whose sweep has not finished yet gets a sentence and a link to its page instead.
"""

import hashlib
import json
import logging
from collections.abc import Iterable
from functools import partial
from pathlib import Path

from django.conf import settings
from django.template.defaultfilters import filesizeformat
from django.utils import translation
from django.utils.formats import number_format
from django.utils.translation import gettext_lazy

from labs.training.version import code_without_prose

from .charts import fmt_number, sci
from .figure_kinds import (
    BatchStatistics,
    Figure,
    LossBySamples,
    LossCurves,
    MetricBars,
    MicroBatchWindow,
    Runs,
    final_loss,
    window_run,
)
from .reference import ReferenceSweep, cached, reference_index, reference_sweep_latest

logger = logging.getLogger(__name__)
# What draws a figure or a panel: cached ones carry a hash of it (drawing_version), so a change retires them.
DRAWING_CODE = ("figures.py", "figure_kinds.py", "charts.py", "svg.py", "downsample.py",
                "explorable_figures.py", "presets.py")  # fmt: skip
DRAWING_TEMPLATES = ("labs/_guide_figure.html", "labs/_explorable.html", "labs/_diagrams.html")
APP_DIR = Path(__file__).resolve().parent


def drawing_version(
    code_dir: Path = APP_DIR, template_dir: Path | None = None, locale_dirs: Iterable[Path] | None = None
) -> str:
    """A hash of the drawing code without its prose, the templates and the compiled catalogs (django.mo)."""
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


def _finite_finals(runs: Runs) -> list[float]:
    return [f for f in map(final_loss, runs) if f is not None]


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
    run, _n, block_seconds = window_run(runs)
    return {"micro": str(run.micro_batch_size), "ms": fmt_number(block_seconds * 1000, 1), "device": run.device}


def _two_finals(runs: Runs) -> dict[str, str]:
    first, last = final_loss(runs[0]), final_loss(runs[-1])
    gap = abs(first - last) / first * 100 if first and last is not None else None
    return {"first": fmt_number(first), "last": fmt_number(last), "gap": fmt_number(gap, 1)}


def _errors(runs: Runs, **indexes: int) -> dict[str, str]:
    """The gradient-equivalence errors of the runs at these indexes, by name, and the final losses."""
    found = {name: sci(runs[i].metrics.get("grad_equivalence_error")) for name, i in indexes.items()}
    return {**found, "finals": _finals(runs)}


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
        partial(_errors, batch=1, group=3),
        log=True,  # from 1e-7 to 1e-1
    ),
    ("token-normalization", "loss"): LossCurves(
        gettext_lazy(
            "Training loss of the tiny language model. The mean over the window's tokens follows the full "
            "batch, with a gradient-equivalence error of %(tokens)s; the mean of micro-batch means has an "
            "error of %(means)s. Final losses: %(finals)s."
        ),
        partial(_errors, tokens=1, means=2),
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
        partial(_errors, layer=1, rms=3, batch=5),
        log=True,
    ),
}


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

    def state(self) -> str:  # which sweep each figure is drawn from, and how (drawing_version)
        return json.dumps({"drawing": CACHE_VERSION, "sweeps": reference_index()}, sort_keys=True)


reference_figures = ReferenceFigures()


def reference_curves(reference: ReferenceSweep, language: str) -> str:
    """The reference sweep's loss curves as SVG, for its preset's page."""
    key = f"labs:reference-curves:{CACHE_VERSION}:{reference.sweep}:{language}"
    with translation.override(language):
        title = str(reference.preset.title)
        draw = partial(LossCurves().svg, reference.runs, key=f"reference-{reference.preset.slug}", title=title)
        return cached(key, draw, CACHE_TIMEOUT)
