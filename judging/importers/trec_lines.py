"""TREC run lines (`qid Q0 docno rank score tag`) and qrels lines (`qid 0 docno grade [assessor]`), checked line by
line; the rank column is ignored, as trec_eval ignores it."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from .problems import Problems, Progress, split_lines


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
        yield RunLine(number, fields[0], fields[2], score, fields[5])


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
        yield QrelsLine(number, fields[0], fields[2], grade, fields[4] if len(fields) == 5 else None)
