"""The evaluation batch: many (run, topic) rankings as one label matrix, plus each row's topic statistics.

Every measure is computed for all rows at once with numpy; a row is one run's ranking of one topic, already in
trec_eval order, translated into labels (real labels >= 0, or the NONPOOL / UNJUDGED / PAD codes).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property

import numpy as np

from measures.data import NONPOOL, PAD, UNJUDGED, PreparedQrels, cell_index
from measures.hits import Hits


class TopicStats:
    """Per-topic counts that do not depend on any run: label histogram and the ideal (sorted) label list."""

    def __init__(self, qrels: PreparedQrels, topics: np.ndarray):
        self.topics = topics
        index = np.searchsorted(qrels.topics, topics)
        index = np.minimum(index, max(len(qrels.topics) - 1, 0))
        present = (qrels.topics[index] == topics) if len(qrels.topics) else np.zeros(len(topics), bool)
        lo = np.where(present, qrels.offsets[index] if len(qrels.topics) else 0, 0)
        hi = np.where(present, qrels.offsets[index + 1] if len(qrels.topics) else 0, 0)
        counts = hi - lo
        entry_topic = np.repeat(np.arange(len(topics)), counts)
        labels = qrels.labels[cell_index(lo, counts)]
        self.max_label = int(labels.max()) if len(labels) and labels.max() > 0 else 0
        judged = labels >= 0
        width = self.max_label + 1
        flat = np.bincount(entry_topic[judged] * width + labels[judged], minlength=len(topics) * width)
        self.histogram = flat.reshape(len(topics), width)
        # Ideal ranking: positive labels per topic sorted descending, zero-padded into a matrix.
        positive = labels > 0
        p_topic, p_label = entry_topic[positive], labels[positive]
        order = np.lexsort((-p_label, p_topic))
        p_topic, p_label = p_topic[order], p_label[order]
        per_topic = np.bincount(p_topic, minlength=len(topics))
        width = max(int(per_topic.max()) if len(per_topic) else 0, 1)
        starts = np.concatenate(([0], np.cumsum(per_topic)[:-1]))
        self.ideal = np.zeros((len(topics), width), dtype=np.float64)
        self.ideal[p_topic, np.arange(len(p_topic)) - starts[p_topic]] = p_label

    def num_rel(self, level: int) -> np.ndarray:
        return self.histogram[:, max(level, 0) :].sum(axis=1)

    def num_nonrel(self, level: int) -> np.ndarray:
        return self.histogram[:, : max(level, 0)].sum(axis=1)


TREC_EVAL_VERSION = 10  # the conventions followed by default: trec_eval 10.0 (June 2026)
# Where the versions differ: 10.0 turns a recall level r into a count of relevant documents as lround(r * R)
# (iprec_at_recall, 11pt_avg); 9.0.x (and pytrec_eval, which bundles it) as (long)(r * R + 0.9).
TREC_EVAL_VERSIONS = (9, 10)


class RankedBatch:
    """A (rows x depth) label matrix with lazily computed, cached intermediate arrays shared by all measures."""

    def __init__(
        self,
        labels: np.ndarray,
        lengths: np.ndarray,
        row_topic: np.ndarray,
        stats: TopicStats,
        *,
        relevance_level: int = 1,
        collection_size: int | Callable[[], int] | None = None,
        max_grade: int | None = None,
        trec_eval: int = TREC_EVAL_VERSION,
    ):
        self.labels = labels
        self.trec_eval = trec_eval
        self.n = lengths
        self.row_topic = row_topic
        self.stats = stats
        self.level = relevance_level
        self._collection_size = collection_size
        self.max_grade = stats.max_label if max_grade is None else max_grade
        self._rel: dict[int, np.ndarray] = {}
        self._rs: dict[int, np.ndarray] = {}
        self._hits: dict[int, Hits] = {}
        self._running: dict[tuple, np.ndarray] = {}
        self._dcg: dict[tuple, np.ndarray] = {}
        self._idcg: dict[tuple, np.ndarray] = {}
        self._memo: dict[tuple, np.ndarray] = {}

    @property
    def collection_size(self) -> int | None:
        """N, asked of a callable only when a measure needs it (counting a large collection costs more than
        evaluating one topic)."""
        if callable(self._collection_size):
            self._collection_size = self._collection_size()
        return self._collection_size

    @property
    def rows(self) -> int:
        return self.labels.shape[0]

    @property
    def depth(self) -> int:
        return self.labels.shape[1]

    @cached_property
    def ranks(self) -> np.ndarray:
        return np.arange(1, self.depth + 1, dtype=np.float64)

    @cached_property
    def in_ranking(self) -> np.ndarray:
        return self.labels != PAD

    @cached_property
    def judged(self) -> np.ndarray:
        return self.labels >= 0

    @cached_property
    def unjudged(self) -> np.ndarray:
        """Retrieved and not judged: absent from the qrels or labelled negative."""
        return (self.labels == NONPOOL) | (self.labels == UNJUDGED)

    @cached_property
    def in_qrels(self) -> np.ndarray:
        return (self.labels >= 0) | (self.labels == UNJUDGED)

    @cached_property
    def gains(self) -> np.ndarray:
        return np.maximum(self.labels, 0).astype(np.float64)

    def level_of(self, measure) -> int:
        params = dict(measure.params)
        return int(params.get("rel", self.level))

    def rel(self, level: int) -> np.ndarray:
        if level not in self._rel:
            # a label at or above a positive level is judged; only a level of 0 or below must leave unjudged out
            self._rel[level] = self.labels >= level if level > 0 else (self.labels >= level) & (self.labels >= 0)
        return self._rel[level]

    @cached_property
    def judged_cells(self) -> np.ndarray:
        """The judged cells' flat positions (row * depth + column), ascending."""
        return np.flatnonzero(self.judged)

    def hits(self, level: int) -> Hits:
        """The relevant cells, in rank order."""
        if level not in self._hits:
            self._hits[level] = Hits(self.rel(level))
        return self._hits[level]

    @cached_property
    def gain_hits(self) -> Hits:
        """The cells with a positive gain, in rank order: labels are whole numbers, so these are the cells relevant
        at level 1 (the same Hits, when a measure has built it)."""
        return self.hits(1)

    def relevant_through(self, level: int, columns: np.ndarray | int) -> np.ndarray:
        """Per row, the relevant documents in columns 0..columns[row] (0 where the column is -1)."""
        return self.hits(level).through(columns)

    def running(self, key: tuple, hits: Hits, terms: Callable[[], np.ndarray]) -> np.ndarray:
        """`hits.running_sums(terms())`, cached by `key` for the measures that share it (AP and AP@k, nDCG@k...)."""
        if key not in self._running:
            self._running[key] = hits.running_sums(terms())
        return self._running[key]

    def memo(self, key: tuple, compute: Callable[[], np.ndarray]) -> np.ndarray:
        """compute(), once per batch for each `key`: an intermediate that several measures (or cutoffs) share."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    def rs(self, level: int) -> np.ndarray:
        """Relevant documents among the first i (column i-1), for every row."""
        if level not in self._rs:
            self._rs[level] = np.cumsum(self.rel(level), axis=1, dtype=np.int64)
        return self._rs[level]

    def num_rel(self, level: int) -> np.ndarray:
        return self.stats.num_rel(level)[self.row_topic]

    def num_nonrel(self, level: int) -> np.ndarray:
        return self.stats.num_nonrel(level)[self.row_topic]

    def column(self, k: int | float | None) -> np.ndarray:
        """Per row, the 0-based column of the last ranked document within the cutoff (-1 if none)."""
        k = self.depth if k is None else min(int(k), self.depth)
        return np.minimum(k, self.n) - 1

    def at(self, matrix: np.ndarray, columns: np.ndarray) -> np.ndarray:
        """matrix[row, columns[row]] with 0 where columns[row] < 0."""
        safe = np.maximum(columns, 0)
        values = matrix[np.arange(self.rows), safe]
        return np.where(columns >= 0, values, 0)

    def first(self, k: int | None) -> slice:
        return slice(0, self.depth if k is None else min(int(k), self.depth))

    def ideal_discounted(self, key: tuple, gain_fn, divisor_fn) -> np.ndarray:
        """Cumulative ideal DCG per topic (topics x judged positives), cached by `key`."""
        if key not in self._idcg:
            ideal = self.stats.ideal
            ranks = np.arange(1, ideal.shape[1] + 1, dtype=np.float64)
            self._idcg[key] = np.cumsum(gain_fn(ideal) / divisor_fn(ranks), axis=1)
        return self._idcg[key]


def safe_divide(numerator, denominator, undefined=0.0) -> np.ndarray:
    """numerator / denominator elementwise, `undefined` where the denominator is 0."""
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.asarray(denominator, dtype=np.float64)
    out = np.full(np.broadcast(numerator, denominator).shape, undefined, dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


def sequential_sum(terms: np.ndarray) -> np.ndarray:
    """Row sums added one term at a time in rank order, as trec_eval's loops add them. numpy's `sum` adds pairwise,
    which can differ in the last bit; `cumsum` is sequential, so its last column is trec_eval's sum exactly."""
    terms = np.asarray(terms, dtype=np.float64)
    if terms.shape[1] == 0:
        return np.zeros(terms.shape[0])
    return np.cumsum(terms, axis=1)[:, -1]
