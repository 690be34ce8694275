"""Vocabularies: the maps from TREC strings (topic ids, docnos) to the dense integers the engine works on."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from itertools import count, islice

import numpy as np


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
        self.names: list[str] = []

    def ids(self, topic: int, docnos: list[str]) -> np.ndarray:
        index = self._per_topic.get(topic)
        if index is None:
            index = self._per_topic[topic] = defaultdict(self._next)
        return _ids(index, self.names, docnos)

    def get(self, topic: int, docno: str) -> int | None:
        return self._per_topic.get(topic, {}).get(docno)

    def __len__(self) -> int:
        return len(self.names)


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
