"""A text file read line by line as bytes, each problem naming the file, line and field: the base of the TREC
readers and of every importer. Pure: no Django."""

from __future__ import annotations

import gzip
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

LISTED_PROBLEMS = 100
MAX_LINE_BYTES = 10_000  # a TREC line longer than this is a mistake (a docno cannot be that long)
READ_BYTES = 1 << 16

Progress = Callable[[int, int], None]


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


class TrecFormatError(ValueError):
    """The first problem of a file read fail-fast; `path`, `line` (1-based, 0 for the whole file), `field`."""

    def __init__(self, path: str, line: int, field: str | None, message: str):
        self.path, self.line, self.field, self.reason = str(path), line, field, message
        super().__init__(str(Problem(self.path, line, field, message)))


class Problems:
    """Collects problems, keeping the first `LISTED_PROBLEMS` and counting all of them (the importers' way)."""

    def __init__(self):
        self.listed: list[Problem] = []
        self.count = 0

    def add(self, file: str, line: int, field: str | None, reason: str) -> None:
        self.count += 1
        if len(self.listed) < LISTED_PROBLEMS:
            self.listed.append(Problem(file, line, field, reason))

    def lead(self, file: str, line: int, field: str | None, reason: str) -> None:
        """Adds a problem at the head of the list: one line that says what the many below it have in common."""
        self.count += 1
        self.listed = [Problem(file, line, field, reason), *self.listed][:LISTED_PROBLEMS]

    def __bool__(self) -> bool:
        return self.count > 0

    def summary(self) -> str:
        more = f"\n... and {self.count - len(self.listed)} more" if self.count > len(self.listed) else ""
        return "\n".join(str(p) for p in self.listed) + more


class FailFast(Problems):
    """Raises the first problem as a TrecFormatError (the command line's way, and trec_eval's)."""

    def add(self, file: str, line: int, field: str | None, reason: str) -> None:
        raise TrecFormatError(file, line, field, reason)


def source_name(source: str | Path | BinaryIO, name: str | None) -> str:
    return name or (str(source) if isinstance(source, str | Path) else getattr(source, "name", "<input>"))


def numbered_lines(
    source: str | Path | BinaryIO,
    problems: Problems,
    *,
    name: str | None = None,
    max_bytes: int = MAX_LINE_BYTES,
    progress: Progress | None = None,
) -> Iterator[tuple[int, str]]:
    """Yields (line number, decoded text without the line break) from a path or a binary stream (standard input).

    Lines that are not UTF-8 or longer than `max_bytes` become problems and are skipped without ever being held
    whole, so memory stays flat whatever the file holds; an empty file is a problem; a UTF-8 byte-order mark is
    dropped. `progress(bytes read, file size)` is called every few thousand lines when the size is known.
    """
    file = source_name(source, name)
    if isinstance(source, str | Path):
        total = Path(source).stat().st_size
        with open(source, "rb") as raw:
            if is_gzip(source):  # decompressed as it is read; progress counts the compressed bytes
                with gzip.GzipFile(fileobj=raw) as handle:
                    yield from _lines(handle, problems, file, max_bytes, progress, total, position=raw.tell)
            else:
                yield from _lines(raw, problems, file, max_bytes, progress, total)
    else:
        yield from _lines(source, problems, file, max_bytes, None, None)


def is_gzip(path: str | Path) -> bool:
    """A gzip file, by its magic bytes (whatever its name says)."""
    with open(path, "rb") as handle:
        return handle.read(2) == b"\x1f\x8b"


def opened(path: str | Path):
    """The file for reading bytes, decompressed when it is gzip."""
    return gzip.open(path, "rb") if is_gzip(path) else open(path, "rb")


def _lines(handle, problems, file, max_bytes, progress, total, position=None) -> Iterator[tuple[int, str]]:
    position = position or handle.tell
    number = 0
    while raw := handle.readline(max_bytes + 2):
        number += 1
        if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        if progress is not None and number % 5000 == 0:
            progress(position(), total)
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
    if number == 0:
        problems.add(file, 0, None, "the file is empty")
    elif progress is not None:
        progress(total, total)
