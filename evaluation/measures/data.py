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

# Label codes inside the engine's label matrices, below every real label (real labels < 0 become UNJUDGED).
NONPOOL = -1  # retrieved, absent from the qrels
UNJUDGED = -2  # in the qrels with a negative label: pooled but not judged
PAD = -3  # past the end of a ranking

MAX_ID = 2**32  # topic and document ids are packed into one int64 key as topic << 32 | doc


class Vocabulary:
    """Assigns dense integer ids to strings (docnos or topic ids) in order of first appearance."""

    def __init__(self, names: Iterable[str] = ()):
        self._index: dict[str, int] = {}
        self.names: list[str] = []
        for name in names:
            self.id(name)

    def id(self, name: str) -> int:
        index = self._index.get(name)
        if index is None:
            index = self._index[name] = len(self.names)
            self.names.append(name)
        return index

    def ids(self, names: Iterable[str]) -> np.ndarray:
        names = list(names)
        found = list(map(self._index.get, names))  # C-level lookups; only new names take the slow path
        if None in found:
            found = [self.id(name) if index is None else index for name, index in zip(names, found, strict=True)]
        return np.array(found, dtype=np.int64)

    def get(self, name: str) -> int | None:
        return self._index.get(name)

    def __len__(self) -> int:
        return len(self.names)


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
        cls, tag: str, scores: Mapping[str, Mapping[str, float]], topics: Vocabulary, docs: Vocabulary
    ) -> PreparedRun:
        """Builds a run from {topic: {docno: score}}, putting every topic in trec_eval order with one global sort:
        topic, then score descending, then docno descending in byte order (compared only where scores tie)."""
        names = list(scores)
        lengths = np.array([len(scores[t]) for t in names], dtype=np.int64)
        docnos = list(chain.from_iterable(scores[t] for t in names))
        ids = docs.ids(docnos)
        values = np.concatenate(
            [np.fromiter(scores[t].values(), dtype=np.float64, count=len(scores[t])) for t in names] or [[]]
        )
        topic_ids = topics.ids(names)
        by_topic = np.argsort(topic_ids, kind="stable")
        topic_slot = np.empty(len(names), dtype=np.int64)
        topic_slot[by_topic] = np.arange(len(names))
        slot = np.repeat(topic_slot, lengths)
        order = np.lexsort((-values, slot))
        tied = np.zeros(len(order), dtype=bool)
        same = (slot[order][1:] == slot[order][:-1]) & (values[order][1:] == values[order][:-1])
        tied[1:] |= same
        tied[:-1] |= same
        docno_rank = np.zeros(len(order), dtype=np.int64)
        if tied.any():
            positions = order[tied]
            strings = np.array([docnos[i] for i in positions.tolist()], dtype=str)
            docno_rank[positions] = np.unique(strings, return_inverse=True)[1].ravel()
            order = np.lexsort((-docno_rank, -values, slot))
        offsets = np.zeros(len(names) + 1, dtype=np.int64)
        np.cumsum(lengths[by_topic], out=offsets[1:])
        return cls(tag, topic_ids[by_topic], offsets, ids[order])

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
        per_topic_docs, per_topic_labels = {}, {}
        for topic, judged in qrels.items():
            if not judged:
                continue
            docs = np.fromiter(judged.keys(), dtype=np.int64, count=len(judged))
            labels = np.fromiter(judged.values(), dtype=np.int64, count=len(judged))
            order = np.argsort(docs, kind="stable")
            per_topic_docs[int(topic)], per_topic_labels[int(topic)] = docs[order], labels[order]
        topics, offsets, docs = _flatten(per_topic_docs)
        labels = np.concatenate([per_topic_labels[int(t)] for t in topics]) if len(topics) else np.empty(0, np.int64)
        return cls(topics, offsets, docs, labels)

    @classmethod
    def from_strings(
        cls, qrels: Mapping[str, Mapping[str, int]], topics: Vocabulary, docs: Vocabulary
    ) -> PreparedQrels:
        return cls.from_mapping(
            {
                topics.id(t): dict(zip(docs.ids(judged.keys()).tolist(), judged.values(), strict=True))
                for t, judged in qrels.items()
            }
        )

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
