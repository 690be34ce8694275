"""TREC run and qrels files: one careful reader per format, naming each bad line's file, line and field (fail-fast
or collected), and one fast path behind it for plain files (pyarrow's CSV reader).

Columns are split as Python's `str.split()` splits them, as trec_eval splits on white space. As in trec_eval 10.0,
a line whose first character after any spacing is '#' is a comment, and a run line's columns after the run tag are
ignored. The rank column of a run and the iteration column of qrels are read past and never used, as in trec_eval.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.csv as arrow_csv

from measures.arrow_arrays import as_numpy
from measures.lines import MAX_LINE_BYTES, FailFast, Problems, Progress, TrecFormatError, numbered_lines, source_name

RUN_COLUMNS = "'qid Q0 docno rank score tag'"
QRELS_COLUMNS = "'qid 0 docno grade' (5 with an assessor)"
Source = str | Path | BinaryIO


class RunLine(NamedTuple):
    line: int
    topic: str
    docno: str
    score: float
    tag: str
    rank: str = ""  # as written: trec_eval ignores it (it orders by score), the workbench's import checks it


class QrelsLine(NamedTuple):
    line: int
    topic: str
    docno: str
    grade: int
    assessor: str | None


def run_lines(source: Source, problems: Problems | None = None, **reading) -> Iterator[RunLine]:
    """Yields the well-formed lines of a run file; each other non-blank line is a problem (by default the first one
    raises TrecFormatError). `reading`: name, max_bytes, progress, as `numbered_lines` takes them."""
    for problems_, file, number, fields in _split_lines(source, problems, **reading):
        if len(fields) < 6:
            problems_.add(file, number, None, f"expected 6 columns {RUN_COLUMNS}, got {len(fields)}")
            continue
        try:
            score = float(fields[4])
        except ValueError:
            problems_.add(file, number, "score", f"expected a number, got {fields[4]!r}")
            continue
        if not math.isfinite(score):
            problems_.add(file, number, "score", f"must be finite, got {fields[4]!r}")
            continue
        yield RunLine(number, fields[0], fields[2], score, fields[5], fields[3])


def qrels_lines(source: Source, problems: Problems | None = None, **reading) -> Iterator[QrelsLine]:
    """Yields the well-formed lines of a qrels file (an optional fifth column names the assessor); as `run_lines`."""
    for problems_, file, number, fields in _split_lines(source, problems, **reading):
        if len(fields) not in (4, 5):
            problems_.add(file, number, None, f"expected 4 columns {QRELS_COLUMNS}, got {len(fields)}")
            continue
        try:
            grade = int(fields[3])
        except ValueError:
            problems_.add(file, number, "grade", f"expected an integer, got {fields[3]!r}")
            continue
        yield QrelsLine(number, fields[0], fields[2], grade, fields[4] if len(fields) == 5 else None)


def _split_lines(
    source: Source,
    problems: Problems | None,
    *,
    name: str | None = None,
    max_bytes: int = MAX_LINE_BYTES,
    progress: Progress | None = None,
) -> Iterator[tuple[Problems, str, int, list[str]]]:
    """(problems, file name, line number, columns) of each non-blank line, split as `str.split()` splits."""
    problems = FailFast() if problems is None else problems
    file = source_name(source, name)
    for number, text in numbered_lines(source, problems, name=file, max_bytes=max_bytes, progress=progress):
        fields = text.split()
        if fields and not fields[0].startswith("#"):
            yield problems, file, number, fields


def read_qrels(source: Source, *, name: str | None = None) -> dict[str, dict[str, int]]:
    """{topic: {docno: grade}}; a repeated (topic, docno) is an error, as in trec_eval."""
    qrels: dict[str, dict[str, int]] = {}
    file = source_name(source, name)
    for entry in qrels_lines(source, name=file):
        docs = qrels.setdefault(entry.topic, {})
        if entry.docno in docs:
            raise TrecFormatError(
                file, entry.line, "docno", f"document {entry.docno!r} judged twice for {entry.topic!r}"
            )
        docs[entry.docno] = entry.grade
    if not qrels:
        raise TrecFormatError(file, 0, None, "file has no qrels lines")
    return qrels


DUPLICATES = ("error", "first", "last")


def read_run(
    source: Source, *, name: str | None = None, duplicates: str = "error"
) -> tuple[str, dict[str, dict[str, float]]]:
    """(tag, {topic: {docno: score}}); the tag is the last line's, as trec_eval keeps it (it prints that one as
    `runid` and checks no other).

    `duplicates` says what to do with a docno repeated within a topic: "error" (trec_eval's behaviour, naming the
    line), "first" or "last" to keep one of them."""
    if duplicates not in DUPLICATES:
        raise ValueError(f"duplicates must be 'error', 'first' or 'last', not {duplicates!r}")
    file = source_name(source, name)
    run: dict[str, dict[str, float]] = {}
    tag = None
    for entry in run_lines(source, name=file):
        tag = entry.tag
        docs = run.setdefault(entry.topic, {})
        if entry.docno in docs:
            if duplicates == "error":
                raise TrecFormatError(
                    file, entry.line, "docno", f"document {entry.docno!r} appears twice for topic {entry.topic!r}"
                )
            if duplicates == "first":
                continue
        docs[entry.docno] = entry.score
    if tag is None:
        raise TrecFormatError(file, 0, None, "file has no run lines")
    return tag, run


@dataclass(frozen=True)
class RunTable:
    """A plain run file's columns in file order (each a pyarrow array, scores a numpy array)."""

    tag: str
    topics: pa.Array
    docnos: pa.Array
    scores: np.ndarray


