"""Vocabularies: the maps from TREC strings (topic ids, docnos) to the dense integers the engine works on."""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from itertools import count, islice, pairwise

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
        order, spans = _topic_spans(topics)
        grouped = docnos if order is None else docnos.take(int_array(order))
        # Hashing a topic's docnos releases the GIL: the topics are hashed side by side, their ids numbered after.
        if len(spans) < 2 or HASHING_THREADS < 2:
            encoded = [self._encoded(topic, grouped, lines) for topic, lines in spans.items()]
        else:
            with ThreadPoolExecutor(max_workers=HASHING_THREADS) as pool:
                encoded = list(pool.map(lambda item: self._encoded(item[0], grouped, item[1]), spans.items()))
        result = np.empty(len(docnos), dtype=np.int64)
        for (topic, lines), (known, topic_encoded) in zip(spans.items(), encoded, strict=True):
            ids = self._topic_ids(topic, known, topic_encoded)
            done = 0
            for start, stop in lines:
                result[start:stop] = ids[done : done + stop - start]
                done += stop - start
        if order is not None:
            result[order] = result.copy()
        return result

    def _encoded(self, topic: int, docnos: pa.Array, lines: list[tuple[int, int]]) -> tuple[int, pa.DictionaryArray]:
        """(how many docnos the topic knew, the dictionary encoding of its known docnos then its `lines` of
        `docnos`, in order)."""
        known = self._docnos.get(topic, _NO_DOCNOS)
        pieces = [known, *(docnos.slice(start, stop - start) for start, stop in lines)]
        return len(known), pa.concat_arrays(pieces).dictionary_encode()

    def _topic_ids(self, topic: int, known: int, encoded: pa.DictionaryArray) -> np.ndarray:
        """The ids of the docnos after the `known` first of `encoded`, numbering the new ones."""
        added = encoded.dictionary[known:]
        ids = self._ids.get(topic, _NO_IDS)
        if len(added):
            ids = np.concatenate((ids, np.arange(self._count, self._count + len(added), dtype=np.int64)))
            self._count += len(added)
            self._names.append(added)
            self._docnos[topic], self._ids[topic] = encoded.dictionary, ids
        return ids[as_numpy(encoded.indices)[known:]]

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


HASHING_THREADS = min(2, os.cpu_count() or 1)
LINES_PER_BLOCK = 256  # fewer lines a block on average and the topics are grouped by a sort instead


def _topic_spans(topics: np.ndarray) -> tuple[np.ndarray | None, dict[int, list[tuple[int, int]]]]:
    """(order, {topic: its (start, stop) spans}): where the topics come in long blocks (run files, one block a topic)
    the spans are the blocks and order is None; else order is a stable sort by topic and the spans index the sorted
    lines, one a topic."""
    starts = np.concatenate(([0], np.flatnonzero(topics[1:] != topics[:-1]) + 1)) if len(topics) else _NO_IDS
    order = None
    if len(starts) * LINES_PER_BLOCK > len(topics):
        key = topics.astype(np.uint16) if topics.min() >= 0 and topics.max() < 1 << 16 else topics  # a radix sort
        order = np.argsort(key, kind="stable")
        topics = topics[order]
        starts = np.concatenate(([0], np.flatnonzero(topics[1:] != topics[:-1]) + 1))
    spans: dict[int, list[tuple[int, int]]] = {}
    for topic, span in zip(topics[starts].tolist(), pairwise([*starts.tolist(), len(topics)]), strict=True):
        spans.setdefault(topic, []).append(span)
    return order, spans
