"""The labs JSON API at /api/labs/: runs, presets, the queue. Submitting, cancelling and listing one's
runs need a learner (a token, or a session and its CSRF token); the rest is open, a private run only to
its owner. Errors have the API's one shape (config/api_errors.py).
"""

import dataclasses
from functools import partial

from django.http import HttpRequest
from django.urls import reverse
from django.utils.translation import gettext as _
from ninja import Query, Router, Status
from ninja.pagination import paginate

from accounts.auth import BearerToken, SessionLogin, api_user
from config.api_errors import ApiError, Error
from config.api_pagination import PageOf
from config.ratelimit import retry_after
from config.waits import please_wait

from . import schemas, selectors, services
from .export import preset_payload, run_payload
from .forms import limits_text, translated_problems
from .models import LabRun
from .presets import PRESETS
from .selectors import queue_state, run_queue
from .throttle import submission_throttled
from .training.config import validate_config
from .workers import site_limits

router = Router(tags=["labs"])
LEARNER = [BearerToken(), SessionLogin()]
ANYONE = {"security": [{"BearerToken": []}, {"SessionLogin": []}, {}]}  # a login shows private runs too


@router.post(
    "/runs",
    auth=LEARNER,
    url_name="labs_runs",
    summary="Submit a lab run",
    response={201: schemas.LabRunCreated, 400: Error, 401: Error, 403: Error, 429: Error},
)
def run_create(request: HttpRequest, run_settings: schemas.LabRunSettings):
    """Stored and queued, or a stored result reused when identical settings were trained. 400: settings
    that break a rule, with a message per field; 429: too many submissions or runs waiting, or the
    daily budget is spent."""
    if submission_throttled(request, request.auth):
        wait = retry_after(request)
        raise ApiError(429, please_wait(wait), retry_after=wait)
    config, problems = validate_config(run_settings.to_dict(), site_limits())  # what the workers take now
    if config is None:
        raise ApiError(400, _("Some settings are not valid."), fields=translated_problems(problems))
    try:
        run = services.lab_run_submit(user=request.auth, config=config)
    except services.LabQuotaError as exc:
        raise ApiError(429, str(exc), retry_after=exc.retry_after) from exc
    url = request.build_absolute_uri(reverse("api:labs_run", args=[run.pk]))
    return Status(201, {"id": run.pk, "status": run.status, "reused": run.reused_from_id is not None, "url": url})


@router.get(
    "/runs",
    auth=LEARNER,
    url_name="labs_runs",
    summary="Your lab runs, newest first, without their curves",
    response={200: list[schemas.LabRunSummary], 400: Error, 401: Error},
)
@paginate(PageOf, payload=partial(run_payload, curve=False))
def run_list(request: HttpRequest):
    return selectors.runs_of(request.auth)


@router.get(
    "/presets",
    url_name="labs_presets",
    summary="The one-click experiments: each a small sweep of runs, and what to look for",
    response={200: list[schemas.LabPreset], 400: Error},
)
@paginate(PageOf, payload=preset_payload)
def preset_list(request: HttpRequest):
    return list(PRESETS.values())


@router.get(
    "/runs/{int:run_id}",
    url_name="labs_run",
    summary="A lab run: status, progress, metrics and the loss curve",
    response={200: schemas.LabRun, 404: Error},
    exclude_unset=True,  # curve points keep the keys the run stored
    openapi_extra=ANYONE,
)
def run_detail(request: HttpRequest, run_id: int):
    run = _visible_run(request, run_id)
    return run_payload(run) | {"queue": run_queue(run)}


@router.get(
    "/runs/{int:run_id}/curve",
    url_name="labs_run_curve",
    summary="A page of a lab run's loss curve",
    response={200: schemas.LabCurvePage, 400: Error, 404: Error},
    exclude_unset=True,  # curve points keep the keys the run stored
    openapi_extra=ANYONE,
)
def run_curve(request: HttpRequest, run_id: int, page: Query[schemas.LabCurvePageQuery]):
    """The points after step `after`, at most `limit`, for a curve too long for one answer, or to
    follow a running run: ask again with `after` set to `next`, or to the last step you have."""
    run = _visible_run(request, run_id)
    points, next_after = selectors.curve_page(run, after=page.after, limit=page.limit)
    progress = {"status": run.status, "done_steps": run.done_steps, "total_steps": run.total_steps}
    return {"points": points, "next": next_after, **progress}


def _visible_run(request: HttpRequest, run_id: int) -> LabRun:
    run = selectors.run_visible(run_id=run_id, user=api_user(request))
    if run is None:
        raise ApiError(404, _("There is no run with this id that you can see."))
    return run


@router.post(
    "/runs/{int:run_id}/cancel",
    auth=LEARNER,
    url_name="labs_run_cancel",
    summary="Cancel a queued or running lab run",
    response={200: schemas.LabRunSummary, 401: Error, 403: Error, 404: Error, 409: Error},
)
def run_cancel(request: HttpRequest, run_id: int):
    """A queued run ends now; a running one is asked to stop (its worker does within a second)."""
    run = selectors.run_owned(run_id=run_id, user=request.auth)
    if run is None:
        raise ApiError(404, _("There is no run of yours with this id."))
    if not services.lab_run_cancel(run=run):
        raise ApiError(409, _("This run had already finished."))
    run.refresh_from_db()
    return run_payload(run, curve=False)


@router.get(
    "/queue",
    url_name="labs_queue",
    summary="The lab queue: connected workers, what each is and runs, how many runs wait, and what is accepted now",
    response=schemas.LabQueue,
    openapi_extra=ANYONE,
)
def queue(request: HttpRequest):
    state = queue_state()
    limits = site_limits(state.workers)
    return {
        "workers": [dataclasses.asdict(worker) for worker in state.workers],
        "waiting": state.waiting,
        "device_classes": list(limits.device_classes),
        "sizes": list(limits.sizes),
        "max_processes": limits.max_processes,
        "limits": limits_text(limits),
    }
