"""Storing computed results: per-topic values and agreement, collection agreement, and run aggregates."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

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
    """A newer computation of a topic stored its results first: this one's writes are rolled back."""


@dataclass(frozen=True)
class TopicResult:
    """One topic's computed results: per-run values ({measure: {run: value}}, runs ascending) and its agreement
    report, for the generation they were computed for."""

    topic_id: int
    generation: int
    values: dict
    report: dict


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
    result = TopicResult(topic_id, generation, values, report)
    return topic_id in store_topics(collection, [result], phases, key=key)


def store_topics(
    collection: Collection, results: list[TopicResult], phases: Phases = NO_PHASES, *, key: str | None = None
) -> set[int]:
    """Stores several topics' results of one collection in one transaction (`store_topic`'s contract for each):
    their values and agreement in one round trip, and the runs' totals read and moved once for all of them.
    Returns the topics that may be stale again (see `store_topic`)."""
    try:
        return _store_topics(collection, results, phases, key or settings_key(collection))
    except _Superseded:
        return {result.topic_id for result in results}


@transaction.atomic
def _store_topics(collection: Collection, results: list[TopicResult], phases: Phases, key: str) -> set[int]:
    # Two round trips (one when no value changed) and the commit: what is stored (with the states' generations and
    # whether the runs' totals are current), the totals of the measures that changed (locked), then every write in
    # one query string. The topics' locks exclude other stores of them, so what the first read finds stays true
    # (its check of the generations included); the state rows are written last and not locked before, so a save of
    # a topic waits on this transaction (for the row) only for the moment before its commit.
    kinds = {str(m): m.spec.aggregate for m in as_measures(stored_measures(collection))}
    now = timezone.now()
    current = totals.current_totals(collection, key, sorted(kinds))
    with phases("store: read"):
        current_totals, stored = _stored([result.topic_id for result in results], current)
        superseded = {r.topic_id for r in results if stored.get(r.topic_id, (0, {}))[0] > r.generation}
        results = [result for result in results if result.topic_id not in superseded]
        if not results:
            return superseded
        old = {result.topic_id: stored.get(result.topic_id, (0, {}))[1] for result in results}
        changed = {
            r.topic_id: [m for m, by_run in r.values.items() if old[r.topic_id].get(m) != (by_run, key)]
            for r in results
        }
        gone = {r.topic_id: [m for m in old[r.topic_id] if m not in r.values] for r in results}
    with phases("store: totals"):
        recount = current_totals != len(kinds)
        moves: dict[str, list] = {}
        for r in results:
            for m in changed[r.topic_id] + gone[r.topic_id]:
                if m in kinds:
                    before = old[r.topic_id].get(m, ({}, None))[0]
                    moves.setdefault(m, []).append(totals.totals_moves(before, r.values.get(m, {})))
        totals_written = [] if recount or not moves else totals.runs_move(collection, kinds, moves, key)
        recount = recount or totals_written is None
    with phases("store: write"):
        statements = [
            *(
                (
                    f"DELETE FROM {TopicValues._meta.db_table} WHERE topic_id = %s "
                    f"AND measure IN ({', '.join(['%s'] * len(measures))})",
                    [topic_id, *measures],
                )
                for topic_id, measures in gone.items()
                if measures
            ),
            sql.upsert(
                TopicValues,
                ["topic", "measure", "runs", "values", "generation", "settings_key", "computed_at"],
                [
                    (r.topic_id, m, list(r.values[m]), list(r.values[m].values()), r.generation, key, now)
                    for r in results
                    for m in changed[r.topic_id]
                ],
                unique=["topic", "measure"],
            ),
            *(
                statement
                for r in results
                for statement in _agreement_statements(collection, r.topic_id, r.generation, r.report, key, now)
            ),
            *(totals_written or []),
            sql.without_waiting_for_disk(),
            sql.mark_computed_many(TopicState, {r.topic_id: r.generation for r in results}, now),
        ]
        marked = dict(sql.run_together(statements))
        if recount:  # from the stored values, these topics' new ones included
            totals.runs_aggregate(collection=collection)
    if len(marked) != len(results):
        raise _Superseded
    return superseded | {topic_id for topic_id, dirty in marked.items() if dirty}


def _stored(topic_ids: list[int], current: sql.Statement) -> tuple[int, dict[int, tuple[int, dict]]]:
    """(how many of the runs' totals rows are `current`, {topic: (the generation stored for it, its stored values
    as {measure: ({run: value}, settings key)})}), in one query (two for a topic with no values stored yet)."""
    condition, params = current
    marks = ", ".join(["%s"] * len(topic_ids))
    state = f"SELECT computed_generation FROM {TopicState._meta.db_table} WHERE topic_id"
    totals_rows = (f"(SELECT COUNT(*) FROM {RunAggregates._meta.db_table} WHERE {condition})", params)
    rows = sql.rows_select(
        TopicValues,
        ["topic", "measure", "runs", "values", "settings_key"],
        f"topic_id IN ({marks})",
        topic_ids,
        extra=[(f"({state} = {TopicValues._meta.db_table}.topic_id)", []), totals_rows],
    )
    stored: dict[int, tuple[int, dict]] = {}
    current_rows = None
    for topic_id, measure, runs, values, stored_key, generation, counted in rows:
        current_rows = counted
        entry = stored.setdefault(topic_id, (generation or 0, {}))
        entry[1][measure] = (dict(zip(runs, values, strict=True)), stored_key)
    first = [topic_id for topic_id in topic_ids if topic_id not in stored]  # nothing stored yet to carry the counts
    for topic_id in first:
        ((generation, current_rows),) = sql.fetch(f"SELECT ({state} = %s), {totals_rows[0]}", [topic_id, *params])
        stored[topic_id] = (generation or 0, {})
    return current_rows, stored


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
