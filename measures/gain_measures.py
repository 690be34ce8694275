"""trec_eval's gain-based measures beyond nDCG: ndcg_rel, Rndcg, G, binG, rbp and rbp_resid, and nDCG with a gain
map. Each follows its trec_eval source (m_ndcg_rel.c, m_Rndcg.c, m_G.c, m_binG.c, m_rbp.c, m_rbp_resid.c): the same
terms added in the same order, so values match bit for bit.
"""

from __future__ import annotations

import numpy as np

from measures.batch import RankedBatch, safe_divide
from measures.gains import cell_gains, ideal_gains, normalised_cell_gains, parse_gain_map


def _gain_map(m) -> dict[int, float]:
    return parse_gain_map(m.param("gains"))


def _discounted(batch: RankedBatch, gains: np.ndarray) -> np.ndarray:
    """Running DCG along each row: gain / log2(rank + 1), added in rank order."""
    return np.cumsum(gains / np.log2(batch.ranks + 1.0), axis=1)


def _ideal_curve(batch: RankedBatch, gains: dict[int, float]) -> tuple[np.ndarray, np.ndarray]:
    ideal, lengths = ideal_gains(batch, gains)
    ranks = np.arange(1, ideal.shape[1] + 1, dtype=np.float64)
    return np.cumsum(ideal / np.log2(ranks + 1.0), axis=1), lengths


