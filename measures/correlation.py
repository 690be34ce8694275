"""Agreement between two orderings of the same systems: Kendall's tau, Yilmaz et al.'s tau_ap, Spearman's rho.

Inputs are two score vectors over the same systems (e.g. MAP under two qrels); higher scores rank first.
"""

from __future__ import annotations

import numpy as np


def _pairs(x: np.ndarray) -> np.ndarray:
    return np.sign(x[:, None] - x[None, :])


def kendall_tau(a, b) -> float:
    """Kendall's tau-b (ties corrected, as scipy.stats.kendalltau); NaN when either ordering is all ties."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    upper = np.triu_indices(len(a), k=1)
    sa, sb = _pairs(a)[upper], _pairs(b)[upper]
    concordance = float((sa * sb).sum())
    denominator = np.sqrt(float((sa != 0).sum()) * float((sb != 0).sum()))
    return concordance / denominator if denominator else float("nan")


def tau_ap(reference, candidate) -> float:
    """AP correlation tau_ap (Yilmaz, Aslam & Robertson, SIGIR 2008): errors near the top weigh more.

    tau_ap = 2/(n-1) * sum_{i=2..n} C(i)/(i-1) - 1, where the systems are ordered by `candidate` and C(i) counts the
    systems above position i that `reference` also ranks above the system at i. Not symmetric; ties in
    `candidate` are broken by `reference` descending (the optimistic order), ties in `reference` count as half.
    """
    reference, candidate = np.asarray(reference, dtype=np.float64), np.asarray(candidate, dtype=np.float64)
    n = len(reference)
    if n < 2:
        return float("nan")
    order = np.lexsort((-reference, -candidate))
    ref = reference[order]
    # [i, j] for j above i (j < i): does the reference rank j above i, or tie them
    higher = np.tril(ref[None, :] > ref[:, None], k=-1).sum(axis=1)
    tied = np.tril(ref[None, :] == ref[:, None], k=-1).sum(axis=1)
    terms = (higher[1:] + 0.5 * tied[1:]) / np.arange(1, n)
    total = 0.0
    for term in terms.tolist():  # added in position order, as the definition's sum
        total += term
    return 2.0 * total / (n - 1) - 1.0


def _average_ranks(x: np.ndarray) -> np.ndarray:
    order = np.argsort(x, kind="stable")
    ranks = np.empty(len(x), dtype=np.float64)
    ranks[order] = np.arange(1, len(x) + 1)
    _values, inverse = np.unique(x, return_inverse=True)
    sums = np.bincount(inverse, weights=ranks)
    counts = np.bincount(inverse)
    return (sums / counts)[inverse]


def spearman_rho(a, b) -> float:
    """Spearman's rho: Pearson correlation of the average ranks; NaN when either input is constant."""
    ra, rb = _average_ranks(np.asarray(a, dtype=np.float64)), _average_ranks(np.asarray(b, dtype=np.float64))
    ra, rb = ra - ra.mean(), rb - rb.mean()
    denominator = np.sqrt((ra * ra).sum() * (rb * rb).sum())
    return float((ra * rb).sum() / denominator) if denominator else float("nan")
