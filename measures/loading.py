"""A `TrecReader` keeps the topic and document vocabularies that TREC files share, and turns files into arrays."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pyarrow as pa

from measures.arrow_arrays import int_array
from measures.data import PreparedQrels, PreparedRun, RepeatedDocument, repeats
from measures.trec_files import DUPLICATES, Source, qrels_table, read_qrels, read_run, run_table
from measures.vocabulary import DocumentVocabulary, Vocabulary

READERS = min(4, os.cpu_count() or 1)


def kept_lines(doc_ids: np.ndarray, duplicates: str) -> np.ndarray | None:
    """The lines to keep, in file order, when a run repeats a document within a topic: each (topic, docno)'s first
    or last line (`duplicates`); None when nothing repeats. The ids are a DocumentVocabulary's, one per
    (topic, docno)."""
    if not repeats(doc_ids):  # the common case, found by counting, with no sort
        return None
    reverse = duplicates == "last"
    _, index = np.unique(doc_ids[::-1] if reverse else doc_ids, return_index=True)
    if len(index) == len(doc_ids):
        return None
    return np.sort(len(doc_ids) - 1 - index if reverse else index)


class TrecReader:
    """String ids of one evaluation (topics, docnos) mapped to the integers the engine works on."""

    def __init__(self):
        self.topics = Vocabulary()
        self.docs = DocumentVocabulary()

    def qrels(self, qrels: Mapping[str, Mapping[str, int]]) -> PreparedQrels:
        return PreparedQrels.from_strings(qrels, self.topics, self.docs)

    def run(self, tag: str, scores: Mapping[str, Mapping[str, float]]) -> PreparedRun:
        return PreparedRun.from_scores(tag, scores, self.topics, self.docs)

    def qrels_from_file(self, source: Source, *, name: str | None = None) -> PreparedQrels:
        """Reads and prepares qrels: a plain file by the fast path, anything else (or a repeated pair, to name its
        line) by the careful reader."""
        table = qrels_table(source) if isinstance(source, str | Path) else None
        if table is not None:
            topic_ids = self.topics.ids_of_column(table.topics)
            doc_ids = self.docs.ids(topic_ids, table.docnos)
            if not repeats(doc_ids):
                return PreparedQrels.from_lines(topic_ids, doc_ids, table.grades)
        return self.qrels(read_qrels(source, name=name))

    def run_from_file(self, source: Source, *, name: str | None = None, duplicates: str = "error") -> PreparedRun:
        return self.runs_from_files([source], names=[name], duplicates=duplicates)[0]

    def runs_from_files(
        self, sources: Sequence[Source], *, names: Sequence[str | None] = (), duplicates: str = "error"
    ) -> list[PreparedRun]:
        """Reads and prepares runs, the plain files by the fast path with all their docnos looked up in one call.
        A file that is not plain, or that repeats a document within a topic (rare, so looked for after the fast
        read), goes through the careful reader, which names the line ("error") or keeps one copy."""
        if duplicates not in DUPLICATES:
            raise ValueError(f"duplicates must be 'error', 'first' or 'last', not {duplicates!r}")
        names = list(names) or [None] * len(sources)
        with ThreadPoolExecutor(max_workers=READERS) as pool:  # pyarrow and numpy release the GIL while reading
            tables = list(pool.map(lambda s: run_table(s) if isinstance(s, str | Path) else None, sources))
        fast = [i for i, table in enumerate(tables) if table is not None]
        prepared: dict[int, PreparedRun] = {}
        if fast:
            topic_ids = [self.topics.ids_of_column(tables[i].topics) for i in fast]
            all_ids = self.docs.ids(np.concatenate(topic_ids), pa.concat_arrays([tables[i].docnos for i in fast]))
            doc_ids = np.split(all_ids, np.cumsum([len(t) for t in topic_ids])[:-1])
            ranks = self.docs.docno_ranks() if len(fast) > 1 else None  # ranked once for all the files

            def prepare(i: int, topics: np.ndarray, docs: np.ndarray) -> PreparedRun | None:
                table = tables[i]
                scores, docnos = table.scores, table.docnos
                keep = kept_lines(docs, duplicates) if duplicates != "error" else None
                if keep is not None:  # one copy of each repeated document, as the careful reader keeps it
                    topics, docs, scores, docnos = topics[keep], docs[keep], scores[keep], docnos.take(int_array(keep))
                try:
                    return PreparedRun.from_lines(table.tag, topics, docs, scores, docnos, ranks)
                except RepeatedDocument:  # left to the careful reader below, which names the line
                    return None

            with ThreadPoolExecutor(max_workers=READERS) as pool:  # numpy's sorts release the GIL
                for i, run in zip(fast, pool.map(prepare, fast, topic_ids, doc_ids), strict=True):
                    if run is not None:
                        prepared[i] = run
        for i, source in enumerate(sources):
            if i not in prepared:
                prepared[i] = self.run(*read_run(source, name=names[i], duplicates=duplicates))
        return [prepared[i] for i in range(len(sources))]

    def topic_name(self, topic_id: int) -> str:
        return self.topics.names[topic_id]
