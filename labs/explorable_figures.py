"""Explorable figures and "predict, then see": each lab figure of a guide becomes a panel (in guide
pages and htmx fragments) with one choice per run of its preset, which shows that run's reference
curve and numbers beside the first run's, plus "all runs" (the guide's own figure, labs/figures.py).
Everything comes from the STORED reference sweep: nothing is trained on a request.

Before seeing a result the learner may predict it; the answer is the reference runs' own numbers.
Each figure's state lives in the page's URL, to share: `?fig-<preset>-<name>=<choice>` and
`?predict-<preset>-<name>=<option>`; a signed-in learner's prediction is also stored. A panel the
same for everyone in its state is cached (`_shared_panel_key`); one with a signed-in learner's
prediction form carries their CSRF token and is drawn each time.
"""

import math
from collections.abc import Callable
from functools import partial
from typing import NamedTuple
from urllib.parse import urlencode, urlsplit

from django.http import HttpRequest, QueryDict
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.functional import Promise
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from accounts import learner_versions

from .charts import CurveView, loss_chart
from .figure_kinds import METRICS
from .figures import CACHE_VERSION, FIGURES, ReferenceFigures, reference_figures
from .models import FigurePrediction, LabRun
from .presets import PRESETS, Preset
from .reference import cached, reference_index, reference_sweep_latest

TEMPLATE = "labs/_explorable.html"
PANEL_TIMEOUT = 3600  # seconds; a new reference sweep, drawing or prediction is a new key anyway
ALL = "all"  # the choice that shows every run: the guide's own figure
SAME = "same"  # the prediction "they end about the same"
SKIP = "skip"  # "just show me": no prediction
SAME_SPREAD = 0.01  # results within 1 % of the largest count as "about the same"


class Variable(NamedTuple):  # a setting a preset may vary
    key: str  # in the run's config
    short: str  # before the value in a choice's slug: "N4"
    name: str | Promise


VARIABLES = (  # in the order a choice's slug names them
    Variable("processes", "G", _("processes G")),
    Variable("sync", "", _("synchronization")),
    Variable("norm", "", _("normalization layer")),
    Variable("precision", "", _("precision")),
    Variable("loss_scaling", "", _("loss normalization")),
    Variable("effective_batch_size", "B", _("effective batch B")),
    Variable("accumulation_steps", "N", _("accumulation factor N")),
)


class Question(NamedTuple):
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


class Choice(NamedTuple):
    slug: str  # as the URL carries it, the same in every language
    index: int  # the run's place in the preset
    label: str  # the run's legend text, in the page's language


def figure_id(preset: str, name: str) -> str:
    return f"{preset}-{name}"


def is_explorable(preset: str, name: str) -> bool:  # drawn from runs: a concept figure has nothing to choose
    figure = FIGURES.get((preset, name))
    return figure is not None and figure.from_runs


def varied(preset: Preset) -> list[Variable]:  # the settings that differ between the preset's runs
    configs = [run.config for run in preset.runs]
    return [v for v in VARIABLES if len({str(c[v.key]) for c in configs}) > 1]


def choices(preset: Preset) -> list[Choice]:
    found = []
    for index, run in enumerate(preset.runs):
        parts = [f"{v.short}{run.config[v.key]}".replace("_", "") for v in varied(preset)]
        found.append(Choice("-".join(parts) or str(index), index, str(run.label)))
    return found


def choice_named(preset: Preset, slug: str) -> Choice | None:
    return next((choice for choice in choices(preset) if choice.slug == slug), None)


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


def _answer(preset: str, asked: Question) -> str | None:  # None before the reference runs have finished
    reference = reference_sweep_latest(preset)
    return reference_answer(PRESETS[preset], asked, reference.runs) if reference else None


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


def _numbers(run: LabRun) -> list[tuple[str, str]]:  # the run's METRICS, where it has them
    return [
        (str(metric.name), metric.text(value))
        for key, metric in METRICS.items()
        if isinstance(value := run.metrics.get(key), int | float) and math.isfinite(value)
    ]


