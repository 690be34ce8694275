"""Reads behind the results pages and their plots: a run's per-topic values, two runs compared, every pair of runs
with Holm's correction, and the curves and matrices the plots draw.

Per-topic values come from what the recompute pipeline stored. Interpolated precision and ROC need the rankings, so
they are computed on demand with the measures engine, against the same consensus qrels the stored values came from.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from evaluation import selectors
from evaluation.analysis.core import curves, significance
from evaluation.analysis.core.estimates import SampledTopic, sampled_estimates
from evaluation.models import AgreementReport
from evaluation.selectors import consensus_qrels, engine_options
from judging import selectors as judging_selectors
from judging.models import Collection, PoolItem, Run, Topic
from judging.search_fetch import selectors as search_selectors
from measures import PreparedQrels, PreparedRun, RunSet, evaluate


@dataclass(frozen=True)
class TopicDifference:
    topic: str
    a: float | None
    b: float | None

    @property
    def difference(self) -> float | None:
        return None if self.a is None or self.b is None else self.a - self.b


@dataclass(frozen=True)
class RunComparison:
    a: Run
    b: Run
    measure: str
    topics: list[TopicDifference]
    result: significance.PairedComparison
    holm_p_value: float  # the t-test's p, corrected over every pair of the collection's runs
    pairs: int


@dataclass(frozen=True)
class PairRow:
    a: str
    b: str
    topics: int
    mean_difference: float
    t_p_value: float
    holm_p_value: float

    @property
    def significant(self) -> bool:
        return self.holm_p_value < 0.05


def _values_by_run(collection_id: int, measure: str) -> dict[int, dict[int, float | None]]:
    values = selectors.topic_values(collection_id=collection_id, measures=[measure])[measure]
    return {run_id: per_topic for run_id, per_topic in values.items() if per_topic}


def _numbers(collection_id: int) -> dict[int, str]:
    return dict(Topic.objects.filter(collection_id=collection_id).order_by("id").values_list("id", "number"))


def run_topic_values(*, run: Run, measure: str) -> list[tuple[str, float | None]]:
    """(topic number, stored value) for every topic the run was evaluated on, in collection order."""
    values = selectors.topic_values(collection_id=run.collection_id, measures=[measure], run_ids=[run.id])
    numbers = _numbers(run.collection_id)
    return [(numbers[topic_id], value) for topic_id, value in sorted(values[measure][run.id].items())]


def _paired(first: dict[int, float | None], second: dict[int, float | None]) -> tuple[list[int], list, list]:
    """The topics both runs were evaluated on, with their values (NaN where undefined)."""
    shared = sorted(set(first) & set(second))
    as_float = lambda v: math.nan if v is None else v  # noqa: E731
    return shared, [as_float(first[t]) for t in shared], [as_float(second[t]) for t in shared]


def all_pairs(*, collection: Collection, measure: str) -> list[PairRow]:
    """A paired t-test for every pair of runs on the topics both were evaluated on, with Holm's correction over all
    pairs (the randomisation test is reserved for the pair a reader opens: it costs 10,000 resamples)."""
    values = _values_by_run(collection.id, measure)
    tags = dict(Run.objects.filter(collection=collection).values_list("id", "tag"))
    pairs = []
    for first, second in itertools.combinations(sorted(tags, key=tags.get), 2):
        _, a, b = _paired(values.get(first, {}), values.get(second, {}))
        differences = np.asarray(a) - np.asarray(b)
        defined = differences[~np.isnan(differences)]
        _, p = significance.paired_t_test(a, b) if len(a) else (math.nan, math.nan)
        mean = float(defined.mean()) if defined.size else math.nan
        pairs.append((tags[first], tags[second], int(defined.size), mean, p))
    adjusted = significance.holm([p for *_, p in pairs])
    return [PairRow(*row, holm) for row, holm in zip(pairs, adjusted, strict=True)]


def runs_compare(*, collection: Collection, a: Run, b: Run, measure: str, trials: int = 10_000) -> RunComparison:
    values = _values_by_run(collection.id, measure)
    numbers = _numbers(collection.id)
    shared, first, second = _paired(values.get(a.id, {}), values.get(b.id, {}))
    topics = [
        TopicDifference(numbers[t], values[a.id][t], values[b.id][t]) for t in shared
    ]  # both have a stored row for these
    pairs = all_pairs(collection=collection, measure=measure)
    wanted = {a.tag, b.tag}
    holm = next((p.holm_p_value for p in pairs if {p.a, p.b} == wanted), math.nan)
    return RunComparison(
        a, b, measure, topics, significance.compare(first, second, trials=trials), holm, pairs=len(pairs)
    )


def precision_recall(*, collection: Collection, runs: list[Run]) -> dict[str, list[float]]:
    """Each run's interpolated precision at recall 0.0, 0.1, …, 1.0, averaged over topics as trec_eval's
    iprec_at_recall lines."""
    qrels = consensus_qrels(collection=collection)
    if not qrels or not runs:
        return {run.tag: [0.0] * len(curves.RECALL_LEVELS) for run in runs}
    prepared = [
        PreparedRun.from_rankings(run.tag, judging_selectors.topic_rankings_by_run(run_id=run.id)) for run in runs
    ]
    result = evaluate(
        PreparedQrels.from_mapping(qrels),
        RunSet(prepared),
        curves.PR_MEASURES,
        **engine_options(collection),
    )
    return {
        run.tag: [result.aggregate(run.tag, m) if run.tag in result.runs else 0.0 for m in curves.PR_MEASURES]
        for run in runs
    }


def roc(*, collection: Collection, runs: list[Run]) -> dict[str, curves.RocCurve]:
    """Each run's ROC curve over the topics of the consensus qrels (see `curves` for the convention)."""
    qrels = consensus_qrels(collection=collection)
    judged = {}
    for topic_id, labels in qrels.items():
        ids = np.fromiter(labels, dtype=np.int64, count=len(labels))
        grades = np.fromiter(labels.values(), dtype=np.int64, count=len(labels))
        order = np.argsort(ids)
        judged[topic_id] = (ids[order], grades[order])
    threshold = collection.relevance_threshold
    result = {}
    for run in runs:
        topics = []
        for topic_id, ranking in judging_selectors.topic_rankings_by_run(run_id=run.id).items():
            if topic_id not in judged:
                continue
            ids, grades = judged[topic_id]
            relevant = int(np.count_nonzero(grades >= threshold))
            topics.append(
                curves.TopicLabels(curves.ranked_grades(ranking, ids, grades), relevant, len(grades) - relevant)
            )
        result[run.tag] = curves.roc_curve(topics, relevance_level=threshold)
    return result


