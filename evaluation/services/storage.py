"""Storing computed results: per-topic values and agreement, collection agreement, and run aggregates."""

from __future__ import annotations

import contextlib

from django.db import connection, transaction
from django.utils import timezone

from config import sql
from evaluation.models import AgreementReport, CollectionState, RunAggregates, TopicAgreement, TopicState, TopicValues
from evaluation.selectors import settings_key, stored_measures
from evaluation.services.phases import NO_PHASES, Phases
from judging import selectors as judging_selectors
from judging.models import Collection, Run
from measures import as_measures, totals

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


class _Superseded(Exception):
    """A newer computation of the topic stored its results first: this one's writes are rolled back."""


def store_topic(
    collection: Collection,
    topic_id: int,
    generation: int,
    values,
    report: dict,
    phases: Phases = NO_PHASES,
    *,
    key: str | None = None,
) -> bool:
    """Stores one topic's per-run values (`values`: {measure: {run: value}}, runs ascending) and agreement,
    rewriting only the measures whose values changed, then moves the runs' aggregates by exactly those changes.
    Call holding the topic's lock (`topic_recompute` does). Nothing is stored when a newer generation already was.
    `key`: the collection's settings key, when the caller has it.

    Returns whether the topic may be stale again: a change landed while this generation was computed (or this one
    was superseded), so the caller claims it again; False saves that claim's round trip."""
    try:
        return _store_topic(collection, topic_id, generation, values, report, phases, key or settings_key(collection))
    except _Superseded:
        return True


@transaction.atomic
def _store_topic(
    collection: Collection, topic_id: int, generation: int, values, report: dict, phases: Phases, key: str
):
    # Two round trips (one when no value changed) and the commit: what is stored (with the state's generation and
    # whether the runs' totals are current), the totals of the measures that changed (locked), then every write in
    # one query string. The topic's lock excludes other stores of the topic, so what the first read finds stays true
    # (its check of the generation included); the state row is written last and not locked before, so a save of the
    # topic waits on this transaction (for the row) only for the moment before its commit.
    kinds = {str(m): m.spec.aggregate for m in as_measures(stored_measures(collection))}
    now = timezone.now()
    current = _current_totals(collection, key, sorted(kinds))
    with phases("store: read"):
        stored_generation, current_totals, old = _stored(topic_id, current)
        if stored_generation > generation:
            raise _Superseded
        changed = [measure for measure, by_run in values.items() if old.get(measure) != (by_run, key)]
        gone = [measure for measure in old if measure not in values]
    with phases("store: totals"):
        recount = current_totals != len(kinds)
        moves = {m: _moves(old.get(m, ({}, None))[0], values.get(m, {})) for m in changed + gone if m in kinds}
        totals_written = [] if recount or not moves else _runs_move(collection, kinds, moves, key)
        recount = recount or totals_written is None
    with phases("store: write"):
        statements = [
            (
                f"DELETE FROM {TopicValues._meta.db_table} WHERE topic_id = %s "
                f"AND measure IN ({', '.join(['%s'] * len(gone))})",
                [topic_id, *gone],
            )
            if gone
            else None,
            sql.upsert(
                TopicValues,
                ["topic", "measure", "runs", "values", "generation", "settings_key", "computed_at"],
                [(topic_id, m, list(values[m]), list(values[m].values()), generation, key, now) for m in changed],
                unique=["topic", "measure"],
            ),
            *_agreement_statements(collection, topic_id, generation, report, key, now),
            *(totals_written or []),
            sql.without_waiting_for_disk(),
            sql.mark_computed(TopicState, topic_id, generation, now),
        ]
        stored = sql.run_together(statements)
        if recount:  # from the stored values, this topic's new ones included
            runs_aggregate(collection=collection)
    if not stored:
        raise _Superseded
    return bool(stored[0][0])


def _current_totals(collection: Collection, key: str, measures: list[str]) -> sql.Statement:
    """The condition on RunAggregates rows that are current: counted under these settings for exactly the
    collection's runs (compared by the database, so no run list travels but the rows' own), for `measures`."""
    if sql.is_postgresql():
        runs, runs_params = (
            f"ARRAY(SELECT id FROM {Run._meta.db_table} WHERE collection_id = %s ORDER BY id)",
            [collection.pk],
        )
    else:
        field = RunAggregates._meta.get_field("runs")
        run_ids = judging_selectors.collection_run_ids(collection_id=collection.pk)
        runs, runs_params = (
            field.get_placeholder(run_ids, None, connection),
            [field.get_db_prep_value(run_ids, connection)],
        )
    condition = (
        f"collection_id = %s AND settings_key = %s AND runs = {runs} "
        f"AND measure IN ({', '.join(['%s'] * len(measures)) or 'NULL'})"
    )
    return condition, [collection.pk, key, *runs_params, *measures]


