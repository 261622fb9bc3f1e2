"""Lab pages: presets, the run form, a run's live page, and the comparison of runs."""

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from config.htmx import vary_on_htmx, wants_fragment
from config.views import rate_limited
from config.waits import with_retry_after
from course.page_cache import public_page

from . import selectors, services
from .charts import X_AXES, CurveView, curve_view, runs_chart, smoothing_text
from .export import curves_csv, run_payload
from .figures import reference_curves
from .forms import RunForm
from .models import LabRun, new_share_token
from .presets import PRESETS, Preset
from .reference import reference_sweep_latest
from .selectors import queue_state, run_queue
from .throttle import submission_throttled
from .workers import site_limits


@require_GET
def index(request: HttpRequest) -> HttpResponse:
    return render(request, "labs/index.html", _index_context(request, RunForm(limits=site_limits())))


def _index_context(request: HttpRequest, form: RunForm) -> dict:
    runs = selectors.recent_runs_of(request.user)
    return {"presets": PRESETS.values(), "form": form, "runs": runs, **_live_context(runs)}


def _live_context(picker_runs: list[LabRun]) -> dict:
    """The queue panel and the poll that keeps the listed runs' statuses live."""
    return {"queue": queue_state(), "live_active": any(run.is_active for run in picker_runs)}


@require_GET
def live(request: HttpRequest) -> HttpResponse:
    """The statuses of the viewer's listed runs and the queue panel, swapped in out of band."""
    runs = selectors.recent_runs_of(request.user)
    return render(request, "labs/live.html", {"picker_runs": runs, **_live_context(runs)})


@require_GET
@public_page(timeout=10)  # the latest results (any learner's runs) move on while a sweep trains
def preset(request: HttpRequest, slug: str) -> HttpResponse:
    chosen = _preset_or_404(slug)
    # The site's reference results for everyone; beside them, the learner's own latest sweep.
    own = selectors.latest_preset_runs(slug=slug, user=request.user)
    reference = reference_sweep_latest(slug)
    context = {
        "preset": chosen,
        "preset_runs": chosen.configs(),
        "reference": reference,
        "reference_figure": reference_curves(reference, get_language()) if reference else "",
        "reference_compare_url": _compare_url(reference.runs + own) if reference else "",
        **_compare_context(request, own),
    }
    return TemplateResponse(request, "labs/preset.html", context)


def _preset_or_404(slug: str) -> Preset:
    if slug not in PRESETS:
        raise Http404
    return PRESETS[slug]


@login_required
@require_POST
def preset_run(request: HttpRequest, slug: str) -> HttpResponse:
    chosen = _preset_or_404(slug)
    if submission_throttled(request, request.user):
        return rate_limited(request)
    try:
        runs = services.lab_preset_submit(user=request.user, preset=chosen)
    except services.LabQuotaError as exc:
        messages.error(request, str(exc))
        return redirect("labs:preset", slug=slug)
    _say_if_reused(request, runs)
    return redirect(_compare_url(runs))


@login_required
@require_POST
def run_submit(request: HttpRequest) -> HttpResponse:
    form = RunForm(request.POST, limits=site_limits())  # what the connected workers take now
    if not form.is_valid():
        return render(request, "labs/index.html", _index_context(request, form), status=400)
    if submission_throttled(request, request.user):
        return rate_limited(request)
    try:
        run = services.lab_run_submit(user=request.user, config=form.run_config)
    except services.LabQuotaError as exc:
        form.add_error(None, str(exc))
        page = render(request, "labs/index.html", _index_context(request, form), status=429)
        return with_retry_after(page, exc.retry_after)
    _say_if_reused(request, [run])
    return redirect("labs:run", run_id=run.pk)


def _say_if_reused(request: HttpRequest, runs: list[LabRun]) -> None:
    if any(run.reused_from_id for run in runs):
        messages.info(
            request,
            _(
                "Identical settings (same code version and seed) had already been trained, so the stored results are shown."  # noqa: E501 (one translated sentence)
            ),
        )


@require_GET
@vary_on_htmx
def run_detail(request: HttpRequest, run_id: int) -> HttpResponse:
    return _run_page(request, selectors.run_visible(run_id=run_id, user=request.user))


@require_GET
@vary_on_htmx
def run_shared(request: HttpRequest, token: str) -> HttpResponse:
    return _run_page(request, selectors.run_shared(token=token))


def estimate_text(seconds: float | None) -> str:
    if seconds is None:
        return ""
    if seconds < 60:
        return _("It should be done in less than a minute.")
    minutes = round(seconds / 60)
    return ngettext(
        "It should be done in about %(minutes)d minute.", "It should be done in about %(minutes)d minutes.", minutes
    ) % {"minutes": minutes}


