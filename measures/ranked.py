"""Binary-relevance ranked measures, each following trec_eval 9.0.x (each family's formula and source: `python -m
evaluation --list-measures`, and the worked examples in tests/measures/test_measures_worked_examples.py).

Each function takes a RankedBatch and a Measure and returns one float64 value per row. A document is relevant
iff its label >= the relevance level (the measure's `rel` parameter, else the batch's level); unjudged and
non-pooled documents count as non-relevant except in bpref and infAP.
"""

from __future__ import annotations

import numpy as np

from measures.batch import RankedBatch, safe_divide, sequential_sum
from measures.data import UNJUDGED
from measures.hits import Hits

INFAP_EPSILON = 1e-5
GMAP_FLOOR = 1e-5


def precision(batch: RankedBatch, m) -> np.ndarray:
    """P@k = rs(min(k, n)) / k; divides by k even when fewer than k documents were retrieved (trec_eval P.k)."""
    level = batch.level_of(m)
    return batch.relevant_through(level, batch.column(m.cutoff)) / float(m.cutoff)


def recall(batch: RankedBatch, m) -> np.ndarray:
    """R@k = rs(min(k, n)) / R; 0 when R = 0 (trec_eval recall.k)."""
    level = batch.level_of(m)
    return safe_divide(batch.relevant_through(level, batch.column(m.cutoff)), batch.num_rel(level))


def average_precision(batch: RankedBatch, m) -> np.ndarray:
    """AP (or AP@k): sum of rs(i)/i over relevant ranks i (<= k), divided by R (trec_eval map, map_cut.k)."""
    level = batch.level_of(m)
    hits = batch.hits(level)
    # The term at each relevant rank i is rs(i) / i: the hit's place among the relevant, over its rank.
    running = batch.running(("ap", level), hits, lambda: (hits.nth + 1) / batch.ranks[hits.column])
    sums = hits.sum_through(running, batch.first(m.cutoff).stop - 1)
    return safe_divide(sums, batch.num_rel(level))


def geometric_ap(batch: RankedBatch, m) -> np.ndarray:
    """GMAP's per-topic value is AP; the aggregate is exp(mean(log(max(AP, 1e-5)))) (trec_eval gm_map)."""
    return average_precision(batch, m)


def r_precision(batch: RankedBatch, m) -> np.ndarray:
    """R-precision = rs(min(n, R)) / R; 0 when R = 0 (trec_eval Rprec)."""
    level = batch.level_of(m)
    num_rel = batch.num_rel(level)
    columns = np.minimum(np.minimum(num_rel, batch.n), batch.depth) - 1
    return safe_divide(batch.relevant_through(level, columns), num_rel)


def reciprocal_rank(batch: RankedBatch, m) -> np.ndarray:
    """RR = 1 / rank of the first relevant document (within k), else 0 (trec_eval recip_rank)."""
    first = batch.hits(batch.level_of(m)).first_column()
    return np.where(first < batch.first(m.cutoff).stop, 1.0 / (first + 1.0), 0.0)


def _judged_nonrel_so_far(batch: RankedBatch, level: int) -> np.ndarray:
    return np.cumsum(batch.judged & ~batch.rel(level), axis=1, dtype=np.int64)


def bpref(batch: RankedBatch, m) -> np.ndarray:
    """bpref (Buckley & Voorhees 2004) as trec_eval computes it: unjudged documents are skipped; at each relevant
    document add 1 - min(nonrel_so_far, R) / min(N, R), or 1 when nonrel_so_far = 0; divide by R."""
    level = batch.level_of(m)
    hits = batch.hits(level)
    num_rel, num_nonrel = batch.num_rel(level), batch.num_nonrel(level)
    # Judged non-relevant documents ranked above each relevant one: the judged ones above it less the relevant ones
    # (every relevant document is judged), counted by binary search in the judged cells rather than by a pass over
    # every cell.
    judged, row_start = batch.judged_cells, hits.row * max(batch.depth, 1)
    judged_above = np.searchsorted(judged, hits.flat) - np.searchsorted(judged, row_start)
    nonrel_so_far = judged_above - hits.nth
    rel_of_hit = num_rel[hits.row]
    penalty = safe_divide(np.minimum(nonrel_so_far, rel_of_hit), np.minimum(num_nonrel[hits.row], rel_of_hit))
    contribution = np.where(nonrel_so_far > 0, 1.0 - penalty, 1.0)
    return safe_divide(hits.total(hits.running_sums(contribution)), num_rel)


def geometric_bpref(batch: RankedBatch, m) -> np.ndarray:
    """gm_bpref's per-topic value is bpref; the aggregate is exp(mean(log(max(bpref, 1e-5)))) (trec_eval gm_bpref)."""
    return bpref(batch, m)


