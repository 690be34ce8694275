"""Storing computed results: per-topic values and agreement, collection agreement, and run aggregates."""

from __future__ import annotations

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from judging.models import Collection, Run

from ..measures import as_measures, totals
from ..models import AgreementReport, CollectionState, RunValue, TopicAgreement, TopicState, TopicValue
from ..selectors import settings_key, stored_measures
from . import bulk
from .phases import NO_PHASES, Phases

# The per-topic statistics stored as rows (for the pages and the API to filter and average); the full report,
# matrices included, is stored as JSON beside them.
STORED_STATISTICS = {
    "percent_agreement": ("graded", "percent_agreement"),
    "fleiss_kappa": ("graded", "fleiss_kappa"),
    "krippendorff_alpha_ordinal": ("graded", "krippendorff_alpha_ordinal"),
    "krippendorff_alpha_nominal": ("graded", "krippendorff_alpha_nominal"),
    "gwet_ac1": ("graded", "gwet_ac1"),
    "cohen_kappa_quadratic": ("graded", "cohen_kappa_quadratic"),
    "binary_fleiss_kappa": ("binary", "fleiss_kappa"),
    "overlap": ("binary", "overlap"),
}
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


def _statistic_rows(collection: Collection, topic_id: int | None, report: dict, generation: int):
    items = report["graded"]["items"]
    return [
        TopicAgreement(
            collection=collection,
            topic_id=topic_id,
            statistic=name,
            value=report[view].get(key),
            items=items,
            generation=generation,
        )
        for name, (view, key) in STORED_STATISTICS.items()
    ]


@transaction.atomic
def store_topic(
    collection: Collection, topic_id: int, generation: int, values, report: dict, phases: Phases = NO_PHASES
) -> None:
    """Stores one topic's per-run values and agreement, writing only the values that changed, then moves the runs'
    aggregates by exactly those changes. Call holding the topic's lock (`topic_recompute` does)."""
    bulk.commit_without_waiting_for_disk()
    # Not locked here: the caller holds the topic's lock, so no other store of it runs. The state row is written
    # last, so a save of the topic waits on this transaction (for the row) only for the moment before its commit.
    if TopicState.objects.filter(pk=topic_id).values_list("computed_generation", flat=True).get() > generation:
        return  # a newer computation already stored its results
    with phases("store values"):
        key = settings_key(collection)
        new = {(run_id, measure): value for run_id, measure, value in values}
        old = {
            (run_id, measure): (value, stored_key)
            for run_id, measure, value, stored_key in TopicValue.objects.filter(topic_id=topic_id).values_list(
                "run_id", "measure", "value", "settings_key"
            )
        }
        changed = [pair for pair, value in new.items() if old.get(pair) != (value, key)]
        gone = [pair for pair in old if pair not in new]
        if gone:
            TopicValue.objects.filter(topic_id=topic_id).exclude(run_id__in={run for run, _ in new}).delete()
            TopicValue.objects.filter(topic_id=topic_id).exclude(measure__in={m for _, m in new}).delete()
        now = timezone.now()
        bulk.rows_upsert(
            TopicValue,
            ("run_id", "topic_id", "measure", "value", "generation", "settings_key", "computed_at"),
            [(run, topic_id, measure, new[(run, measure)], generation, key, now) for run, measure in changed],
            conflict=("run_id", "topic_id", "measure"),
        )
    with phases("store agreement"):
        _store_agreement(collection, topic_id, generation, report, key)
    with phases("store runs' totals"):
        moves = {p: (old[p][0] if p in old else _ABSENT, new.get(p, _ABSENT)) for p in [*changed, *gone]}
        _runs_move(collection, {pair: move for pair, move in moves.items() if move[0] != move[1]})
    TopicState.objects.filter(pk=topic_id).update(
        computed_generation=generation, computed_at=now, recompute_count=F("recompute_count") + 1
    )


def _store_agreement(collection: Collection, topic_id: int, generation: int, report: dict, key: str) -> None:
    """The topic's agreement statistics, rewritten only when one changed (with one assessor, or a judgment of an
    item nobody else judged, none does), and its full report, updated in place."""
    rows = _statistic_rows(collection, topic_id, report, generation)
    stored = set(TopicAgreement.objects.filter(topic_id=topic_id).values_list("statistic", "value", "items"))
    if stored != {(row.statistic, row.value, row.items) for row in rows}:
        TopicAgreement.objects.filter(collection=collection, topic_id=topic_id).delete()
        TopicAgreement.objects.bulk_create(rows)
    fields = {"report": report, "generation": generation, "settings_key": key}
    if not AgreementReport.objects.filter(collection=collection, topic_id=topic_id).update(**fields):
        AgreementReport.objects.create(collection=collection, topic_id=topic_id, **fields)


