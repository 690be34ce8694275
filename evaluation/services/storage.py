"""Storing computed results: per-topic values and agreement, collection agreement, and run aggregates."""

from __future__ import annotations

import contextlib

from django.db import transaction
from django.utils import timezone

from config import sql
from evaluation.models import AgreementReport, CollectionState, RunAggregates, TopicAgreement, TopicState, TopicValues
from evaluation.selectors import settings_key, stored_measures
from evaluation.services import totals
from evaluation.services.phases import NO_PHASES, Phases
from judging.models import Collection
from measures import as_measures

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
    current = totals.current_totals(collection, key, sorted(kinds))
    with phases("store: read"):
        stored_generation, current_totals, old = _stored(topic_id, current)
        if stored_generation > generation:
            raise _Superseded
        changed = [measure for measure, by_run in values.items() if old.get(measure) != (by_run, key)]
        gone = [measure for measure in old if measure not in values]
    with phases("store: totals"):
        recount = current_totals != len(kinds)
        moves = {
            m: totals.totals_moves(old.get(m, ({}, None))[0], values.get(m, {})) for m in changed + gone if m in kinds
        }
        totals_written = [] if recount or not moves else totals.runs_move(collection, kinds, moves, key)
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
            totals.runs_aggregate(collection=collection)
    if not stored:
        raise _Superseded
    return bool(stored[0][0])


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
