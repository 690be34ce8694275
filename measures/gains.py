"""Gain maps, as trec_eval's gain-based measures use them (ndcg, ndcg_rel, Rndcg, G, rbp: `ndcg.1=3,2=9,4=4.5`).

Each relevance level gets a gain: the level itself unless the map names it. Levels are those of the topic's judged
documents (0 up to its highest label); a map may also name levels no document has, and -1 (retrieved, not in the
qrels) or -2 (pooled, not judged), which otherwise gain 0. The ideal ranking holds every judged document with a
positive gain, highest gain first.
"""

from __future__ import annotations

import numpy as np

from measures.batch import RankedBatch
from measures.data import NONPOOL, UNJUDGED

# trec_eval's codes for retrieved documents without a judgment, as a gain map names them.
_CODE_OF_LEVEL = {-1: NONPOOL, -2: UNJUDGED}


def parse_gain_map(text: str) -> dict[int, float]:
    """`1=3,2=9,4=4.5` as {1: 3.0, 2: 9.0, 4: 4.5}; ValueError naming the entry that is not `level=gain`."""
    gains: dict[int, float] = {}
    for entry in filter(None, (part.strip() for part in text.split(","))):
        level, sep, gain = entry.partition("=")
        try:
            if not sep:
                raise ValueError
            gains[int(level)] = float(gain)
        except ValueError:
            raise ValueError(f"gain map entry {entry!r} is not of the form level=gain (e.g. 2=9.5)") from None
    return gains


def gain_map_text(gains: dict[int, float]) -> str:
    """The canonical text of a gain map: levels ascending, gains without a trailing .0."""
    return ",".join(f"{level}={gain:g}" for level, gain in sorted(gains.items()))


def cell_gains(batch: RankedBatch, gains: dict[int, float]) -> np.ndarray:
    """(rows x depth) gain of every ranked document."""
    labels = batch.labels
    out = np.where(labels >= 0, labels, 0).astype(np.float64)
    for level, gain in gains.items():
        code = _code(level)
        if code is not None:
            out[labels == code] = gain
    return out


def _code(level: int) -> int | None:
    """The label code of a level in the engine's matrices; None for a level no document can have."""
    return _CODE_OF_LEVEL.get(level) if level < 0 else level


def _level_gains(batch: RankedBatch, gains: dict[int, float]) -> np.ndarray:
    width = batch.stats.histogram.shape[1]
    return np.array([gains.get(level, float(level)) for level in range(width)], dtype=np.float64)


def ideal_gains(batch: RankedBatch, gains: dict[int, float]) -> tuple[np.ndarray, np.ndarray]:
    """Per topic of the batch, the ideal ranking's gains (topics x most positives, 0-padded) and its length."""
    key = ("ideal-gains", tuple(sorted(gains.items())))
    if key not in batch._idcg:
        level_gain = _level_gains(batch, gains)
        order = np.argsort(-level_gain, kind="stable")
        order = order[level_gain[order] > 0]
        counts = batch.stats.histogram[:, order]
        lengths = counts.sum(axis=1).astype(np.int64)
        topics = len(lengths)
        flat_gain = np.repeat(np.tile(level_gain[order], topics), counts.ravel())
        flat_topic = np.repeat(np.arange(topics), lengths)
        starts = np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64)
        matrix = np.zeros((topics, max(int(lengths.max()) if topics else 0, 1)))
        matrix[flat_topic, np.arange(len(flat_topic)) - starts[flat_topic]] = flat_gain
        batch._idcg[key] = (matrix, lengths)
    return batch._idcg[key]


def normalised_cell_gains(batch: RankedBatch, gains: dict[int, float]) -> np.ndarray:
    """rbp's gains: when a topic's gain table (its levels 0..highest judged, and every level the map names) has a
    gain below 0 or above 1, every gain of the table becomes (gain - min) / (max - min) for that topic. Documents
    whose level is not in the table (not in the qrels, unless the map names -1) keep gain 0."""
    raw = cell_gains(batch, gains)
    histogram = batch.stats.histogram
    level_gain = _level_gains(batch, gains)
    named = np.array(list(gains.values()), dtype=np.float64)
    present = histogram > 0
    levels_in_use = np.where(present.any(axis=1), histogram.shape[1] - np.argmax(present[:, ::-1], axis=1), 0)
    in_table = np.arange(histogram.shape[1])[None, :] < levels_in_use[:, None]
    low = np.where(in_table, level_gain[None, :], np.inf).min(axis=1)
    high = np.where(in_table, level_gain[None, :], -np.inf).max(axis=1)
    if len(named):
        low, high = np.minimum(low, named.min()), np.maximum(high, named.max())
    rescale = (low < 0) | (high > 1)
    if not rescale.any():
        return raw
    low_row, high_row = low[batch.row_topic][:, None], high[batch.row_topic][:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = (raw - low_row) / (high_row - low_row)
    mapped = np.isin(batch.labels, [code for code in map(_code, gains) if code is not None])
    in_table_cell = (batch.labels >= 0) | mapped
    scaled = np.where(in_table_cell, scaled, 0.0)
    return np.where(rescale[batch.row_topic][:, None], scaled, raw)
