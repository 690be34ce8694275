"""Reading RAG runs, pure: TREC RAG 2024 and 2025 answer lines checked by ragnarok's rules, each problem named by
file, line and field.

2024, one line per topic: {"run_id", "topic_id", "topic", "references": [segment ids], "response_length",
"answer": [{"text", "citations": [0-based positions in references]}]}. 2025: {"metadata": {"team_id", "run_id",
"narrative_id", "type", "narrative"}, "references": [...], "answer": [{"text", "citations"}]}, a citation by
position or by segment id. Both: at most 20 references, none twice, and at most 400 words, counted after NFKC
normalisation by splitting on whitespace (ragnarok's `rag24_validation.py`).
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from config.core import strict_json
from judging.core.identifiers import identifier_problem
from measures.lines import Problems, numbered_lines

MAX_REFERENCES = 20
MAX_RECORD_BYTES = 4 << 20  # settings.WORKBENCH_LIMITS["record_bytes"]'s default; the import passes the configured one
# What the columns hold: a run's tag, a topic's number, a segment's docno.
MAX_CHARS = {"run_id": 200, "topic_id": 64, "narrative_id": 64, "references": 200}
MAX_WORDS = 400
MAX_PROBLEMS = 50
RAG24, RAG25 = "rag24", "rag25"


@dataclass(frozen=True)
class Problem:
    file: str
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}, line {self.line}, {self.field}: {self.message}"


@dataclass(frozen=True)
class ParsedAnswer:
    line: int
    format: str
    run_id: str
    topic: str  # the topic's number: 2024's topic_id, 2025's narrative_id
    query: str  # the topic's text as the run gives it: 2024's topic, 2025's narrative
    references: tuple[str, ...]
    sentences: tuple[tuple[str, tuple[int, ...]], ...]  # (text, positions in references)
    words: int
    metadata: dict = field(default_factory=dict)


def word_count(texts: Iterable[str]) -> int:
    return len(unicodedata.normalize("NFKC", " ".join(texts)).split())


class _Line:
    def __init__(self, file: str, number: int, problems: list[Problem]):
        self.file, self.number, self.problems = file, number, problems

    def problem(self, field_name: str, message: str) -> None:
        self.problems.append(Problem(self.file, self.number, field_name, message))

    def text(self, record: dict, key: str, where: str = "") -> str | None:
        value = record.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and key.endswith("_id"):
            value = str(value)
        if not isinstance(value, str) or not value.strip():
            self.problem(where + key, "missing, empty or not a string")
            return None
        return self.identifier(value.strip(), where + key, MAX_CHARS.get(key))

    def identifier(self, value: str, where: str, most: int | None) -> str | None:
        """An id the collection will store (a tag, a number, a docno): within its column, under the identifier
        policy (no control or invisible character)."""
        reason = identifier_problem(value)
        if most is not None and len(value) > most:
            reason = f"{len(value):,} characters long; at most {most} allowed"
        if reason:
            self.problem(where, reason)
            return None
        return value


class _Into(Problems):
    """The line reader's problems (an over-long line, not UTF-8) as this reader's, in its list."""

    def __init__(self, problems: list[Problem]):
        super().__init__()
        self.into = problems

    def add(self, file: str, line: int, field_name: str | None, reason: str) -> None:
        self.into.append(Problem(file, line, field_name or "(line)", reason))


def _numbered(lines, file: str, problems: list[Problem], max_bytes: int) -> Iterator[tuple[int, str]]:
    """(line number, text) of a binary stream (an upload: read in bounded pieces, a line over `max_bytes` never
    held whole) or of text lines, each line over `max_bytes` a problem."""
    if hasattr(lines, "readline"):
        yield from numbered_lines(lines, _Into(problems), name=file, max_bytes=max_bytes)
        return
    for number, raw in enumerate(lines, start=1):
        if len(raw) > max_bytes // 4 and len(raw.encode("utf-8", "surrogatepass")) > max_bytes:
            problems.append(Problem(file, number, "(line)", f"line longer than {max_bytes:,} bytes (the limit for "
                                    "this file kind, WORKBENCH_MAX_RECORD_BYTES)"))  # fmt: skip
            continue
        yield number, raw


def _references(record: dict, line: _Line) -> tuple[str, ...] | None:
    references = record.get("references")
    if not isinstance(references, list) or not all(isinstance(r, str) and r.strip() for r in references):
        line.problem("references", "missing, or not a list of segment ids")
        return None
    for index, reference in enumerate(references):
        if line.identifier(reference.strip(), f"references[{index}]", MAX_CHARS["references"]) is None:
            return None
    if len(references) > MAX_REFERENCES:
        line.problem("references", f"{len(references)} references; at most {MAX_REFERENCES} are allowed")
    repeated = sorted({r for r in references if references.count(r) > 1})
    if repeated:
        line.problem("references", f"listed more than once: {', '.join(repeated[:5])}")
    return tuple(r.strip() for r in references)


def _citation(value, references: tuple[str, ...], by_id: bool) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value if 0 <= value < len(references) else None
    if by_id and isinstance(value, str) and value in references:
        return references.index(value)
    return None


def _sentences(record: dict, references: tuple[str, ...], line: _Line, by_id: bool):
    answer = record.get("answer")
    if not isinstance(answer, list):
        line.problem("answer", "missing or not a list of sentences")
        return None
    sentences = []
    for index, sentence in enumerate(answer):
        where = f"answer[{index}]"
        if not isinstance(sentence, dict) or not isinstance(sentence.get("text"), str):
            line.problem(f"{where}.text", "missing or not a string")
            continue
        citations = sentence.get("citations", [])
        if not isinstance(citations, list):
            line.problem(f"{where}.citations", "not a list")
            continue
        positions = []
        for value in citations:
            position = _citation(value, references, by_id)
            if position is None:
                kind = "a position in references or a segment id" if by_id else "a 0-based position in references"
                line.problem(f"{where}.citations", f"{json.dumps(value)[:40]} is not {kind} (0..{len(references) - 1})")
            elif position not in positions:
                positions.append(position)
        sentences.append((sentence["text"], tuple(positions)))
    return tuple(sentences)


def _answer(record: dict, line: _Line) -> ParsedAnswer | None:
    before = len(line.problems)
    if isinstance(record.get("metadata"), dict):
        metadata = record["metadata"]
        fmt, by_id = RAG25, True
        run_id = line.text(metadata, "run_id", "metadata.")
        topic = line.text(metadata, "narrative_id", "metadata.")
        query = metadata.get("narrative") if isinstance(metadata.get("narrative"), str) else ""
        kept = {k: metadata[k] for k in ("team_id", "type") if isinstance(metadata.get(k), str)}
    else:
        fmt, by_id = RAG24, False
        run_id, topic = line.text(record, "run_id"), line.text(record, "topic_id")
        query = record.get("topic") if isinstance(record.get("topic"), str) else ""
        length = record.get("response_length")
        if length is not None and (not isinstance(length, int) or isinstance(length, bool) or length < 0):
            line.problem("response_length", "not a whole number")
        kept = {}
    references = _references(record, line)
    sentences = _sentences(record, references or (), line, by_id) if references is not None else None
    if sentences is None or len(line.problems) > before:
        return None
    words = word_count(text for text, _ in sentences)
    if words > MAX_WORDS:
        line.problem("answer", f"{words} words; at most {MAX_WORDS} are allowed")
        return None
    return ParsedAnswer(line.number, fmt, run_id, topic, query.strip(), references, sentences, words, kept)


def read_answers(
    lines: Iterable[str], file: str, *, max_line_bytes: int = MAX_RECORD_BYTES
) -> tuple[list[ParsedAnswer], list[Problem]]:
    """Every answer of a RAG run file and every problem found (the first MAX_PROBLEMS): a file with any problem is
    refused whole by the import. A run answering a topic twice is a problem of the second line. `lines`, text lines
    or a binary stream; a line over `max_line_bytes` is a problem (of a stream, never read whole)."""
    answers, problems, seen = [], [], {}
    for number, raw in _numbered(lines, file, problems, max_line_bytes):
        if len(problems) >= MAX_PROBLEMS:
            break
        if not raw.strip():
            continue
        line = _Line(file, number, problems)
        try:
            record = strict_json.record(raw)
        except strict_json.RecordError as error:
            line.problem(error.key or "(line)", error.reason)
            continue
        answer = _answer(record, line)
        if answer is None:
            continue
        key = (answer.run_id, answer.topic)
        if key in seen:
            line.problem("topic", f"run {answer.run_id} answers topic {answer.topic} already on line {seen[key]}")
            continue
        seen[key] = number
        answers.append(answer)
    return answers, problems[:MAX_PROBLEMS]
