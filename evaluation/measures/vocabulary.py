"""Vocabularies: the maps from TREC strings (topic ids, docnos) to the dense integers the engine works on."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import filterfalse

import numpy as np


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
        return _ids(self._index, self.names, names if isinstance(names, list) else list(names))

    def get(self, name: str) -> int | None:
        return self._index.get(name)

    def __len__(self) -> int:
        return len(self.names)


class DocumentVocabulary:
    """Document ids, assigned per topic.

    The engine only ever pairs a document with its topic (keys are topic << 32 | doc), so a docno needs one id per
    topic, not one overall. Per-topic maps stay small enough for the CPU cache, which makes looking up the millions
    of docnos in a set of run files several times faster than one collection-wide map.
    """

    def __init__(self):
        self._per_topic: dict[int, dict[str, int]] = {}
        self.names: list[str] = []

    def ids(self, topic: int, docnos: list[str]) -> np.ndarray:
        index = self._per_topic.get(topic)
        if index is None:
            index = self._per_topic[topic] = {}
        return _ids(index, self.names, docnos)

    def get(self, topic: int, docno: str) -> int | None:
        return self._per_topic.get(topic, {}).get(docno)

    def __len__(self) -> int:
        return len(self.names)


def _ids(index: dict[str, int], names: list[str], wanted: list[str]) -> np.ndarray:
    """Ids of `wanted` in `index`, adding the new ones (numbered on from `names`, which they are appended to).

    Lookups are C-level `map` calls, with no per-name Python code: run files hold millions of names. Known names
    are the common case, so the first attempt assumes all are known and the KeyError path adds the others."""
    try:
        return np.fromiter(map(index.__getitem__, wanted), dtype=np.int64, count=len(wanted))
    except KeyError:
        new = list(filterfalse(index.__contains__, dict.fromkeys(wanted)))
        index.update(zip(new, range(len(names), len(names) + len(new)), strict=True))
        names += new
        return np.fromiter(map(index.__getitem__, wanted), dtype=np.int64, count=len(wanted))