def _chosen_context(preset: str, name: str, choice: Choice) -> dict:
    reference = reference_sweep_latest(preset)
    if reference is None or choice.index >= len(reference.runs):
        return {"missing_choice": choice}
    run, first = reference.runs[choice.index], reference.runs[0]
    shown = [first, run] if choice.index else [run]
    svg = loss_chart(
        shown,
        view=CurveView(x=FIGURES[(preset, name)].x),
        key=f"explore-{figure_id(preset, name)}-svg",
        title=str(PRESETS[preset].title),
        desc=gettext("Line chart of the training loss of the reference runs %(labels)s.")
        % {"labels": ", ".join(r.label for r in shown)},
    )
    return {
        "chosen_svg": svg,
        "chosen": choice,
        "baseline": first.label if choice.index else "",
        "numbers": [(r.label, _numbers(r)) for r in shown],
        "code_version": reference.code_version,
    }


def _once_per_request(request: HttpRequest, name: str, read: Callable):
    """What every figure of a page asks for, read once for the request (kept on it, never longer)."""
    found = request.__dict__.setdefault("_explorable_figures", {})
    if name not in found:
        found[name] = read()
    return found[name]


def _stored_prediction(request: HttpRequest | None, preset: str, name: str) -> str:
    """The learner's stored prediction for the figure ("" for none): one query for the whole page."""
    if request is None or not request.user.is_authenticated:
        return ""

    def stored() -> dict[tuple[str, str], str]:
        rows = FigurePrediction.objects.filter(user=request.user).values_list("preset", "figure", "predicted")
        return {(preset, figure): predicted for preset, figure, predicted in rows}

    def read() -> dict[tuple[str, str], str]:  # from the cache while the learner's predictions stand
        return learner_versions.cached(request.user.pk, ("predictions",), "figure-predictions", stored)

    return _once_per_request(request, "predictions", read).get((preset, name), "")


def _sweeps(request: HttpRequest | None) -> dict[str, str]:
    return reference_index() if request is None else _once_per_request(request, "sweeps", reference_index)


def _option_label(preset_obj, option: str) -> str:
    return dict(prediction_options(preset_obj)).get(option, option)


def _other_figures_state(query, fid: str) -> list[tuple[str, str]]:
    """The other figures' state on the page, which this figure's forms carry along (nothing else)."""
    own = state_params(fid)
    return [
        (key, value)
        for key, values in query.lists()
        if key.startswith(("fig-", "predict-")) and key not in own
        for value in values[:1]
    ]


def panel_context(preset: str, name: str, query, request: HttpRequest | None, page_path: str) -> dict:
    """The panel template's context, from the figure's state in `query` and the stored prediction."""
    preset_obj, fid = PRESETS[preset], figure_id(preset, name)
    fig_param, predict_param = state_params(fid)
    asked = question(preset, name)
    chosen_slug = query.get(fig_param, "")
    choice = choice_named(preset_obj, chosen_slug) if chosen_slug not in ("", ALL) else None
    unknown = chosen_slug if chosen_slug not in ("", ALL) and choice is None else ""
    predicted = query.get(predict_param, "")
    if asked is None or (predicted != SKIP and not is_option(preset_obj, predicted)):
        predicted = ""
    if not predicted and asked is not None:
        predicted = _stored_prediction(request, preset, name)
    # Without a reference sweep there is nothing to predict: the figure says so at once.
    ready = preset in _sweeps(request)
    revealed = asked is None or not ready or bool(chosen_slug) or bool(predicted)
    context = {
        "fid": fid,
        "preset_url": reverse("labs:preset", args=[preset]),
        "preset_title": preset_obj.title,
        "fragment_url": reverse("labs:explore", args=[preset, name]),
        "predict_url": reverse("labs:predict", args=[preset, name]),
        "page_path": page_path,
        "fig_param": fig_param,
        "predict_param": predict_param,
        "kept": _other_figures_state(query, fid),
        "signed_in": bool(request and request.user.is_authenticated),
        "question": asked.text if asked else "",
        "options": prediction_options(preset_obj),
        "variable": ", ".join(str(v.name) for v in varied(preset_obj)),
        "choices": choices(preset_obj),
        "selected": choice.slug if choice else ALL,
        "unknown_choice": unknown,
        "revealed": revealed,
        "predicted": "" if predicted == SKIP else predicted,
    }
    if not revealed:
        return context
    if context["predicted"]:
        answer = _answer(preset, asked)
        context |= {
            "predicted_label": _option_label(preset_obj, predicted),
            "answer_label": _option_label(preset_obj, answer) if answer else "",
            "is_right": answer == predicted,
        }
    if choice is None:
        context["figure_html"] = reference_figures.render(preset, name, translation.get_language())
    else:
        context |= _chosen_context(preset, name, choice)
    return context


