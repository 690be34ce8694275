"""Guessing a file's format from its first bytes, so admins need not say which format they upload."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from measures.lines import opened


def sniff(path: str | Path, *, markup: str, markup_format: str) -> str:
    """'jsonl' if the file starts with '{', `markup_format` if with `markup` (e.g. '<top'), else 'tsv'."""
    with opened(path) as handle:
        head = handle.read(4096).lstrip(b"\xef\xbb\xbf").lstrip()
    if head.startswith(b"{"):
        return "jsonl"
    if head[: len(markup)].lower() == markup.encode().lower():
        return markup_format
    return "tsv"


def read_records(
    path: str | Path,
    readers: dict[str, Callable],
    *,
    format: str | None,
    markup: str,
    file: str,
    key: str,
    problems,
    progress,
    most: int,
    noun: str,
    check: Callable[[object], tuple[str, str] | None],
    keep: Callable[[str], bool] | None = None,
) -> Iterator:
    """Runs the reader for the file's format (given, or sniffed; `markup` marks the first reader's format), turns a
    `key` value repeated in the file into a problem naming both lines, and stops (with a problem) after `most`
    records, so that one file cannot take a worker's memory. `check(record)` normalises a record and returns the
    (field, reason) that keeps it out of the database, if any: such a record becomes a problem, not a row. With
    `keep`, a record whose key it refuses is yielded marked `passed_over`, unchecked for repeats and uncounted (an
    import of the few documents a pool wants from a corpus of millions holds only theirs)."""
    format = format or sniff(path, markup=markup, markup_format=next(iter(readers)))
    if format not in readers:
        raise ValueError(f"unknown format {format!r}; choose one of {', '.join(readers)}")
    seen: dict[str, int] = {}
    for record in readers[format](path, problems, file, progress):
        if getattr(record, "passed_over", False):  # the reader saw it is not wanted, by its key alone
            yield record
            continue
        if len(seen) >= most:
            problems.add(file, record.line, None, f"more than {most:,} {noun} in one file (the configured limit)")
            return
        problem = check(record)  # first: it normalises the key, so that two spellings of one key are a repeat
        if problem:
            problems.add(file, record.line, *problem)
            continue
        value = getattr(record, key)
        if keep is not None and not keep(value):
            record.passed_over = True
            yield record
            continue
        if value in seen:
            problems.add(file, record.line, key, f"{value!r} already appears on line {seen[value]}")
            continue
        seen[value] = record.line
        yield record
