"""What an id may be: a whole number within the primary keys' column (BigAutoField: 1 .. 2^63 - 1). A larger one
reached SQLite as an OverflowError (a 500) and PostgreSQL as an out-of-range error; so every id a request carries,
in its path, body or query, is checked here first and refused as a 400 naming where it came from."""

from __future__ import annotations

from django.utils.deprecation import MiddlewareMixin
from rest_framework import serializers

from config.api_errors import error_response

MAX_ID = 2**63 - 1


def id_problem(value) -> str | None:
    """Why `value` is no id (None when it is one)."""
    if isinstance(value, bool) or not isinstance(value, int):
        return "not a whole number"
    if not 1 <= value <= MAX_ID:
        return f"{value} is out of range for an id (1 to {MAX_ID})"
    return None


def id_given(value) -> int | None:
    """The id a query parameter or form value gives ("42"), or None when it is none (not digits, or out of range)."""
    text = str(value or "").strip()
    if not text.isdigit() or len(text) > 19:
        return None
    number = int(text)
    return None if id_problem(number) else number


class IdField(serializers.IntegerField):
    """An id in an API body: a 400 naming the field for anything outside 1 .. MAX_ID."""

    def __init__(self, **kwargs):
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", MAX_ID)
        super().__init__(**kwargs)


class BoundedPrimaryKeyRelatedField(serializers.PrimaryKeyRelatedField):
    """DRF's PrimaryKeyRelatedField, with an id out of range refused as "does not exist" would be, naming the field
    (DRF's own catches ValueError and TypeError, not the OverflowError SQLite raises)."""

    def to_internal_value(self, data):
        if isinstance(data, int | str) and str(data).lstrip("-").isdigit() and id_problem(int(data)):
            self.fail("does_not_exist", pk_value=data)
        return super().to_internal_value(data)


class IdsInRangeMiddleware(MiddlewareMixin):
    """Refuses a URL whose id parameter (`<int:…_id>`) is past the column's range, before its view runs: a 400
    naming the parameter, JSON under /api/, a page elsewhere."""

    def process_view(self, request, view_func, view_args, view_kwargs):
        for name, value in view_kwargs.items():
            if isinstance(value, int) and (problem := id_problem(value)):
                return error_response(request, 400, f"{name}: {problem}")
        return None
