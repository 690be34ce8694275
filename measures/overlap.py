"""How alike two rankings are, with no judgment: Jaccard of their top k sets, and rank-biased overlap (Webber,
Moffat and Zobel, "A similarity measure for indefinite rankings", TOIS 2010), as OpenSearch's search relevance
workbench compares two search configurations. Pure.

RBO here is the extrapolated RBO_ext of Webber et al.'s equation (32), for rankings of lengths s <= l (their top k
when a k is given):

    RBO_ext = (1 - p) / p * ( sum_{d=1..l} X_d / d * p^d + sum_{d=s+1..l} X_s (d - s) / (s d) * p^d )
              + ( (X_l - X_s) / l + X_s / s ) * p^l

where X_d is the overlap of the two prefixes of depth d (the shorter ranking's prefix stops growing at s). Two
identical rankings score 1, two disjoint ones 0; p = 0.9 weighs the top 10 at about 86%.
"""

from __future__ import annotations

from collections.abc import Sequence


def jaccard(a: Sequence[str], b: Sequence[str], k: int | None = None) -> float:
    left, right = set(a[:k] if k else a), set(b[:k] if k else b)
    union = left | right
    return len(left & right) / len(union) if union else 1.0


def rbo(a: Sequence[str], b: Sequence[str], p: float = 0.9, k: int | None = None) -> float:
    """Extrapolated rank-biased overlap of `a` and `b` (each without repeats), cut at `k` when given."""
    a, b = list(a[:k] if k else a), list(b[:k] if k else b)
    if not a and not b:
        return 1.0
    if not a or not b:
        return 0.0
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    s, l = len(short), len(long_)  # noqa: E741 (the paper's names)
    seen_short, seen_long, overlap = set(), set(), 0
    x = [0] * (l + 1)
    for d in range(1, l + 1):
        if d <= s:
            item = short[d - 1]
            seen_short.add(item)
            overlap += item in seen_long
        item = long_[d - 1]
        seen_long.add(item)
        overlap += item in seen_short
        x[d] = overlap
    total = sum(x[d] / d * p**d for d in range(1, l + 1))
    total += sum(x[s] * (d - s) / (s * d) * p**d for d in range(s + 1, l + 1))
    return (1 - p) / p * total + ((x[l] - x[s]) / l + x[s] / s) * p**l
