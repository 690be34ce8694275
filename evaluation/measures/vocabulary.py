"""Vocabularies: the maps from TREC strings (topic ids, docnos) to the dense integers the engine works on."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from itertools import count, islice

import numpy as np

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
        self._table = _EMPTY_TABLE  # (sorted hashes, ids, topics, docnos) of the pairs seen as bytes
        self.names: list[str] = []

    def ids(self, topic: int, docnos: list[str]) -> np.ndarray:
        index = self._per_topic.get(topic)
        if index is None:
            index = self._per_topic[topic] = defaultdict(self._next)
        return _ids(index, self.names, docnos)

    def ids_of_bytes(self, topics: np.ndarray, docnos: np.ndarray) -> np.ndarray:
        """Ids of (topic, docno) pairs, docnos given as a fixed-width ASCII bytes array: the ids `ids` gives.

        A table of hashes of (topic, docno) sits in front of the dicts: a pair whose hash is in the table and whose
        topic and bytes equal those stored with it takes the stored id without its docno becoming a Python string.
        Every other pair (new to the table, or an astronomically rare hash collision) goes through the dicts and
        joins the table."""
        hashes = fnv1a(docnos) + topics.astype(np.uint64) * _TOPIC_MIX
        keys, ids, known_topics, known = self._table
        result = np.empty(len(docnos), dtype=np.int64)
        hit = np.zeros(len(docnos), dtype=bool)
        if len(keys):
            position = np.minimum(_sorted_search(keys, hashes), len(keys) - 1)
            hit = (keys[position] == hashes) & (known_topics[position] == topics) & (known[position] == docnos)
            result[hit] = ids[position[hit]]
        miss = np.flatnonzero(~hit)
        if len(miss):
            miss_topics = topics[miss]
            for topic in np.unique(miss_topics).tolist():
                lines = miss[miss_topics == topic]
                result[lines] = self.ids(topic, [d.decode("ascii") for d in docnos[lines].tolist()])
            self._remember(hashes[miss], result[miss], miss_topics, docnos[miss])
        return result

    def _remember(self, hashes: np.ndarray, ids: np.ndarray, topics: np.ndarray, docnos: np.ndarray) -> None:
        keys, known_ids, known_topics, known = self._table
        order = np.argsort(hashes, kind="stable")
        ordered = hashes[order]
        first = order[np.concatenate(([True], ordered[1:] != ordered[:-1]))]
        if len(keys):  # a colliding hash keeps its first pair; the other stays on the dict path
            position = np.minimum(np.searchsorted(keys, hashes[first]), len(keys) - 1)
            first = first[keys[position] != hashes[first]]
        keys = np.concatenate((keys, hashes[first]))
        order = np.argsort(keys, kind="stable")
        self._table = (
            keys[order],
            np.concatenate((known_ids, ids[first]))[order],
            np.concatenate((known_topics, topics[first]))[order],
            np.concatenate((known, docnos[first]))[order],
        )

    def get(self, topic: int, docno: str) -> int | None:
        return self._per_topic.get(topic, {}).get(docno)

    def __len__(self) -> int:
        return len(self.names)


_EMPTY_TABLE = (np.empty(0, np.uint64), np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, "S1"))
_TOPIC_MIX = np.uint64(0x9E3779B97F4A7C15)  # spreads topic ids over the hash space (the golden-ratio constant)


def _sorted_search(keys: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """np.searchsorted with the queries sorted first: each search then starts where the previous one ended, which
    walks the table in order instead of jumping about it (several times faster on tables beyond the CPU cache)."""
    order = np.argsort(wanted)
    position = np.empty(len(wanted), dtype=np.intp)
    position[order] = np.searchsorted(keys, wanted[order])
    return position


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