def relative_precision(batch: RankedBatch, m) -> np.ndarray:
    """relative_P@k: relevant documents in the top k over the most there could be, min(R, k) (trec_eval
    relative_P)."""
    level = batch.level_of(m)
    return safe_divide(
        batch.relevant_through(level, batch.column(m.cutoff)), np.minimum(batch.num_rel(level), m.cutoff)
    )


def set_relative_precision(batch: RankedBatch, m) -> np.ndarray:
    """Relevant retrieved over the most there could be, min(retrieved, R) (trec_eval set_relative_P)."""
    level = batch.level_of(m)
    found = batch.relevant_through(level, batch.column(None))
    return safe_divide(found, np.minimum(batch.n, batch.num_rel(level)))


def set_average_precision(batch: RankedBatch, m) -> np.ndarray:
    """Set precision times set recall: relevant retrieved squared over (retrieved x R) (trec_eval set_map)."""
    level = batch.level_of(m)
    found = batch.relevant_through(level, batch.column(None)).astype(np.float64)
    return safe_divide(found * found, batch.n.astype(np.float64) * batch.num_rel(level))


def num_nonrel_judged_ret(batch: RankedBatch, m) -> np.ndarray:
    """Retrieved documents judged below the relevance level; summed over topics (trec_eval num_nonrel_judged_ret)."""
    level = batch.level_of(m)
    return ((batch.labels >= 0) & (batch.labels < level)).sum(axis=1).astype(np.float64)


def inferred_ap(batch: RankedBatch, m) -> np.ndarray:
    """infAP (Yilmaz & Aslam 2006), trec_eval's m_infap.c with epsilon 1e-5."""
    level = batch.level_of(m)
    rel = batch.rel(level)
    rel_so_far = batch.rs(level).astype(np.float64)
    nonrel = _judged_nonrel_so_far(batch, level).astype(np.float64)
    pooled_unjudged = np.cumsum(batch.labels == UNJUDGED, axis=1, dtype=np.int64).astype(np.float64)
    j = batch.ranks - 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        later = 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((rel_so_far - 1 + nonrel + pooled_unjudged) / j) * (
            (rel_so_far - 1 + INFAP_EPSILON) / (rel_so_far - 1 + nonrel + 2 * INFAP_EPSILON)
        )
    contribution = np.where(j == 0, 1.0, later)
    return safe_divide(sequential_sum(np.where(rel, contribution, 0.0)), batch.num_rel(level))


def success(batch: RankedBatch, m) -> np.ndarray:
    """Success@k (hit rate): 1 if any relevant document is in the top k (trec_eval success.k)."""
    level = batch.level_of(m)
    return (batch.relevant_through(level, batch.column(m.cutoff)) > 0).astype(np.float64)


def _interpolated_precision(batch: RankedBatch, level: int, recall_level: float) -> np.ndarray:
    hits = batch.hits(level)
    best = batch.memo(("best precision", level), lambda: _best_precision_from_hit(hits, batch.ranks))
    needed = relevant_needed(recall_level, batch.num_rel(level), batch.trec_eval)
    # The recall level is reached at the needed-th relevant rank (the first one for r = 0); past it precision peaks
    # only at relevant ranks, so the best precision from there on is the best over the row's later hits.
    place = np.minimum(np.maximum(needed, 1) - 1, best.shape[1] - 1)
    value = best[np.arange(batch.rows), place]
    # trec_eval starts from num_rel_ret / num_ret, which is 0 / 0 for an empty ranking (-c's missing topics, -J)
    value = np.where((batch.n == 0) & (needed <= 0), np.nan, value)
    return np.where(needed <= hits.per_row, value, 0.0)


def _best_precision_from_hit(hits: Hits, ranks: np.ndarray) -> np.ndarray:
    """(rows x most hits in a row): [r, j] is the highest precision at row r's (j+1)-th relevant rank or a later
    one (the precision there is j+1 over the rank, the same double as rs(i) / i), 0 past the row's last hit."""
    packed = np.zeros((hits.rows, max(int(hits.per_row.max()) if hits.rows else 0, 1)))
    packed[hits.row, hits.nth] = (hits.nth + 1) / ranks[hits.column]
    return np.maximum.accumulate(packed[:, ::-1], axis=1)[:, ::-1]


def relevant_needed(recall_level: float, num_rel: np.ndarray, trec_eval: int) -> np.ndarray:
    """The count of relevant documents a recall level asks for: lround(r * R) in trec_eval 10.0, (long)(r * R + 0.9)
    in 9.0.x. lround rounds halves away from zero; it is computed from the exact fraction part, since adding 0.5
    first can round 0.49999999999999994 up."""
    wanted = recall_level * np.asarray(num_rel, dtype=np.float64)
    if trec_eval == 9:
        return np.floor(wanted + 0.9).astype(np.int64)
    whole = np.floor(wanted)
    return (whole + (wanted - whole >= 0.5)).astype(np.int64)


def interpolated_precision(batch: RankedBatch, m) -> np.ndarray:
    """IPrec@r: the highest precision at any rank whose recall >= r (trec_eval iprec_at_recall)."""
    return _interpolated_precision(batch, batch.level_of(m), m.cutoff)


