"""Problems found in an imported file, each naming the file, the line and the field at fault."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from .fields import MAX_JSON_DEPTH, json_problem

LISTED_PROBLEMS = 100
DEFAULT_LIMITS = {"line_bytes": 10_000, "record_bytes": 4 << 20, "topics_per_file": 20_000}
READ_BYTES = 1 << 16


def limit(name: str) -> int:
    """A configured limit (settings.WORKBENCH_LIMITS), or its default outside a configured Django."""
    from django.conf import settings

    if settings.configured and hasattr(settings, "WORKBENCH_LIMITS"):
        return settings.WORKBENCH_LIMITS[name]
    return DEFAULT_LIMITS[name]


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
    max_bytes: int | None = None,
    progress: Progress | None = None,
) -> Iterator[tuple[int, str]]:
    """Yields (line number, decoded text without the line break) from a file read as a stream of bytes.

    Lines that are not UTF-8 or longer than `max_bytes` (default: the `line_bytes` limit) become problems and are
    skipped without ever being held whole, so memory stays flat whatever the file holds; an empty file is a
    problem. `progress(bytes read, file size)` is called every few thousand lines.
    """
    file = name or str(path)
    max_bytes = max_bytes or limit("line_bytes")
    total = Path(path).stat().st_size
    if total == 0:
        problems.add(file, 0, None, "the file is empty")
        return
    with open(path, "rb") as handle:
        number = 0
        while raw := handle.readline(max_bytes + 2):
            number += 1
            if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            if progress is not None and number % 5000 == 0:
                progress(handle.tell(), total)
            if len(raw.rstrip(b"\r\n")) > max_bytes:
                while not raw.endswith(b"\n") and (raw := handle.readline(READ_BYTES)):
                    pass  # the rest of the over-long line, read in pieces and dropped
                problems.add(file, number, None, f"line longer than {max_bytes:,} bytes (the limit for this file kind)")
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
    for number, text in numbered_lines(path, problems, name=name, max_bytes=limit("record_bytes"), progress=progress):
        if not text.strip():
            continue
        try:
            value = json.loads(text)
        except json.JSONDecodeError as error:
            problems.add(name, number, None, f"not valid JSON ({error.msg} at column {error.colno})")
            continue
        except RecursionError:
            problems.add(name, number, None, f"JSON nested more than {MAX_JSON_DEPTH} levels deep")
            continue
        if not isinstance(value, dict):
            problems.add(name, number, None, "expected a JSON object per line")
            continue
        reason = json_problem(value)
        if reason:
            key = next((k for k, v in value.items() if json_problem({k: v})), None)
            problems.add(name, number, key, reason)
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
