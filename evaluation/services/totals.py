"""The runs' running totals, moved by a topic's change in one statement: exact sums (`measures.totals`) kept per run
and measure, so that a run's mean never needs every topic read again."""

from __future__ import annotations

from django.db import connection, transaction
from django.utils import timezone

from config import sql
from evaluation.models import CollectionState, RunAggregates, TopicValues
from evaluation.selectors import settings_key, stored_measures
from judging import selectors as judging_selectors
from judging.models import Collection, Run
from measures import as_measures, totals


def current_totals(collection: Collection, key: str, measures: list[str]) -> sql.Statement:
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


def totals_moves(before: dict, after: dict) -> dict[int, tuple]:
    """{run: (old, new)} for the runs whose value changed, appeared or went (_ABSENT on the missing side)."""
    runs = before.keys() | after.keys()
    moves = {run: (before.get(run, _ABSENT), after.get(run, _ABSENT)) for run in runs}
    return {run: move for run, move in moves.items() if move[0] != move[1]}


_ABSENT = object()  # a (run, measure) with no value stored for the topic, as opposed to an undefined value (None)


def _qrels_version(collection: Collection) -> int:
    found = sql.rows_select(CollectionState, ["qrels_version"], "collection_id = %s", [collection.pk])
    return found[0][0] if found else 0


def runs_move(
    collection: Collection, kinds: dict[str, str], moves: dict[str, list[dict[int, tuple]]], key: str
) -> list[sql.Statement] | None:
    """The statements that apply topics' changes, {measure: [{run: (old, new)}, one per topic]}, to the runs'
    stored exact totals. Locks those measures' aggregate rows in measure order, so concurrent topics of a collection
    never lose an update. None when a row is missing or not current (a run or measure appeared or went, the
    settings changed meanwhile): the caller recounts."""
    measures = sorted(moves)
    condition, params = current_totals(collection, key, measures)
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
        kind, moved = kinds[measure], {}  # {index: exact total}, each decoded once whatever the topics
        for topic_moves in moves[measure]:
            for run_id, (before, after) in topic_moves.items():
                index = position.get(run_id)
                if index is None:
                    continue  # a run deleted since the topic's values were stored: no longer counted
                total = moved[index] if index in moved else totals.decode(exact[index])
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
                moved[index] = total
        for index, total in moved.items():
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
    moved (a run or measure appeared or went, the settings changed); `runs_move` handles the everyday single-topic
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


def run_totals_recount(*, collection_id: int) -> bool:
    """Counts a collection's runs' totals again from the stored values (the sweep's answer to totals lost in a
    crash); False when the collection has gone."""
    collection = Collection.objects.filter(pk=collection_id).first()
    if collection is None:
        return False
    runs_aggregate(collection=collection)
    return True
