"""Qrels and prepared runs as integer arrays, plus the vocabulary that maps TREC strings to those integers.

Topics and documents are integers everywhere inside the engine: the web app passes database ids, the command line
passes ids from a `Vocabulary`. A prepared run holds, per topic, its document ids already in trec_eval's order, so
evaluating it never sorts or touches strings again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import chain

import numpy as np
import pyarrow as pa

from measures.arrow_arrays import int_array, string_array
from measures.vocabulary import DocumentVocabulary, Vocabulary, byte_order_ranks

# Label codes inside the engine's label matrices, below every real label (real labels < 0 become UNJUDGED).
NONPOOL = -1  # retrieved, absent from the qrels
UNJUDGED = -2  # in the qrels with a negative label: pooled but not judged
PAD = -3  # past the end of a ranking

MAX_ID = 2**32  # topic and document ids are packed into one int64 key as topic << 32 | doc


class RepeatedDocument(ValueError):
    """A run lists the same document twice for one topic; `position` is the later entry's index in the input."""

    def __init__(self, position: int):
        self.position = position
        super().__init__(f"entry {position} repeats an earlier (topic, document)")


def trec_order(docnos: list[str], scores: list[float] | np.ndarray) -> np.ndarray:
    """Returns the permutation that puts a topic's retrieved documents in trec_eval's order.

    trec_eval sorts by score descending, then by docno descending in byte order (`strcmp(b, a)`); Python's `str`
    ordering is UTF-8 byte order, so both keys are simply sorted descending. Docnos must be unique.
    """
    if len(docnos) == 0:
        return np.empty(0, dtype=np.int64)
    ascending = np.lexsort((np.asarray(docnos, dtype=str), np.asarray(scores, dtype=np.float64)))
    return ascending[::-1].astype(np.int64)


