"""Explorable figures and "predict, then see": the rules, in plain functions.

Each lab figure of a guide (`{{ figure: <preset>/<name> }}`) offers a control over the variable its
preset varies (N, the normalization layer, the precision, G and sync, the loss normalization):
one choice per run of the preset, plus "all runs" (the guide's own figure). A choice shows that
run's reference curve beside the preset's first run, with its gradient-equivalence error, memory
and other measured numbers. Everything comes from the STORED reference sweep: nothing is trained
on a request, and a choice without a reference result says so and links the preset.

Before a figure shows its result the learner may predict it (which run ends lowest, needs the
least memory...): the answer is compared with the reference runs' own numbers.

The state of each figure on a page lives in the page's URL, so it can be shared:
`?fig-<preset>-<name>=<choice>` and `?predict-<preset>-<name>=<option>`.
"""

from dataclasses import dataclass
from typing import NamedTuple
from urllib.parse import urlencode, urlsplit

from django.http import QueryDict
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from .figures import FIGURES
from .models import LabRun
from .presets import Preset

ALL = "all"  # the choice that shows every run: the guide's own figure
SAME = "same"  # the prediction "they end about the same"
SKIP = "skip"  # "just show me": no prediction
SAME_SPREAD = 0.01  # results within 1 % of the largest count as "about the same"


class Variable(NamedTuple):
    """A setting a preset may vary."""

    key: str  # in the run's config
    default: object
    short: str  # before the value in a choice's slug: "N4"
    name: str | Promise


VARIABLES = (  # in the order a choice's slug names them
    Variable("processes", 1, "G", _("processes G")),
    Variable("sync", "no_sync", "", _("synchronization")),
    Variable("norm", "none", "", _("normalization layer")),
    Variable("precision", "fp32", "", _("precision")),
    Variable("loss_scaling", "mean", "", _("loss normalization")),
    Variable("effective_batch_size", 64, "B", _("effective batch B")),
    Variable("accumulation_steps", 1, "N", _("micro-batches N")),
)


@dataclass(frozen=True)
class Question:
    text: str | Promise
    metric: str  # the run metric that decides: the figure's own (labs/figures.py, Figure.metric)
    lowest: bool  # the answer is the run with the lowest value (else the highest)


QUESTIONS = (
    Question(_("Which run will end with the lowest validation loss?"), "val_loss", True),
    Question(_("Which run will end with the lowest training loss?"), "final_loss", True),
    Question(_("Which run will need the least peak activation memory?"), "peak_activation_bytes", True),
    Question(_("Which run will take the longest?"), "wall_seconds", False),
    Question(_("Which run will have the largest gradient-equivalence error?"), "grad_equivalence_error", False),
    Question(_("Which run will make the most gradient all-reduces?"), "allreduce_calls", False),
)


@dataclass(frozen=True)
class Choice:
    slug: str  # as the URL carries it, the same in every language
    index: int  # the run's place in the preset
    label: str  # the run's legend text, in the page's language


def figure_id(preset: str, name: str) -> str:
    return f"{preset}-{name}"


def is_explorable(preset: str, name: str) -> bool:
    """A figure drawn from a preset's runs (a concept figure shows an idea, with nothing to choose)."""
    figure = FIGURES.get((preset, name))
    return figure is not None and figure.from_runs


def varied(preset: Preset) -> list[Variable]:
    """The settings that differ between the preset's runs."""
    configs = [run.config for run in preset.runs]
    return [v for v in VARIABLES if len({str(c.get(v.key, v.default)) for c in configs}) > 1]


def choices(preset: Preset) -> list[Choice]:
    found = []
    for index, run in enumerate(preset.runs):
        parts = [f"{v.short}{run.config.get(v.key, v.default)}".replace("_", "") for v in varied(preset)]
        found.append(Choice("-".join(parts) or str(index), index, str(run.label)))
    return found


def choice_named(preset: Preset, slug: str) -> Choice | None:
    return next((choice for choice in choices(preset) if choice.slug == slug), None)


def variable_text(preset: Preset) -> str:
    return ", ".join(str(v.name) for v in varied(preset))


def question(preset: str, name: str) -> Question | None:
    """The prediction a figure asks for, if any (a timeline of one step has no result to guess)."""
    if not is_explorable(preset, name):
        return None
    metric = FIGURES[(preset, name)].metric
    return next((asked for asked in QUESTIONS if asked.metric == metric), None)


def prediction_options(preset: Preset) -> list[tuple[str, str]]:
    return [(c.slug, c.label) for c in choices(preset)] + [(SAME, str(_("They end about the same")))]


def is_option(preset: Preset, option: str) -> bool:
    return option == SAME or choice_named(preset, option) is not None


def reference_answer(preset: Preset, asked: Question, runs: list[LabRun]) -> str | None:
    """The option the reference runs bear out: a run's choice, SAME, or None without numbers."""
    values = [run.metrics.get(asked.metric) for run in runs]
    if len(runs) != len(preset.runs) or not all(isinstance(v, int | float) for v in values):
        return None
    if max(values) - min(values) <= SAME_SPREAD * max(abs(v) for v in values):
        return SAME
    best = min(values) if asked.lowest else max(values)
    return choices(preset)[values.index(best)].slug


# ---------------------------------------------------------------- the figure's state in a URL


def state_params(figure: str) -> tuple[str, str]:
    return f"fig-{figure}", f"predict-{figure}"


def url_with_state(current_url: str, figure: str, choice: str, predicted: str) -> str | None:
    """The page's URL (path and query) with this figure's state replaced: what htmx pushes into the
    address bar, so the learner can share what they see. None for a URL that is not a path here."""
    parts = urlsplit(current_url)
    if parts.scheme or parts.netloc or not parts.path.startswith("/"):
        return None
    query = QueryDict(parts.query, mutable=True)
    for key, value in zip(state_params(figure), (choice, predicted), strict=True):
        query.pop(key, None)
        if value:
            query[key] = value
    encoded = urlencode(sorted(query.lists()), doseq=True)
    return parts.path + (f"?{encoded}" if encoded else "")
