"""Checks every imported value must pass before it reaches the database, each answering a reason a person reads:
identifiers under one policy (`judging.core.identifiers`), no NUL characters (PostgreSQL stores none) nor lone
surrogates (no encoding can store them), lengths the columns hold, and JSON shallow enough to store and show."""

from __future__ import annotations

import re

from judging.core.identifiers import identifier, identifier_problem

__all__ = ["identifier", "identifier_problem", "json_problem", "text_problem"]

MAX_JSON_DEPTH = 32
NUL_REASON = "contains a NUL character"


_SURROGATE = re.compile(r"[\ud800-\udfff]")


def text_problem(value: str, max_chars: int | None = None) -> str | None:
    if "\x00" in value:
        return NUL_REASON
    if not value.isascii() and _SURROGATE.search(value):
        found = _SURROGATE.search(value).group()
        return f"contains the lone surrogate U+{ord(found):04X}, which is not a character (a broken \\u escape?)"
    if max_chars is not None and len(value) > max_chars:
        return f"{len(value):,} characters long; at most {max_chars:,} allowed"
    return None


def json_problem(value, max_depth: int = MAX_JSON_DEPTH) -> str | None:
    """A NUL in any key or string, or nesting deeper than `max_depth`; walked without recursion."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > max_depth:
                return f"nested more than {max_depth} levels deep"
            if isinstance(item, dict):
                for key, inner in item.items():
                    if "\x00" in key:
                        return f"a key {NUL_REASON}"
                    stack.append((inner, depth + 1))
            else:
                stack.extend((inner, depth + 1) for inner in item)
        elif isinstance(item, str) and "\x00" in item:
            return NUL_REASON
    return None
