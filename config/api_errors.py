"""The JSON API's one error shape, and how every error reaches it.

Every error the API answers (config/api.py; also the site's 403, 404, 429 and 500 under /api/, and
a method a path does not take, 405) is:

    {"error": "Some settings are not valid.", "fields": [{"field": "steps", "message": "..."}]}

`error` says what went wrong in the reader's language (Accept-Language, set by LocaleMiddleware);
`fields` lists the values to correct, empty when no single value is at fault, and `field` is null
for a message about the request as a whole (e.g. settings that break a rule across fields).
"""

from collections.abc import Callable, Iterable
from functools import wraps

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotAllowed, JsonResponse
from django.urls import URLPattern
from django.utils.translation import gettext as _
from ninja import NinjaAPI, Schema
from ninja.errors import AuthenticationError, HttpError, ValidationError
from pydantic_core import PydanticCustomError

from .waits import with_retry_after

INVALID_FIELDS = "invalid_fields"  # the pydantic error type that carries ready-made field messages


class ErrorField(Schema):
    field: str | None
    message: str


class Error(Schema):
    error: str
    fields: list[ErrorField] = []


class ApiError(Exception):
    """Raised by API views (and auth classes): answered as the error shape with this status."""

    def __init__(
        self,
        status: int,
        message: str,
        fields: Iterable[tuple[str | None, str]] = (),
        *,
        retry_after: int | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.fields = list(fields)
        self.retry_after = retry_after  # seconds, sent as Retry-After (every 429 has it)


class BodyUnreadable(ValueError):
    """Raised by the API's parser; ninja wraps it in a 400 HttpError, answered with this message."""


def error_body(message: str, fields: Iterable[tuple[str | None, str]] = ()) -> dict:
    return {"error": message, "fields": [{"field": field, "message": text} for field, text in fields]}


def invalid_fields(summary: str, fields: Iterable[tuple[str | None, str]]) -> PydanticCustomError:
    """For a schema validator: refuse the input, saying `summary` and, for each (field, message)
    pair, what to correct (all translated already)."""
    pairs = [(field, str(message)) for field, message in fields]
    return PydanticCustomError(INVALID_FIELDS, "{summary}", {"summary": str(summary), "fields": pairs})


def _validation_fields(errors: list[dict]) -> list[tuple[str | None, str]]:
    pairs: list[tuple[str | None, str]] = []
    for error in errors:
        if error["type"] == INVALID_FIELDS:
            pairs += [tuple(pair) for pair in error["ctx"]["fields"]]
            continue
        source, *rest = error["loc"]  # ("body", <the body's parameter>, field...) or ("path", name)
        where = [str(part) for part in (rest[1:] if source == "body" else rest)]
        if not where and error["type"] == "missing":
            pairs.append((None, _("The request needs a JSON body.")))
        elif error["type"] == "missing":
            pairs.append((".".join(where), _("This value is required.")))
        else:
            pairs.append((".".join(where) or None, _value_message(error)))
    return pairs


def _value_message(error: dict) -> str:
    """What is wrong with one value, as far as the schema's own checks say (whole numbers, bounds)."""
    bound = error.get("ctx", {})
    if error["type"] == "int_parsing":
        return _("This value must be a whole number.")
    if error["type"] == "greater_than_equal":
        return _("This value must be at least %(limit)s.") % {"limit": bound["ge"]}
    if error["type"] == "less_than_equal":
        return _("This value must be at most %(limit)s.") % {"limit": bound["le"]}
    return _("This value is not valid.")


def install_error_handlers(api: NinjaAPI) -> None:
    def answer(request: HttpRequest, status: int, message: str, fields=()) -> HttpResponse:
        return api.create_response(request, error_body(message, fields), status=status)

    @api.exception_handler(ApiError)
    def api_error(request: HttpRequest, exc: ApiError) -> HttpResponse:
        return with_retry_after(answer(request, exc.status, exc.message, exc.fields), exc.retry_after)

    @api.exception_handler(ValidationError)
    def invalid(request: HttpRequest, exc: ValidationError) -> HttpResponse:
        summaries = [error["ctx"]["summary"] for error in exc.errors if error["type"] == INVALID_FIELDS]
        summary = summaries[0] if summaries else _("Some values in the request are not valid.")
        return answer(request, 400, summary, _validation_fields(exc.errors))

    @api.exception_handler(AuthenticationError)
    def not_logged_in(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
        message = _("Log in, or send a personal API token in the Authorization header (Bearer).")
        return answer(request, 401, message)

    @api.exception_handler(Http404)
    def not_found(request: HttpRequest, exc: Http404) -> HttpResponse:
        return answer(request, 404, _("There is nothing at this address."))

    @api.exception_handler(HttpError)
    def http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
        # ninja raises these itself: a body it could not parse (400) is the only one we can meet.
        if isinstance(exc.__cause__, BodyUnreadable):
            return answer(request, exc.status_code, str(exc.__cause__))
        return answer(request, exc.status_code, _("The request could not be understood."))


def json_method_not_allowed(urls: tuple[list[URLPattern], str, str]) -> tuple[list[URLPattern], str, str]:
    """ninja's URL patterns (`api.urls`), each answering a method its path does not take (ninja
    answers in plain text, before any exception handler) with the error shape and the same Allow."""
    patterns, app_name, namespace = urls
    wrapped = [URLPattern(p.pattern, _json_405(p.callback), p.default_args, p.name) for p in patterns]
    return wrapped, app_name, namespace


def _json_405(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    @wraps(view)  # keeps csrf_exempt: the API checks CSRF itself, for session logins only
    def answering_json(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        response = view(request, *args, **kwargs)
        if not isinstance(response, HttpResponseNotAllowed):
            return response
        allowed = ", ".join(sorted(response["Allow"].split(", ")))  # ninja lists a set: in any order
        message = _("This address does not take %(method)s requests, only %(allowed)s.")
        body = error_body(message % {"method": request.method, "allowed": allowed})
        answer = JsonResponse(body, status=405, json_dumps_params={"ensure_ascii": False})
        answer["Allow"] = allowed
        return answer

    return answering_json
