"""The stored measures and their values as the pages and the API show them: the settings they were computed
under, a topic's values, a run's aggregates, the leaderboard, and the measure and runs a request names."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from evaluation.models import RunAggregates, TopicAgreement, TopicValues
from evaluation.selectors.consensus import _advisory
from judging.core.model_families import same_family
from judging.models import Collection, Run

LEADERBOARD_KEYS = ("tag", "topics", "judged")


COVERAGE_MEASURE = "Judged@10"


# How each stored statistic is named on the pages.
STATISTIC_LABELS = {
    "percent_agreement": "Percent agreement (graded)",
    "fleiss_kappa": "Fleiss' κ (graded)",
    "krippendorff_alpha_ordinal": "Krippendorff's α (ordinal)",
    "krippendorff_alpha_nominal": "Krippendorff's α (nominal)",
    "gwet_ac1": "Gwet's AC1 (graded)",
    "cohen_kappa_quadratic": "Cohen's κ, quadratic weights (two assessors)",
    "binary_fleiss_kappa": "Fleiss' κ (relevant or not)",
    "overlap": "Overlap of relevant sets (Jaccard)",
}


def stored_measures(collection: Collection) -> list[str]:
    """The measures computed and stored for a collection: its chosen ones, and always Judged@10, the coverage figure
    every results page shows beside them (one definition: the engine's)."""
    return list(dict.fromkeys([*collection.measures, COVERAGE_MEASURE]))


# The collection settings a stored value depends on (measure parameters are in the measure's own name): the
# settings key names each, so a value computed under other settings is known for what it is.
VALUE_SETTINGS = (
    "relevance_threshold",
    "max_grade",
    "consensus_method",
    "primary_assessor",
    "collection_size",
    "trec_eval_version",
    "label_sources",  # which accounts are advisory (judging.sources): their labels leave the consensus
)


# Changing any of these makes a collection recompute (judging's settings service asks evaluation for this list).
EVALUATION_SETTINGS = (*VALUE_SETTINGS, "measures", "agreement_measure")


def settings_key(collection: Collection, *, advisory: Iterable[int] | None = None) -> str:
    """The VALUE_SETTINGS of a collection, compactly (stored with every value and in every export's provenance).
    `advisory`: the collection's advisory accounts when the caller has just read them (a recompute)."""
    advisory = _advisory(collection) if advisory is None else advisory
    return (
        f"rel>={collection.relevance_threshold};scale=0..{collection.max_grade};"
        f"consensus={collection.consensus_method};primary={collection.primary_assessor_id or '-'};"
        f"N={collection.collection_size or 'documents'};trec_eval={collection.trec_eval_version}"
        + (f";advisory={','.join(map(str, sorted(advisory)))}" if advisory else "")
    )


def engine_options(collection: Collection) -> dict:
    """The collection's settings as the measures engine takes them: every evaluation of a collection (recompute,
    curves, trial runs, system-ranking agreement) passes the same ones."""
    return {
        "relevance_level": collection.relevance_threshold,
        "max_grade": collection.max_grade,
        "collection_size": collection.collection_size or collection.documents.count,
        "trec_eval": collection.trec_eval_version,
    }


def topic_values(
    *, collection_id: int, measures: Iterable[str], run_ids: Iterable[int] | None = None
) -> dict[str, dict[int, dict[int, float | None]]]:
    """{measure: {run: {topic: value}}}: the stored per-topic values of the collection's runs (or of `run_ids`), None
    where a value is undefined; a topic missing under a run was not evaluated for it (no judgments, or the run
    retrieved nothing there). The one reader of the per-topic values."""
    measures = list(dict.fromkeys(measures))
    current = set(Run.objects.filter(collection_id=collection_id).values_list("id", flat=True))
    if run_ids is not None:
        current &= set(run_ids)
    values = {measure: {run_id: {} for run_id in sorted(current)} for measure in measures}
    rows = TopicValues.objects.filter(topic__collection_id=collection_id, measure__in=measures).order_by("topic_id")
    for topic_id, measure, runs, stored in rows.values_list("topic_id", "measure", "runs", "values").iterator(
        chunk_size=2000
    ):
        per_run = values[measure]
        for run_id, value in zip(runs, stored, strict=True):
            if run_id in current:  # a run deleted since the topic was computed is left out
                per_run[run_id][topic_id] = value
    return values


def run_aggregates(*, collection_id: int, measures: Iterable[str]) -> dict[int, dict[str, tuple[float | None, int]]]:
    """{run: {measure: (aggregate over topics, topics evaluated)}} for the collection's current runs; a measure is
    missing for a run until it has been counted. The one reader of the runs' aggregates."""
    current = set(Run.objects.filter(collection_id=collection_id).values_list("id", flat=True))
    aggregates: dict[int, dict[str, tuple[float | None, int]]] = {run_id: {} for run_id in current}
    rows = RunAggregates.objects.filter(collection_id=collection_id, measure__in=list(measures))
    for measure, runs, values, topics in rows.values_list("measure", "runs", "values", "topics"):
        for run_id, value, count in zip(runs, values, topics, strict=True):
            if run_id in current:
                aggregates[run_id][measure] = (value, count)
    return aggregates


def chosen_measure(*, collection: Collection, value: str | None, default: str = "AP") -> str:
    """The measure a page or an API call asks for: one the collection computes (by default `default` if it does,
    else its first). The pages and the API read it alike; ValidationError on 'measure' names the choices."""
    from django.core.exceptions import ValidationError

    measures = list(collection.measures)
    if not value:
        return default if default in measures else (measures[0] if measures else default)
    if value not in measures:
        raise ValidationError(
            {"measure": f"measure {value!r} is not computed for this collection; choose one of {', '.join(measures)}"}
        )
    return value


def chosen_run(*, collection: Collection, value: str | None, name: str) -> Run:
    """The run a page or an API call asks for in parameter `name`: by its tag, or else by its id (pages link runs by
    id, scripts name them by tag). ValidationError on `name` when it names no run of the collection."""
    from django.core.exceptions import ValidationError

    from config.ids import id_problem

    if not value:
        raise ValidationError({name: f"{name}: give a run of the collection, by tag or id"})
    runs = Run.objects.filter(collection=collection)
    by_id = value.isdigit() and id_problem(int(value)) is None
    run = runs.filter(tag=value).first() or (runs.filter(pk=int(value)).first() if by_id else None)
    if run is None:
        raise ValidationError({name: f"{name}: no run {value!r} in collection {collection.name!r}"})
    return run


def leaderboard(
    *, collection: Collection, measures: list[str], sort: str = "tag", descending: bool = False
) -> list[dict]:
    """One row per run: {run, values (in `measures` order), topics evaluated, judged (the engine's Judged@10, stored
    for every collection)}, sorted by `sort`
    (a measure, or one of LEADERBOARD_KEYS); undefined values sort last either way."""
    runs = list(Run.objects.filter(collection=collection).order_by("tag"))
    values: dict[int, dict[str, float | None]] = defaultdict(dict)
    topics: dict[int, int] = {}
    for run_id, per_measure in run_aggregates(
        collection_id=collection.id, measures=[*measures, COVERAGE_MEASURE]
    ).items():
        for measure, (value, count) in per_measure.items():
            values[run_id][measure] = value
            topics[run_id] = max(topics.get(run_id, 0), count)
    judges = list(collection.machine_judges.exclude(model_family="").values_list("name", "model_family"))
    rows = [
        {
            "run": run,
            "values": [values[run.id].get(m) for m in measures],
            "topics": topics.get(run.id, 0),
            "judged": values[run.id].get(COVERAGE_MEASURE),
            "shares_family_with": [name for name, family in judges if same_family(run.model_family, family)],
        }
        for run in runs
    ]
    if sort == "tag":
        return sorted(rows, key=lambda r: r["run"].tag, reverse=descending)
    if sort in ("topics", "judged"):
        key = lambda r: r[sort]  # noqa: E731
    elif sort in measures:
        column = measures.index(sort)
        key = lambda r: r["values"][column]  # noqa: E731
    else:
        raise ValueError(f"cannot sort by {sort!r}: choose a shown measure or one of {', '.join(LEADERBOARD_KEYS)}")
    defined = sorted((r for r in rows if key(r) is not None), key=key, reverse=descending)
    return defined + [r for r in rows if key(r) is None]


def collection_agreement_labelled(*, collection_id: int) -> list[tuple[str, str, float | None]]:
    """(statistic, its name for people, mean over topics) in a fixed order, for the pages."""
    means = collection_agreement(collection_id=collection_id)
    return [(key, label, means[key]) for key, label in STATISTIC_LABELS.items() if key in means]


def runs_judged_at_10(*, collection: Collection) -> list[tuple[str, float | None]]:
    """(run tag, the engine's stored Judged@10) for every run, least covered first: the same figure as the
    leaderboard's."""
    stored = run_aggregates(collection_id=collection.id, measures=[COVERAGE_MEASURE])
    tags = Run.objects.filter(collection=collection).values_list("id", "tag")
    rows = ((tag, stored.get(run_id, {}).get(COVERAGE_MEASURE, (None, 0))[0]) for run_id, tag in tags)
    return sorted(rows, key=lambda r: (r[1] is not None, r[1] or 0, r[0]))


def collection_agreement(*, collection_id: int) -> dict[str, float | None]:
    """Mean of each per-topic agreement statistic over the topics where it is defined, keyed by statistic name."""
    sums: dict[str, list[float]] = defaultdict(list)
    for statistic, value in TopicAgreement.objects.filter(collection_id=collection_id, topic__isnull=False).values_list(
        "statistic", "value"
    ):
        if value is not None:
            sums[statistic].append(value)
    return {name: (sum(v) / len(v) if v else None) for name, v in sums.items()}
