"""Vocabularies: the maps from TREC strings (topic ids, docnos) to the dense integers the engine works on."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from itertools import count, islice

import numpy as np

from .hash_index import HashIndex
from .run_bytes import fnv1a


class Vocabulary:
    """Assigns dense integer ids to strings (docnos or topic ids) in order of first appearance."""

    def __init__(self, names: Iterable[str] = ()):
        self.names: list[str] = []
        self._next = count().__next__
        self._index: defaultdict[str, int] = defaultdict(self._next)
        self.ids(list(names))

    def id(self, name: str) -> int:
        return int(self.ids([name])[0])

    def ids(self, names: Iterable[str]) -> np.ndarray:
        return _ids(self._index, self.names, names if isinstance(names, list) else list(names))

    def get(self, name: str) -> int | None:
        return self._index.get(name)

    def __len__(self) -> int:
        return len(self.names)


class DocumentVocabulary:
    """Document ids, assigned per topic.

    The engine only ever pairs a document with its topic (keys are topic << 32 | doc), so a docno needs one id per
    topic, not one overall. Per-topic maps stay small enough for the CPU cache, which makes looking up the millions
    of docnos in a set of run files several times faster than one collection-wide map. Ids are numbered on across
    topics by one shared counter, so `names[id]` is the docno.
    """

    def __init__(self):
        self._next = count().__next__
        self._per_topic: dict[int, defaultdict[str, int]] = {}
        self._hashed = HashIndex()  # hash of (topic, docno) -> row of the three arrays below: the pairs seen as bytes
        self._known_ids = np.empty(0, dtype=np.int64)
        self._known_topics = np.empty(0, dtype=np.int64)
        self._known_docnos = np.empty(0, dtype="S1")
        self.names: list[str] = []

    def ids(self, topic: int, docnos: list[str]) -> np.ndarray:
        index = self._per_topic.get(topic)
        if index is None:
            index = self._per_topic[topic] = defaultdict(self._next)
        return _ids(index, self.names, docnos)

    def ids_of_bytes(self, topics: np.ndarray, docnos: np.ndarray) -> np.ndarray:
        """Ids of (topic, docno) pairs, docnos given as a fixed-width ASCII bytes array: the ids `ids` gives.

        A hash table of (topic, docno) sits in front of the dicts: a pair whose hash is in the table and whose
        topic and bytes equal those stored with it takes the stored id without its docno becoming a Python string.
        Every other pair (new to the table, or an astronomically rare hash collision) goes through the dicts and
        joins the table."""
        hashes = fnv1a(docnos) + topics.astype(np.uint64) * _TOPIC_MIX
        result = np.empty(len(docnos), dtype=np.int64)
        rows = self._hashed.find(hashes)
        hit = np.flatnonzero(rows >= 0)
        known = rows[hit]
        hit = hit[(self._known_topics[known] == topics[hit]) & (self._known_docnos[known] == docnos[hit])]
        result[hit] = self._known_ids[rows[hit]]
        miss = np.ones(len(docnos), dtype=bool)
        miss[hit] = False
        miss = np.flatnonzero(miss)
        if len(miss):
            miss = miss[np.argsort(topics[miss], kind="stable")]  # each topic's lines together, in file order
            miss_topics = topics[miss]
            bounds = np.flatnonzero(np.diff(miss_topics)) + 1
            names = docnos[miss].astype("U").tolist()
            for start, end in zip([0, *bounds.tolist()], [*bounds.tolist(), len(miss)], strict=True):
                result[miss[start:end]] = self.ids(int(miss_topics[start]), names[start:end])
            self._remember(hashes[miss], result[miss], miss_topics, docnos[miss])
        return result

    def _remember(self, hashes: np.ndarray, ids: np.ndarray, topics: np.ndarray, docnos: np.ndarray) -> None:
        new = self._hashed.find(hashes) < 0  # a colliding hash keeps the pair it has; the other stays on the dicts
        rows = np.arange(len(self._known_ids), len(self._known_ids) + np.count_nonzero(new))
        self._known_ids = np.concatenate((self._known_ids, ids[new]))
        self._known_topics = np.concatenate((self._known_topics, topics[new]))
        self._known_docnos = np.concatenate((self._known_docnos, docnos[new]))
        self._hashed.add(hashes[new], rows)

    def get(self, topic: int, docno: str) -> int | None:
        return self._per_topic.get(topic, {}).get(docno)

    def __len__(self) -> int:
        return len(self.names)


_TOPIC_MIX = np.uint64(0x9E3779B97F4A7C15)  # spreads topic ids over the hash space (the golden-ratio constant)


def _ids(index: defaultdict[str, int], names: list[str], wanted: list[str]) -> np.ndarray:
    """Ids of `wanted` in `index`, adding the new ones and appending them to `names`.

    One C-level pass with no per-name Python code (run files hold millions of names): `index` is a defaultdict whose
    factory is the shared counter, so a missing name gets the next id inside the lookup. Dicts keep insertion
    order, so the names added by this call are the index's last entries, in id order."""
    before = len(index)
    ids = np.fromiter(map(index.__getitem__, wanted), dtype=np.int64, count=len(wanted))
    added = len(index) - before
    if added:
        names += list(islice(reversed(index), added))[::-1]
    return ids
