"""JSON read as people mean it (imports and the API): a number too large for a float (`1e400`) and NaN or
Infinity are refused rather than read as infinity, and a key given twice in one object is refused rather than
silently taking the last value. `record` reads one line of a JSONL file (documents, topics, RAG answers, nuggets,
assignments, logs) the one way every reader does: a reason a person reads for anything that would not store.
Pure: no Django."""

from __future__ import annotations

import json
import math
import re

MAX_JSON_DEPTH = 32
NUL_REASON = "contains a NUL character"
_SURROGATE = re.compile(r"[\ud800-\udfff]")


class StrictJSONError(ValueError):
    """Valid JSON syntax that would not mean what it says once read."""


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise StrictJSONError(f"the number {text} is too large to represent")
    return value


def _no_constant(name: str):
    raise StrictJSONError(f"{name} is not a number JSON allows")


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise StrictJSONError(f"the key {key!r} appears twice in one object")
        seen.add(key)
    return dict(pairs)


def loads(text: str | bytes):
    """`json.loads`, refusing what `StrictJSONError` says (raised as that, a ValueError)."""
    return json.loads(text, parse_float=_finite, parse_constant=_no_constant, object_pairs_hook=_unique_keys)


class RecordError(StrictJSONError):
    """A JSONL line that is no storable object: `reason` a person reads, `key` the top-level key at fault (or None)."""

    def __init__(self, reason: str, key: str | None = None):
        super().__init__(reason)
        self.reason, self.key = reason, key


def surrogate_problem(text: str) -> str | None:
    if text.isascii():
        return None
    found = _SURROGATE.search(text)
    if found is None:
        return None
    return f"contains the lone surrogate U+{ord(found.group()):04X}, which is not a character (a broken \\u escape?)"


def json_problem(value, max_depth: int = MAX_JSON_DEPTH) -> str | None:
    """A NUL or a lone surrogate in any key or string (no database stores them), or nesting deeper than
    `max_depth`; walked without recursion."""
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
                    reason = surrogate_problem(key)
                    if reason:
                        return f"a key {reason}"
                    stack.append((inner, depth + 1))
            else:
                stack.extend((inner, depth + 1) for inner in item)
        elif isinstance(item, str):
            if "\x00" in item:
                return NUL_REASON
            reason = surrogate_problem(item)
            if reason:
                return reason
    return None


def record(text: str | bytes) -> dict:
    """One JSONL line as the object it holds; RecordError (with the top-level key at fault, where there is one) for
    text that is not JSON, JSON nested past MAX_JSON_DEPTH (5,000 brackets are a RecursionError in Python's reader),
    what `loads` refuses, anything but an object, and a NUL or lone surrogate anywhere in it."""
    try:
        value = loads(text)
    except json.JSONDecodeError as error:
        raise RecordError(f"not valid JSON ({error.msg} at column {error.colno})") from None
    except RecordError:
        raise
    except StrictJSONError as error:
        raise RecordError(str(error)) from None
    except RecursionError:
        raise RecordError(f"JSON nested more than {MAX_JSON_DEPTH} levels deep") from None
    if not isinstance(value, dict):
        raise RecordError("expected a JSON object per line")
    reason = json_problem(value)
    if reason:
        key = next((k for k, v in value.items() if json_problem({k: v})), None)
        raise RecordError(reason, key)
    return value
