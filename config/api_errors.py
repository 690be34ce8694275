"""Error answers. The API's: one JSON shape for every error, so scripts handle them alike:

    {"error": {"status": 400, "code": "invalid", "message": "grade: ...", "fields": {"grade": ["..."]}}}

`fields` is present for validation errors only; `message` is always a readable sentence.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from rest_framework.views import exception_handler


def _flatten(detail, prefix: str = "") -> list[str]:
    if isinstance(detail, dict):
        return [line for key, value in detail.items() for line in _flatten(value, f"{prefix}{key}: ")]
    if isinstance(detail, list):
        return [line for value in detail for line in _flatten(value, prefix)]
    return [f"{prefix}{detail}"]


def api_exception_handler(exc, context):
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


def api_not_found(request: HttpRequest, path: str = "") -> JsonResponse:
    """Unknown API URLs answer JSON in the same shape, not the HTML 404 page."""
    message = f"no API endpoint at /api/{path}"
    return JsonResponse({"error": {"status": 404, "code": "not_found", "message": message}}, status=404)


def page_bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Pages' 400s say what was wrong with the request (Django's default page says only "Bad Request")."""
    message = str(exception) or "the request was not understood"
    return render(request, "400.html", {"message": message}, status=400)
