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
from collections.abc import Iterable
from dataclasses import dataclass, field

MAX_REFERENCES = 20
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
            return str(value)
        if not isinstance(value, str) or not value.strip():
            self.problem(where + key, "missing, empty or not a string")
            return None
        return value.strip()


def _references(record: dict, line: _Line) -> tuple[str, ...] | None:
    references = record.get("references")
    if not isinstance(references, list) or not all(isinstance(r, str) and r.strip() for r in references):
        line.problem("references", "missing, or not a list of segment ids")
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


def read_answers(lines: Iterable[str], file: str) -> tuple[list[ParsedAnswer], list[Problem]]:
    """Every answer of a RAG run file and every problem found (the first MAX_PROBLEMS): a file with any problem is
    refused whole by the import. A run answering a topic twice is a problem of the second line."""
    answers, problems, seen = [], [], {}
    for number, raw in enumerate(lines, start=1):
        if len(problems) >= MAX_PROBLEMS:
            break
        if not raw.strip():
            continue
        line = _Line(file, number, problems)
        try:
            record = json.loads(raw)
        except ValueError as error:
            line.problem("(line)", f"not JSON ({error.msg})")
            continue
        if not isinstance(record, dict):
            line.problem("(line)", "not a JSON object")
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
