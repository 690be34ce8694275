"""Error answers. The API's: one JSON shape for every error, so scripts handle them alike:

    {"error": {"status": 400, "code": "invalid", "message": "grade: ...", "fields": {"grade": ["..."]}}}

`fields` is present for validation errors only; `message` is always a readable sentence. Pages get a styled page
with a way back; a URL under /api/ always gets the JSON shape, whatever failed (even outside DRF).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.core.exceptions import DisallowedHost
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from rest_framework import exceptions
from rest_framework.exceptions import APIException
from rest_framework.views import exception_handler

PAGES = {
    400: ("bad_request", "That request could not be answered", "the request was not understood"),
    403: ("permission_denied", "Not for your role", "your account may not open this page"),
    404: ("not_found", "Nothing here", "there is no such page, or it was removed"),
    409: ("conflict", "Someone else just did the same", "another request saved the same thing a moment ago"),
    413: ("too_large", "That file is too large", "the upload is larger than this server accepts"),
    500: ("server_error", "Something went wrong on our side", "the error was logged; try again in a moment"),
}


def _flatten(detail, prefix: str = "") -> list[str]:
    if isinstance(detail, dict):
        return [line for key, value in detail.items() for line in _flatten(value, f"{prefix}{key}: ")]
    if isinstance(detail, list):
        return [line for value in detail for line in _flatten(value, prefix)]
    return [f"{prefix}{detail}"]


class _DomainError(APIException):
    """A domain error that carries its own HTTP status and code (e.g. the full item's 409)."""

    def __init__(self, error: Exception):
        self.status_code = error.http_status
        super().__init__(detail=str(error), code=getattr(error, "code", "error"))


def taken_constraint(error: Exception) -> str | None:
    """The unique constraint (or, in SQLite, its table's columns) that `error` broke, or None for any other error.

    A service checks a name or a pair is free before it writes, and the constraint has the last word: when two
    requests pass the check together (a double click, two organizers), the second insert breaks it. That is a
    conflict to answer (409, nothing of the request kept: its transaction rolled back), not a server error. Other
    integrity errors (a missing row, a NULL) are bugs and stay 500s."""
    if not isinstance(error, IntegrityError):
        return None
    cause = error.__cause__
    diag = getattr(cause, "diag", None)
    if diag is not None:  # psycopg: SQLSTATE 23505 is unique_violation
        return (diag.constraint_name or "unique") if getattr(cause, "sqlstate", None) == "23505" else None
    text = str(error)
    return text.removeprefix("UNIQUE constraint failed: ") if text.startswith("UNIQUE constraint failed") else None


def conflict_message(constraint: str) -> str:
    return (
        f"another request saved the same thing a moment ago ({constraint}); nothing of this one was kept: reload to "
        "see it, and try again if it is still needed"
    )


class _Conflict(APIException):
    status_code, default_code = 409, "conflict"


def _as_api_error(exc):
    """Django's and the services' errors as DRF's, so that every view answers them in the one shape without a
    try/except of its own: a ValidationError names its fields; a domain error its status and code; a broken unique
    constraint is a conflict."""
    if getattr(exc, "http_status", None):
        return _DomainError(exc)
    constraint = taken_constraint(exc)
    if constraint is not None:
        return _Conflict(conflict_message(constraint))
    if isinstance(exc, DjangoValidationError):
        detail = exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        return exceptions.ValidationError(detail)
    return exc


def api_exception_handler(exc, context):
    exc = _as_api_error(exc)
    response = exception_handler(exc, context)
    if response is None:
        return None
    detail = response.data
    code = getattr(exc, "default_code", "error")
    error = {"status": response.status_code, "code": code}
    if isinstance(detail, dict) and set(detail) == {"detail"}:
        error["message"] = str(detail["detail"])
        code = getattr(detail["detail"], "code", None)
        error["code"] = code or error["code"]
    else:
        error["message"] = "; ".join(_flatten(detail))
        error["fields"] = detail if isinstance(detail, dict) else {"non_field_errors": detail}
    response.data = {"error": error}
    return response


CODES = {400: "invalid", 403: "permission_denied", 404: "not_found", 409: "conflict", 413: "too_large"}


def error_answer(status: int, message: str, *, code: str | None = None, fields: dict | None = None) -> JsonResponse:
    """The one JSON error shape (this module's docstring), for every answer that is not DRF's: the pages' scripts
    read `error.message` as the API's clients do."""
    error = {"status": status, "code": code or CODES.get(status, "error"), "message": message}
    if fields:
        error["fields"] = fields
    return JsonResponse({"error": error}, status=status)


def api_not_found(request: HttpRequest, path: str = "") -> JsonResponse:
    """Unknown API URLs answer JSON in the same shape, not the HTML 404 page."""
    return error_answer(404, f"no API endpoint at /api/{path}")


def _same_site_referer(request: HttpRequest) -> str:
    referer = request.headers.get("Referer", "")
    parts = urlsplit(referer)
    try:
        host = request.get_host()
    except DisallowedHost:  # the error being answered may be this very host's refusal: no link back, no second error
        return ""
    return referer if parts.netloc == host and parts.path != request.path else ""


def error_response(request: HttpRequest, status: int, message: str = "") -> HttpResponse:
    code, title, default = PAGES[status]
    message = message or default
    if request.path.startswith("/api/"):
        return error_answer(status, message, code=code)
    context = {"status": status, "title": title, "message": message, "back": _same_site_referer(request)}
    return render(request, "error.html", context, status=status)


def _message(exception) -> str:
    text = str(exception.args[0]) if exception and exception.args else ""
    return text if text and not text.startswith(("{", "<")) else ""


def page_bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Pages' 400s say what was wrong with the request (Django's default page says only "Bad Request")."""
    return error_response(request, 400, str(exception) or "")


def page_forbidden(request: HttpRequest, exception: Exception) -> HttpResponse:
    return error_response(request, 403, _message(exception))


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    return error_response(request, 404)


def page_server_error(request: HttpRequest) -> HttpResponse:
    return error_response(request, 500)


class ConflictMiddleware:
    """Pages answer a broken unique constraint as the API does: a 409 page saying what happened, not a 500."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        constraint = taken_constraint(exception)
        return None if constraint is None else error_response(request, 409, conflict_message(constraint))
