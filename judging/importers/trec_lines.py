"""TREC run lines (`qid Q0 docno rank score tag`) and qrels lines (`qid 0 docno grade [assessor]`), checked line by
line; the rank column is ignored, as trec_eval ignores it."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from .fields import identifier, text_problem
from .problems import Problems, Progress, split_lines

MAX_TOPIC_CHARS, MAX_DOCNO_CHARS, MAX_TAG_CHARS, MAX_ASSESSOR_CHARS = 64, 200, 200, 100


def _identifiers_problem(problems: Problems, file: str, number: int, values: dict[str, tuple[str, int]]) -> bool:
    """Adds a problem for the first column whose value cannot be stored; returns whether there was one."""
    for field, (value, max_chars) in values.items():
        reason = text_problem(value, max_chars)
        if reason:
            problems.add(file, number, field, reason)
            return True
    return False


class RunLine(NamedTuple):
    line: int
    topic: str
    docno: str
    score: float
    tag: str


class QrelsLine(NamedTuple):
    line: int
    topic: str
    docno: str
    grade: int
    assessor: str | None


def parse_run(
    path: str | Path, problems: Problems, *, name: str | None = None, progress: Progress | None = None
) -> Iterator[RunLine]:
    file = name or str(path)
    for number, fields in split_lines(path, problems, name=file, progress=progress):
        if len(fields) != 6:
            problems.add(file, number, None, f"expected 6 columns 'qid Q0 docno rank score tag', got {len(fields)}")
            continue
        try:
            score = float(fields[4])
        except ValueError:
            problems.add(file, number, "score", f"expected a number, got {fields[4]!r}")
            continue
        if not math.isfinite(score):
            problems.add(file, number, "score", f"must be finite, got {fields[4]!r}")
            continue
        columns = {
            "qid": (fields[0], MAX_TOPIC_CHARS),
            "docno": (fields[2], MAX_DOCNO_CHARS),
            "tag": (fields[5], MAX_TAG_CHARS),
        }
        if _identifiers_problem(problems, file, number, columns):
            continue
        yield RunLine(number, identifier(fields[0]), identifier(fields[2]), score, identifier(fields[5]))


def parse_qrels(
    path: str | Path, problems: Problems, *, name: str | None = None, progress: Progress | None = None
) -> Iterator[QrelsLine]:
    file = name or str(path)
    for number, fields in split_lines(path, problems, name=file, progress=progress):
        if len(fields) not in (4, 5):
            problems.add(
                file, number, None, f"expected 4 columns 'qid 0 docno grade' (5 with an assessor), got {len(fields)}"
            )
            continue
        try:
            grade = int(fields[3])
        except ValueError:
            problems.add(file, number, "grade", f"expected an integer, got {fields[3]!r}")
            continue
        assessor = fields[4] if len(fields) == 5 else None
        columns = {"qid": (fields[0], MAX_TOPIC_CHARS), "docno": (fields[2], MAX_DOCNO_CHARS)}
        if assessor is not None:
            columns["assessor"] = (assessor, MAX_ASSESSOR_CHARS)
        if _identifiers_problem(problems, file, number, columns):
            continue
        yield QrelsLine(
            number, identifier(fields[0]), identifier(fields[2]), grade, identifier(assessor) if assessor else None
        )
