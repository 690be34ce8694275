"""Readers for TREC qrels and run files, streaming, with errors that name file, line and field."""

from __future__ import annotations

import gc
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

MAX_LINE_CHARS = 10_000
CHUNK_BYTES = 16 << 20  # the fast reader takes a run file this many bytes (whole lines) at a time
_WHITESPACE = np.zeros(256, dtype=bool)
_WHITESPACE[[9, 10, 11, 12, 13, 28, 29, 30, 31, 32]] = True  # what str.split() splits ASCII text on


class TrecFormatError(ValueError):
    """A malformed line in a TREC file: carries the file, 1-based line number and field at fault."""

    def __init__(self, path: str, line: int, field: str | None, message: str):
        self.path, self.line, self.field, self.reason = str(path), line, field, message
        where = f"{self.path}:{line}" + (f": field '{field}'" if field else "")
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True, slots=True)
class QrelsLine:
    topic: str
    docno: str
    label: int
    assessor: str | None
    line: int


@dataclass(frozen=True, slots=True)
class RunLine:
    topic: str
    docno: str
    rank: str
    score: float
    tag: str
    line: int


def _lines(source: str | Path | Iterable[str], name: str | None) -> tuple[str, Iterator[str]]:
    """Opens a path (streamed, never read whole) or accepts an iterable of lines already decoded."""
    if isinstance(source, str | Path):
        path = str(source)
        return path, _decoded_lines(path)
    return name or "<input>", iter(source)


def _decoded_lines(path: str) -> Iterator[str]:
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                yield raw.decode("utf-8")
            except UnicodeDecodeError as error:
                raise TrecFormatError(path, number, None, f"not valid UTF-8 ({error.reason})") from None


def parse_label(text: str, path: str, line: int, field: str = "rel") -> int:
    try:
        return int(text)
    except ValueError:
        raise TrecFormatError(path, line, field, f"expected an integer, got {text!r}") from None


def parse_score(text: str, path: str, line: int) -> float:
    try:
        score = float(text)
    except ValueError:
        raise TrecFormatError(path, line, "score", f"expected a number, got {text!r}") from None
    if not math.isfinite(score):
        raise TrecFormatError(path, line, "score", f"score must be finite, got {text!r}")
    return score


def _fields(line_text: str, path: str, number: int) -> list[str]:
    if len(line_text) > MAX_LINE_CHARS:
        raise TrecFormatError(path, number, None, f"line longer than {MAX_LINE_CHARS} characters")
    return line_text.split()


def iter_qrels(source: str | Path | Iterable[str], *, name: str | None = None) -> Iterator[QrelsLine]:
    """Yields qrels lines `topic iter docno rel` (an optional fifth column names the assessor).

    Blank lines are skipped. Any other malformed line raises TrecFormatError.
    """
    path, lines = _lines(source, name)
    for number, text in enumerate(lines, start=1):
        fields = _fields(text, path, number)
        if not fields:
            continue
        if len(fields) not in (4, 5):
            raise TrecFormatError(
                path,
                number,
                None,
                f"expected 4 columns 'topic iter docno rel' (or 5 with an assessor), got {len(fields)}",
            )
        label = parse_label(fields[3], path, number)
        yield QrelsLine(fields[0], fields[2], label, fields[4] if len(fields) == 5 else None, number)


def iter_run(source: str | Path | Iterable[str], *, name: str | None = None) -> Iterator[RunLine]:
    """Yields run lines `topic iter docno rank score tag`; the rank column is kept as text and never used."""
    path, lines = _lines(source, name)
    for number, text in enumerate(lines, start=1):
        fields = _fields(text, path, number)
        if not fields:
            continue
        if len(fields) != 6:
            raise TrecFormatError(
                path, number, None, f"expected 6 columns 'topic iter docno rank score tag', got {len(fields)}"
            )
        yield RunLine(fields[0], fields[2], fields[3], parse_score(fields[4], path, number), fields[5], number)


def read_qrels(source: str | Path | Iterable[str], *, name: str | None = None) -> dict[str, dict[str, int]]:
    """Reads a qrels file into {topic: {docno: label}}; a repeated (topic, docno) is an error, as in trec_eval."""
    qrels: dict[str, dict[str, int]] = {}
    path = str(source) if isinstance(source, str | Path) else (name or "<input>")
    for entry in iter_qrels(source, name=name):
        docs = qrels.setdefault(entry.topic, {})
        if entry.docno in docs:
            raise TrecFormatError(
                path, entry.line, "docno", f"document {entry.docno!r} judged twice for topic {entry.topic!r}"
            )
        docs[entry.docno] = entry.label
    if not qrels:
        raise TrecFormatError(path, 0, None, "file has no qrels lines")
    return qrels


@dataclass(frozen=True, slots=True)
class RunColumns:
    """A run file as parallel columns in file order. A repeated (topic, docno) is kept as it is: the caller decides
    (see `Collection.run_from_file`), since finding repeats is cheap once docnos are integers."""

    tag: str
    topics: list[str]
    docnos: list[str]
    scores: np.ndarray