@transaction.atomic
def store_collection_agreement(collection: Collection, generation: int, report: dict) -> None:
    bulk.commit_without_waiting_for_disk()
    state = CollectionState.objects.select_for_update().get(pk=collection.pk)
    if state.computed_generation > generation:
        return
    TopicAgreement.objects.filter(collection=collection, topic__isnull=True).delete()
    TopicAgreement.objects.bulk_create(_statistic_rows(collection, None, report, generation))
    AgreementReport.objects.update_or_create(
        collection=collection,
        topic=None,
        defaults={"report": report, "generation": generation, "settings_key": settings_key(collection)},
    )
    CollectionState.objects.filter(pk=collection.pk).update(computed_generation=generation, computed_at=timezone.now())


_ABSENT = object()  # a (run, measure) with no value stored for the topic, as opposed to an undefined value (None)

RUN_VALUE_COLUMNS = (
    "run_id", "measure", "value", "topics", "defined", "total", "qrels_version", "settings_key", "computed_at",
)  # fmt: skip


def _qrels_version(collection: Collection) -> int:
    return CollectionState.objects.filter(pk=collection.pk).values_list("qrels_version", flat=True).first() or 0


def _run_value_row(run_id, measure, kind, topics, defined, total, qrels_version, key, now) -> tuple:
    value = totals.finish(kind, total, defined)
    value = None if value is None or value != value else value
    return (run_id, measure, value, topics, defined, totals.encode(total), qrels_version, key, now)


def _runs_move(collection: Collection, moves: dict) -> None:
    """Applies one topic's value changes, {(run, measure): (old, new)}, to the runs' stored exact totals. Reads and
    locks only the totals that move, in id order, so concurrent topics of a collection never lose an update. Falls
    back to `runs_aggregate` when any run lacks a total for a measure of the set, or one was made under other
    settings (a new run or measure, changed settings): counted, not read."""
    kinds = {str(m): m.spec.aggregate for m in as_measures(stored_measures(collection))}
    moves = {pair: move for pair, move in moves.items() if pair[1] in kinds}
    key, version, now = settings_key(collection), _qrels_version(collection), timezone.now()
    current = RunValue.objects.filter(run__collection=collection, measure__in=list(kinds), settings_key=key)
    if current.count() != Run.objects.filter(collection=collection).count() * len(kinds):
        runs_aggregate(collection=collection)
        return
    if not moves:
        return
    stored = {
        (run_id, measure): (topics, defined, total, stored_key)
        for run_id, measure, topics, defined, total, stored_key in RunValue.objects.select_for_update()
        .filter(run_id__in={run for run, _ in moves}, measure__in={measure for _, measure in moves})
        .order_by("id")
        .values_list("run_id", "measure", "topics", "defined", "total", "settings_key")
    }
    if any(stored.get(pair, (None,) * 4)[3] != key for pair in moves):  # changed since counted
        runs_aggregate(collection=collection)
        return
    rows = []
    for (run_id, measure), (before, after) in moves.items():
        kind = kinds[measure]
        topics, defined, total, _ = stored[(run_id, measure)]
        total = totals.decode(total)
        if before is not _ABSENT:
            topics, defined, total = topics - 1, defined - (before is not None), total - totals.term(kind, before)
        if after is not _ABSENT:
            topics, defined, total = topics + 1, defined + (after is not None), total + totals.term(kind, after)
        rows.append(_run_value_row(run_id, measure, kind, topics, defined, total, version, key, now))
    bulk.rows_upsert(RunValue, RUN_VALUE_COLUMNS, rows, conflict=("run_id", "measure"))


@transaction.atomic
def runs_aggregate(*, collection: Collection) -> None:
    """Recomputes every run's aggregates and exact totals from the stored per-topic values, no topic re-evaluated.

    Undefined per-topic values (NULL) stay out of a mean, as in the engine. Used when the totals cannot simply be
    moved (a run or measure appeared, the settings changed); `_runs_move` handles the everyday single-topic change.
    """
    list(RunValue.objects.select_for_update().filter(run__collection=collection).order_by("id").values_list("id"))
    kinds = {str(m): m.spec.aggregate for m in as_measures(stored_measures(collection))}
    key, version, now = settings_key(collection), _qrels_version(collection), timezone.now()
    sums: dict[tuple[int, str], list[int]] = {}  # (run, measure) -> [topics, defined, total]
    stored = TopicValue.objects.filter(run__collection=collection, measure__in=list(kinds))
    for run_id, measure, value in stored.values_list("run_id", "measure", "value").iterator(chunk_size=20000):
        entry = sums.setdefault((run_id, measure), [0, 0, 0])
        entry[0] += 1
        if value is not None:
            entry[1] += 1
            entry[2] += totals.term(kinds[measure], value)
    rows = [
        _run_value_row(run_id, measure, kind, *sums.get((run_id, measure), (0, 0, 0)), version, key, now)
        for run_id in Run.objects.filter(collection=collection).values_list("id", flat=True)
        for measure, kind in kinds.items()
    ]
    RunValue.objects.filter(run__collection=collection).exclude(measure__in=list(kinds)).delete()
    bulk.rows_upsert(RunValue, RUN_VALUE_COLUMNS, rows, conflict=("run_id", "measure"))
