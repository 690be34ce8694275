"""Checks every imported value must pass before it reaches the database, each answering a reason a person reads:
identifiers under one policy (`judging.core.identifiers`), no NUL characters (PostgreSQL stores none) nor lone
surrogates (no encoding can store them), lengths the columns hold, and JSON shallow enough to store and show."""

from __future__ import annotations

from config.core.strict_json import MAX_JSON_DEPTH, NUL_REASON, json_problem, surrogate_problem
from judging.core.identifiers import identifier, identifier_problem

__all__ = ["MAX_JSON_DEPTH", "NUL_REASON", "identifier", "identifier_problem", "json_problem", "text_problem"]


def text_problem(value: str, max_chars: int | None = None) -> str | None:
    if "\x00" in value:
        return NUL_REASON
    surrogate = surrogate_problem(value)
    if surrogate:
        return surrogate
    if max_chars is not None and len(value) > max_chars:
        return f"{len(value):,} characters long; at most {max_chars:,} allowed"
    return None
