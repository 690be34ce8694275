"""Storing computed results: per-topic values and agreement, collection agreement, and run aggregates."""

from __future__ import annotations

from django.db import connection, transaction
from django.utils import timezone

from judging import selectors as judging_selectors
from judging.models import Collection

from ..measures import as_measures, totals
from ..models import AgreementReport, CollectionState, RunAggregates, TopicAgreement, TopicState, TopicValues
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


class _Superseded(Exception):
    """A newer computation of the topic stored its results first: this one's writes are rolled back."""


def store_topic(
    collection: Collection, topic_id: int, generation: int, values, report: dict, phases: Phases = NO_PHASES
) -> bool:
    """Stores one topic's per-run values (`values`: {measure: {run: value}}, runs ascending) and agreement,
    rewriting only the measures whose values changed, then moves the runs' aggregates by exactly those changes.
    Call holding the topic's lock (`topic_recompute` does). Nothing is stored when a newer generation already was.

    Returns whether the topic may be stale again: a change landed while this generation was computed (or this one
    was superseded), so the caller claims it again; False saves that claim's round trip."""
    try:
        return _store_topic(collection, topic_id, generation, values, report, phases)
    except _Superseded:
        return True


@transaction.atomic
def _store_topic(collection: Collection, topic_id: int, generation: int, values, report: dict, phases: Phases):
    with phases("store values"):
        key, now = settings_key(collection), timezone.now()
        new = values
        old = {
            measure: (dict(zip(runs, stored, strict=True)), stored_key)
            for measure, runs, stored, stored_key in bulk.rows_select(
                TopicValues, ["measure", "runs", "values", "settings_key"], "topic_id = %s", [topic_id]
            )
        }
        changed = [measure for measure, by_run in new.items() if old.get(measure) != (by_run, key)]
        gone = [measure for measure in old if measure not in new]
        if gone:
            TopicValues.objects.filter(topic_id=topic_id, measure__in=gone).delete()
        bulk.rows_upsert(
            TopicValues,
            ["topic", "measure", "runs", "values", "generation", "settings_key", "computed_at"],
            [(topic_id, m, list(new[m]), list(new[m].values()), generation, key, now) for m in changed],
            unique=["topic", "measure"],
        )
    with phases("store agreement"):
        _store_agreement(collection, topic_id, generation, report, key)
    with phases("store runs' totals"):
        moves = {
            measure: _moves(old.get(measure, ({}, None))[0], new.get(measure, {})) for measure in [*changed, *gone]
        }
        _runs_move(collection, {measure: moved for measure, moved in moves.items() if moved})
    # Written last and not locked before: the topic's lock already excludes other stores, so a save of the topic
    # waits on this transaction (for the row) only for the moment before its commit.
    stored = bulk.statement_without_waiting_for_disk(
        f"UPDATE {TopicState._meta.db_table} SET computed_generation = %s, computed_at = %s, "
        "recompute_count = recompute_count + 1 WHERE topic_id = %s AND computed_generation <= %s RETURNING dirty",
        [generation, now, topic_id, generation],
    )
    if not stored:
        raise _Superseded
    return bool(stored[0][0])


def _moves(before: dict, after: dict) -> dict[int, tuple]:
    """{run: (old, new)} for the runs whose value changed, appeared or went (_ABSENT on the missing side)."""
    runs = before.keys() | after.keys()
    moves = {run: (before.get(run, _ABSENT), after.get(run, _ABSENT)) for run in runs}
    return {run: move for run, move in moves.items() if move[0] != move[1]}


def _store_agreement(collection: Collection, topic_id: int, generation: int, report: dict, key: str) -> None:
    """The topic's agreement statistics and its full report, each written by one upsert."""
    now, items = timezone.now(), report["graded"]["items"]
    bulk.rows_upsert(
        TopicAgreement,
        ["collection", "topic", "statistic", "value", "items", "generation", "computed_at"],
        [
            (collection.pk, topic_id, name, report[view].get(statistic), items, generation, now)
            for name, (view, statistic) in STORED_STATISTICS.items()
        ],
        unique=["collection", "topic", "statistic"],
        where="topic_id IS NOT NULL",
    )
    bulk.rows_upsert(
        AgreementReport,
        ["collection", "topic", "report", "generation", "settings_key", "computed_at"],
        [(collection.pk, topic_id, report, generation, key, now)],
        unique=["collection", "topic"],
        where="topic_id IS NOT NULL",
    )


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


def _qrels_version(collection: Collection) -> int:
    found = bulk.rows_select(CollectionState, ["qrels_version"], "collection_id = %s", [collection.pk])
    return found[0][0] if found else 0


