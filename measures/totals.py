"""Exact running totals over topics, so a run's aggregate can follow one topic's change at a time.

A float64 is an integer multiple of 2**-1074, so scaling by 2**1074 turns every per-topic value into a Python int
and their sum is exact whatever order topics arrive and leave in: adding the new value and subtracting the old one
never drifts. Rounding the exact total once gives math.fsum of the values, so the stored mean is always the correctly
rounded mean of the stored per-topic values. (trec_eval sums sequentially; the two can differ in the last bit.)
"""

from __future__ import annotations

from collections.abc import Iterable

from measures.aggregates import aggregate_of

SCALE = 1074


def _exact(value: float) -> int:
    numerator, denominator = value.as_integer_ratio()  # the denominator is a power of two, at most 2**1074
    return numerator << (SCALE + 1 - denominator.bit_length())  # times 2**1074 / denominator, as a shift


def term(kind: str, value: float | None) -> int:
    """What one topic's value adds to its run's total: the value itself, or for a geometric mean (GMAP) the log of
    the value floored at trec_eval's 1e-5. Undefined values (None) add nothing."""
    if value is None:
        return 0
    return _exact(aggregate_of(kind).scaled(value))


def finish(kind: str, total: int, defined: int) -> float | None:
    """The aggregate from an exact total over `defined` topics: the sum, the mean or exp(mean of logs)."""
    rounded = total / (1 << SCALE)  # int true division is correctly rounded, as math.fsum is
    aggregate = aggregate_of(kind)
    if aggregate.summed:
        return rounded
    if defined == 0:
        return None
    return aggregate.unscaled(rounded / defined)


def aggregate_exactly(kind: str, values: Iterable[float | None]) -> float | None:
    """The aggregate of a run's per-topic values computed from scratch the same way; what the totals must equal."""
    values = [v for v in values if v is not None]
    return finish(kind, sum(term(kind, v) for v in values), len(values))


def encode(total: int) -> str:
    """A compact text form (hex odd part and a shift), since the scaled integers run to hundreds of digits."""
    if total == 0:
        return "0"
    shift = (total & -total).bit_length() - 1
    return f"{total >> shift:x}<<{shift}"


def decode(text: str) -> int:
    if not text or text == "0":
        return 0
    odd, shift = text.split("<<")
    return int(odd, 16) << int(shift)
