"""Evaluate prepared runs against qrels: one label matrix per batch of (run, topic) rows, every measure at once.

Which topics count follows trec_eval: a topic is evaluated iff it is in both the run and the qrels; with
`complete=True` (trec_eval -c) qrels topics missing from a run are evaluated as an empty ranking, so they add 0 to
every mean (and log(1e-5) to geometric means) and their relevant documents to num_rel.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .batch import RankedBatch, TopicStats
from .data import NONPOOL, PAD, UNJUDGED, PreparedQrels, PreparedRun
from .names import Measure, parse_measures
from .ranked import GMAP_FLOOR

DEFAULT_BATCH_CELLS = 4_000_000


def as_measures(measures: Iterable[Measure | str]) -> list[Measure]:
    """Parses names (expanding trec_eval families) and keeps the first of any repeated measure."""
    parsed: list[Measure] = []
    for item in measures:
        for measure in [item] if isinstance(item, Measure) else parse_measures(item):
            if measure not in parsed:
                parsed.append(measure)
    return parsed


def aggregate(measure: Measure, values: np.ndarray) -> float:
    """Combines per-topic values into the run's value: a sum, a geometric mean (GMAP) or an arithmetic mean.

    Undefined per-topic values (NaN, e.g. fall-out without a collection size) are left out of the mean; if every
    value is undefined, so is the aggregate.
    """
    values = np.asarray(values, dtype=np.float64)
    if measure.spec.aggregate == "sum":
        return float(values.sum())
    if len(values) == 0:
        return 0.0
    if measure.spec.aggregate == "gmean":
        return float(np.exp(np.mean(np.log(np.maximum(values, GMAP_FLOOR)))))
    defined = values[~np.isnan(values)]
    return float(defined.mean()) if len(defined) else float("nan")


@dataclass
class RunResult:
    """Per-topic values (rows follow `topics`, columns follow the evaluation's measures) and aggregates."""

    tag: str
    topics: np.ndarray
    values: np.ndarray
    aggregates: np.ndarray
    num_topics: int  # topics in the mean (includes -c's missing topics)

    def by_topic(self, measures: Sequence[Measure]) -> dict[int, dict[Measure, float]]:
        return {
            int(t): {m: float(v) for m, v in zip(measures, row, strict=True)}
            for t, row in zip(self.topics, self.values, strict=True)
        }


@dataclass
class Evaluation:
    measures: list[Measure]
    runs: dict[str, RunResult]

    def value(self, run: str, topic: int, measure: Measure | str) -> float:
        measure = measure if isinstance(measure, Measure) else as_measures([measure])[0]
        result = self.runs[run]
        row = int(np.searchsorted(result.topics, topic))
        if row == len(result.topics) or result.topics[row] != topic:
            raise KeyError(f"topic {topic} was not evaluated for run {run!r}")
        return float(result.values[row, self.measures.index(measure)])

    def aggregate(self, run: str, measure: Measure | str) -> float:
        measure = measure if isinstance(measure, Measure) else as_measures([measure])[0]
        return float(self.runs[run].aggregates[self.measures.index(measure)])


@dataclass
class _Rows:
    run_index: np.ndarray
    topic: np.ndarray
    start: np.ndarray
    length: np.ndarray
    reported: np.ndarray  # False for -c's padding rows: in the mean, not in the per-topic output


def _plan_rows(
    qrels: PreparedQrels, runs: Sequence[PreparedRun], topics: np.ndarray | None, complete: bool, depth: int | None
) -> _Rows:
    parts = []
    wanted = qrels.topics if topics is None else np.intersect1d(qrels.topics, topics)
    for index, run in enumerate(runs):
        shared = np.intersect1d(run.topics, wanted)
        position = np.searchsorted(run.topics, shared)
        start = run.offsets[position]
        length = run.offsets[position + 1] - start
        parts.append((np.full(len(shared), index), shared, start, length, np.ones(len(shared), bool)))
        if complete:
            missing = np.setdiff1d(wanted, run.topics)
            zeros = np.zeros(len(missing), np.int64)
            parts.append((np.full(len(missing), index), missing, zeros, zeros, np.zeros(len(missing), bool)))
    columns = [np.concatenate([p[i] for p in parts]) if parts else np.empty(0, np.int64) for i in range(5)]
    rows = _Rows(*(c.astype(np.int64) if i < 4 else c.astype(bool) for i, c in enumerate(columns)))
    if depth is not None:
        rows.length = np.minimum(rows.length, depth)
    return rows


def _label_matrix(qrels: PreparedQrels, runs: Sequence[PreparedRun], rows: _Rows, index: np.ndarray) -> np.ndarray:
    lengths = rows.length[index]
    width = max(int(lengths.max()) if len(lengths) else 0, 1)
    matrix = np.full((len(index), width), PAD, dtype=np.int32)
    total = int(lengths.sum())
    if total == 0:
        return matrix
    row_of_cell = np.repeat(np.arange(len(index)), lengths)
    first_cell = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    column_of_cell = np.arange(total) - first_cell[row_of_cell]
    docs = np.empty(total, dtype=np.int64)
    run_of_row = rows.run_index[index]
    for run_index in np.unique(run_of_row):
        cells = run_of_row[row_of_cell] == run_index
        docs[cells] = runs[run_index].docs[rows.start[index][row_of_cell[cells]] + column_of_cell[cells]]
    keys = (rows.topic[index][row_of_cell] << 32) | docs
    labels = np.full(total, NONPOOL, dtype=np.int32)
    if len(qrels.keys):
        found = np.minimum(np.searchsorted(qrels.keys, keys), len(qrels.keys) - 1)
        hit = qrels.keys[found] == keys
        judged = qrels.labels[found[hit]]
        labels[hit] = np.where(judged >= 0, judged, UNJUDGED)
    matrix[row_of_cell, column_of_cell] = labels
    return matrix


def _chunks(rows: _Rows, batch_cells: int) -> list[np.ndarray]:
    """Splits rows into batches of about `batch_cells` matrix cells, grouping rows of similar length."""
    order = np.argsort(rows.length, kind="stable")
    chunks, current, width = [], [], 0
    for row in order:
        width = max(width, int(rows.length[row]), 1)
        if current and (len(current) + 1) * width > batch_cells:
            chunks.append(np.array(current))
            current, width = [], max(int(rows.length[row]), 1)
        current.append(row)
    if current:
        chunks.append(np.array(current))
    return chunks


def evaluate(
    qrels: PreparedQrels,
    runs: Sequence[PreparedRun] | Mapping[str, PreparedRun],
    measures: Iterable[Measure | str],
    *,
    relevance_level: int = 1,
    complete: bool = False,
    depth: int | None = None,
    topics: Iterable[int] | None = None,
    collection_size: int | None = None,
    max_grade: int | None = None,
    batch_cells: int = DEFAULT_BATCH_CELLS,
) -> Evaluation:
    """Evaluates every run for every measure, per topic and aggregated.

    `depth` truncates each ranking after sorting (trec_eval -M). `topics` restricts evaluation to those topic ids
    (re-evaluating one changed topic is `topics=[t]`). `collection_size` is N for set measures needing TN;
    `max_grade` is the scale's top grade for ERR (default: the largest label in the qrels).
    """
    measures = as_measures(measures)
    run_list = list(runs.values()) if isinstance(runs, Mapping) else list(runs)
    wanted = None if topics is None else np.unique(np.fromiter(topics, dtype=np.int64))
    rows = _plan_rows(qrels, run_list, wanted, complete, depth)
    values = np.zeros((len(rows.topic), len(measures)), dtype=np.float64)
    grade = max_grade if max_grade is not None else (int(qrels.labels.max()) if len(qrels.labels) else 0)
    for index in _chunks(rows, batch_cells) if len(rows.topic) else []:
        unique_topics, row_topic = np.unique(rows.topic[index], return_inverse=True)
        batch = RankedBatch(
            _label_matrix(qrels, run_list, rows, index),
            rows.length[index],
            row_topic,
            TopicStats(qrels, unique_topics),
            relevance_level=relevance_level,
            collection_size=collection_size,
            max_grade=max(grade, 0),
        )
        for column, measure in enumerate(measures):
            values[index, column] = measure.spec.compute(batch, measure)
    results = {}
    for run_index, run in enumerate(run_list):
        mine = np.flatnonzero(rows.run_index == run_index)
        reported = mine[rows.reported[mine]]
        reported = reported[np.argsort(rows.topic[reported], kind="stable")]
        aggregates = np.array([aggregate(m, values[mine, c]) for c, m in enumerate(measures)])
        results[run.tag] = RunResult(run.tag, rows.topic[reported], values[reported], aggregates, len(mine))
    return Evaluation(measures, results)
