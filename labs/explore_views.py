"""The explorable figures' htmx fragments and the prediction form (labs/explorable_figures.py)."""

from urllib.parse import urlsplit

from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from config.htmx import vary_on_htmx, wants_fragment

from . import explorable_figures
from .presets import PRESETS


def _explorable_or_404(preset: str, name: str) -> None:
    if not explorable_figures.is_explorable(preset, name):
        raise Http404(_("There is no such figure."))


def _page_url(request: HttpRequest, url: str) -> str | None:
    """A URL of this site (path and query), or None."""
    if not url or not url_has_allowed_host_and_scheme(url, {request.get_host()}, request.is_secure()):
        return None
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


@require_GET
@vary_on_htmx
def explore(request: HttpRequest, preset: str, name: str) -> HttpResponse:
    """The figure's panel for the state in the query; the address bar then carries it (HX-Push-Url)."""
    _explorable_or_404(preset, name)
    figure = explorable_figures.figure_id(preset, name)
    fig_param, predict_param = explorable_figures.state_params(figure)
    page = _page_url(request, request.headers.get("HX-Current-URL", "")) if wants_fragment(request) else None
    chosen = request.GET.get(fig_param, explorable_figures.ALL)
    known = chosen == explorable_figures.ALL or explorable_figures.choice_named(PRESETS[preset], chosen) is not None
    # An unknown choice: the panel says so in words (all runs shown), with a 400.
    panel = explorable_figures.render_panel(preset, name, request.GET, request, urlsplit(page or "").path)
    response = HttpResponse(panel, status=200 if known else 400)
    if page and known:
        predicted = "" if request.user.is_authenticated else request.GET.get(predict_param, "")
        pushed = explorable_figures.url_with_state(page, figure, request.GET.get(fig_param, ""), predicted)
        if pushed:
            response.headers["HX-Push-Url"] = pushed
    return response


@require_POST
@vary_on_htmx
def predict(request: HttpRequest, preset: str, name: str) -> HttpResponse:
    """A signed-in learner's prediction, kept; a visitor's travels in the page's URL instead."""
    _explorable_or_404(preset, name)
    if not request.user.is_authenticated:
        message = _("Sign in to keep your predictions. Without an account, the prediction form shows the result.")
        return render(request, "error.html", {"title": _("Sign in"), "message": message}, status=403)
    option = request.POST.get("predicted", "")
    if explorable_figures.question(preset, name) is None or not explorable_figures.is_option(PRESETS[preset], option):
        message = _("Choose one of the figure's answers, then send your prediction.")
        return render(request, "error.html", {"title": _("No prediction chosen"), "message": message}, status=400)
    explorable_figures.prediction_save(request.user, preset, name, option)
    page = _page_url(request, request.POST.get("next", ""))
    if wants_fragment(request):
        parts = urlsplit(page or "")
        return HttpResponse(explorable_figures.render_panel(preset, name, QueryDict(parts.query), request, parts.path))
    anchor = f"#explore-{explorable_figures.figure_id(preset, name)}"
    return redirect((page or "/") + anchor)
