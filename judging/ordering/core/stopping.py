"""Where a campaign stands and when to stop, pure (no Django): from what is judged so far, the relevant documents
still expected in the unjudged part of the pool, and how likely the runs' MAP leaderboard is to change before the
pool is fully judged.

The unjudged documents' probability of relevance comes from a logistic regression on what every run says about
them (best rank, share of runs retrieving them, mean reciprocal rank), fitted on the judged documents of all topics
(the features mean the same in every topic); before there are judged documents of both kinds, a topic's smoothed
share of relevant judged documents. Drawing the unjudged labels from those probabilities gives plausible final
qrels; in each draw, every run's MAP is computed (as trec_eval, unjudged = not relevant, R from the draw) and the
leaderboard compared with today's (judged labels only) by Kendall's tau-b and by the order of its top five. A
campaign is stable when at least STABLE_SHARE of the draws keep tau >= TAU_THRESHOLD.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from judging.ordering.core.orders import is_relevant
from measures import kendall_tau

TAU_THRESHOLD = 0.9
STABLE_SHARE = 0.95
DRAWS = 200
TOP = 5


@dataclass(frozen=True)
class TopicInput:
    """One topic: each run's ranking (document ids, best first), the pooled documents, and the labels so far
    (document id: the grade read for the leaderboard, None for 'cannot judge')."""

    number: str
    rankings: Mapping[str, Sequence[int]]
    pool: Sequence[int]
    labels: Mapping[int, int | None]


@dataclass
class TopicStanding:
    number: str
    pooled: int
    judged: int
    relevant_found: int
    relevant_expected_left: float


@dataclass
class Standing:
    topics: list[TopicStanding]
    unjudged: int
    relevant_found: int
    relevant_expected_left: float
    stability: float | None  # share of draws with tau >= TAU_THRESHOLD (None without two runs or any judgment)
    top_stability: float | None  # share of draws keeping the top-TOP runs in today's order
    tau_median: float | None
    draws: int
    stable: bool
    runs: list[str] = field(default_factory=list)

    @property
    def recall_estimate(self) -> float | None:
        total = self.relevant_found + self.relevant_expected_left
        return self.relevant_found / total if total else None


class _Topic:
    """A topic's documents (pooled or judged) as indexes, and every run's ranks of them."""

    def __init__(self, data: TopicInput, tags: list[str]):
        self.documents = list(dict.fromkeys([*map(int, data.pool), *map(int, data.labels)]))
        index = {d: i for i, d in enumerate(self.documents)}
        self.ranks = np.zeros((len(tags), len(self.documents)))  # 0: not retrieved
        for row, tag in enumerate(tags):
            for rank, document in enumerate(data.rankings.get(tag, ()), start=1):
                column = index.get(int(document))
                if column is not None:
                    self.ranks[row, column] = rank
        self.judged = np.array([d in data.labels for d in self.documents], dtype=bool)

    def features(self) -> np.ndarray:
        retrieved = self.ranks > 0
        reciprocal = np.where(retrieved, 1.0 / np.where(retrieved, self.ranks, 1.0), 0.0)
        best = np.where(retrieved, self.ranks, np.inf).min(axis=0, initial=np.inf)  # no run at all: every one inf
        share = retrieved.mean(axis=0) if len(self.ranks) else np.zeros(len(self.documents))
        best_term = np.where(np.isfinite(best), 1.0 / np.log2(1.0 + np.where(np.isfinite(best), best, 1.0)), 0.0)
        return np.column_stack([best_term, share, reciprocal.mean(axis=0) if len(self.ranks) else share])

    def average_precision(self, relevant: np.ndarray) -> np.ndarray:
        """(draws x runs) AP of every run for (draws x documents) relevance; documents outside this topic's set
        are not relevant, so only their ranks matter, which `self.ranks` holds."""
        runs = self.ranks.shape[0]
        values = np.zeros((relevant.shape[0], runs))
        total = relevant.sum(axis=1)
        for run in range(runs):
            retrieved = np.flatnonzero(self.ranks[run] > 0)
            if not len(retrieved):
                continue
            order = retrieved[np.argsort(self.ranks[run, retrieved])]
            hits = relevant[:, order].astype(np.float64)
            precision = np.cumsum(hits, axis=1) / self.ranks[run, order][None, :]
            values[:, run] = (hits * precision).sum(axis=1)
        return np.divide(values, total[:, None], out=np.zeros_like(values), where=total[:, None] > 0)


def _probabilities(topics: list[_Topic], judged_relevant: list[np.ndarray]) -> list[np.ndarray]:
    features = np.vstack([t.features() for t in topics]) if topics else np.zeros((0, 3))
    judged = np.concatenate([t.judged for t in topics]) if topics else np.zeros(0, bool)
    target = np.concatenate(judged_relevant) if topics else np.zeros(0, bool)
    if len(set(target[judged].tolist())) == 2:
        from sklearn.linear_model import LogisticRegression

        model = LogisticRegression(max_iter=500).fit(features[judged], target[judged])
        flat = model.predict_proba(features)[:, 1]
        cuts = np.cumsum([len(t.documents) for t in topics])[:-1]
        return np.split(flat, cuts)
    shares = []
    for topic, relevant in zip(topics, judged_relevant, strict=True):
        rate = (relevant[topic.judged].sum() + 1.0) / (topic.judged.sum() + 2.0)
        shares.append(np.full(len(topic.documents), rate))
    return shares


def campaign_standing(
    topics: Sequence[TopicInput],
    *,
    relevance_level: int = 1,
    draws: int = DRAWS,
    seed: int = 0,
) -> Standing:
    """Per topic and overall: relevant documents found and expected among the unjudged pooled ones; the MAP
    leaderboard's stability over `draws` plausible completions of the qrels (see the module docstring)."""
    tags = sorted({tag for topic in topics for tag in topic.rankings})
    prepared = [_Topic(topic, tags) for topic in topics]
    relevant = [
        np.array([is_relevant(data.labels.get(d), relevance_level) for d in topic.documents], dtype=bool)
        for data, topic in zip(topics, prepared, strict=True)
    ]
    probabilities = _probabilities(prepared, relevant)
    rng = np.random.default_rng(seed)
    rows, unjudged = [], 0
    current = np.zeros(len(tags))
    drawn = np.zeros((draws, len(tags)))
    for data, topic, known, p in zip(topics, prepared, relevant, probabilities, strict=True):
        open_ = ~topic.judged
        unjudged += int(open_.sum())
        rows.append(
            TopicStanding(
                number=data.number,
                pooled=len(data.pool),
                judged=int(topic.judged.sum()),
                relevant_found=int(known.sum()),
                relevant_expected_left=float(p[open_].sum()),
            )
        )
        if not tags or not len(topic.documents):
            continue
        current += topic.average_precision(known[None, :])[0]
        sample = np.where(open_[None, :], rng.random((draws, len(topic.documents))) < p[None, :], known[None, :])
        drawn += topic.average_precision(sample)
    found = sum(r.relevant_found for r in rows)
    left = sum(r.relevant_expected_left for r in rows)
    stability = top_stability = tau_median = None
    if len(tags) >= 2 and found:
        taus = np.array([kendall_tau(current, draw) for draw in drawn])
        taus = np.where(np.isnan(taus), 0.0, taus)
        stability = float((taus >= TAU_THRESHOLD).mean())
        tau_median = float(np.median(taus))
        top = np.argsort(-current, kind="stable")[:TOP]
        top_stability = float(np.mean([list(np.argsort(-draw, kind="stable")[:TOP]) == list(top) for draw in drawn]))
    stable = stability is not None and stability >= STABLE_SHARE and unjudged > 0
    return Standing(
        topics=rows,
        unjudged=unjudged,
        relevant_found=found,
        relevant_expected_left=left,
        stability=stability,
        top_stability=top_stability,
        tau_median=tau_median,
        draws=draws,
        stable=stable,
        runs=tags,
    )
