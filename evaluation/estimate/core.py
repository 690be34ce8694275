"""The estimate report, pure: from each run's per-topic values under the machine's labels (every topic) and under
the people's (their sample), each run's prediction-powered estimate of each measure beside the machine-only and
people-only values, and every pair of runs' difference (PPI on the per-topic differences, λ tuned for the pair) with
whether its interval excludes 0, Holm-adjusted across the pairs of a measure as well, and how many more people
topics would separate a pair that is not. `python -m evaluation.estimate` prints it; the collection's pages read it."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from itertools import combinations

import numpy as np

from measures import Measure
from measures.aggregates import aggregate_of
from measures.prediction_powered import Interval, classical_mean, holm, more_people_items, ppi_mean

# {run: {measure: {topic: value}}}
Values = Mapping[str, Mapping[str, Mapping[str, float]]]
DEFAULT_LEVEL = 0.95
METHOD = "prediction-powered inference (PPI++: Angelopoulos, Duchi & Zrnic 2023), λ tuned per run and measure"


def per_topic_values(result, measures: Sequence[str], topic_key: Callable, run_key: Callable) -> dict:
    """{run: {measure: {topic: value}}} of an evaluation made with complete=True (trec_eval -c: a topic of the
    qrels the run has no ranking for is in, scored as an empty ranking). `measures` names the evaluation's columns;
    `topic_key` and `run_key` turn the engine's ids and tags into the report's."""
    values: dict[Hashable, dict] = {}
    for tag, run in result.runs.items():
        rows = list(zip(run.topics, run.values, strict=True))
        if run.missing_topics is not None:
            rows += list(zip(run.missing_topics, run.missing_values, strict=True))
        values[run_key(tag)] = {
            name: {topic_key(t): float(row[column]) for t, row in rows} for column, name in enumerate(measures)
        }
    return values


def not_a_mean(name: str, measure: Measure) -> str:
    """Why a measure gets no interval ("" when it is a plain mean over topics, as PPI estimates)."""
    aggregate = aggregate_of(measure.spec.aggregate)
    if aggregate.arithmetic:
        return ""
    kind = "a sum over topics" if aggregate.summed else "a geometric mean"
    return f"{name} is {kind}, not a mean: prediction-powered intervals are for means"


def estimate_report(
    machine: Values,
    people: Values,
    *,
    topics: Sequence[str],
    people_topics: Sequence[str],
    measures: Mapping[str, Measure],
    level: float = DEFAULT_LEVEL,
) -> dict:
    """The report `python -m evaluation.estimate --json` prints. `machine` holds every run's values on every topic
    of `topics` under the machine's labels; `people` on every topic of `people_topics` (a subset) under the
    people's; `measures` the measures by the names the values are kept under. Run ids in the order given; a value
    missing on a topic is 0, as with trec_eval -c."""
    sample = [t for t in topics if t in set(people_topics)]
    others = [t for t in topics if t not in set(people_topics)]
    runs = list(machine)
    report = {"level": level, "topics": {"all": len(topics), "people": len(sample)}, "runs": {}, "pairs": []}
    arrays = {
        (run, measure): _arrays(machine[run].get(measure, {}), people.get(run, {}).get(measure, {}), sample, others)
        for run in runs
        for measure in measures
    }
    for run in runs:
        report["runs"][run] = {m: _run_entry(arrays[run, m], not_a_mean(m, measures[m]), level) for m in measures}
    for name, measure in measures.items():
        report["pairs"] += _pairs(runs, name, not_a_mean(name, measure), arrays, level, len(sample))
    return report


def _arrays(machine: Mapping[str, float], people: Mapping[str, float], sample, others):
    y = np.array([people.get(t, 0.0) for t in sample], dtype=np.float64)
    yhat = np.array([machine.get(t, 0.0) for t in sample], dtype=np.float64)
    rest = np.array([machine.get(t, 0.0) for t in others], dtype=np.float64)
    return y, yhat, rest


def _run_entry(arrays, reason: str, level: float) -> dict:
    y, yhat, rest = arrays
    everything = np.concatenate([yhat, rest])
    entry = {
        "machine_only": float(everything.mean()) if len(everything) else None,
        "people_only": _bounds(classical_mean(y, level)),
    }
    estimate = Interval(None, reason=reason) if reason else ppi_mean(y, yhat, rest, level)
    return {**_bounds(estimate), "lambda": estimate.lam, **entry} | (
        {"reason": estimate.reason} if estimate.reason else {}
    )


def _bounds(interval: Interval) -> dict:
    return {"estimate": interval.estimate, "low": interval.low, "high": interval.high}


def _pairs(runs: list[str], measure: str, reason: str, arrays, level: float, n: int) -> list[dict]:
    rows, intervals = [], []
    for a, b in combinations(runs, 2):
        (ya, yhat_a, rest_a), (yb, yhat_b, rest_b) = arrays[a, measure], arrays[b, measure]
        difference = (
            Interval(None, reason=reason) if reason else ppi_mean(ya - yb, yhat_a - yhat_b, rest_a - rest_b, level)
        )
        separated = difference.excludes_zero()
        needed = None if separated else more_people_items(n, difference.half_width, difference.estimate)
        rows.append(
            {"a": a, "b": b, "measure": measure, "difference": difference.estimate, "low": difference.low,
             "high": difference.high, "lambda": difference.lam, "separated": separated, "more_topics_needed": needed}
            | ({"reason": difference.reason} if difference.reason else {})
        )  # fmt: skip
        intervals.append(difference)
    for row, adjusted in zip(rows, holm([i.p_value() for i in intervals]), strict=True):
        row["separated_holm"] = adjusted is not None and adjusted < 1 - level
    return rows
