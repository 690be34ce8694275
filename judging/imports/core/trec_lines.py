"""TREC runs and qrels as the workbench stores them: the lines `measures.trec_files` reads (the one TREC
reader), then the checks the database adds (no NUL, lengths the columns hold, identifiers under the policy of
`fields`)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from judging.imports.core.fields import identifier, identifier_problem, text_problem
from judging.imports.core.problems import Problems, Progress, limit
from measures.trec_files import QrelsLine, RunLine, qrels_lines, run_lines

MAX_TOPIC_CHARS, MAX_DOCNO_CHARS, MAX_TAG_CHARS, MAX_ASSESSOR_CHARS = 64, 200, 200, 100
MAX_RANK = 2**31 - 1  # trec_eval ignores ranks (it orders by score); one past any integer column is a broken file
# A run tag becomes part of exported file names: no separators, no leading dot (".." and hidden files).
_PATH_LIKE = re.compile(r"[/\\]|^\.")


def _storable(problems: Problems, file: str, number: int, checks: tuple) -> bool:
    """Adds a problem for the first (field, value, most characters) that cannot be stored or breaks the identifier
    policy (checked in its normal form); whether all can be stored."""
    for field, value, max_chars in checks:
        reason = value is not None and (text_problem(value, max_chars) or identifier_problem(identifier(value)))
        if reason:
            problems.add(file, number, field, reason)
            return False
    return True


def _normalised(*values: str | None) -> bool:
    return all(value is None or value.isascii() for value in values)


def parse_run(
    path: str | Path, problems: Problems, *, name: str | None = None, progress: Progress | None = None
) -> Iterator[RunLine]:
    file = name or str(path)
    for line in run_lines(path, problems, name=file, max_bytes=limit("line_bytes"), progress=progress):
        checks = (
            ("qid", line.topic, MAX_TOPIC_CHARS),
            ("docno", line.docno, MAX_DOCNO_CHARS),
            ("tag", line.tag, MAX_TAG_CHARS),
        )
        if not _storable(problems, file, line.line, checks):
            continue
        if line.rank and not (line.rank.isascii() and line.rank.isdigit() and int(line.rank) <= MAX_RANK):
            problems.add(file, line.line, "rank", f"expected a whole number from 0 to {MAX_RANK:,}, got {line.rank!r}")
            continue
        if _PATH_LIKE.search(line.tag):
            problems.add(file, line.line, "tag", f"{line.tag!r} looks like a file path (a tag names files it exports)")
            continue
        if _normalised(line.topic, line.docno, line.tag):
            yield line  # ASCII is already in its normal form: no copy for the common case
        else:
            yield line._replace(topic=identifier(line.topic), docno=identifier(line.docno), tag=identifier(line.tag))


def parse_qrels(
    path: str | Path, problems: Problems, *, name: str | None = None, progress: Progress | None = None
) -> Iterator[QrelsLine]:
    file = name or str(path)
    for line in qrels_lines(path, problems, name=file, max_bytes=limit("line_bytes"), progress=progress):
        checks = (
            ("qid", line.topic, MAX_TOPIC_CHARS),
            ("docno", line.docno, MAX_DOCNO_CHARS),
            ("assessor", line.assessor, MAX_ASSESSOR_CHARS),
        )
        if not _storable(problems, file, line.line, checks):
            continue
        if _normalised(line.topic, line.docno, line.assessor):
            yield line
        else:
            assessor = identifier(line.assessor) if line.assessor else None
            yield line._replace(topic=identifier(line.topic), docno=identifier(line.docno), assessor=assessor)