@dataclass(frozen=True)
class AgreementMatrices:
    """The collection-wide agreement report, with assessor ids replaced by the names the reader may see."""

    names: list[str]
    categories: list[int]
    kappa: list[list[float | None]]  # assessor x assessor Cohen's kappa (1 on the diagonal)
    confusion: dict[tuple[str, str], list[list[int]]]  # (row assessor, column assessor or "consensus")
    # Would the leaderboard change? The runs ordered by `ranking_measure` under each assessor's labels against the
    # consensus: (assessor, Kendall's tau, tau_ap), None where undefined; empty before any run is ranked.
    ranking_measure: str | None = None
    ranking: list[tuple[str, float | None, float | None]] = field(default_factory=list)


def agreement_matrices(*, collection: Collection, reveal: bool) -> AgreementMatrices | None:
    stored = AgreementReport.objects.filter(collection=collection, topic__isnull=True).first()
    if stored is None or not stored.report.get("assessors"):
        return None
    report = stored.report
    known = judging_selectors.assessor_names(collection=collection, reveal=reveal)
    ids = report["assessors"]
    names = [known.get(int(i), f"assessor {i}") if str(i).isdigit() else str(i) for i in ids]
    by_id = dict(zip(ids, names, strict=True))
    kappa = [[1.0 if a == b else None for b in ids] for a in ids]
    confusion = {}
    pairwise = report.get("pairwise", {})
    for key, value in pairwise.get("cohen_kappa", {}).items():
        first, second = key.split("|")
        i, j = ids.index(first), ids.index(second)
        kappa[i][j] = kappa[j][i] = value
    for key, cells in pairwise.get("confusion", {}).items():
        first, second = key.split("|")
        confusion[(by_id[first], by_id[second])] = cells
    for assessor, against in report.get("against_consensus", {}).items():
        confusion[(by_id[assessor], "consensus")] = against["confusion"]
    system = report.get("system_ranking") or {}
    ranking = [
        (by_id[assessor], against["kendall_tau"], against["tau_ap"])
        for assessor, against in system.get("against_consensus", {}).items()
        if assessor in by_id
    ]
    return AgreementMatrices(
        names, report["parameters"]["categories"], kappa, confusion, system.get("measure"), sorted(ranking)
    )