def read_run_columns(source: str | Path | Iterable[str], *, name: str | None = None) -> RunColumns:
    """Reads a run file into columns, the form the engine prepares runs from.

    Well-formed ASCII files take a fast path: whole-line chunks split in C, every line's column count checked with
    numpy, scores converted in one call. Anything unusual in a file (a bad line, a blank line, non-ASCII text,
    a non-finite score, several tags) sends the whole file through `iter_run`, which finds and names the line.
    """
    if isinstance(source, str | Path):
        columns = _fast_columns(str(source))
        if columns is not None:
            return columns
    topics: list[str] = []
    docnos: list[str] = []
    scores: list[float] = []
    tag = None
    for entry in iter_run(source, name=name):
        topics.append(entry.topic)
        docnos.append(entry.docno)
        scores.append(entry.score)
        tag = tag or entry.tag
    if tag is None:
        raise TrecFormatError(
            str(source) if isinstance(source, str | Path) else (name or "<input>"), 0, None, "file has no run lines"
        )
    return RunColumns(tag, topics, docnos, np.array(scores, dtype=np.float64))


def _fast_columns(path: str) -> RunColumns | None:
    topics: list[str] = []
    docnos: list[str] = []
    scores: list[np.ndarray] = []
    tag = None
    collecting = gc.isenabled()
    gc.disable()  # millions of short-lived strings would otherwise trigger collections that find nothing to free
    try:
        with open(path, "rb") as handle:
            while chunk := handle.read(CHUNK_BYTES):
                chunk += handle.readline()
                tokens = _chunk_tokens(chunk)
                if tokens is None:
                    return None
                topics += tokens[0::6]
                docnos += tokens[2::6]
                line_tags = tokens[5::6]
                tag = tag or line_tags[0]
                if line_tags.count(tag) != len(line_tags):
                    return None  # several tags: the careful reader takes the first, as trec_eval does
                score_texts = tokens[4::6]
                try:
                    values = np.fromiter(map(float, score_texts), dtype=np.float64, count=len(score_texts))
                except ValueError:
                    return None
                if not np.isfinite(values).all():
                    return None
                scores.append(values)
    finally:
        if collecting:
            gc.enable()
    if not topics:
        return None
    return RunColumns(tag, topics, docnos, np.concatenate(scores))


def _chunk_tokens(chunk: bytes) -> list[str] | None:
    """The chunk's tokens if every line in it has exactly six columns and nothing else is unusual, else None.

    Counting treats every byte up to 32 as a separator, more than str.split() does, so an odd control character
    can only make a good line look bad (and take the careful path), never a bad line look good."""
    if not chunk.isascii():
        return None
    text = chunk.decode("ascii")
    tokens = text.split()
    if not chunk.endswith(b"\n"):
        chunk += b"\n"
    raw = np.frombuffer(chunk, dtype=np.uint8)
    line_ends = np.flatnonzero(raw == 10)
    if len(tokens) != 6 * len(line_ends) or np.diff(line_ends, prepend=-1).max() > MAX_LINE_CHARS + 1:
        return None
    space = raw <= 32
    starts = np.empty(len(raw), dtype=bool)
    starts[0] = not space[0]
    np.greater(space[:-1], space[1:], out=starts[1:])  # a token starts where a separator is followed by a non-one
    line_starts = np.concatenate(([0], line_ends[:-1] + 1))
    per_line = np.add.reduceat(starts.view(np.uint8), line_starts, dtype=np.int32)
    return tokens if (per_line == 6).all() else None


def _check_duplicates_option(duplicates: str) -> None:
    if duplicates not in ("error", "first", "last"):
        raise ValueError(f"duplicates must be 'error', 'first' or 'last', not {duplicates!r}")


def read_run(
    source: str | Path | Iterable[str], *, name: str | None = None, duplicates: str = "error"
) -> tuple[str, dict[str, dict[str, float]]]:
    """Reads a run file into (tag, {topic: {docno: score}}).

    `duplicates` says what to do with a docno repeated within a topic: "error" (trec_eval's behaviour, naming the
    line), "first" or "last" to keep one of them. The loop is written out (no per-line objects) because run files
    reach millions of lines; its checks are iter_run's.
    """
    _check_duplicates_option(duplicates)
    path, lines = _lines(source, name)
    run: dict[str, dict[str, float]] = {}
    tag = None
    isfinite = math.isfinite
    for number, text in enumerate(lines, start=1):
        fields = text.split()
        if len(fields) != 6 or len(text) > MAX_LINE_CHARS:
            if not fields:
                continue
            _fields(text, path, number)
            raise TrecFormatError(
                path, number, None, f"expected 6 columns 'topic iter docno rank score tag', got {len(fields)}"
            )
        topic, _, docno, _, score_text, line_tag = fields
        try:
            score = float(score_text)
        except ValueError:
            score = parse_score(score_text, path, number)
        if not isfinite(score):
            parse_score(score_text, path, number)
        if tag is None:
            tag = line_tag
        docs = run.get(topic)
        if docs is None:
            docs = run[topic] = {}
        if docno in docs:
            if duplicates == "error":
                raise TrecFormatError(path, number, "docno", f"document {docno!r} appears twice for topic {topic!r}")
            if duplicates == "first":
                continue
        docs[docno] = score
    if tag is None:
        raise TrecFormatError(path, 0, None, "file has no run lines")
    return tag, run
