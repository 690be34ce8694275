"""A `Collection` keeps the topic and document vocabularies that TREC files share, and turns files into arrays."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from .data import PreparedQrels, PreparedRun, RepeatedDocument
from .run_bytes import read_run_bytes
from .trec_files import MAX_LINE_CHARS, read_qrels, read_run, read_run_columns
from .vocabulary import DocumentVocabulary, Vocabulary


class Collection:
    """String ids of one evaluation (topics, docnos) mapped to the integers the engine works on."""

    def __init__(self):
        self.topics = Vocabulary()
        self.docs = DocumentVocabulary()

    def qrels(self, qrels: Mapping[str, Mapping[str, int]]) -> PreparedQrels:
        return PreparedQrels.from_strings(qrels, self.topics, self.docs)

    def run(self, tag: str, scores: Mapping[str, Mapping[str, float]]) -> PreparedRun:
        return PreparedRun.from_scores(tag, scores, self.topics, self.docs)

    def qrels_from_file(self, path: str | Path | Iterable[str], *, name: str | None = None) -> PreparedQrels:
        return self.qrels(read_qrels(path, name=name))

    def run_from_file(
        self, path: str | Path | Iterable[str], *, name: str | None = None, duplicates: str = "error"
    ) -> PreparedRun:
        """Reads and prepares a run. A document repeated within a topic is rare, so it is looked for after the fast
        read; when there is one, the careful reader runs to name its line ("error") or keep one copy."""
        if duplicates not in ("error", "first", "last"):
            raise ValueError(f"duplicates must be 'error', 'first' or 'last', not {duplicates!r}")
        try:
            on_disk = isinstance(path, str | Path)
            in_bytes = read_run_bytes(str(path), max_line_chars=MAX_LINE_CHARS) if on_disk else None
            if in_bytes is not None:
                return PreparedRun.from_run_bytes(in_bytes, self.topics, self.docs)
            columns = read_run_columns(path, name=name)
            return PreparedRun.from_columns(
                columns.tag, columns.topics, columns.docnos, columns.scores, self.topics, self.docs
            )
        except RepeatedDocument:
            if not isinstance(path, str | Path):
                raise ValueError("a run read from an iterable of lines cannot be re-read; pass a path") from None
            tag, scores = read_run(path, name=name, duplicates=duplicates)
            return self.run(tag, scores)

    def topic_name(self, topic_id: int) -> str:
        return self.topics.names[topic_id]
