"""Pooling strategies, pure (no Django): one topic's run rankings in, the documents to judge and their order out.

Every strategy returns `Candidate`s, highest priority first; the priority orders the judging queue. A ranking is a
sequence of document ids in trec_eval order. `precedence` (lower first) breaks ties between runs, as TREC lets a
participant say which of their runs to judge first. Documents in `skip` (already judged, e.g. imported qrels) are
never proposed and do not use up a budget.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace

Rankings = Mapping[str, Sequence[int]]  # run tag -> document ids, best first
# Strata of the sampled pool by best rank (first rank of each), and the share of each stratum sampled: the top is
# judged in full, deeper documents ever more sparsely (the design of TREC's infAP/statAP tracks, 2007-2009).
SAMPLE_STRATA = ((1, 1.0), (11, 0.5), (31, 0.2))


@dataclass(frozen=True)
class Candidate:
    document: int
    priority: float
    best_rank: int  # 1-based, over the runs that contributed it
    runs: tuple[str, ...]  # runs that retrieved it within the depth the strategy looked at
    inclusion: float = 1.0  # probability that the strategy pools this document (sampled pools; 1 otherwise)
    stratum: int = 0  # the sampled pool's stratum (0 otherwise)


def _run_order(rankings: Rankings, precedence: Mapping[str, int] | None) -> list[str]:
    precedence = precedence or {}
    return sorted(rankings, key=lambda tag: (precedence.get(tag, 1), tag))


def _candidates(rankings: Rankings, chosen: list[int], depth: int, priority) -> list[Candidate]:
    """Candidates for the chosen documents, with every run that retrieved each within `depth`."""
    wanted = set(chosen)
    seen: dict[int, tuple[int, list[str]]] = {}
    for tag in sorted(rankings):
        for rank, document in enumerate(list(rankings[tag])[:depth], start=1):
            if document in wanted:
                best, runs = seen.get(document, (rank, []))
                seen[document] = (min(best, rank), [*runs, tag])
    return [
        Candidate(document, priority(i, document), seen[document][0], tuple(seen[document][1]))
        for i, document in enumerate(chosen)
    ]


def depth_pool(
    rankings: Rankings, *, depth: int, precedence: Mapping[str, int] | None = None, skip: Collection[int] = ()
) -> list[Candidate]:
    """TREC depth-k pooling: the union of every run's top `depth`; judged by best rank, then by the precedence of
    the best-ranking run."""
    order = _run_order(rankings, precedence)
    best: dict[int, tuple[int, int]] = {}
    for run_index, tag in enumerate(order):
        for rank, document in enumerate(list(rankings[tag])[:depth], start=1):
            if document not in skip:
                best[document] = min(best.get(document, (rank, run_index)), (rank, run_index))
    chosen = sorted(best, key=lambda d: (best[d], d))
    return _candidates(rankings, chosen, depth, lambda i, d: -(best[d][0] + best[d][1] / 1000.0))


def take_n_pool(
    rankings: Rankings, *, budget: int, precedence: Mapping[str, int] | None = None, skip: Collection[int] = ()
) -> list[Candidate]:
    """Take-N by round robin: runs in precedence order each give their best document not yet taken, round after
    round, until `budget` documents are taken (or the runs run out). Judged in the order taken."""
    order = _run_order(rankings, precedence)
    cursors = dict.fromkeys(order, 0)
    chosen: list[int] = []
    taken = set(skip)
    while len(chosen) < budget and any(cursors[t] < len(rankings[t]) for t in order):
        for tag in order:
            ranking = rankings[tag]
            while cursors[tag] < len(ranking) and ranking[cursors[tag]] in taken:
                cursors[tag] += 1
            if cursors[tag] < len(ranking) and len(chosen) < budget:
                chosen.append(ranking[cursors[tag]])
                taken.add(ranking[cursors[tag]])
                cursors[tag] += 1
    depth = max(cursors.values(), default=0)
    return _candidates(rankings, chosen, depth, lambda i, d: float(-i))


def rrf_pool(
    rankings: Rankings, *, budget: int, k: int = 60, skip: Collection[int] = (), **_: object
) -> list[Candidate]:
    """Reciprocal rank fusion (Cormack, Clarke and Büttcher 2009): each document scores sum over runs of
    1 / (k + rank); the `budget` best are pooled and judged in score order (ties by document id)."""
    scores: dict[int, float] = {}
    for tag in sorted(rankings):
        for rank, document in enumerate(rankings[tag], start=1):
            if document not in skip:
                scores[document] = scores.get(document, 0.0) + 1.0 / (k + rank)
    chosen = sorted(scores, key=lambda d: (-scores[d], d))[:budget]
    depth = max((len(r) for r in rankings.values()), default=0)
    return _candidates(rankings, chosen, depth, lambda i, d: scores[d])


def mtf_pool(
    rankings: Rankings,
    *,
    budget: int,
    labels: Mapping[int, int] | None = None,
    relevance_level: int = 1,
    precedence: Mapping[str, int] | None = None,
    skip: Collection[int] = (),
) -> list[Candidate]:
    """Move-to-Front (Cormack, Palmer and Clarke 1998): take documents from the run at the front of the list
    while they turn out relevant; a run whose document is not relevant moves to the back.

    Relevance comes from `labels` (the judgments so far); a document not yet judged is what the assessors will
    judge, so it is taken and, its relevance unknown, counts as not relevant for the run's place. Rebuilding the pool
    as judgments arrive therefore favours the runs that keep finding relevant documents. Judged documents (in
    `labels` or `skip`) are passed over without using the budget.
    """
    labels = labels or {}
    front = list(_run_order(rankings, precedence))
    cursors = dict.fromkeys(front, 0)
    chosen: list[int] = []
    taken: set[int] = set()
    while front and len(chosen) < budget:
        tag = front[0]
        ranking = rankings[tag]
        if cursors[tag] >= len(ranking):
            front.pop(0)
            continue
        document = ranking[cursors[tag]]
        cursors[tag] += 1
        if document in taken:
            continue
        taken.add(document)
        if document in labels or document in skip:
            if labels.get(document, -1) >= relevance_level:
                continue  # relevant: this run stays at the front
        else:
            chosen.append(document)
        front.append(front.pop(0))  # not (known to be) relevant: to the back
    depth = max(cursors.values(), default=0)
    return _candidates(rankings, chosen, depth, lambda i, d: float(-i))


def sampled_pool(
    rankings: Rankings,
    *,
    depth: int,
    seed: int = 0,
    strata: Sequence[tuple[int, float]] = SAMPLE_STRATA,
    precedence: Mapping[str, int] | None = None,
    skip: Collection[int] = (),
) -> list[Candidate]:
    """A stratified random sample of the depth-k union: documents fall in the stratum of their best rank (`strata`
    gives each stratum's first rank and sampling rate), and each stratum of N documents gives n = max(1, round(rate
    * N)) chosen uniformly without replacement, so each has inclusion probability n / N, recorded on the candidate
    for the estimators (`evaluation.analysis.core.estimates`). Judged in best-rank order, like the depth pool.
    Documents in `skip` (already judged) are neither sampled nor counted in N: their labels are known, so the
    estimators count them exactly (inclusion 1), a certainty stratum."""
    full = depth_pool(rankings, depth=depth, precedence=precedence)
    rng = random.Random(seed)
    chosen: list[Candidate] = []
    bounds = [first for first, _ in strata[1:]] + [depth + 1]
    for stratum, ((first, rate), end) in enumerate(zip(strata, bounds, strict=True), start=1):
        members = [c for c in full if first <= c.best_rank < end and c.document not in skip]
        if not members:
            continue
        size = min(len(members), max(1, round(rate * len(members))))
        inclusion = size / len(members)
        chosen += [replace(c, inclusion=inclusion, stratum=stratum) for c in rng.sample(members, size)]
    return sorted(chosen, key=lambda c: -c.priority)


def unique_contributions(candidates: Sequence[Candidate]) -> dict[str, int]:
    """For each run, the pooled documents no other run contributed (what the pool loses without that run)."""
    counts: dict[str, int] = {}
    for candidate in candidates:
        for tag in candidate.runs:
            counts.setdefault(tag, 0)
        if len(candidate.runs) == 1:
            counts[candidate.runs[0]] += 1
    return counts


@dataclass(frozen=True)
class PoolRequest:
    """What a strategy is given for one topic: every chosen run's ranking, the size (a depth or a budget, as the
    strategy's `size` says), run precedence, documents to skip, the topic's labels so far, a seed."""

    rankings: Rankings
    size: int
    precedence: Mapping[str, int] = field(default_factory=dict)
    skip: Collection[int] = ()
    labels: Mapping[int, int] = field(default_factory=dict)
    seed: int = 0


@dataclass(frozen=True)
class PoolStrategy:
    """A pooling strategy as the workbench offers it: its name (the API's, the command's and the stored one), the
    label the pool page shows, whether `size` is a depth or a per-topic budget, and the function that pools."""

    name: str
    label: str
    size: str  # "depth" | "budget"
    pool: Callable[[PoolRequest], list[Candidate]]


# Every strategy, in the order the pool page lists them: choices, dispatch, labels, --help and the docs derive
# from here, so a new strategy is one `register` call beside its function.
REGISTRY: dict[str, PoolStrategy] = {}
STRATEGIES = REGISTRY.keys()  # a live view: a strategy registered later is in it


def register(strategy: PoolStrategy) -> PoolStrategy:
    REGISTRY[strategy.name] = strategy
    return strategy


register(
    PoolStrategy(
        "depth",
        "Depth-k union (TREC)",
        "depth",
        lambda r: depth_pool(r.rankings, depth=r.size, precedence=r.precedence, skip=r.skip),
    )
)
register(
    PoolStrategy(
        "take_n",
        "Take-N: fixed budget per topic, round robin over runs",
        "budget",
        lambda r: take_n_pool(r.rankings, budget=r.size, precedence=r.precedence, skip=r.skip),
    )
)
register(
    PoolStrategy(
        "rrf",
        "Reciprocal rank fusion priority, fixed budget",
        "budget",
        lambda r: rrf_pool(r.rankings, budget=r.size, skip=r.skip),
    )
)
register(
    PoolStrategy(
        "mtf",
        "Move-to-Front (Cormack et al. 1998), fixed budget",
        "budget",
        lambda r: mtf_pool(r.rankings, budget=r.size, labels=r.labels, precedence=r.precedence, skip=r.skip),
    )
)
register(PoolStrategy(
    "sampled",
    "Sampled depth-k: ranks 1-10 in full, 11-30 at 50%, deeper at 20%; measures estimated (statAP)",
    "depth",
    lambda r: sampled_pool(r.rankings, depth=r.size, precedence=r.precedence, skip=r.skip, seed=r.seed),
))  # fmt: skip