@dataclass(frozen=True)
class QrelsTable:
    topics: pa.Array
    docnos: pa.Array
    grades: np.ndarray


def run_table(path: str | Path) -> RunTable | None:
    """The fast path: a plain run file's columns, or None when the file is anything but plain (then the careful
    reader reads it, and names its faulty line if it has one). Same values as `run_lines`, or None."""
    # Topics come dictionary-encoded from the reader's own threads: a run's few topic names repeat on every line.
    topic = pa.dictionary(pa.int32(), pa.string())
    read = _run_columns(path, {0: ("topic", topic), 2: ("docno", pa.string()), 4: ("score", pa.float64())})
    if read is None:
        return None
    columns, scores, last_line = read
    return RunTable(last_line.split()[5].decode(), columns["topic"], columns["docno"], scores)


def _run_columns(path: str | Path, wanted: dict) -> tuple[dict, np.ndarray, bytes] | None:
    """A plain run file's wanted columns, its scores as numbers, its last line; None unless every score is finite."""
    read = _plain_columns(path, 6, wanted, trailing=True)
    if read is None:
        return None
    columns, last_line = read
    scores = as_numpy(columns["score"])
    return (columns, scores, last_line) if np.isfinite(scores).all() else None


@dataclass(frozen=True)
class ImportRunTable:
    """A plain run file's columns as an import checks them: the rank and tag as written, one tag or several."""

    topics: pa.Array
    docnos: pa.Array
    ranks: pa.Array
    scores: np.ndarray
    tags: pa.Array


def import_run_table(path: str | Path) -> ImportRunTable | None:
    """The fast path of a run import: every column an import checks, or None for a file that is not plain (the
    careful reader then reads it, and names its faulty line if it has one)."""
    wanted = {0: ("topic", pa.string()), 2: ("docno", pa.string()), 3: ("rank", pa.string()),
              4: ("score", pa.float64()), 5: ("tag", pa.string())}  # fmt: skip
    read = _run_columns(path, wanted)
    if read is None:
        return None
    columns, scores, _ = read
    return ImportRunTable(columns["topic"], columns["docno"], columns["rank"], scores, columns["tag"])


def qrels_table(path: str | Path) -> QrelsTable | None:
    """The fast path for qrels of four columns; None sends the file to the careful reader."""
    read = _plain_columns(path, 4, {0: ("topic", pa.string()), 2: ("docno", pa.string()), 3: ("grade", pa.int64())})
    if read is None:
        return None
    columns, _ = read
    return QrelsTable(columns["topic"], columns["docno"], as_numpy(columns["grade"]))


def _without_comments(data: bytes) -> bytes:
    """The file without its comment lines (a '#' first on the line), as the careful reader skips them; the data
    itself when it has none."""
    raw = np.frombuffer(data, dtype=np.uint8)
    hashes = np.flatnonzero(raw == 35)
    comments = hashes[(hashes == 0) | (raw[hashes - 1] == 10)] if len(hashes) else hashes
    if not len(comments):
        return data
    line_ends = np.append(np.flatnonzero(raw == 10), len(raw) - 1)  # a last line without a newline ends at the end
    return _cut_spans(data, comments, line_ends[np.searchsorted(line_ends, comments)] + 1)


def _trailing_columns_cut(data: bytes, width: int) -> tuple[bytes, int] | None:
    """(data, columns per line) for a run file whose lines may have columns after the `width`-th, which trec_eval
    ignores: the data itself when every line has as many, else the data with each line cut after its `width`-th
    column; None when a line has fewer (the careful reader names it). Lines are split on single separators, which
    the caller has checked."""
    raw = np.frombuffer(data, dtype=np.uint8)
    gaps = np.flatnonzero((raw <= 32) & (raw != 10))
    line_ends = np.append(np.flatnonzero(raw == 10), len(raw))
    line_ends = line_ends[: len(line_ends) - 1] if raw[-1] == 10 else line_ends
    first_line_gaps = int(np.searchsorted(gaps, line_ends[0]))
    if first_line_gaps >= width - 1 and len(gaps) == len(line_ends) * first_line_gaps:
        by_line = gaps.reshape(len(line_ends), first_line_gaps)
        if (by_line[:, -1] < line_ends).all() and (by_line[1:, 0] > line_ends[:-1]).all():
            return data, first_line_gaps + 1  # the same count on every line: pyarrow reads them all
    first_gap = np.searchsorted(gaps, np.concatenate(([0], line_ends[:-1] + 1)))
    gaps_per_line = np.diff(first_gap, append=len(gaps))
    if gaps_per_line.min() < width - 1:
        return None
    longer = np.flatnonzero(gaps_per_line > width - 1)
    return _cut_spans(data, gaps[first_gap[longer] + width - 1], line_ends[longer]), width


