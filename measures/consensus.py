"""Consensus qrels, pure (no Django): one label per item from several assessors' grades, by a named method.

Methods: majority (ties go to the higher grade), median (the upper median), mean (rounded half up), primary (a
designated assessor, falling back to majority where they did not judge), and dawid_skene (EM over per-assessor
confusion matrices). An adjudicated label, when given for an item, always wins.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np


@dataclass
class Consensus:
    labels: dict[Hashable, int]
    confidence: dict[Hashable, float]  # share of votes (majority) or posterior probability (Dawid-Skene)
    assessor_accuracy: dict[Hashable, float] = field(default_factory=dict)  # Dawid-Skene only


def majority(grades: Sequence[int]) -> tuple[int, float]:
    counts = Counter(grades)
    best = max(counts.values())
    label = max(g for g, c in counts.items() if c == best)
    return label, best / len(grades)


def median_high(grades: Sequence[int]) -> int:
    ordered = sorted(grades)
    return ordered[len(ordered) // 2]


def rounded_mean(grades: Sequence[int]) -> int:
    return math.floor(sum(grades) / len(grades) + 0.5)


# An item's label and confidence from its grades by assessor, given the collection's primary assessor.
ItemVote = Callable[[Mapping[Hashable, int], Hashable | None], tuple[int, float]]


@dataclass(frozen=True)
class ConsensusMethod:
    """A named way to one label per item: by a vote over each item's grades alone (`vote`), or over the whole set
    at once (`whole`, for methods that learn from every item, as Dawid-Skene learns each assessor's errors)."""

    name: str
    description: str
    vote: ItemVote | None = None
    whole: Callable[..., Consensus] | None = None


def _share(label: int, grades: Sequence[int]) -> tuple[int, float]:
    return label, grades.count(label) / len(grades)


def _primary(grades: Mapping[Hashable, int], primary: Hashable | None) -> tuple[int, float]:
    return (grades[primary], 1.0) if primary in grades else majority(list(grades.values()))


REGISTRY: dict[str, ConsensusMethod] = {
    method.name: method
    for method in (
        ConsensusMethod("majority", "the most frequent grade; ties go to the higher grade",
                        vote=lambda grades, _: majority(list(grades.values()))),
        ConsensusMethod("median", "the upper median grade",
                        vote=lambda grades, _: _share(median_high(list(grades.values())), list(grades.values()))),
        ConsensusMethod("mean", "the mean grade, rounded half up",
                        vote=lambda grades, _: _share(rounded_mean(list(grades.values())), list(grades.values()))),
        ConsensusMethod("primary", "the primary assessor's grade; majority where they did not judge", vote=_primary),
        ConsensusMethod("dawid_skene", "EM over each assessor's confusion matrix (Dawid & Skene, 1979)",
                        whole=lambda items, categories: dawid_skene(items, categories=categories)),
    )
}  # fmt: skip
METHODS = tuple(REGISTRY)


def consensus(
    items: Mapping[Hashable, Mapping[Hashable, int]],
    method: str = "majority",
    *,
    primary: Hashable | None = None,
    adjudicated: Mapping[Hashable, int] | None = None,
    categories: Sequence[int] | None = None,
) -> Consensus:
    """One label per item of {item: {assessor: grade}}, by the registered `method`; items without any grade get no
    label, an item with one grade gets it with certainty (under every vote), and an adjudicated label always wins."""
    if method not in REGISTRY:
        raise ValueError(f"unknown consensus method {method!r}; choose one of {', '.join(METHODS)}")
    chosen = REGISTRY[method]
    if chosen.whole is not None:
        result = chosen.whole(items, categories)
    else:
        result = Consensus({}, {})
        for key, grades_by_assessor in items.items():
            if len(grades_by_assessor) == 1:  # most items: under every vote method, its one grade with certainty
                (result.labels[key],) = grades_by_assessor.values()
                result.confidence[key] = 1.0
            elif grades_by_assessor:
                result.labels[key], result.confidence[key] = chosen.vote(grades_by_assessor, primary)
    for key, label in (adjudicated or {}).items():
        result.labels[key], result.confidence[key] = label, 1.0
    return result


def others_consensus(
    items: Mapping[Hashable, Mapping[Hashable, int]],
    assessor: Hashable,
    method: str = "majority",
    *,
    primary: Hashable | None = None,
    categories: Sequence[int] | None = None,
) -> dict[Hashable, int]:
    """The yardstick `assessor` is measured against: each item's consensus, by the collection's own `method`, over
    everyone else's labels in `items` ({item: {assessor: grade}}); an item only they labelled has none. Defined once:
    the pause decision, the reliability table and its drift test all read it. When `assessor` is the primary, the
    primary method falls back to majority, as it does wherever the primary did not judge."""
    others = {}
    for key, grades in items.items():
        kept = {who: grade for who, grade in grades.items() if who != assessor}
        if kept:
            others[key] = kept
    chosen_primary = None if primary == assessor else primary
    return consensus(others, method, primary=chosen_primary, categories=categories).labels


def dawid_skene(
    items: Mapping[Hashable, Mapping[Hashable, int]],
    *,
    categories: Sequence[int] | None = None,
    iterations: int = 100,
    tolerance: float = 1e-7,
    smoothing: float = 0.01,
) -> Consensus:
    """Dawid & Skene (1979): EM over class priors and per-assessor confusion matrices, initialised from vote shares.

    Returns the most probable class per item, its posterior probability, and each assessor's estimated accuracy
    (the prior-weighted diagonal of their confusion matrix). `smoothing` keeps unseen cells from becoming zero.
    """
    keys = [k for k, v in items.items() if v]
    if not keys:
        return Consensus({}, {})
    cats = list(categories) if categories is not None else sorted({g for k in keys for g in items[k].values()})
    names = sorted({a for k in keys for a in items[k]}, key=str)
    cat_index = {c: i for i, c in enumerate(cats)}
    name_index = {a: i for i, a in enumerate(names)}
    n_items, n_cats, n_names = len(keys), len(cats), len(names)
    # votes[i, a, c] = 1 if assessor a gave item i grade c
    votes = np.zeros((n_items, n_names, n_cats))
    for i, key in enumerate(keys):
        for assessor, grade in items[key].items():
            votes[i, name_index[assessor], cat_index[grade]] = 1.0
    posterior = votes.sum(axis=1) + 1e-9
    posterior /= posterior.sum(axis=1, keepdims=True)
    previous = None
    for _ in range(iterations):
        priors = posterior.mean(axis=0)
        # confusion[a, true, given]
        confusion = np.einsum("it,iag->atg", posterior, votes) + smoothing
        confusion /= confusion.sum(axis=2, keepdims=True)
        log_likelihood = np.log(priors + 1e-300)[None, :] + np.einsum("iag,atg->it", votes, np.log(confusion))
        log_likelihood -= log_likelihood.max(axis=1, keepdims=True)
        posterior = np.exp(log_likelihood)
        posterior /= posterior.sum(axis=1, keepdims=True)
        if previous is not None and np.abs(posterior - previous).max() < tolerance:
            break
        previous = posterior
    best = posterior.argmax(axis=1)
    accuracy = np.einsum("t,att->a", priors, confusion)
    return Consensus(
        labels={key: cats[int(best[i])] for i, key in enumerate(keys)},
        confidence={key: float(posterior[i, best[i]]) for i, key in enumerate(keys)},
        assessor_accuracy={a: float(accuracy[name_index[a]]) for a in names},
    )


def collection_consensus(collection, judgments: dict, adjudicated: dict):
    """`consensus` under a collection's settings (anything with consensus_method, primary_assessor_id and
    max_grade): one topic's {document: {assessor: grade}} with its adjudications. What every stored value is
    computed from, what the agreement compares against and what the qrels export writes; the one place they meet."""
    return consensus(
        judgments,
        collection.consensus_method,
        primary=collection.primary_assessor_id,
        adjudicated=adjudicated,
        categories=range(collection.max_grade + 1),
    )