def _run_page(request: HttpRequest, run: LabRun | None) -> HttpResponse:
    if run is None:
        raise Http404
    selectors.with_chunks([run])
    state = queue_state()
    run_queue_block = run_queue(run, state)
    view = curve_view(request.GET)
    context = {
        "run": run,
        "queue": state,
        "run_queue": run_queue_block,
        "estimate": estimate_text(run_queue_block["estimate_seconds"]),
        "is_owner": request.user.is_authenticated and request.user.pk == run.user_id,
        **_chart([run], view, (_("Training loss of this run"), _("Training and validation loss of this run"))),
        "poll_url": request.path + "?" + urlencode(view.query()),  # the live chart keeps the chosen view
        "compare_url": _compare_url([run], view),
        "share_url": request.build_absolute_uri(reverse("labs:shared", args=[run.share_token])),
        "reused_from_visible": run.reused_from is not None and run.reused_from.visible_to(request.user),
    }
    template = "labs/run_poll.html" if wants_fragment(request) else "labs/run_detail.html"
    return render(request, template, context)


@login_required
@require_POST
def run_cancel(request: HttpRequest, run_id: int) -> HttpResponse:
    run = selectors.run_owned(run_id=run_id, user=request.user)
    if run is None:
        raise Http404
    if services.lab_run_cancel(run=run):
        messages.success(request, _("The run is being cancelled."))
    else:
        messages.info(request, _("This run had already finished."))
    return redirect("labs:run", run_id=run.pk)


@login_required
@require_POST
def run_share_reset(request: HttpRequest, run_id: int) -> HttpResponse:
    """A new share link; the old one stops working (how a learner un-shares a run)."""
    if not LabRun.objects.filter(pk=run_id, user=request.user).update(share_token=new_share_token()):
        raise Http404
    messages.success(request, _("The run has a new share link; the old link no longer works."))
    return redirect("labs:run", run_id=run_id)


@require_GET
@vary_on_htmx
def compare(request: HttpRequest) -> HttpResponse:
    runs = selectors.runs_by_refs(refs=request.GET.getlist("run"), user=request.user)
    context = _compare_context(request, runs)
    if wants_fragment(request) and not request.GET.get("live"):  # the preset page's poll: its results only
        return render(request, "labs/results_poll.html", context)
    own_runs = selectors.recent_runs_of(request.user)
    # One request per poll: the results table's poll brings the listed runs' statuses and the
    # queue too, and the list polls by itself only once no compared run is active.
    context |= {
        "own_runs": own_runs,
        "queue": queue_state(),
        "live_active": not context["any_active"] and any(run.is_active for run in own_runs),
        "poll_url": context["poll_url"] + "&live=1",
    }
    return render(request, "labs/compare_poll.html" if wants_fragment(request) else "labs/compare.html", context)


@require_GET
def compare_json(request: HttpRequest) -> JsonResponse:
    runs = selectors.runs_by_refs(refs=request.GET.getlist("run"), user=request.user)
    return JsonResponse({"runs": [run_payload(run) for run in runs]}, headers=_attachment("lab-runs.json"))


@require_GET
def compare_csv(request: HttpRequest) -> HttpResponse:
    runs = selectors.runs_by_refs(refs=request.GET.getlist("run"), user=request.user)
    return HttpResponse(curves_csv(runs), content_type="text/csv; charset=utf-8", headers=_attachment("lab-curves.csv"))


def _attachment(filename: str) -> dict[str, str]:
    return {"Content-Disposition": f'attachment; filename="{filename}"'}


def _compare_url(runs: list[LabRun], view: CurveView | None = None) -> str:
    query = [("run", run.share_ref) for run in runs] + (view.query() if view else [])
    return reverse("labs:compare") + "?" + urlencode(query)


def _chart(runs: list[LabRun], view: CurveView, titles: tuple[str, str]) -> dict:
    """The runs' chart, titled by whether it draws validation losses, and what its controls
    (templates/labs/_chart_controls.html) show."""
    drawn = view.validation and any(run.validation for run in runs)
    svg = runs_chart(runs, view, key="lab-curves-svg", title=titles[drawn]) if runs else ""
    smooth = smoothing_text(view) if view.smooth else ""
    return {"curves_svg": svg, "validation_drawn": drawn, "view": view, "x_axes": X_AXES.items(), "smoothing": smooth}


def _compare_context(request: HttpRequest, runs: list[LabRun]) -> dict:
    view = curve_view(request.GET)
    titles = _("Training loss of the compared runs"), _("Training and validation loss of the compared runs")
    return {
        "runs": runs,
        **_chart(runs, view, titles),
        "any_active": any(run.is_active for run in runs),
        "refs": urlencode([("run", run.share_ref) for run in runs]),
        "poll_url": _compare_url(runs, view),
        "share_url": request.build_absolute_uri(_compare_url(runs, view)),
    }