def _runs_move(collection: Collection, moves: dict[str, dict[int, tuple]]) -> None:
    """Applies one topic's value changes, {measure: {run: (old, new)}}, to the runs' stored exact totals. Locks the
    collection's aggregate rows in measure order, so concurrent topics of a collection never lose an update. Falls
    back to `runs_aggregate` when a measure of the set has no row, or a row was counted under other settings or for
    other runs (a new or deleted run or measure, changed settings): counted, not read."""
    kinds = {str(m): m.spec.aggregate for m in as_measures(stored_measures(collection))}
    moves = {measure: moved for measure, moved in moves.items() if measure in kinds}
    key, runs = settings_key(collection), judging_selectors.collection_run_ids(collection_id=collection.pk)
    measures = sorted(kinds)
    runs_field = RunAggregates._meta.get_field("runs")
    # Only rows counted under these settings for exactly these runs come back (compared by the database, so the
    # run lists do not travel); any other row makes the count below fall short, and the totals are recounted.
    rows = bulk.rows_select(
        RunAggregates,
        ["id", "measure", "values", "topics", "defined", "totals"],
        f"collection_id = %s AND settings_key = %s AND runs = {runs_field.get_placeholder(runs, None, connection)} "
        f"AND measure IN ({', '.join(['%s'] * len(measures))}) ORDER BY measure",
        [collection.pk, key, runs_field.get_db_prep_value(runs, connection), *measures],
        lock=bool(moves),
    )
    if len(rows) != len(kinds):
        runs_aggregate(collection=collection)
        return
    rows = {row[1]: row for row in rows}
    if not moves:
        return
    version, now = _qrels_version(collection), timezone.now()
    position = {run: index for index, run in enumerate(runs)}  # every row's runs are the collection's, checked
    written, counts_moved = [], False
    for measure, moved in moves.items():
        pk, _, values, topics, defined, exact = rows[measure]
        kind = kinds[measure]
        for run_id, (before, after) in moved.items():
            index = position[run_id]
            total = totals.decode(exact[index])
            if before is not _ABSENT and before is not None:
                total -= totals.term(kind, before)
            if after is not _ABSENT and after is not None:
                total += totals.term(kind, after)
            if (before is _ABSENT, before is None) != (after is _ABSENT, after is None):
                counts_moved = True
                topics[index] += (after is not _ABSENT) - (before is not _ABSENT)
                defined[index] += (after is not _ABSENT and after is not None) - (
                    before is not _ABSENT and before is not None
                )
            exact[index] = totals.encode(total)
            values[index] = _finished(kind, total, defined[index])
        written.append((pk, values, exact, version, now, topics, defined))
    fields = ["values", "totals", "qrels_version", "computed_at", "topics", "defined"]
    if not counts_moved:  # the usual judgment: values move, no run gains or loses a topic or a defined value
        fields, written = fields[:4], [row[:5] for row in written]
    bulk.rows_update(RunAggregates, fields, written)


def _finished(kind: str, total: int, defined: int) -> float | None:
    value = totals.finish(kind, total, defined)
    return None if value is None or value != value else value


@transaction.atomic
def runs_aggregate(*, collection: Collection) -> None:
    """Recomputes every run's aggregates and exact totals from the stored per-topic values, no topic re-evaluated.

    Undefined per-topic values (null) stay out of a mean, as in the engine. Used when the totals cannot simply be
    moved (a run or measure appeared or went, the settings changed); `_runs_move` handles the everyday single-topic
    change.
    """
    list(RunAggregates.objects.select_for_update().filter(collection=collection).order_by("measure").values_list("id"))
    kinds = {str(m): m.spec.aggregate for m in as_measures(stored_measures(collection))}
    key, version, now = settings_key(collection), _qrels_version(collection), timezone.now()
    runs = judging_selectors.collection_run_ids(collection_id=collection.pk)
    sums = {measure: {run: [0, 0, 0] for run in runs} for measure in kinds}  # [topics, defined, total]
    stored = TopicValues.objects.filter(topic__collection=collection, measure__in=list(kinds))
    for measure, stored_runs, values in stored.values_list("measure", "runs", "values").iterator(chunk_size=2000):
        kind, per_run = kinds[measure], sums[measure]
        for run_id, value in zip(stored_runs, values, strict=True):
            entry = per_run.get(run_id)
            if entry is None:
                continue  # a run deleted since the topic was computed
            entry[0] += 1
            if value is not None:
                entry[1] += 1
                entry[2] += totals.term(kind, value)
    RunAggregates.objects.filter(collection=collection).exclude(measure__in=list(kinds)).delete()
    RunAggregates.objects.bulk_create(
        [
            RunAggregates(
                collection=collection,
                measure=measure,
                runs=runs,
                values=[_finished(kinds[measure], total, defined) for _, defined, total in per_run.values()],
                topics=[topics for topics, _, _ in per_run.values()],
                defined=[defined for _, defined, _ in per_run.values()],
                totals=[totals.encode(total) for _, _, total in per_run.values()],
                qrels_version=version,
                settings_key=key,
                computed_at=now,
            )
            for measure, per_run in sums.items()
        ],
        update_conflicts=True,
        unique_fields=["collection", "measure"],
        update_fields=["runs", "values", "topics", "defined", "totals", "qrels_version", "settings_key", "computed_at"],
    )
