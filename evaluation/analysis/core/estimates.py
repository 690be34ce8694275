"""Measures estimated from a sampled pool, with confidence intervals, pure (no Django).

A sampled pool (`judging.ordering.core.pool_strategies.sampled_pool`) judges a stratified random sample of each topic's
depth-k union, every sampled document with a known inclusion probability. Each judged sampled document then stands for
1/p documents of its stratum (the Horvitz-Thompson weight); judged documents outside the sample (imported qrels,
earlier pools) are known and count once. If some sampled documents are not judged yet, the judged ones of the
stratum stand for all of it (inclusion m/N for m judged of the stratum's N), which assumes the judged ones are a
random part of the sample, as the judging queue's order within a stratum does not follow relevance.

Estimators, per topic and run (rel: label >= the relevance level; w: weight; r: rank in the run's ranking):
- R = sum of w * rel over the weighted documents.
- P@k = (1/k) * sum over the run's top k of w * rel (unbiased).
- statAP (Pavlu and Aslam 2007) = (1/R) * sum over relevant weighted d of w_d * PC(r_d), where
  PC(r) = (1 + sum of w * rel over the run's documents above r) / r (a ratio estimator: nearly unbiased).
- nDCG@k = DCG@k / IDCG@k, DCG@k = sum over the top k of w * gain / log2(r + 1) (gain = the label, as trec_eval's
  ndcg_cut), and IDCG@k from the estimated number of documents of each grade, rounded (a ratio estimator).
With every weight 1 (a fully judged pool) these are trec_eval's P@k, AP and nDCG@k of the judged documents.

The interval of each mean over topics is a stratified bootstrap: within every (topic, stratum) not judged in full,
the judged sampled documents are drawn again with replacement (`replicates` times) and every estimate recomputed;
the interval is the 2.5th to 97.5th percentile of the replicates' means.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

REPLICATES = 200


@dataclass(frozen=True)
class SampledTopic:
    """One topic: each run's ranking (document ids, best first); the sampled documents with their (stratum,
    inclusion probability); and the judged labels (sampled or not)."""

    rankings: Mapping[str, Sequence[int]]
    sample: Mapping[int, tuple[int, float]]
    labels: Mapping[int, int]


@dataclass(frozen=True)
class Estimate:
    value: float
    low: float
    high: float


def _weights(topic: SampledTopic, replicates: int, rng) -> tuple[list[int], np.ndarray]:
    """The weighted documents, and their (1 + replicates) x documents weights: row 0 the estimate's, the others the
    bootstrap's."""
    documents = [d for d in topic.labels if d not in topic.sample]  # known: weight 1
    rows = [np.ones((1 + replicates, len(documents)))]
    strata: dict[int, list[tuple[int, float]]] = {}
    for document, (stratum, inclusion) in topic.sample.items():
        strata.setdefault(stratum, []).append((document, inclusion))
    for members in strata.values():
        judged = [d for d, _ in members if d in topic.labels]
        if not judged:
            continue
        size = len(members) / members[0][1]  # N = n / p
        weight = size / len(judged)
        if len(judged) >= round(size):  # the whole stratum is judged: a census, nothing to resample
            counts = np.ones((1 + replicates, len(judged)))
        else:
            draws = rng.multinomial(len(judged), [1 / len(judged)] * len(judged), replicates)
            counts = np.vstack([np.ones(len(judged)), draws])
        rows.append(counts * weight)
        documents += judged
    return documents, np.hstack(rows) if rows else np.ones((1 + replicates, 0))


def _ideal_dcg(grades: np.ndarray, weights: np.ndarray, cutoff: int) -> np.ndarray:
    discount = 1.0 / np.log2(np.arange(2, cutoff + 2))
    ideal = np.zeros(weights.shape[0])
    for row in range(weights.shape[0]):
        gains: list[float] = []
        for grade in sorted({int(g) for g in grades if g > 0}, reverse=True):
            gains += [grade] * int(np.rint(weights[row, grades == grade].sum()))
            if len(gains) >= cutoff:
                break
        gains = gains[:cutoff]
        ideal[row] = float(np.dot(gains, discount[: len(gains)]))
    return ideal


def sampled_estimates(
    topics: Sequence[SampledTopic],
    *,
    relevance_level: int = 1,
    cutoff: int = 10,
    replicates: int = REPLICATES,
    seed: int = 0,
) -> dict[str, dict[str, Estimate]]:
    """{run tag: {"statAP", f"P@{cutoff}", f"nDCG@{cutoff}": Estimate}}: each the mean over `topics` with its 95%
    bootstrap interval (see the module docstring)."""
    rng = np.random.default_rng(seed)
    tags = sorted({tag for topic in topics for tag in topic.rankings})
    names = ("statAP", f"P@{cutoff}", f"nDCG@{cutoff}")
    totals = np.zeros((len(names), len(tags), 1 + replicates))
    for topic in topics:
        documents, weights = _weights(topic, replicates, rng)
        grades = np.array([max(topic.labels[d], 0) for d in documents], dtype=float)
        relevant = (np.array([topic.labels[d] for d in documents]) >= relevance_level).astype(float)
        found = weights @ relevant if len(documents) else np.zeros(1 + replicates)
        ideal = _ideal_dcg(grades, weights, cutoff)
        column = {d: i for i, d in enumerate(documents)}
        for run, tag in enumerate(tags):
            ranked = [(r, column[d]) for r, d in enumerate(topic.rankings.get(tag, ()), start=1) if d in column]
            if not ranked:
                continue
            ranks = np.array([r for r, _ in ranked], dtype=float)
            index = np.array([i for _, i in ranked])
            hits = weights[:, index] * relevant[index]
            above = np.cumsum(hits, axis=1) - hits
            ap = (hits * (1.0 + above) / ranks).sum(axis=1)
            totals[0, run] += np.divide(ap, found, out=np.zeros_like(ap), where=found > 0)
            top = ranks <= cutoff
            totals[1, run] += hits[:, top].sum(axis=1) / cutoff
            dcg = (weights[:, index[top]] * grades[index[top]] / np.log2(ranks[top] + 1)).sum(axis=1)
            totals[2, run] += np.divide(dcg, ideal, out=np.zeros_like(dcg), where=ideal > 0)
    means = totals / max(len(topics), 1)
    return {
        tag: {
            name: Estimate(
                float(means[m, run, 0]),
                float(np.percentile(means[m, run, 1:], 2.5)) if replicates else float(means[m, run, 0]),
                float(np.percentile(means[m, run, 1:], 97.5)) if replicates else float(means[m, run, 0]),
            )
            for m, name in enumerate(names)
        }
        for run, tag in enumerate(tags)
    }