REGRESSION_P = 0.05
REGRESSION_TRIALS = 2_000


def search_regressions(*, collection: Collection) -> list[dict]:
    """Each live-search endpoint's latest snapshot against the one before, on the endpoint's alert measure over the
    topics both have stored values for: the mean difference (latest minus earlier), the paired permutation test's
    p-value, and `flagged` when the mean dropped by at least the endpoint's alert_drop and p < REGRESSION_P."""
    latest: dict[int, list] = {}
    for snapshot in search_selectors.snapshots(collection=collection):  # newest first
        latest.setdefault(snapshot.endpoint_id, []).append(snapshot)
    found = []
    for snapshots in latest.values():
        if len(snapshots) < 2:
            continue
        after, before = snapshots[0], snapshots[1]
        endpoint = after.endpoint
        values = _values_by_run(collection.id, endpoint.alert_measure)
        shared, first, second = _paired(values.get(before.run_id, {}), values.get(after.run_id, {}))
        row = {"endpoint": endpoint.name, "measure": endpoint.alert_measure, "before": before.run.tag,
               "after": after.run.tag, "before_id": before.id, "after_id": after.id, "topics": len(shared),
               "mean_difference": None, "p_value": None, "flagged": False}  # fmt: skip
        if shared:
            result = significance.compare(second, first, trials=REGRESSION_TRIALS)
            row["mean_difference"], row["p_value"] = result.mean_difference, result.permutation_p_value
            row["flagged"] = bool(
                result.mean_difference <= -endpoint.alert_drop and result.permutation_p_value < REGRESSION_P
            )
        found.append(row)
    return found


def sampled_pool_estimates(*, collection: Collection) -> dict | None:
    """The measures estimated from the collection's sampled pool (`estimates.sampled_estimates`) from the
    consensus labels, over the topics with a sample: {"topics": n, "names": [...], "runs": {tag: {name: Estimate}}};
    None when no pool item was sampled. Computed on request (a bootstrap over the sample, no stored values)."""
    sample: dict[int, dict[int, tuple[int, float]]] = {}
    items = PoolItem.objects.filter(topic__collection=collection, stratum__gt=0)
    for topic_id, document_id, stratum, inclusion in items.values_list(
        "topic_id", "document_id", "stratum", "inclusion_probability"
    ):
        sample.setdefault(topic_id, {})[document_id] = (stratum, inclusion)
    if not sample:
        return None
    tags = dict(Run.objects.filter(collection=collection).values_list("id", "tag"))
    rankings: dict[int, dict[str, list[int]]] = {}
    for run_id, per_topic in judging_selectors.collection_rankings(collection_id=collection.id).items():
        for topic_id, documents in per_topic.items():
            if topic_id in sample:
                rankings.setdefault(topic_id, {})[tags[run_id]] = documents.tolist()
    labels = consensus_qrels(collection=collection)
    topics = [SampledTopic(rankings.get(t, {}), sample[t], labels.get(t, {})) for t in sorted(sample)]
    runs = sampled_estimates(topics, relevance_level=collection.relevance_threshold, seed=collection.id)
    return {"topics": len(topics), "names": list(next(iter(runs.values()), {})), "runs": runs}
