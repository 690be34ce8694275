"""Problems found in an imported file, each naming the file, the line and the field at fault."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

LISTED_PROBLEMS = 100
MAX_LINE_BYTES = 10_000  # runs, qrels, TSV topics
MAX_RECORD_BYTES = 16 << 20  # one JSONL or SGML document


@dataclass(frozen=True, slots=True)
class Problem:
    file: str
    line: int
    field: str | None
    reason: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: " + (f"field '{self.field}': " if self.field else "") + self.reason

    def as_dict(self) -> dict:
        return {"file": self.file, "line": self.line, "field": self.field, "reason": self.reason}


class Problems:
    """Collects problems, keeping the first `LISTED_PROBLEMS` and counting all of them."""

    def __init__(self):
        self.listed: list[Problem] = []
        self.count = 0

    def add(self, file: str, line: int, field: str | None, reason: str) -> None:
        self.count += 1
        if len(self.listed) < LISTED_PROBLEMS:
            self.listed.append(Problem(file, line, field, reason))

    def __bool__(self) -> bool:
        return self.count > 0

    def summary(self) -> str:
        more = f"\n... and {self.count - len(self.listed)} more" if self.count > len(self.listed) else ""
        return "\n".join(str(p) for p in self.listed) + more


class ImportFailed(ValueError):
    """An import found problems and wrote nothing. `problems` lists the first hundred; `count` counts them all."""

    def __init__(self, problems: Problems):
        self.problems, self.count = problems.listed, problems.count
        noun = "problem" if self.count == 1 else "problems"
        super().__init__(f"{self.count} {noun}; nothing was imported.\n{problems.summary()}")


Progress = Callable[[int, int], None]


def numbered_lines(
    path: str | Path,
    problems: Problems,
    *,
    name: str | None = None,
    max_bytes: int = MAX_LINE_BYTES,
    progress: Progress | None = None,
) -> Iterator[tuple[int, str]]:
    """Yields (line number, decoded text without the line break) from a file read as a stream of bytes.

    Lines that are not UTF-8 or longer than `max_bytes` become problems and are skipped; an empty file is a
    problem. `progress(bytes read, file size)` is called every few thousand lines.
    """
    file = name or str(path)
    total = Path(path).stat().st_size
    if total == 0:
        problems.add(file, 0, None, "the file is empty")
        return
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            if progress is not None and number % 5000 == 0:
                progress(handle.tell(), total)
            if len(raw) > max_bytes:
                problems.add(file, number, None, f"line longer than {max_bytes:,} bytes")
                continue
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                problems.add(file, number, None, f"not valid UTF-8 (byte {error.start + 1} of the line)")
                continue
            yield number, text.rstrip("\r\n")
        if progress is not None:
            progress(total, total)


def json_objects(
    path: str | Path, problems: Problems, *, name: str, progress: Progress | None = None
) -> Iterator[tuple[int, dict]]:
    """Yields (line number, object) for a JSONL file; blank lines are skipped, anything but a JSON object per line
    is a problem."""
    for number, text in numbered_lines(path, problems, name=name, max_bytes=MAX_RECORD_BYTES, progress=progress):
        if not text.strip():
            continue
        try:
            value = json.loads(text)
        except json.JSONDecodeError as error:
            problems.add(name, number, None, f"not valid JSON ({error.msg} at column {error.colno})")
            continue
        if not isinstance(value, dict):
            problems.add(name, number, None, "expected a JSON object per line")
            continue
        yield number, value


def split_lines(
    path: str | Path, problems: Problems, *, name: str, progress: Progress | None = None
) -> Iterator[tuple[int, list[str]]]:
    """Yields (line number, white-space separated fields) of the non-blank lines of a TREC-style file."""
    for number, text in numbered_lines(path, problems, name=name, progress=progress):
        fields = text.split()
        if fields:
            yield number, fields


def first_key(value: dict, names: tuple[str, ...]) -> str | None:
    """The first of `names` that `value` has (JSONL files name the same field in several ways)."""
    return next((key for key in names if key in value), None)