def _stored(topic_id: int, current: sql.Statement) -> tuple[int, int, dict]:
    """(the generation stored for the topic, how many of the runs' totals rows are `current`, the topic's stored
    values as {measure: ({run: value}, settings key)}), in one query."""
    condition, params = current
    state = (f"(SELECT computed_generation FROM {TopicState._meta.db_table} WHERE topic_id = %s)", [topic_id])
    totals_rows = (f"(SELECT COUNT(*) FROM {RunAggregates._meta.db_table} WHERE {condition})", params)
    rows = sql.rows_select(
        TopicValues,
        ["measure", "runs", "values", "settings_key"],
        "topic_id = %s",
        [topic_id],
        extra=[state, totals_rows],
    )
    if not rows:  # the topic's first store: nothing stored yet to carry the two counts
        ((generation, current_rows),) = sql.fetch(f"SELECT {state[0]}, {totals_rows[0]}", [*state[1], *totals_rows[1]])
        return generation or 0, current_rows, {}
    old = {
        measure: (dict(zip(runs, stored, strict=True)), stored_key) for measure, runs, stored, stored_key, *_ in rows
    }
    return rows[0][4] or 0, rows[0][5], old


def _moves(before: dict, after: dict) -> dict[int, tuple]:
    """{run: (old, new)} for the runs whose value changed, appeared or went (_ABSENT on the missing side)."""
    runs = before.keys() | after.keys()
    moves = {run: (before.get(run, _ABSENT), after.get(run, _ABSENT)) for run in runs}
    return {run: move for run, move in moves.items() if move[0] != move[1]}


def _agreement_statements(
    collection: Collection, topic_id: int | None, generation: int, report: dict, key: str, now
) -> list[sql.Statement]:
    """The agreement statistics and the full report of a topic (or of the whole collection: `topic_id` None), an
    upsert each."""
    items = report["graded"]["items"]
    scope = ["collection", "topic"] if topic_id else ["collection"]
    where = "topic_id IS NOT NULL" if topic_id else "topic_id IS NULL"
    return [
        sql.upsert(
            TopicAgreement,
            ["collection", "topic", "statistic", "value", "items", "generation", "computed_at"],
            [
                (collection.pk, topic_id, name, report[view].get(statistic), items, generation, now)
                for name, (view, statistic) in STORED_STATISTICS.items()
            ],
            unique=[*scope, "statistic"],
            where=where,
        ),
        sql.upsert(
            AgreementReport,
            ["collection", "topic", "report", "generation", "settings_key", "computed_at"],
            [(collection.pk, topic_id, report, generation, key, now)],
            unique=scope,
            where=where,
        ),
    ]


def store_collection_agreement(collection: Collection, generation: int, report: dict) -> None:
    """Stores the collection-wide agreement (its statistics and full report) computed for `generation`, unless a
    newer generation's already are. Call holding the collection's lock (`collection_agreement_recompute` does)."""
    with contextlib.suppress(_Superseded):
        _store_collection_agreement(collection, generation, report)


@transaction.atomic
def _store_collection_agreement(collection: Collection, generation: int, report: dict) -> None:
    # Every write in one round trip, the state row last and not locked before: every save in the collection updates
    # that row, so holding it while the report was written made the saves wait, on a busy machine for as long as the
    # jobs worker (which runs at a lower priority) took to be given a core again.
    now = timezone.now()
    statements = [
        (  # statistics no longer stored (the upsert below writes every current one)
            f"DELETE FROM {TopicAgreement._meta.db_table} WHERE collection_id = %s AND topic_id IS NULL "
            f"AND statistic NOT IN ({', '.join(['%s'] * len(STORED_STATISTICS))})",
            [collection.pk, *STORED_STATISTICS],
        ),
        *_agreement_statements(collection, None, generation, report, settings_key(collection), now),
        sql.without_waiting_for_disk(),
        sql.mark_computed(CollectionState, collection.pk, generation, now),
    ]
    if not sql.run_together(statements):
        raise _Superseded


_ABSENT = object()  # a (run, measure) with no value stored for the topic, as opposed to an undefined value (None)


def _qrels_version(collection: Collection) -> int:
    found = sql.rows_select(CollectionState, ["qrels_version"], "collection_id = %s", [collection.pk])
    return found[0][0] if found else 0


def _runs_move(
    collection: Collection, kinds: dict[str, str], moves: dict[str, dict[int, tuple]], key: str
) -> list[sql.Statement] | None:
    """The statements that apply one topic's changes, {measure: {run: (old, new)}}, to the runs' stored exact
    totals. Locks those measures' aggregate rows in measure order, so concurrent topics of a collection never lose
    an update. None when a row is missing or not current (a run or measure appeared or went, the settings
    changed meanwhile): the caller recounts."""
    measures = sorted(moves)
    condition, params = _current_totals(collection, key, measures)
    # Read through the unique index, which, unlike a bitmap scan, marks the versions every store leaves dead as such.
    rows = sql.rows_select(
        RunAggregates,
        ["id", "measure", "runs", "values", "topics", "defined", "totals"],
        f"{condition} ORDER BY measure",
        params,
        lock=True,
        extra=[
            (f"(SELECT qrels_version FROM {CollectionState._meta.db_table} WHERE collection_id = %s)", [collection.pk])
        ],
    )
    if len(rows) != len(measures):
        return None
    now, version = timezone.now(), rows[0][-1] or 0
    position = {run: index for index, run in enumerate(rows[0][2])}  # every row's runs are the collection's
    written, counts_moved = [], False
    for pk, measure, _, values, topics, defined, exact, _ in rows:
        kind = kinds[measure]
        for run_id, (before, after) in moves[measure].items():
            index = position.get(run_id)
            if index is None:
                continue  # a run deleted since the topic's values were stored: no longer counted
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
    return sql.updates(RunAggregates, fields, written)


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
