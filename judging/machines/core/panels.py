"""A panel of judges, pure: its members' grades of a pair combined into one, by majority (the most frequent grade,
a tie to the lower middle of the tied grades, as a sampled judge's votes) or by mean (rounded half up: 1.5 is 2).
A pair is combined from the members that labelled it; the members' grades are kept as its votes."""

from __future__ import annotations

import math
from collections.abc import Sequence

from judging.machines.core.judge import majority

COMBINATIONS = ("majority", "mean")


def combined(grades: Sequence[int], how: str) -> int:
    if not grades:
        raise ValueError("a panel combines at least one member's grade")
    if how == "majority":
        return majority(grades)
    if how == "mean":
        return math.floor(sum(grades) / len(grades) + 0.5)
    raise ValueError(f"combine by one of {', '.join(COMBINATIONS)}, not {how!r}")