ELEVEN_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def recall_levels(text: str) -> tuple[float, ...]:
    """The `levels` parameter of 11pt_avg (`0.25,0.5,0.75`), ascending; the eleven points when empty."""
    if not text:
        return ELEVEN_POINTS
    return tuple(sorted(float(part) for part in text.split(",") if part.strip()))


def eleven_point_average(batch: RankedBatch, m) -> np.ndarray:
    """Mean interpolated precision at recall 0.0, 0.1, ..., 1.0, or at the `levels` given (trec_eval 11pt_avg and
    11pt_avg.0.25,0.5,0.75)."""
    level = batch.level_of(m)
    levels = recall_levels(m.param("levels"))
    total = np.zeros(batch.rows)
    for r in reversed(levels):  # trec_eval adds from the highest level down; the order shows in the last bit
        total = total + _interpolated_precision(batch, level, r)
    return total / float(len(levels))


def r_precision_multiple(batch: RankedBatch, m) -> np.ndarray:
    """Rprec_mult@x: precision at (long)(x * R + 0.9) documents, dividing by that count even past the ranking's end;
    0 when the count is 0 (trec_eval Rprec_mult, at 0.2, 0.4, ..., 2.0 by default)."""
    level = batch.level_of(m)
    cutoff = np.floor(m.cutoff * batch.num_rel(level).astype(np.float64) + 0.9).astype(np.int64)
    found = batch.relevant_through(level, np.minimum(cutoff, batch.n) - 1)
    return safe_divide(found, cutoff)


def unjudged(batch: RankedBatch, m) -> np.ndarray:
    """unj@k: unjudged documents (not in the qrels, or pooled and not judged) among the top k, over k; ranks past
    the ranking's end count as judged (trec_eval 10.0 unj, at 5, 10 and 20 by default)."""
    cols = batch.first(m.cutoff)
    return batch.unjudged[:, cols].sum(axis=1) / float(m.cutoff)


def judged(batch: RankedBatch, m) -> np.ndarray:
    """Judged@k: share of the top min(k, n) documents that appear in the qrels (any label)."""
    cols = batch.first(m.cutoff)
    count = batch.in_qrels[:, cols].sum(axis=1)
    return safe_divide(count, np.minimum(batch.n, cols.stop))


def num_ret(batch: RankedBatch, m) -> np.ndarray:
    """Number of documents retrieved (after any depth cut); summed over topics (trec_eval num_ret)."""
    return batch.n.astype(np.float64)


def num_rel(batch: RankedBatch, m) -> np.ndarray:
    """Number of relevant documents in the qrels; summed over topics (trec_eval num_rel)."""
    return batch.num_rel(batch.level_of(m)).astype(np.float64)


def num_rel_ret(batch: RankedBatch, m) -> np.ndarray:
    """Number of relevant documents retrieved; summed over topics (trec_eval num_rel_ret)."""
    level = batch.level_of(m)
    return batch.relevant_through(level, batch.column(None)).astype(np.float64)


def minimum_ap(batch: RankedBatch, m) -> np.ndarray:
    """The lowest AP any ranking of the judged documents can reach: all non-relevant first.
    (1/R) * sum_{k=1..R} k / (k + N), R relevant and N judged non-relevant documents."""
    level = batch.level_of(m)
    return minimum_average_precision(batch.num_rel(level), batch.num_nonrel(level))


def minimum_average_precision(num_relevant, num_nonrelevant) -> np.ndarray:
    """Vectorised minimum achievable AP for arrays of (R, N) counts; 0 where R = 0."""
    num_relevant = np.atleast_1d(np.asarray(num_relevant, dtype=np.int64))
    num_nonrelevant = np.atleast_1d(np.asarray(num_nonrelevant, dtype=np.float64))
    width = int(num_relevant.max()) if len(num_relevant) else 0
    k = np.arange(1, width + 1, dtype=np.float64)
    terms = np.where(k[None, :] <= num_relevant[:, None], k / (k + num_nonrelevant[:, None]), 0.0)
    return safe_divide(sequential_sum(terms), num_relevant)


def precision_recall_points(ranking_labels: np.ndarray, num_relevant: int, level: int = 1) -> dict[str, np.ndarray]:
    """The precision-recall curve of one ranking: recall and precision after each rank, and the interpolated
    precision (max precision at this or any later rank) used to draw the standard curve."""
    rel = np.asarray(ranking_labels) >= max(level, 0)
    rs = np.cumsum(rel)
    ranks = np.arange(1, len(rel) + 1)
    precision_at = rs / ranks if len(rel) else np.empty(0)
    recall_at = rs / num_relevant if num_relevant else np.zeros(len(rel))
    interpolated = np.maximum.accumulate(precision_at[::-1])[::-1] if len(rel) else np.empty(0)
    return {"recall": recall_at, "precision": precision_at, "interpolated_precision": interpolated}
