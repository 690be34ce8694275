"""The fastest reading of a run file: numpy alone, with no Python object per line.

The file's bytes are split into tokens with array operations; the docno and score columns become fixed-width byte
strings (one numpy array each), and docnos are later looked up by a hash of their bytes (see
`vocabulary.DocumentVocabulary.ids_of_bytes`). Only well-formed ASCII files qualify: six tokens on every line, no
line longer than trec_eval's limit, one run tag, every score a finite number as Python's `float` reads it. Anything
else answers None, and the caller takes the reader that names the faulty line (`trec_files`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from .decimals import parse_decimals

MAX_FILE_BYTES = 512 << 20  # larger files take the chunked reader: the gathered columns would need several times this
COLUMNS = 6


@dataclass(frozen=True)
class RunBytes:
    """A run file's columns: topic blocks (lines in a row with the same topic), docnos as a fixed-width bytes array,
    scores as floats, all in file order."""

    tag: str
    block_starts: np.ndarray
    block_topics: list[str]
    docnos: np.ndarray  # dtype S<width>
    scores: np.ndarray

    @property
    def block_ends(self) -> np.ndarray:
        return np.append(self.block_starts[1:], len(self.docnos))


def _column(padded: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Tokens [starts, ends) of `padded` as one fixed-width bytes array (shorter ones padded with NUL, which numpy's
    bytes comparisons ignore). `padded` ends with at least as many spare bytes as the longest token."""
    lengths = ends - starts
    width = max(int(lengths.max()), 1)
    picked = sliding_window_view(padded, width)[starts]  # one row copy per token, no index matrix
    picked[np.arange(width) >= lengths[:, None]] = 0
    return picked.view(f"S{width}").ravel()


def _token_bounds(raw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and end (exclusive) of every run of bytes above space: the edges where spacing changes, paired."""
    spacing = np.empty(len(raw) + 2, dtype=bool)
    spacing[0] = spacing[-1] = True
    np.less_equal(raw, 32, out=spacing[1:-1])
    edges = np.flatnonzero(spacing[1:] != spacing[:-1])
    return edges[0::2], edges[1::2]


def read_run_bytes(path: str, *, max_line_chars: int) -> RunBytes | None:
    raw = np.fromfile(path, dtype=np.uint8)
    if len(raw) == 0 or len(raw) > MAX_FILE_BYTES or raw.max() >= 128:
        return None
    if raw[-1] != 10:
        raw = np.append(raw, np.uint8(10))
    line_ends = np.flatnonzero(raw == 10)
    if np.diff(line_ends, prepend=-1).max() > max_line_chars + 1:
        return None
    # As in trec_files, any control byte separates tokens, so an odd byte sends the file to the careful path.
    token_starts, token_ends = _token_bounds(raw)
    lines = len(line_ends)
    if len(token_starts) != COLUMNS * lines:
        return None
    line_starts = np.concatenate(([0], line_ends[:-1] + 1))
    starts, ends = token_starts.reshape(lines, COLUMNS), token_ends.reshape(lines, COLUMNS)
    # Tokens never span a newline, so if each line holds the six tokens its row names, and there are six per line
    # in all, each line holds exactly six: a blank or short line, even one balanced by a long one, fails here.
    if not ((starts[:, 0] >= line_starts) & (starts[:, 5] < line_ends)).all():
        return None
    padded = np.concatenate((raw, np.zeros(max_line_chars + 1, dtype=np.uint8)))
    tags = _column(padded, starts[:, 5], ends[:, 5])
    if (tags != tags[0]).any():
        return None  # several tags: the careful reader takes the first, as trec_eval does
    try:
        scores = parse_decimals(_column(padded, starts[:, 4], ends[:, 4]))
    except ValueError:
        return None
    if not np.isfinite(scores).all():
        return None
    topics = _column(padded, starts[:, 0], ends[:, 0])
    block_starts = np.concatenate(([0], np.flatnonzero(topics[1:] != topics[:-1]) + 1))
    return RunBytes(
        tag=tags[0].decode("ascii"),
        block_starts=block_starts,
        block_topics=[t.decode("ascii") for t in topics[block_starts].tolist()],
        docnos=_column(padded, starts[:, 2], ends[:, 2]),
        scores=scores,
    )


_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)


def fnv1a(strings: np.ndarray) -> np.ndarray:
    """64-bit FNV-1a of each bytes string in a fixed-width array, NUL padding skipped (so the width does not
    matter). A hash only finds a candidate: callers compare the bytes before trusting it."""
    width = strings.dtype.itemsize
    matrix = strings.view(np.uint8).reshape(len(strings), width)
    hashes = np.full(len(strings), _FNV_OFFSET, dtype=np.uint64)
    for column in range(width):
        byte = matrix[:, column].astype(np.uint64)
        hashes = np.where(byte != 0, (hashes ^ byte) * _FNV_PRIME, hashes)
    return hashes
