"""Evaluate prepared runs against qrels: one label matrix per batch of (run, topic) rows, every measure at once.

Which topics count follows trec_eval: a topic is evaluated iff it is in both the run and the qrels; with
`complete=True` (trec_eval -c) qrels topics missing from a run are evaluated as an empty ranking, so they add 0 to
every mean (and log(1e-5) to geometric means) and their relevant documents to num_rel.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from measures.aggregates import aggregate_of
from measures.batch import TREC_EVAL_VERSION, TREC_EVAL_VERSIONS, RankedBatch, TopicStats
from measures.data import PAD, PreparedQrels, PreparedRun
from measures.labelling import Labeller
from measures.names import Measure
from measures.parsing import parse_measures
from measures.ranked import GMAP_FLOOR
from measures.runset import RunSet

DEFAULT_BATCH_CELLS = 4_000_000


def as_measures(measures: Iterable[Measure | str]) -> list[Measure]:
    """Parses names (expanding trec_eval families) and keeps the first of any repeated measure."""
    parsed: list[Measure] = []
    for item in measures:
        for measure in [item] if isinstance(item, Measure) else parse_measures(item):
            if measure not in parsed:
                parsed.append(measure)
    return parsed


def canonical_names(names: Iterable[str]) -> list[str]:
    """The one name of each measure that `names` denote, in order and without repeats: every spelling of a measure
    (ir_measures' `nDCG@5`, trec_eval's `ndcg_cut.5`, a family with several cutoffs) gives the same canonical
    names, and parsing a canonical name gives back the same measure. Raises MeasureNameError on an unknown name."""
    return [str(measure) for measure in as_measures(names)]


def aggregate(measure: Measure, values: np.ndarray) -> float:
    """Combines per-topic values into the run's value: a sum, a geometric mean (GMAP) or an arithmetic mean.

    Undefined per-topic values (NaN, e.g. fall-out without a collection size) are left out of the mean; if every
    value is undefined, so is the aggregate. trec_eval's own measures keep its rule instead: a NaN topic (an empty
    ranking's interpolated precision under -c or -J) makes the mean NaN.
    """
    values = np.asarray(values, dtype=np.float64)
    kind = aggregate_of(measure.spec.aggregate)
    if kind.summed:
        return float(values.sum())
    if len(values) == 0:
        return 0.0
    if kind.log_scale:
        return float(np.exp(np.mean(kind.scaled_array(values))))
    defined = values if measure.spec.trec else values[~np.isnan(values)]
    return float(defined.mean()) if len(defined) else float("nan")


@dataclass
class RunResult:
    """Per-topic values (rows follow `topics`, columns follow the evaluation's measures) and aggregates."""

    tag: str
    topics: np.ndarray
    values: np.ndarray
    aggregates: np.ndarray
    num_topics: int  # topics in the mean (includes -c's missing topics)
    missing_topics: np.ndarray | None = None  # -c's qrels topics the run has no ranking for, scored as empty
    missing_values: np.ndarray | None = None

    def by_topic(self, measures: Sequence[Measure]) -> dict[int, dict[Measure, float]]:
        return {
            int(t): {m: float(v) for m, v in zip(measures, row, strict=True)}
            for t, row in zip(self.topics, self.values, strict=True)
        }


@dataclass
class _Rows:
    run_index: np.ndarray
    topic: np.ndarray
    start: np.ndarray  # into runset.docs
    length: np.ndarray
    reported: np.ndarray  # False for -c's padding rows: in the mean, not in the per-topic output


class Evaluation:
    """Every evaluated (run, topic) row's values, columns following `measures`. The per-run view (`runs`) and the
    runs' aggregates are built on first use: a caller that needs only one of them, as a topic's recompute does,
    does not pay for the other."""

    def __init__(self, measures: list[Measure], tags: list[str], rows: _Rows, values: np.ndarray):
        self.measures, self.tags = measures, tags
        self._rows, self._values = rows, values

    @cached_property
    def aggregates(self) -> np.ndarray:
        """(runs x measures), rows following `tags`."""
        return _aggregate_by_run(self.measures, self._rows.run_index, self._values, len(self.tags))

    @cached_property
    def runs(self) -> dict[str, RunResult]:
        return _per_run_results(self.tags, self._rows, self._values, self.aggregates)

    def reported_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(run index into `tags`, topic, values) of each row in the per-topic output (not -c's padding rows)."""
        kept = self._rows.reported
        return self._rows.run_index[kept], self._rows.topic[kept], self._values[kept]

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


def plan_rows(runset: RunSet, wanted: np.ndarray, complete: bool, depth: int | None) -> _Rows:
    rows = runset.rows_of_topics(wanted)
    parts = [
        (
            runset.row_run[rows],
            runset.row_topic[rows],
            runset.start[rows],
            runset.length[rows],
            np.ones(len(rows), bool),
        )
    ]
    if complete:
        for run_index in range(len(runset)):
            missing = np.setdiff1d(wanted, parts[0][1][parts[0][0] == run_index])
            zeros = np.zeros(len(missing), np.int64)
            parts.append((np.full(len(missing), run_index), missing, zeros, zeros, np.zeros(len(missing), bool)))
    columns = [np.concatenate([p[i] for p in parts]) for i in range(5)]
    plan = _Rows(*(c.astype(np.int64) for c in columns[:4]), columns[4].astype(bool))
    if depth is not None:
        plan.length = np.minimum(plan.length, depth)
    return plan


def _label_matrix(labeller: Labeller, rows: _Rows, index: np.ndarray, judged_only: bool) -> np.ndarray:
    labels = labeller.matrix(rows.start[index], rows.length[index], rows.topic[index])
    if judged_only:
        labels, rows.length[index] = judged_only_labels(labels)
    return labels


def judged_only_labels(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """trec_eval -J: each ranking without its unjudged documents, the judged ones moving up in their order."""
    judged = labels >= 0
    order = np.argsort(~judged, axis=1, kind="stable")
    moved = np.take_along_axis(labels, order, axis=1)
    lengths = judged.sum(axis=1)
    moved[np.arange(labels.shape[1])[None, :] >= lengths[:, None]] = PAD
    return moved, lengths.astype(np.int64)


def _chunks(rows: _Rows, batch_cells: int) -> list[np.ndarray]:
    """Splits rows into batches of at most about `batch_cells` padded cells, grouping rows of similar length."""
    order = np.argsort(rows.length, kind="stable")
    widths = np.maximum(rows.length[order], 1)
    chunks, first = [], 0
    while first < len(order):
        # rows first..last-1 fit if (last - first) * widths[last - 1] <= batch_cells; widths ascend, so bisect.
        low, high = first + 1, len(order)
        while low < high:
            middle = (low + high + 1) // 2
            if (middle - first) * widths[middle - 1] <= batch_cells:
                low = middle
            else:
                high = middle - 1
        chunks.append(order[first:low])
        first = low
    return chunks


def evaluate(
    qrels: PreparedQrels,
    runs: RunSet | Sequence[PreparedRun] | Mapping[str, PreparedRun],
    measures: Iterable[Measure | str],
    *,
    relevance_level: int = 1,
    complete: bool = False,
    depth: int | None = None,
    topics: Iterable[int] | None = None,
    collection_size: int | Callable[[], int] | None = None,
    max_grade: int | None = None,
    trec_eval: int = TREC_EVAL_VERSION,
    judged_only: bool = False,
    batch_cells: int = DEFAULT_BATCH_CELLS,
) -> Evaluation:
    """Evaluates every run for every measure, per topic and aggregated.

    `depth` truncates each ranking after sorting (trec_eval -M). `topics` restricts evaluation to those topic ids
    (re-evaluating one changed topic is `topics=[t]`). `collection_size` is N for set measures needing TN
    (or a callable giving N, called only if a measure needs it);
    `max_grade` is the scale's top grade for ERR (default: the largest label in the qrels). `trec_eval` is the
    version whose conventions to follow where 10.0 and 9.0.x differ (see `batch.TREC_EVAL_VERSIONS`).
    `judged_only` drops unjudged documents from every ranking before measuring (trec_eval -J).
    """
    if trec_eval not in TREC_EVAL_VERSIONS:
        raise ValueError(f"trec_eval must be one of {', '.join(map(str, TREC_EVAL_VERSIONS))}, not {trec_eval!r}")
    measures = as_measures(measures)
    runset = runs if isinstance(runs, RunSet) else RunSet(list(runs.values() if isinstance(runs, Mapping) else runs))
    wanted = qrels.topics
    if topics is not None:
        wanted = np.intersect1d(wanted, np.fromiter(topics, dtype=np.int64))
    rows = plan_rows(runset, wanted, complete, depth)
    labeller = Labeller(qrels, runset, int(rows.length.sum()))
    values = np.zeros((len(rows.topic), len(measures)), dtype=np.float64)
    grade = max_grade if max_grade is not None else (int(qrels.labels.max()) if len(qrels.labels) else 0)
    for index in _chunks(rows, batch_cells) if len(rows.topic) else []:
        unique_topics, row_topic = np.unique(rows.topic[index], return_inverse=True)
        labels = _label_matrix(labeller, rows, index, judged_only)
        batch = RankedBatch(
            labels,
            rows.length[index],
            row_topic,
            TopicStats(qrels, unique_topics),
            relevance_level=relevance_level,
            collection_size=collection_size,
            max_grade=max(grade, 0),
            trec_eval=trec_eval,
        )
        for column, measure in enumerate(measures):
            values[index, column] = measure.spec.compute(batch, measure)
    for column, measure in enumerate(measures):
        if measure.spec.missing_topic_value is not None:
            values[~rows.reported, column] = measure.spec.missing_topic_value
    return Evaluation(measures, runset.tags, rows, values)


def _aggregate_by_run(measures: list[Measure], run_index: np.ndarray, values: np.ndarray, runs: int) -> np.ndarray:
    """aggregate() for every run at once: (runs x measures)."""
    kinds = [aggregate_of(m.spec.aggregate) for m in measures]
    summed = np.array([kind.summed for kind in kinds], dtype=bool)
    log_scale = np.array([kind.log_scale for kind in kinds], dtype=bool)
    logged = np.log(np.maximum(values, GMAP_FLOOR))
    combined = np.where(log_scale, logged, values)
    trec_rule = np.array([m.spec.trec is not None for m in measures], dtype=bool)
    defined = ~np.isnan(combined) | summed | trec_rule
    order = np.argsort(run_index, kind="stable")
    starts = np.searchsorted(run_index[order], np.arange(runs))
    has_rows = np.bincount(run_index, minlength=runs) > 0
    totals = np.zeros((runs, len(measures)))
    counts = np.zeros((runs, len(measures)))
    if len(order):
        safe_starts = np.minimum(starts, len(order) - 1)
        totals = np.add.reduceat(np.where(defined, combined, 0.0)[order], safe_starts, axis=0) * has_rows[:, None]
        counts = np.add.reduceat(defined[order].astype(np.float64), safe_starts, axis=0) * has_rows[:, None]
    means = np.divide(totals, counts, out=np.full_like(totals, np.nan), where=counts > 0)
    rows_per_run = np.bincount(run_index, minlength=runs)[:, None]
    means = np.where((rows_per_run == 0) & ~summed, 0.0, means)
    geometric = np.exp(means, out=means.copy(), where=log_scale)  # only where asked: exp overflows elsewhere
    return np.where(summed, totals, geometric)


def _per_run_results(tags: list[str], rows: _Rows, values: np.ndarray, aggregates: np.ndarray) -> dict:
    counts = np.bincount(rows.run_index, minlength=len(tags))
    reported = np.flatnonzero(rows.reported)
    reported = reported[np.lexsort((rows.topic[reported], rows.run_index[reported]))]
    bounds = np.searchsorted(rows.run_index[reported], np.arange(len(tags) + 1))
    padding = np.flatnonzero(~rows.reported)
    padding = padding[np.lexsort((rows.topic[padding], rows.run_index[padding]))]
    padding_bounds = np.searchsorted(rows.run_index[padding], np.arange(len(tags) + 1))
    results = {}
    for run_index, tag in enumerate(tags):
        mine = reported[bounds[run_index] : bounds[run_index + 1]]
        missing = padding[padding_bounds[run_index] : padding_bounds[run_index + 1]]
        results[tag] = RunResult(
            tag,
            rows.topic[mine],
            values[mine],
            aggregates[run_index],
            int(counts[run_index]),
            rows.topic[missing],
            values[missing],
        )
    return results
