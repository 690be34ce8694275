"""Vocabularies: the maps from TREC strings (topic ids, docnos) to the dense integers the engine works on."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from itertools import count, islice

import numpy as np
import pyarrow as pa

from measures.arrow_arrays import as_numpy, int_array, string_array


class Vocabulary:
    """Assigns dense integer ids to strings (topic ids) in order of first appearance."""

    def __init__(self, names: Iterable[str] = ()):
        self.names: list[str] = []
        self._next = count().__next__
        self._index: defaultdict[str, int] = defaultdict(self._next)
        self.ids(list(names))

    def id(self, name: str) -> int:
        return int(self.ids([name])[0])

    def ids(self, names: Iterable[str]) -> np.ndarray:
        """Ids of `names`, adding the new ones. One C-level pass with no per-name Python code: the index is a
        defaultdict whose factory is the counter, so a missing name gets the next id inside the lookup; dicts keep
        insertion order, so the names added by this call are the index's last entries."""
        wanted = names if isinstance(names, list) else list(names)
        before = len(self._index)
        ids = np.fromiter(map(self._index.__getitem__, wanted), dtype=np.int64, count=len(wanted))
        added = len(self._index) - before
        if added:
            self.names += list(islice(reversed(self._index), added))[::-1]
        return ids

    def ids_of_column(self, names: pa.Array) -> np.ndarray:
        """Ids of a column of names: each distinct name is looked up once."""
        encoded = names if pa.types.is_dictionary(names.type) else names.dictionary_encode()
        return self.ids(encoded.dictionary.to_pylist())[as_numpy(encoded.indices).astype(np.int64)]

    def get(self, name: str) -> int | None:
        return self._index.get(name)

    def __len__(self) -> int:
        return len(self.names)


class DocumentVocabulary:
    """One id per (topic, docno) pair, numbered across topics by one counter.

    The engine only ever pairs a document with its topic, so a docno needs one id per topic. Each topic keeps its
    own docnos, looked up by pyarrow's hash tables (C++): a topic's table stays small enough for the CPU cache, which
    makes looking up the millions of docnos of a set of run files several times faster than one collection-wide
    table. Each lookup re-hashes the topic's known docnos, so callers pass everything they have at once
    (`TrecReader.runs_from_files`)."""

    def __init__(self):
        self._docnos: dict[int, pa.Array] = {}  # topic -> its docnos; a docno's position indexes _ids[topic]
        self._ids: dict[int, np.ndarray] = {}
        self._names: list[pa.Array] = []  # every docno in id order, in the pieces they were added
        self._count = 0
        self._ranks: np.ndarray | None = None

    def ids(self, topics: np.ndarray | int, docnos: pa.Array | list[str]) -> np.ndarray:
        """Ids of the pairs (topics[i], docnos[i]) (one topic may be given for all), adding the new ones."""
        docnos = docnos if isinstance(docnos, pa.Array) else string_array(docnos)
        topics = np.broadcast_to(np.asarray(topics, dtype=np.int64), len(docnos))
        result = np.empty(len(docnos), dtype=np.int64)
        order = np.argsort(topics, kind="stable")
        sorted_topics = topics[order]
        bounds = np.flatnonzero(sorted_topics[1:] != sorted_topics[:-1]) + 1
        grouped = docnos.take(int_array(order)) if len(bounds) or not _ascending(order) else docnos
        for start, end in zip([0, *bounds.tolist()], [*bounds.tolist(), len(order)], strict=True):
            if start < end:
                result[order[start:end]] = self._topic_ids(int(sorted_topics[start]), grouped[start:end])
        return result

    def _topic_ids(self, topic: int, docnos: pa.Array) -> np.ndarray:
        known = self._docnos.get(topic, _NO_DOCNOS)
        encoded = pa.concat_arrays([known, docnos]).dictionary_encode()
        added = encoded.dictionary[len(known) :]
        ids = self._ids.get(topic, _NO_IDS)
        if len(added):
            ids = np.concatenate((ids, np.arange(self._count, self._count + len(added), dtype=np.int64)))
            self._count += len(added)
            self._names.append(added)
            self._docnos[topic], self._ids[topic] = encoded.dictionary, ids
        return ids[as_numpy(encoded.indices)[len(known) :]]

    def get(self, topic: int, docno: str) -> int | None:
        known = self._docnos.get(topic, _NO_DOCNOS).to_pylist()
        return int(self._ids[topic][known.index(docno)]) if docno in known else None

    def docno_ranks(self) -> np.ndarray:
        """Indexed by id: its docno's rank in byte order among every docno here (equal docnos, equal ranks). Ranked
        once for all the runs read together, where ranking each run's tied docnos repeated the work per run."""
        if self._ranks is None or len(self._ranks) != self._count:
            names = pa.chunked_array(self._names, pa.string()).combine_chunks() if self._names else _NO_DOCNOS
            self._ranks = byte_order_ranks(names)
        return self._ranks

    @property
    def names(self) -> list[str]:
        """Every docno in id order (`names[id]`); built on demand, for tests and reports."""
        return pa.chunked_array(self._names, pa.string()).to_pylist()

    def __len__(self) -> int:
        return self._count


_NO_DOCNOS = pa.nulls(0, pa.string())


def byte_order_ranks(docnos: pa.Array) -> np.ndarray:
    """Each docno's rank in byte order (equal docnos equal ranks), by pyarrow's sort, which compares strings as
    their UTF-8 bytes: trec_eval's strcmp order (and code point order). Four times faster on tied files than
    comparing them as Python strings, which stays as the way for an array pyarrow cannot rank."""
    import pyarrow.compute as pc  # only files with ties need it

    if not len(docnos):
        return np.empty(0, dtype=np.int64)
    try:
        return as_numpy(pc.rank(docnos, sort_keys="ascending", tiebreaker="dense")).astype(np.int64)
    except (pa.ArrowNotImplementedError, pa.ArrowInvalid):
        strings = np.array(docnos.to_pylist(), dtype=str)
        return np.unique(strings, return_inverse=True)[1].ravel()


_NO_IDS = np.empty(0, dtype=np.int64)


def _ascending(order: np.ndarray) -> bool:
    return bool((order[1:] > order[:-1]).all())
