"""Draws the explorable figures of labs/explorable.py into guide pages and htmx fragments.

`explorable_figures` is the provider course/figures.py calls for each figure line of a guide. A
lab figure becomes a panel: first a prediction (unless the page's URL or the learner's stored
prediction already reveals it), then a control over the preset's runs and the figure for the
choice. The guide's own figure comes from labs/figures.py; the figure for one run is drawn here
from the stored reference sweep.

A guide page's panel is kept in the cache framework when it is the same for everyone in its state
(`_shared_panel_key`): keyed by the figure, language, page, reference sweep, drawing version and
the prediction shown, so a learner only ever gets the panel of their own prediction, and a new
reference result or drawing is a new key. A panel with the prediction form of a signed-in learner
carries their CSRF token and is drawn for them each time.
"""

import math
from collections.abc import Callable
from functools import partial

from django.http import HttpRequest, QueryDict
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _

from . import explorable
from .figures import CACHE_VERSION, FIGURES, METRICS, ReferenceFigures, loss_chart, loss_points, reference_figures
from .models import FigurePrediction, LabRun
from .presets import PRESETS
from .reference import cached, reference_index, reference_sweep_latest
from .svg import Series

TEMPLATE = "labs/_explorable.html"
PANEL_TIMEOUT = 3600  # seconds; a new reference sweep, drawing or prediction is a new key anyway


def _answer(preset: str, asked: explorable.Question) -> str | None:
    """The option the reference runs bear out now (None before they have finished)."""
    reference = reference_sweep_latest(preset)
    return explorable.reference_answer(PRESETS[preset], asked, reference.runs) if reference else None


# ---------------------------------------------------------------- one run beside the first


def _numbers(run: LabRun) -> list[tuple[str, str]]:
    """The run's measured numbers the figure's question and text talk about, where it has them."""
    return [
        (str(metric.name), metric.text(value))
        for key, metric in METRICS.items()
        if isinstance(value := run.metrics.get(key), int | float) and math.isfinite(value)
    ]


def _chosen_context(preset: str, name: str, choice: explorable.Choice) -> dict:
    reference = reference_sweep_latest(preset)
    if reference is None or choice.index >= len(reference.runs):
        return {"missing_choice": choice}
    run, first = reference.runs[choice.index], reference.runs[0]
    shown = [first, run] if choice.index else [run]
    x = FIGURES[(preset, name)].x
    svg = loss_chart(
        [Series(r.label, loss_points(r, x)) for r in shown],
        x=x,
        key=f"explore-{explorable.figure_id(preset, name)}-svg",
        title=str(PRESETS[preset].title),
        desc=_("Line chart of the training loss of the reference runs %(labels)s.")
        % {"labels": ", ".join(r.label for r in shown)},
    )
    return {
        "chosen_svg": svg,
        "chosen": choice,
        "baseline": first.label if choice.index else "",
        "numbers": [(r.label, _numbers(r)) for r in shown],
        "code_version": reference.code_version,
    }


# ---------------------------------------------------------------- the panel's state


def _once_per_request(request: HttpRequest, name: str, read: Callable):
    """What every figure of a page asks for, read once for the request (kept on it, never longer)."""
    found = request.__dict__.setdefault("_explorable_figures", {})
    if name not in found:
        found[name] = read()
    return found[name]


def _stored_prediction(request: HttpRequest | None, preset: str, name: str) -> str:
    """The learner's stored prediction for the figure ("" for none): one query for all the
    figures of the page."""
    if request is None or not request.user.is_authenticated:
        return ""

    def read() -> dict[tuple[str, str], str]:
        rows = FigurePrediction.objects.filter(user=request.user).values_list("preset", "figure", "predicted")
        return {(preset, figure): predicted for preset, figure, predicted in rows}

    return _once_per_request(request, "predictions", read).get((preset, name), "")


def _sweeps(request: HttpRequest | None) -> dict[str, str]:
    return reference_index() if request is None else _once_per_request(request, "sweeps", reference_index)


