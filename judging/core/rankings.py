"""How a ranking is stored: its document ids as little-endian 64-bit integers and its scores as little-endian
64-bit floats, each one byte string in trec_eval order. Every writer and reader of `Ranking` rows encodes and
decodes through these, so the format is decided here alone. Pure: no Django."""

from __future__ import annotations

import numpy as np

IDS = np.dtype("<i8")
SCORES = np.dtype("<f8")


def ids_from_bytes(blob) -> np.ndarray:
    """A stored ranking's document ids (read-only: a view of the bytes)."""
    return np.frombuffer(bytes(blob), dtype=IDS)


def scores_from_bytes(blob) -> np.ndarray:
    return np.frombuffer(bytes(blob), dtype=SCORES)


def ids_to_bytes(ids: np.ndarray) -> bytes:
    return np.asarray(ids).astype(IDS, copy=False).tobytes()


def scores_to_bytes(scores: np.ndarray) -> bytes:
    return np.asarray(scores).astype(SCORES, copy=False).tobytes()
