"""JSON read as people mean it (imports and the API): a number too large for a float (`1e400`) and NaN or
Infinity are refused rather than read as infinity, and a key given twice in one object is refused rather than
silently taking the last value. Pure: no Django."""

from __future__ import annotations

import json
import math


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