def _cut_spans(data: bytes, starts: np.ndarray, stops: np.ndarray) -> bytes:
    """`data` without the bytes [starts[i], stops[i]) (ascending, not overlapping): the kept stretches joined when
    they are few (comment lines), a byte mask when they are many (a column cut from every line)."""
    if len(starts) * 256 < len(data):
        bounds = zip([0, *stops.tolist()], [*starts.tolist(), len(data)], strict=True)
        return b"".join(data[start:stop] for start, stop in bounds if start < stop)
    change = np.zeros(len(data) + 1, dtype=np.int8)
    change[starts] = 1
    change[stops] -= 1
    return np.frombuffer(data, dtype=np.uint8)[np.cumsum(change[:-1], dtype=np.int8) == 0].tobytes()


def _one_array(column: pa.ChunkedArray) -> pa.Array:
    """A column's chunks as one array (a dictionary column's chunks first brought to one dictionary)."""
    if pa.types.is_dictionary(column.type):
        column = column.unify_dictionaries()
    return column.combine_chunks()


def _plain_columns(path: str | Path, width: int, wanted: dict[int, tuple[str, pa.DataType]], *, trailing: bool = False):
    """({name: column} for the wanted columns, last line) if the file is plain: ASCII (comment lines cut out),
    `width` columns on every line (or more where `trailing`, cut off), each separated from the next by one space (or
    one tab, in a file with no spaces), no blank line, no line longer than `MAX_LINE_BYTES`, every value one the
    column's type reads. Anything else answers None.

    With one separator byte and nothing else below '!', pyarrow's split is `str.split()`'s; pyarrow then checks the
    column count of every line and converts the numbers (correctly rounded, as `float` reads them)."""
    data = Path(path).read_bytes()
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n")
    if not data or not data.isascii():
        return None
    data = _without_comments(data)
    if not data:
        return None
    delimiter = "\t" if b"\t" in data and b" " not in data else " "
    raw = np.frombuffer(data, dtype=np.uint8)
    separators = raw <= 32
    if separators[0] or (separators[-1] and raw[-1] != 10) or (separators[1:] & separators[:-1]).any():
        return None  # a leading or doubled separator: an empty column, a blank line, or spacing to normalise
    line_ends = np.flatnonzero(raw == 10)
    if np.diff(line_ends, prepend=-1, append=len(raw)).max() - 1 > MAX_LINE_BYTES:
        return None
    table = _arrow_table(data, width, wanted, delimiter)
    if table is None and trailing:  # pyarrow refused the lines: perhaps columns after the run tag, cut them off
        cut = _trailing_columns_cut(data, width)
        if cut is None:
            return None
        if cut[0] is not data:
            data, raw = cut[0], np.frombuffer(cut[0], dtype=np.uint8)
            separators = raw <= 32
        width = cut[1]
        table = _arrow_table(data, width, wanted, delimiter)
    if table is None:
        return None
    # pyarrow found `width` columns on every line; if they account for every byte below '!', there is no other
    # control character, no tab among spaces and no skipped blank line.
    if np.count_nonzero(separators) != table.num_rows * width - (raw[-1] != 10):
        return None
    columns = {name: _one_array(table[f"c{i}"]) for i, (name, _) in wanted.items()}
    if any(column.null_count for column in columns.values()):
        return None
    end = len(data) - 1 if raw[-1] == 10 else len(data)
    return columns, data[data.rfind(b"\n", 0, end) + 1 : end]


def _arrow_table(data: bytes, width: int, wanted: dict[int, tuple[str, pa.DataType]], delimiter: str):
    """pyarrow's reading of the wanted columns, or None when a line does not have `width` columns or a value is not
    one its column's type reads."""
    names = [f"c{i}" for i in range(width)]
    types = {f"c{i}": kind for i, (_, kind) in wanted.items()}
    try:
        return arrow_csv.read_csv(
            pa.py_buffer(data),
            read_options=arrow_csv.ReadOptions(column_names=names, block_size=1 << 20),
            parse_options=arrow_csv.ParseOptions(delimiter=delimiter, quote_char=False, escape_char=False),
            convert_options=arrow_csv.ConvertOptions(
                column_types=types,
                include_columns=list(types),
                null_values=[],
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
                check_utf8=False,  # the caller found the data ASCII
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