def _option_label(preset_obj, option: str) -> str:
    return dict(explorable.prediction_options(preset_obj)).get(option, option)


def _other_figures_state(query, fid: str) -> list[tuple[str, str]]:
    """The other figures' state on the page, which this figure's forms carry along (nothing else of
    the query string)."""
    own = explorable.state_params(fid)
    return [
        (key, value)
        for key, values in query.lists()
        if key.startswith(("fig-", "predict-")) and key not in own
        for value in values[:1]
    ]


def panel_context(preset: str, name: str, query, request: HttpRequest | None, page_path: str) -> dict:
    """Everything the panel template needs, from the URL's state for this figure (`query`, a
    QueryDict) and the learner's stored prediction."""
    preset_obj, fid = PRESETS[preset], explorable.figure_id(preset, name)
    fig_param, predict_param = explorable.state_params(fid)
    asked = explorable.question(preset, name)
    chosen_slug = query.get(fig_param, "")
    choice = explorable.choice_named(preset_obj, chosen_slug) if chosen_slug not in ("", explorable.ALL) else None
    unknown = chosen_slug if chosen_slug not in ("", explorable.ALL) and choice is None else ""
    predicted = query.get(predict_param, "")
    if asked is None or (predicted != explorable.SKIP and not explorable.is_option(preset_obj, predicted)):
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
        "options": explorable.prediction_options(preset_obj),
        "variable": explorable.variable_text(preset_obj),
        "choices": explorable.choices(preset_obj),
        "selected": choice.slug if choice else explorable.ALL,
        "unknown_choice": unknown,
        "revealed": revealed,
        "predicted": "" if predicted == explorable.SKIP else predicted,
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
    """The provider course/figures.py calls: a lab figure becomes its explorable panel; any other
    figure (a concept drawing) is the reference figures' own."""

    def render(self, preset: str, name: str, language: str, request: HttpRequest | None = None) -> str:
        if not explorable.is_explorable(preset, name):
            return super().render(preset, name, language)
        with translation.override(language):
            if request is None:
                return render_panel(preset, name, QueryDict(), None, "")
            key = _shared_panel_key(preset, name, language, request)
            draw = partial(render_panel, preset, name, request.GET, request, request.path)
            return draw() if key is None else cached(key, draw, PANEL_TIMEOUT)


explorable_figures = ExplorableFigures()


def _shared_panel_key(preset: str, name: str, language: str, request: HttpRequest) -> str | None:
    """The cache key of the panel a guide page shows with no figure's state in its query string
    (made-up URLs never fill the cache), or None when the panel is this learner's alone: their
    prediction form, with their CSRF token. Everything else the panel shows follows from the key:
    the reference sweep (its runs, the answer), the drawing's version and the prediction shown."""
    if any(key.startswith(("fig-", "predict-")) for key in request.GET):
        return None
    asked = explorable.question(preset, name)
    predicted = _stored_prediction(request, preset, name) if asked is not None else ""
    sweep = _sweeps(request).get(preset)
    signed_in = request.user.is_authenticated
    if signed_in and asked is not None and sweep is not None and not predicted:
        return None
    parts = (CACHE_VERSION, preset, name, language, request.path, sweep or "none", int(signed_in), predicted)
    return "labs:panel:" + ":".join(map(str, parts))


def prediction_save(user, preset: str, name: str, option: str) -> FigurePrediction:
    """Stores (or replaces) the learner's prediction with what the reference runs bear out now."""
    answer = _answer(preset, explorable.question(preset, name))
    prediction, _created = FigurePrediction.objects.update_or_create(
        user=user, preset=preset, figure=name, defaults={"predicted": option, "answer": answer or ""}
    )
    return prediction


def dashboard_predictions(user) -> dict:
    """The learner's predictions for the dashboard, each with the figure's question and the answer."""
    rows = []
    for prediction in FigurePrediction.objects.filter(user=user)[:50]:
        asked = explorable.question(prediction.preset, prediction.figure)
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
