"""trec_eval's -Z: per-topic values expressed in standard deviations from a reference set of runs.

The file has one line per (topic, measure): `qid measure mean stddev`, whitespace-separated, the measure named as
trec_eval prints it (`P_5`, `map`, `gm_map`). A value becomes (value - mean) / stddev before it is averaged, so
the summary is the mean (a sum for counts) of z-scores. A topic or measure the file does not give, or a zero
stddev with a value off the mean, becomes MISSING_ZSCORE_VALUE, which trec_eval also averages in: a missing entry
shows as a summary far below zero rather than silently vanishing. Geometric means are converted on the log scale,
where trec_eval keeps their per-topic value, and exponentiated after averaging.

Where trec_eval reads a number that is not one as 0 (atof) and takes either of two lines for the same topic and
measure, this reader refuses both with the file and line.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from measures.aggregates import aggregate_of
from measures.lines import TrecFormatError

MISSING_ZSCORE_VALUE = -1000000.0
_FIELDS = ("qid", "measure", "mean", "stddev")


@dataclass(frozen=True)
class ZScores:
    """The reference means and standard deviations, by (qid, printed measure name)."""

    reference: dict[tuple[str, str], tuple[float, float]]

    def convert(self, qid: str, name: str, values: np.ndarray) -> np.ndarray:
        """(values - mean) / stddev for one topic and measure, as trec_eval's te_convert_to_zscore."""
        values = np.asarray(values, dtype=np.float64)
        entry = self.reference.get((qid, name))
        if entry is None:
            return np.full_like(values, MISSING_ZSCORE_VALUE)
        mean, stddev = entry
        if stddev:
            return (values - mean) / stddev
        return np.where(values == mean, 0.0, MISSING_ZSCORE_VALUE)


def read_zscores(path: str | Path) -> ZScores:
    reference: dict[tuple[str, str], tuple[float, float]] = {}
    lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    for number, line in enumerate(lines, start=1):
        fields = line.split()
        if len(fields) != len(_FIELDS):
            raise TrecFormatError(
                str(path), number, None, f"expected 4 fields (qid measure mean stddev), found {len(fields)}"
            )
        qid, name = fields[0], fields[1]
        numbers = []
        for field, text in zip(_FIELDS[2:], fields[2:], strict=True):
            try:
                value = float(text)
            except ValueError:
                raise TrecFormatError(str(path), number, field, f"{text!r} is not a number") from None
            if not math.isfinite(value):
                raise TrecFormatError(str(path), number, field, f"{text!r} is not a finite number")
            numbers.append(value)
        if (qid, name) in reference:
            raise TrecFormatError(str(path), number, "measure", f"a second line for topic {qid!r} and {name!r}")
        reference[(qid, name)] = (numbers[0], numbers[1])
    if not reference:
        raise TrecFormatError(str(path), 0, None, "no lines: a z-score file needs `qid measure mean stddev` lines")
    return ZScores(reference)


def zscore_table(zscores: ZScores, qids: list[str], names: list[str], kinds: list[str], values: np.ndarray):
    """Converts a (topics x measures) table; geometric-mean columns are converted on trec_eval's log scale."""
    converted = np.empty_like(values, dtype=np.float64)
    for column, (name, kind) in enumerate(zip(names, kinds, strict=True)):
        raw = values[:, column]
        scale = aggregate_of(kind).scaled_array(raw)
        for row, qid in enumerate(qids):
            converted[row, column] = zscores.convert(qid, name, scale[row])
    return converted


def zscore_summary(values: np.ndarray, kinds: list[str], trec: list[bool]) -> np.ndarray:
    """The summary of converted values: a sum for counts, exp of the mean for geometric means, else the mean.

    trec_eval's own measures let a NaN topic make the mean NaN; other measures leave undefined topics out.
    """
    summary = np.empty(values.shape[1])
    for column, (kind, trec_rule) in enumerate(zip(kinds, trec, strict=True)):
        column_values = values[:, column]
        aggregate = aggregate_of(kind)
        if aggregate.summed:
            summary[column] = column_values.sum()
            continue
        defined = column_values if trec_rule else column_values[~np.isnan(column_values)]
        mean = defined.mean() if len(defined) else (0.0 if len(column_values) == 0 else math.nan)
        if aggregate.log_scale:
            with np.errstate(over="ignore"):
                mean = np.exp(mean)
        summary[column] = mean
    return summary