def _through(curve: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """curve[row, columns[row]], 0 where the column is -1."""
    safe = np.maximum(columns, 0)
    return np.where(columns >= 0, curve[np.arange(len(curve)), safe], 0.0)


def ndcg_with_gains(batch: RankedBatch, m) -> np.ndarray:
    """nDCG under a gain map (trec_eval ndcg.1=3,2=9): DCG of the ranking over the ideal DCG of every judged document
    with a positive gain, highest first; 0 when the ideal is 0."""
    gains = _gain_map(m)
    dcg = _through(_discounted(batch, cell_gains(batch, gains)), batch.column(m.cutoff))
    curve, lengths = _ideal_curve(batch, gains)
    cut = lengths if m.cutoff is None else np.minimum(lengths, int(m.cutoff))
    ideal = _through(curve, cut - 1)[batch.row_topic] if len(curve) else np.zeros(batch.rows)
    return safe_divide(dcg, ideal)


def ndcg_rel(batch: RankedBatch, m) -> np.ndarray:
    """ndcg_rel: nDCG averaged over the documents with a positive gain, P of them in the ideal ranking. At each one
    retrieved at rank i, DCG(i) / IDCG(min(i, P)); each one not retrieved adds DCG(n) / IDCG(P); the sum is divided
    by P (0 when it is not positive)."""
    gains = _gain_map(m)
    cell = cell_gains(batch, gains)
    running = _discounted(batch, cell)
    curve, lengths = _ideal_curve(batch, gains)
    positives = lengths[batch.row_topic]
    last_ideal = np.maximum(positives - 1, 0)
    rows = np.arange(batch.rows)[:, None]
    ideal_at = curve[batch.row_topic][rows, np.minimum(np.arange(batch.depth)[None, :], last_ideal[:, None])]
    rewarded = (cell > 0) & batch.in_ranking
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(rewarded, running / ideal_at, 0.0)
        found = rewarded.sum(axis=1)
        full_ideal = curve[batch.row_topic, last_ideal]
        tail = (positives - found).astype(np.float64) * _through(running, batch.n - 1) / full_ideal
    total = np.cumsum(np.concatenate([terms, tail[:, None]], axis=1), axis=1)[:, -1]
    with np.errstate(divide="ignore", invalid="ignore"):
        value = total / positives
    return np.where((positives > 0) & (total > 0), value, 0.0)


def rndcg(batch: RankedBatch, m) -> np.ndarray:
    """Rndcg: nDCG averaged at the ranks b where the ideal gain changes (each level's last document, and the last
    positive one), plus nDCG at n when the ranking runs on past the ideal's positives by more than one document, as
    trec_eval's loop does; 0 when the topic has no relevant document."""
    gains = _gain_map(m)
    running = _discounted(batch, cell_gains(batch, gains))
    curve, lengths = _ideal_curve(batch, gains)
    ideal, _ = ideal_gains(batch, gains)
    padded = np.concatenate([ideal, np.zeros((len(ideal), 1))], axis=1)
    changes = padded[:, 1:] != padded[:, :-1]  # [t, b-1]: the gain at b differs from the one at b-1
    changes &= np.arange(1, padded.shape[1])[None, :] <= lengths[:, None]
    bounds = np.where(changes, np.arange(1, padded.shape[1])[None, :], 0)[batch.row_topic]
    positives = lengths[batch.row_topic]
    reached = np.minimum(bounds, batch.n[:, None]) - 1
    rows = np.arange(batch.rows)[:, None]
    results = np.where(reached >= 0, running[rows, np.maximum(reached, 0)], 0.0)
    ideal_rows = curve[batch.row_topic]
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(bounds > 0, results / ideal_rows[rows, np.maximum(bounds - 1, 0)], 0.0)
        extra = positives + 1 < batch.n
        full_ideal = ideal_rows[np.arange(batch.rows), np.maximum(positives - 1, 0)]
        tail = np.where(extra & (positives > 0), _through(running, batch.n - 1) / full_ideal, 0.0)
        total = np.cumsum(np.concatenate([terms, tail[:, None]], axis=1), axis=1)[:, -1]
        count = (bounds > 0).sum(axis=1) + (extra & (positives > 0))
        value = total / count
    return np.where(batch.num_rel(batch.level_of(m)) > 0, value, 0.0)


def g_measure(batch: RankedBatch, m) -> np.ndarray:
    """G (trec_eval G): sum over ranks i with a nonzero gain of gain_i / log2(2 + cost_i - gained_i), where gained_i
    is the ranking's gain so far and cost_i the ideal's so far with every rank costing at least 1; divided by the
    ideal's total gain (0 when that is 0)."""
    gains = _gain_map(m)
    cell = cell_gains(batch, gains)
    ideal, _ = ideal_gains(batch, gains)
    width = max(batch.depth, ideal.shape[1])
    ideal = np.pad(ideal, ((0, 0), (0, width - ideal.shape[1])))
    cost = np.cumsum(np.maximum(ideal, 1.0), axis=1)[:, : batch.depth][batch.row_topic]
    gained = np.cumsum(cell, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(cell != 0, cell / np.log2(2.0 + cost - gained), 0.0)
    total = np.cumsum(terms, axis=1)[:, -1] if batch.depth else np.zeros(batch.rows)
    ideal_total = np.cumsum(ideal, axis=1)[:, -1][batch.row_topic]
    return safe_divide(total, ideal_total)


def bin_g(batch: RankedBatch, m) -> np.ndarray:
    """binG: sum over relevant retrieved documents of 1 / log2(2 + non-relevant ranked above), divided by R."""
    level = batch.level_of(m)
    hits = batch.hits(level)
    terms = 1.0 / np.log2((2 + hits.column - hits.nth).astype(np.float64))
    return safe_divide(hits.total(hits.running_sums(terms)), batch.num_rel(level))


def _persistence(batch: RankedBatch, p: float) -> np.ndarray:
    """p^(i-1) at rank i, by repeated multiplication as trec_eval computes it."""
    factors = np.full(batch.depth + 1, p)
    factors[0] = 1.0
    return np.cumprod(factors)


def trec_rbp(batch: RankedBatch, m) -> np.ndarray:
    """rbp (trec_eval): (1 - p) * sum_i gain_i * p^(i-1), gains from the gain map, rescaled to [0, 1] per topic when
    any lies outside it (p defaults to 0.9)."""
    p = float(m.param("p"))
    gains = np.where(batch.in_ranking, normalised_cell_gains(batch, _gain_map(m)), 0.0)
    weights = _persistence(batch, p)[: batch.depth]
    total = np.cumsum(gains * weights, axis=1)[:, -1] if batch.depth else np.zeros(batch.rows)
    return (1.0 - p) * total


def trec_rbp_residual(batch: RankedBatch, m) -> np.ndarray:
    """rbp_resid (trec_eval): when some retrieved document is unjudged, p^n + (1 - p) * sum of p^(i-1) over the
    unjudged ranks i, the most RBP could still gain; 0 when every retrieved document is judged."""
    p = float(m.param("p"))
    weights = _persistence(batch, p)
    unjudged = batch.unjudged
    total = np.cumsum(np.where(unjudged, weights[: batch.depth], 0.0), axis=1)[:, -1] if batch.depth else 0.0
    value = weights[batch.n] + (1 - p) * total
    return np.where(unjudged.any(axis=1), value, 0.0)
