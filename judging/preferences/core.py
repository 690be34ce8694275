"""Which two documents an assessor compares next, pure: a knockout tournament over a topic's candidates that ranks
its top k with few comparisons (n - 1 for the best, then about log2 n more for each next one), after Clarke et al.,
"Assessing top-k preferences" (TOIS 2021), who find the top of a pool by pairwise preferences among the documents
graded best.

The candidates keep their places in a fixed bracket, in prior order (best prior first): each round pairs slots
(1, 2), (3, 4)...; the better of each pair, by the assessor's own preference, goes on. A tie ("equally good", or
"both not relevant") sends the one with the better prior on, as does a slot with no opponent. When a winner is
found its slot empties and the bracket is replayed: every comparison already made is reused, so only the matches
along the winner's path are new. The next comparison is the first unanswered match in bracket order.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

Pair = frozenset  # of two candidates
Winner = Hashable | None  # the preferred candidate, or None for a tie


@dataclass
class Standing:
    top: list  # the candidates ranked so far, best first
    next_pair: tuple | None  # the next comparison to make (in prior order), None when the top k are known
    left: int  # comparisons still to make, if ties and priors hold (an estimate: later matches depend on answers)


def _bracket(slots: list, known: Mapping[Pair, Winner], assume: bool) -> tuple[Hashable | None, list[tuple]]:
    """(the winner, the unanswered matches met in bracket order). With `assume`, an unanswered match goes to the
    better prior and play goes on (to count what is left); without, the winner is None if any match is unanswered."""
    missing: list[tuple] = []
    rank = {slot: i for i, slot in enumerate(slots) if slot is not None}
    while len(slots) > 1:
        following = []
        for i in range(0, len(slots), 2):
            a, b = slots[i], slots[i + 1] if i + 1 < len(slots) else None
            if a is None or b is None:
                following.append(a if b is None else b)
                continue
            pair = Pair((a, b))
            if pair in known:
                winner = known[pair]
                following.append(winner if winner is not None else min(a, b, key=rank.__getitem__))
            else:
                missing.append((a, b) if rank[a] < rank[b] else (b, a))
                following.append(min(a, b, key=rank.__getitem__))
        slots = following
    winner = slots[0] if slots else None
    return (winner if assume or not missing else None), missing


def standing(candidates: Sequence[Hashable], known: Mapping[Pair, Winner], k: int) -> Standing:
    """Where the assessor's tournament stands: `candidates` in prior order, `known` their answers so far
    ({frozenset((a, b)): the preferred one, or None for a tie}), `k` how many to rank."""
    slots = list(candidates)
    top: list = []
    next_pair = None
    while len(top) < min(k, len(candidates)):
        winner, missing = _bracket(slots, known, assume=False)
        if winner is None:
            next_pair = missing[0]
            break
        top.append(winner)
        slots[slots.index(winner)] = None
    left, simulated, ranked = 0, list(slots), len(top)
    while next_pair is not None and ranked < min(k, len(candidates)):
        winner, missing = _bracket(simulated, known, assume=True)
        left += len(missing)
        known = {**known, **{Pair(m): m[0] for m in missing}}
        simulated[simulated.index(winner)] = None
        ranked += 1
    return Standing(top, next_pair, left)
