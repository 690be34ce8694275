"""The fast path of a run import, pure: a plain run file (read by pyarrow, `measures.trec_files.import_run_table`)
holding one run, checked value by distinct value rather than line by line, and put in trec_eval order in arrays.
Topics and documents are looked up by the importer's own functions, which give a new one a provisional (negative)
id when the import creates what is missing, or None when it does not. Anything it does not vouch for (a problem on
any line, a topic or document the import may not create, a tag another file has, a document ranked twice) answers
None: the careful reader then reads the file and names each faulty line, so the fast path never decides what is
refused, only that nothing is."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from judging.core import rankings as stored
from judging.imports.core.fields import identifier_problem, text_problem
from judging.imports.core.trec_lines import _PATH_LIKE, MAX_DOCNO_CHARS, MAX_RANK, MAX_TAG_CHARS, MAX_TOPIC_CHARS
from measures.arrow_arrays import as_numpy
from measures.data import repeats, trec_line_order
from measures.lines import MAX_LINE_BYTES
from measures.trec_files import import_run_table


@dataclass(frozen=True)
class FastRun:
    """One run in trec_eval order: topic i's documents and scores are docs[offsets[i]:offsets[i + 1]]; ids of
    topics and documents the import creates are provisional (negative) until `rankings` is given the real ones."""

    tag: str
    topics: np.ndarray
    offsets: np.ndarray
    docs: np.ndarray
    scores: np.ndarray

    def rankings(
        self, topic_ids: Mapping[int, int] | None = None, document_ids: Mapping[int, int] | None = None
    ) -> dict[int, tuple[bytes, bytes, int]]:
        """{topic id: (document ids, scores, depth)} as `Ranking` stores them, provisional ids replaced by the
        real ones the maps give."""
        docs = self.docs
        if document_ids and (docs < 0).any():
            docs = docs.copy()
            new = docs < 0
            docs[new] = np.fromiter((document_ids[int(d)] for d in docs[new]), dtype=np.int64, count=int(new.sum()))
        docs, scores = docs.astype(stored.IDS), self.scores.astype(stored.SCORES)  # once; each topic a slice
        bounds = zip(self.topics.tolist(), self.offsets[:-1].tolist(), self.offsets[1:].tolist(), strict=True)
        return {
            (topic_ids or {}).get(topic, topic): (docs[a:b].tobytes(), scores[a:b].tobytes(), int(b - a))
            for topic, a, b in bounds
        }


def _distinct(column: pa.Array, max_chars: int) -> tuple[list[str], np.ndarray] | None:
    """(each distinct value, each line's index into them), or None when one cannot be stored as it is (non-ASCII,
    too long, against the identifier policy: the careful reader says which line)."""
    encoded = column.dictionary_encode()
    values = encoded.dictionary.to_pylist()
    for value in values:
        if not value.isascii() or text_problem(value, max_chars) or identifier_problem(value):
            return None
    return values, as_numpy(encoded.indices)


def _ids(distinct: tuple[list[str], np.ndarray], id_of: Callable[[str], int | None]) -> np.ndarray | None:
    """Each line's id; None if a value is unknown and may not be created."""
    values, indices = distinct
    ids = np.empty(len(values), dtype=np.int64)
    for index, value in enumerate(values):
        found = id_of(value)
        if found is None:
            return None
        ids[index] = found
    return ids[indices]


def _ranks_ok(ranks: pa.Array) -> bool:
    return all(r.isascii() and r.isdigit() and int(r) <= MAX_RANK for r in ranks.unique().to_pylist())


# The fast path reads a file whole: larger ones are streamed by the careful reader, in constant memory.
MOST_BYTES = 1 << 30
SCAN_BYTES = 1 << 20


def _lines_fit(path, most: int) -> bool:
    """Whether every line of the file is at most `most` bytes, looked at a chunk at a time (so a file that is one
    huge line is never held in memory: the careful reader refuses it as it streams)."""
    carried = 0  # bytes of the line that runs on from the previous chunk
    with open(path, "rb") as source:
        while chunk := source.read(SCAN_BYTES):
            ends = np.flatnonzero(np.frombuffer(chunk, dtype=np.uint8) == 10)
            if not len(ends):
                carried += len(chunk)
                if carried > most:
                    return False
                continue
            gaps = np.diff(ends) - 1
            if carried + int(ends[0]) > most or (len(gaps) and int(gaps.max()) > most):
                return False
            carried = len(chunk) - int(ends[-1]) - 1
    return carried <= most


def fast_run(
    path,
    *,
    topic_id: Callable[[str], int | None],
    document_id: Callable[[str], int | None],
    taken_tags,
    max_line_bytes: int = MAX_LINE_BYTES,
) -> FastRun | None:
    """The file's run ready to store, or None for the careful reader (see the module)."""
    if Path(path).stat().st_size > MOST_BYTES or not _lines_fit(path, max_line_bytes):
        return None
    table = import_run_table(path)
    if table is None or not len(table.scores):
        return None
    tags = table.tags.unique().to_pylist()
    if len(tags) != 1:
        return None
    tag = tags[0]
    if tag in taken_tags or not tag.isascii() or text_problem(tag, MAX_TAG_CHARS) or identifier_problem(tag):
        return None
    if _PATH_LIKE.search(tag) or not _ranks_ok(table.ranks):
        return None
    # Every value is checked before any is looked up: a lookup may register a topic or document to create.
    topics, docnos = _distinct(table.topics, MAX_TOPIC_CHARS), _distinct(table.docnos, MAX_DOCNO_CHARS)
    if topics is None or docnos is None:
        return None
    topic_ids = _ids(topics, topic_id)
    doc_ids = _ids(docnos, document_id) if topic_ids is not None else None
    if doc_ids is None:
        return None
    topic_rank = np.unique(topic_ids, return_inverse=True)[1].astype(np.int64)
    if repeats(topic_rank << 32 | np.unique(doc_ids, return_inverse=True)[1].astype(np.int64)):
        return None
    run_topics, offsets, order = trec_line_order(topic_ids, table.scores, table.docnos)
    return FastRun(tag, run_topics, offsets, doc_ids[order], table.scores[order])