def render_panel(preset: str, name: str, query, request: HttpRequest | None, page_path: str) -> str:
    context = panel_context(preset, name, query, request, page_path)
    return render_to_string(TEMPLATE + "#panel", context, request=request if context["signed_in"] else None)


class ExplorableFigures(ReferenceFigures):
    """The provider course/figures.py calls: a lab figure becomes its panel, a concept figure is drawn."""

    def render(self, preset: str, name: str, language: str, request: HttpRequest | None = None) -> str:
        if not is_explorable(preset, name):
            return super().render(preset, name, language)
        with translation.override(language):
            if request is None:
                return render_panel(preset, name, QueryDict(), None, "")
            # Still needed under the page cache, which serves only visitors without a session: a signed-in
            # learner's guide page with 4 answered figures took 7.5 ms of CPU with this cache, 22.3 ms without
            # (normalization-and-accumulation, test database, December 2026); a page-cache hit took 0.6 ms.
            key = _shared_panel_key(preset, name, language, request)
            draw = partial(render_panel, preset, name, request.GET, request, request.path)
            return draw() if key is None else cached(key, draw, PANEL_TIMEOUT)

    def render_static(self, preset: str, name: str, language: str) -> str:
        """The figure with every run, nothing to pick or predict: as the books print it (course/book.py)."""
        return super().render(preset, name, language)


explorable_figures = ExplorableFigures()


def _shared_panel_key(preset: str, name: str, language: str, request: HttpRequest) -> str | None:
    """The cache key of a panel with no figure's state in the query string (made-up URLs never fill the
    cache), or None when it is this learner's alone: their prediction form, with their CSRF token."""
    if any(key.startswith(("fig-", "predict-")) for key in request.GET):
        return None
    asked = question(preset, name)
    predicted = _stored_prediction(request, preset, name) if asked is not None else ""
    sweep = _sweeps(request).get(preset)
    signed_in = request.user.is_authenticated
    if signed_in and asked is not None and sweep is not None and not predicted:
        return None
    parts = (CACHE_VERSION, preset, name, language, request.path, sweep or "none", int(signed_in), predicted)
    return "labs:panel:" + ":".join(map(str, parts))


def prediction_save(user, preset: str, name: str, option: str) -> FigurePrediction:
    """Stores (or replaces) the learner's prediction with what the reference runs bear out now."""
    answer = _answer(preset, question(preset, name))
    prediction, _created = FigurePrediction.objects.update_or_create(
        user=user, preset=preset, figure=name, defaults={"predicted": option, "answer": answer or ""}
    )
    return prediction


def dashboard_predictions(user) -> dict:
    rows = []
    for prediction in FigurePrediction.objects.filter(user=user)[:50]:
        asked = question(prediction.preset, prediction.figure)
        if asked is None:
            continue  # a figure the guides no longer place
        preset = PRESETS[prediction.preset]
        rows.append(
            {
                "preset_title": preset.title,
                "preset_url": reverse("labs:preset", args=[preset.slug]),
                "question": asked.text,
                "predicted": _option_label(preset, prediction.predicted),
                "answer": _option_label(preset, prediction.answer) if prediction.answer else "",
                "is_right": prediction.is_right,
            }
        )
    return {"figure_predictions": rows}
