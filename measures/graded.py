"""Graded and user-model measures: CG, DCG, nDCG (trec_eval, exponential, Järvelin-Kekäläinen), ERR and RBP.

Gains are the raw labels (negative labels, unjudged and non-pooled documents give 0); nDCG ignores the relevance
level, as trec_eval does. ERR and RBP follow their papers (Chapelle et al. 2009; Moffat & Zobel 2008).
"""

from __future__ import annotations

import numpy as np

from measures import gain_measures
from measures.batch import RankedBatch, safe_divide, sequential_sum
from measures.gains import parse_gain_map

JK_BASE = 2.0  # Järvelin & Kekäläinen (2002): no discount up to rank b, then log_b(rank)


def _gain_fn(kind: str):
    if kind == "exp-log2":
        return lambda g: np.power(2.0, g) - 1.0
    return lambda g: g


def _divisor_fn(kind: str):
    """What a gain at each rank is divided by. Divided, not multiplied by a reciprocal: trec_eval divides, and
    gain * (1 / d) can differ from gain / d in the last bit."""
    if kind == "jk":
        return lambda ranks: np.where(ranks <= JK_BASE, 1.0, np.log(np.maximum(ranks, JK_BASE + 1)) / np.log(JK_BASE))
    return lambda ranks: np.log2(ranks + 1.0)


def _dcg_through(batch: RankedBatch, kind: str, columns: np.ndarray) -> np.ndarray:
    """Per row, the DCG of columns 0..columns[row], its terms added in rank order."""
    hits = batch.gain_hits

    def terms():  # the divisor of each rank comes from one array of ranks, as it would for a whole row
        gains = batch.labels[hits.row, hits.column].astype(np.float64)  # the hits are the positive labels
        return _gain_fn(kind)(gains) / _divisor_fn(kind)(batch.ranks)[hits.column]

    return hits.sum_through(batch.running(("dcg", kind), hits, terms), columns)


def _ideal_at(batch: RankedBatch, kind: str, k: int | None) -> np.ndarray:
    curve = batch.ideal_discounted(("idcg", kind), _gain_fn(kind), _divisor_fn(kind))
    column = curve.shape[1] - 1 if k is None else min(int(k), curve.shape[1]) - 1
    return curve[batch.row_topic, column]


def cumulative_gain(batch: RankedBatch, m) -> np.ndarray:
    """CG@k: sum of the gains of the top k documents, undiscounted."""
    curve = np.cumsum(_gain_fn(m.param("dcg"))(batch.gains), axis=1)
    return batch.at(curve, batch.column(m.cutoff))


def dcg(batch: RankedBatch, m) -> np.ndarray:
    """DCG@k = sum_{i<=k} gain_i / log2(i + 1) (or the chosen gain/discount variant)."""
    return _dcg_through(batch, m.param("dcg"), batch.column(m.cutoff))


def ndcg(batch: RankedBatch, m) -> np.ndarray:
    """nDCG (trec_eval ndcg) and nDCG@k (ndcg_cut.k): DCG / IDCG, the ideal built from all judged labels sorted
    descending (cut at k for nDCG@k, never cut to the ranking's length); 0 when IDCG = 0. With `gains`
    ("1=3,2=9"), each level's gain comes from the map (trec_eval ndcg.1=3,2=9)."""
    if m.param("gains"):
        return gain_measures.ndcg_with_gains(batch, m)
    kind = m.param("dcg")
    gained = _dcg_through(batch, kind, batch.column(m.cutoff))
    return safe_divide(gained, _ideal_at(batch, kind, m.cutoff))


def check_ndcg(params: dict) -> None:
    if params.get("gains") and params.get("dcg", "log2") != "log2":
        raise ValueError("a gain map applies to trec_eval's nDCG (dcg='log2') only")
    if params.get("gains"):
        parse_gain_map(params["gains"])


def err(batch: RankedBatch, m) -> np.ndarray:
    """ERR@k (Chapelle et al. 2009): sum_r (1/r) R_r prod_{i<r} (1 - R_i), R_i = (2^g_i - 1) / 2^g_max, where
    g_max is the scale's top grade (the `gmax` parameter, else the collection's or the qrels' maximum label)."""
    gmax = m.param("gmax")
    gmax = batch.max_grade if gmax is None else gmax
    cols = batch.first(m.cutoff)
    stop = np.power(2.0, batch.gains[:, cols]) - 1.0
    stop /= 2.0**gmax
    reach = np.cumprod(1.0 - stop, axis=1)
    reach = np.concatenate([np.ones((batch.rows, 1)), reach[:, :-1]], axis=1)
    return sequential_sum(stop * reach / batch.ranks[cols])


def _rbp_weights(batch: RankedBatch, p: float, cols: slice) -> np.ndarray:
    return (1.0 - p) * np.power(p, batch.ranks[cols] - 1.0)


def rbp(batch: RankedBatch, m) -> np.ndarray:
    """RBP(p) (Moffat & Zobel 2008) on binary relevance: (1 - p) * sum_i rel_i * p^(i-1)."""
    p = float(m.param("p"))
    cols = batch.first(m.cutoff)
    rel = batch.rel(batch.level_of(m))[:, cols]
    return sequential_sum(rel * _rbp_weights(batch, p, cols))


def rbp_residual(batch: RankedBatch, m) -> np.ndarray:
    """RBP's residual: the weight RBP could still gain, that of unjudged ranks plus p^n for the unranked tail."""
    p = float(m.param("p"))
    cols = batch.first(m.cutoff)
    unjudged = batch.unjudged[:, cols]
    length = np.minimum(batch.n, cols.stop)
    return sequential_sum(unjudged * _rbp_weights(batch, p, cols)) + np.power(p, length)
