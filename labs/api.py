"""The labs JSON API: submit, read and cancel runs. Authenticated by session or personal token.

Token requests carry no cookies, so CSRF does not apply to them; session requests are checked
like any form post (`_csrf_refusal`). Errors are JSON: {"error": ..., "fields": {...}}.
"""

import json

from django.conf import settings
from django.http import HttpRequest, JsonResponse
from django.middleware.csrf import CsrfViewMiddleware
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from accounts.auth import api_user, uses_token
from labs.training.config import validate_config
from quizzes.openapi import register as register_openapi

from . import openapi_spec, selectors, services
from .export import run_payload
from .forms import translated_errors
from .queue import queue_state, run_queue
from .throttle import submission_throttled

register_openapi(openapi_spec.PATHS, openapi_spec.COMPONENTS)  # served at /api/openapi.json

MAX_BODY = 16_384


def _error(message: str, status: int, fields: dict | None = None) -> JsonResponse:
    body = {"error": message}
    if fields:
        body["fields"] = fields
    return JsonResponse(body, status=status)


def _not_logged_in() -> JsonResponse:
    return _error(_("Log in, or send a personal API token in the Authorization header (Bearer)."), 401)


def _csrf_refusal(request: HttpRequest) -> JsonResponse | None:
    if uses_token(request):
        return None
    check = CsrfViewMiddleware(lambda _request: None)
    check.process_request(request)
    if check.process_view(request, None, (), {}) is None:
        return None
    return _error(_("The CSRF token is missing or wrong. Reload the page, or use an API token."), 403)


@csrf_exempt  # see _csrf_refusal
@require_POST
def run_create(request: HttpRequest) -> JsonResponse:
    user = api_user(request)
    if not user.is_authenticated:
        return _not_logged_in()
    if refusal := _csrf_refusal(request):
        return refusal
    if len(request.body) > MAX_BODY:
        return _error(_("The request body is too large."), 400)
    try:
        data = json.loads(request.body or b"null")
    except (ValueError, UnicodeDecodeError):
        return _error(_("The body must be a JSON object with the run settings."), 400)
    config, errors = validate_config(data, max_processes=settings.LAB_MAX_PROCESSES)
    if config is None:
        return _error(_("Some settings are not valid."), 400, translated_errors(errors))
    if submission_throttled(request, user):
        return _error(_("You are going a little fast. Please wait a minute and try again."), 429)
    try:
        run = services.lab_run_submit(user=user, config=config)
    except services.LabQuotaError as exc:
        return _error(str(exc), 429)
    body = {
        "id": run.pk,
        "status": run.status,
        "reused": run.reused_from_id is not None,
        "url": request.build_absolute_uri(reverse("labs_api:run", args=[run.pk])),
    }
    return JsonResponse(body, status=201)


@csrf_exempt  # read-only: other methods get a 405, not the CSRF failure page
@require_GET
def run_detail(request: HttpRequest, run_id: int) -> JsonResponse:
    run = selectors.run_visible(run_id=run_id, user=api_user(request))
    if run is None:
        return _error(_("There is no run with this id that you can see."), 404)
    return JsonResponse(run_payload(run) | {"queue": run_queue(run)})


@csrf_exempt  # read-only: other methods get a 405, not the CSRF failure page
@require_GET
def queue(request: HttpRequest) -> JsonResponse:
    state = queue_state()
    workers = [{"name": w.name, "device": w.device, "running": w.running} for w in state.workers]
    return JsonResponse({"workers": workers, "waiting": state.waiting})


@csrf_exempt  # see _csrf_refusal
@require_POST
def run_cancel(request: HttpRequest, run_id: int) -> JsonResponse:
    user = api_user(request)
    if not user.is_authenticated:
        return _not_logged_in()
    if refusal := _csrf_refusal(request):
        return refusal
    run = selectors.run_owned(run_id=run_id, user=user)
    if run is None:
        return _error(_("There is no run of yours with this id."), 404)
    if not services.lab_run_cancel(run=run):
        return _error(_("This run had already finished."), 409)
    run.refresh_from_db()
    return JsonResponse(run_payload(run, curve=False))