def _flatten(per_topic: Mapping[int, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    topics = np.array(sorted(per_topic), dtype=np.int64)
    arrays = [np.asarray(per_topic[int(t)], dtype=np.int64) for t in topics]
    offsets = np.zeros(len(arrays) + 1, dtype=np.int64)
    np.cumsum([len(a) for a in arrays], out=offsets[1:])
    flat = np.concatenate(arrays) if arrays else np.empty(0, dtype=np.int64)
    return topics, offsets, flat


def repeats(ids: np.ndarray) -> bool:
    """Whether an id occurs twice (for a DocumentVocabulary's ids: a document listed twice for one topic)."""
    try:
        _refuse_repeats(ids)
    except RepeatedDocument:
        return True
    return False


def _refuse_repeats(ids: np.ndarray) -> None:
    """Raises RepeatedDocument if an id occurs twice. The ids are a DocumentVocabulary's, one per (topic, docno),
    so a repeated id is a document listed twice for one topic."""
    if len(ids) == 0:
        return
    if int(ids.max()) < _DENSE_IDS_PER_ENTRY * len(ids) + (1 << 16) and np.bincount(ids).max() <= 1:
        return  # ids dense enough to count: one pass, no sort
    order = np.argsort(ids, kind="stable")
    repeated = np.flatnonzero(ids[order][1:] == ids[order][:-1])
    if len(repeated):
        raise RepeatedDocument(int(order[1:][repeated].min()))


_DENSE_IDS_PER_ENTRY = 64


def _trec_order_by_topic(
    topic_rank: np.ndarray, values: np.ndarray, topics: int, block_ranks: np.ndarray, block_starts: np.ndarray
) -> np.ndarray:
    """Positions sorted by topic, then score descending; equal scores are left in any order (see below).

    Run files are usually written in rank order, one block of lines per topic: then only the blocks are put in
    topic order. Otherwise two passes beat one lexsort several times over: an unstable sort of the scores, then a
    stable sort by topic, which numpy does as a radix sort when the topic key fits in 16 bits."""
    falls = values[1:] <= values[:-1]
    falls[block_starts[1:] - 1] = True  # a new block may start at any score
    if falls.all() and len(block_ranks) == topics:  # every topic one block, each already score-descending
        block_ends = np.append(block_starts[1:], len(values))
        blocks = np.argsort(block_ranks)
        return cell_index(block_starts[blocks], block_ends[blocks] - block_starts[blocks])
    by_score = np.argsort(-values)
    key = topic_rank[by_score].astype(np.uint16 if topics <= 1 << 16 else np.int64)
    return by_score[np.argsort(key, kind="stable")]


def cell_index(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenation of arange(s, s + n) for each (s, n): the flat indexes of variable-length slices."""
    lengths = np.asarray(lengths, dtype=np.int64)
    total = int(lengths.sum())
    if total == 0:
        return np.empty(0, dtype=np.int64)
    first = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    offsets = np.repeat(np.asarray(starts, dtype=np.int64) - first, lengths)
    return offsets + np.arange(total, dtype=np.int64)


def _break_score_ties(
    order: np.ndarray,
    topic_ids: np.ndarray,
    values: np.ndarray,
    docnos: pa.Array,
    doc_ids: np.ndarray,
    docno_ranks: np.ndarray | None = None,
) -> np.ndarray:
    """Puts each run of equal scores within a topic in docno-descending byte order, as trec_eval does.

    Only the tied entries are touched. Their docnos' byte-order ranks come from `docno_ranks` (indexed by document
    id: ranked once for every run read together) where given, else from ranking the tied docnos themselves."""
    sorted_topics, sorted_values = topic_ids[order], values[order]
    same = (sorted_topics[1:] == sorted_topics[:-1]) & (sorted_values[1:] == sorted_values[:-1])
    if not same.any():
        return order
    tied = np.zeros(len(order), dtype=bool)
    tied[1:] |= same
    tied[:-1] |= same
    slots = np.flatnonzero(tied)
    group = np.cumsum(np.concatenate(([True], ~same))[slots])  # one number per run of equal scores, ascending
    positions = order[slots]
    if docno_ranks is not None:
        docno_rank = docno_ranks[doc_ids[positions]]
    else:
        docno_rank = byte_order_ranks(docnos.take(int_array(positions)))
    # One integer key, group then docno descending: a single sort of it, not a lexsort of two.
    span = int(docno_rank.max()) + 1
    order = order.copy()
    order[slots] = positions[np.argsort(group * span + (span - 1 - docno_rank), kind="stable")]
    return order


def trec_line_order(
    topic_ids: np.ndarray,
    scores: np.ndarray,
    docnos: pa.Array,
    doc_ids: np.ndarray | None = None,
    docno_ranks: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A run's lines (in file order) in trec_eval order: (its topics ascending, offsets: topic i's lines are
    order[offsets[i]:offsets[i + 1]], order: the lines' positions by topic, score descending, then docno descending
    in byte order). Docnos are compared only where scores tie; `docno_ranks` (indexed by `doc_ids`) saves ranking
    them here. A (topic, docno) must not repeat."""
    block_starts = np.concatenate(([0], np.flatnonzero(topic_ids[1:] != topic_ids[:-1]) + 1))
    block_starts = block_starts[: len(topic_ids)] if len(topic_ids) else np.empty(0, np.int64)
    block_ends = np.append(block_starts[1:], len(topic_ids))
    values = np.asarray(scores, dtype=np.float64)
    run_topics, topic_rank = np.unique(topic_ids[block_starts], return_inverse=True)
    lines = np.repeat(topic_rank, block_ends - block_starts)
    order = _trec_order_by_topic(lines, values, len(run_topics), topic_rank, block_starts)
    order = _break_score_ties(order, topic_ids, values, docnos, doc_ids, docno_ranks if doc_ids is not None else None)
    offsets = np.zeros(len(run_topics) + 1, dtype=np.int64)
    sizes = np.bincount(topic_rank, weights=block_ends - block_starts, minlength=len(run_topics))
    np.cumsum(sizes.astype(np.int64), out=offsets[1:])
    return run_topics, offsets, order


@dataclass(eq=False)
class PreparedRun:
    """One system's rankings: per topic, document ids in trec_eval order. Immutable once built."""

    tag: str
    topics: np.ndarray  # sorted topic ids
    offsets: np.ndarray  # len(topics) + 1; topic i's ranking is docs[offsets[i]:offsets[i+1]]
    docs: np.ndarray
    _position: dict[int, int] = field(default_factory=dict, repr=False)

    def __post_init__(self):
        self._position = {int(t): i for i, t in enumerate(self.topics)}

    @classmethod
    def from_rankings(cls, tag: str, rankings: Mapping[int, Iterable[int]]) -> PreparedRun:
        """Builds a run from {topic id: document ids already in trec_eval order}."""
        topics, offsets, docs = _flatten(
            {int(t): np.asarray(list(d) if not isinstance(d, np.ndarray) else d) for t, d in rankings.items()}
        )
        return cls(tag, topics, offsets, docs)

    @classmethod
    def from_scores(
        cls, tag: str, scores: Mapping[str, Mapping[str, float]], topics: Vocabulary, docs: DocumentVocabulary
    ) -> PreparedRun:
        """Builds a run from {topic: {docno: score}}."""
        topic_ids = np.repeat(topics.ids(list(scores)), [len(ranked) for ranked in scores.values()]).astype(np.int64)
        docnos = string_array(list(chain.from_iterable(scores.values())))
        values = np.fromiter(chain.from_iterable(r.values() for r in scores.values()), np.float64, len(docnos))
        return cls.from_lines(tag, topic_ids, docs.ids(topic_ids, docnos), values, docnos)

    @classmethod
    def from_lines(
        cls,
        tag: str,
        topic_ids: np.ndarray,
        doc_ids: np.ndarray,
        scores: np.ndarray,
        docnos: pa.Array,
        docno_ranks: np.ndarray | None = None,
    ) -> PreparedRun:
        """Builds a run from its lines in file order (ids from one DocumentVocabulary, so a repeated id is a
        repeated (topic, docno)), putting every topic in trec_eval order: topic, then score descending, then docno
        descending in byte order (compared only where scores tie, since comparing strings is what makes sorting runs
        slow). Raises RepeatedDocument for a document listed twice for one topic."""
        _refuse_repeats(doc_ids)
        run_topics, offsets, order = trec_line_order(topic_ids, scores, docnos, doc_ids, docno_ranks)
        return cls(tag, run_topics, offsets, doc_ids[order])

    def ranking(self, topic: int) -> np.ndarray:
        index = self._position.get(int(topic))
        if index is None:
            return np.empty(0, dtype=np.int64)
        return self.docs[self.offsets[index] : self.offsets[index + 1]]

    def __contains__(self, topic: int) -> bool:
        return int(topic) in self._position

    def __len__(self) -> int:
        return len(self.docs)


@dataclass(eq=False)
class PreparedQrels:
    """Relevance labels: per topic, judged document ids (sorted) and their integer labels."""

    topics: np.ndarray
    offsets: np.ndarray
    docs: np.ndarray
    labels: np.ndarray
    keys: np.ndarray = field(init=False, repr=False)  # topic << 32 | doc, ascending

    def __post_init__(self):
        topic_of_entry = np.repeat(self.topics, np.diff(self.offsets))
        self.keys = (topic_of_entry << 32) | self.docs

    @classmethod
    def from_mapping(cls, qrels: Mapping[int, Mapping[int, int]]) -> PreparedQrels:
        """Builds qrels from {topic id: {document id: label}}; topics with no entries are dropped."""
        return cls._from_columns(
            {
                int(topic): (
                    np.fromiter(judged.keys(), dtype=np.int64, count=len(judged)),
                    np.fromiter(judged.values(), dtype=np.int64, count=len(judged)),
                )
                for topic, judged in qrels.items()
            }
        )

    @classmethod
    def from_strings(
        cls, qrels: Mapping[str, Mapping[str, int]], topics: Vocabulary, docs: DocumentVocabulary
    ) -> PreparedQrels:
        topic_ids = np.repeat(topics.ids(list(qrels)), [len(judged) for judged in qrels.values()]).astype(np.int64)
        docnos = list(chain.from_iterable(qrels.values()))
        labels = np.fromiter(chain.from_iterable(j.values() for j in qrels.values()), np.int64, len(docnos))
        return cls.from_lines(topic_ids, docs.ids(topic_ids, docnos), labels)

    @classmethod
    def from_lines(cls, topic_ids: np.ndarray, doc_ids: np.ndarray, labels: np.ndarray) -> PreparedQrels:
        """From parallel columns, each (topic, document) once."""
        order = np.lexsort((doc_ids, topic_ids))
        topics, starts = np.unique(topic_ids[order], return_index=True)
        offsets = np.append(starts, len(order)).astype(np.int64)
        return cls(topics.astype(np.int64), offsets, doc_ids[order], np.asarray(labels, dtype=np.int64)[order])

    @classmethod
    def _from_columns(cls, columns: Mapping[int, tuple[np.ndarray, np.ndarray]]) -> PreparedQrels:
        """From {topic id: (document ids, labels)}, each topic's documents distinct; empty topics are dropped."""
        per_topic_docs, per_topic_labels = {}, {}
        for topic, (docs, labels) in columns.items():
            if len(docs):
                order = np.argsort(docs, kind="stable")
                per_topic_docs[topic], per_topic_labels[topic] = docs[order], labels[order]
        topics, offsets, docs = _flatten(per_topic_docs)
        labels = np.concatenate([per_topic_labels[int(t)] for t in topics]) if len(topics) else np.empty(0, np.int64)
        return cls(topics, offsets, docs, labels)

    def topic_labels(self, topic: int) -> tuple[np.ndarray, np.ndarray]:
        index = np.searchsorted(self.topics, topic)
        if index == len(self.topics) or self.topics[index] != topic:
            return np.empty(0, np.int64), np.empty(0, np.int64)
        lo, hi = self.offsets[index], self.offsets[index + 1]
        return self.docs[lo:hi], self.labels[lo:hi]

    def subset(self, topics: Iterable[int]) -> PreparedQrels:
        wanted = set(int(t) for t in topics)
        return PreparedQrels.from_mapping(
            {t: dict(zip(*(a.tolist() for a in self.topic_labels(t)), strict=True)) for t in wanted}
        )

    def __contains__(self, topic: int) -> bool:
        index = np.searchsorted(self.topics, topic)
        return bool(index < len(self.topics) and self.topics[index] == topic)
