"""Bradley–Terry scores from pairwise preferences, pure, and graded labels cut from them.

Each item's strength is fitted by Hunter's MM algorithm ("MM algorithms for generalized Bradley–Terry models",
Annals of Statistics 2004). A tie counts half a win each way. Every item also plays one virtual game against a
reference of strength 1, won and lost half each (a weak prior), so that an item that never lost or never won keeps a
finite score and items compared with nobody score 1.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence

import numpy as np

PRIOR_GAMES = 1.0


def bradley_terry(
    items: Sequence[Hashable], games: Iterable[tuple[Hashable, Hashable, float]], *, iterations: int = 500
) -> dict[Hashable, float]:
    """{item: strength} (geometric mean 1) from `games`: (a, b, a's share of the win: 1, 0 or 0.5 for a tie)."""
    index = {item: i for i, item in enumerate(items)}
    n = len(items)
    wins = np.full(n, PRIOR_GAMES / 2)
    played = np.zeros((n, n))
    for a, b, share in games:
        i, j = index[a], index[b]
        wins[i] += share
        wins[j] += 1.0 - share
        played[i, j] += 1.0
        played[j, i] += 1.0
    strength = np.ones(n)
    for _ in range(iterations):
        denominator = (played / (strength[:, None] + strength[None, :])).sum(axis=1) + PRIOR_GAMES / (strength + 1.0)
        updated = wins / denominator
        updated /= np.exp(np.mean(np.log(updated)))
        done = np.allclose(updated, strength, rtol=1e-10, atol=0.0)
        strength = updated
        if done:
            break
    return {item: float(strength[index[item]]) for item in items}


def grades_from_strengths(
    strengths: dict[Hashable, float], *, max_grade: int, nonrelevant: set[Hashable] = frozenset()
) -> dict[Hashable, int]:
    """Grades cut from strengths: an item judged not relevant 0; the others, strongest first, split into
    `max_grade` groups of (as near as can be) equal size, the strongest getting `max_grade` and the weakest 1."""
    ranked = sorted((item for item in strengths if item not in nonrelevant), key=lambda item: -strengths[item])
    grades = {item: 0 for item in strengths if item in nonrelevant}
    for position, item in enumerate(ranked):
        grades[item] = max_grade - (position * max_grade) // len(ranked)
    return grades
