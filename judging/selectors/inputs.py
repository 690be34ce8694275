"""A topic's and a collection's labels and rankings as plain data: what a recompute, the agreement and the pages
read, each in one query (or one round trip through the SQL layer)."""

from __future__ import annotations

import functools
from collections import defaultdict
from dataclasses import dataclass

import numpy as np
from django.contrib.auth import get_user_model
from django.db import connection

from config import sql as db
from judging.core import rankings as stored
from judging.models import (
    Adjudication,
    Collection,
    Judgment,
    Ranking,
    Run,
)
from judging.sources import selectors as sources

User = get_user_model()


def topic_judgments(*, topic_id: int) -> dict[int, dict[int, int]]:
    """{document id: {assessor id: grade}} for one topic; judgments without a grade (cannot judge) are left out.
    In SQL of its own: it is on every recompute's path, where building the ORM query cost as much as running it."""
    items: dict[int, dict[int, int]] = defaultdict(dict)
    table = Judgment._meta.db_table
    sql = f"SELECT document_id, assessor_id, grade FROM {table} WHERE topic_id = %s AND grade IS NOT NULL"
    for document_id, assessor_id, grade in db.fetch(sql, [topic_id]):
        items[document_id][assessor_id] = grade
    return dict(items)


def topic_adjudications(*, topic_id: int) -> dict[int, int]:
    """{document id: adjudicated grade} for one topic (SQL of its own, as `topic_judgments`)."""
    return dict(
        db.fetch(f"SELECT document_id, grade FROM {Adjudication._meta.db_table} WHERE topic_id = %s", [topic_id])
    )


def topic_labels(*, topic_id: int) -> tuple[dict[int, dict[int, int]], dict[int, int]]:
    """`topic_judgments` and `topic_adjudications` of one topic in one query (a recompute reads both every time)."""
    return _labels(db.fetch(*_labels_query(topic_id)))


def _labels_query(topic_id: int) -> tuple[str, list]:
    sql = (
        f"SELECT document_id, assessor_id, grade FROM {Judgment._meta.db_table} "
        "WHERE topic_id = %s AND grade IS NOT NULL UNION ALL "
        f"SELECT document_id, NULL, grade FROM {Adjudication._meta.db_table} WHERE topic_id = %s"
    )
    return sql, [topic_id, topic_id]


def _labels(rows) -> tuple[dict[int, dict[int, int]], dict[int, int]]:
    items: dict[int, dict[int, int]] = defaultdict(dict)
    adjudicated: dict[int, int] = {}
    for document_id, assessor_id, grade in rows:
        if assessor_id is None:
            adjudicated[document_id] = grade
        else:
            items[document_id][assessor_id] = grade
    return dict(items), adjudicated


def topic_rankings_name(*, topic_id: int) -> tuple[int, int]:
    """A name for the topic's current rankings: (how many, the largest row id). Runs are immutable once imported
    (replacing one deletes its rankings and inserts new rows), so any import, replacement or deletion changes it."""
    return _rankings_name(db.fetch(*_rankings_name_query(topic_id)))


def topics_rankings_names(*, topic_ids: list[int]) -> dict[int, tuple[int, int]]:
    """`topic_rankings_name` of several topics, in one query."""
    if not topic_ids:
        return {}
    sql = (
        f"SELECT topic_id, COUNT(id), MAX(id) FROM {Ranking._meta.db_table} "
        f"WHERE topic_id IN ({', '.join(['%s'] * len(topic_ids))}) GROUP BY topic_id"
    )
    found = {topic_id: (count, last or 0) for topic_id, count, last in db.fetch(sql, list(topic_ids))}
    return {topic_id: found.get(topic_id, (0, 0)) for topic_id in topic_ids}


def _rankings_name_query(topic_id: int) -> tuple[str, list]:
    return f"SELECT COUNT(id), MAX(id) FROM {Ranking._meta.db_table} WHERE topic_id = %s", [topic_id]


def _rankings_name(rows) -> tuple[int, int]:
    count, last = rows[0]
    return count, last or 0


@dataclass(frozen=True)
class TopicInputs:
    """What a topic's recompute reads of the judging world."""

    collection: Collection
    judgments: dict[int, dict[int, int]]  # {document id: {assessor id: grade}}
    adjudications: dict[int, int]  # {document id: grade}
    rankings_name: tuple[int, int]  # see `topic_rankings_name`
    advisory: frozenset[int]  # `sources.advisory_accounts` of the collection: their labels do not count


def topic_recompute_inputs(*, topic_id: int) -> TopicInputs:
    """The topic's collection, judgments, adjudications, rankings' name and advisory accounts: on PostgreSQL in one
    round trip, as four statements of one query string (a recompute runs on every judgment; each round trip costs
    more than these reads take in the database)."""
    compiler, collection_sql, converters, field_names = _collection_of_topic_query()
    statements = [
        (collection_sql, [topic_id]),
        _labels_query(topic_id),
        _rankings_name_query(topic_id),
        sources.advisory_accounts_of_topic_query(topic_id),
    ]
    collections, labels, name, advisory = db.fetch_each(statements)
    if not collections:
        raise Collection.DoesNotExist(f"no collection has topic {topic_id}")
    row = next(iter(compiler.apply_converters(collections[:1], converters))) if converters else collections[0]
    collection = Collection.from_db(connection.alias, field_names, row)
    return TopicInputs(collection, *_labels(labels), _rankings_name(name), frozenset(a for (a,) in advisory))


@functools.cache
def _collection_of_topic_query():
    """The ORM's own SQL for the topic's collection, compiled once (the topic id is its one parameter), with the
    ORM's conversions of its columns (JSON, booleans and dates as the database returns them)."""
    compiler = Collection.objects.filter(topics__id=0).query.get_compiler(connection.alias)
    sql, params = compiler.as_sql()
    assert list(params) == [0], params
    columns = [column for column, _, _ in compiler.select]
    return compiler, sql, compiler.get_converters(columns), [column.target.attname for column in columns]


def collection_run_ids(*, collection_id: int) -> list[int]:
    """The ids of a collection's runs, ascending (SQL of its own, as `topic_judgments`: every store reads them)."""
    sql = f"SELECT id FROM {Run._meta.db_table} WHERE collection_id = %s ORDER BY id"
    return [run_id for (run_id,) in db.fetch(sql, [collection_id])]


def collection_judgments(*, collection_id: int) -> dict[int, dict[int, dict[int, int]]]:
    """{topic id: {document id: {assessor id: grade}}} for a whole collection, in one streamed query."""
    items: dict[int, dict[int, dict[int, int]]] = defaultdict(lambda: defaultdict(dict))
    rows = Judgment.objects.filter(topic__collection_id=collection_id, grade__isnull=False).values_list(
        "topic_id", "document_id", "assessor_id", "grade"
    )
    for topic_id, document_id, assessor_id, grade in rows.iterator(chunk_size=10_000):
        items[topic_id][document_id][assessor_id] = grade
    return {topic: dict(documents) for topic, documents in items.items()}


def collection_adjudications(*, collection_id: int) -> dict[int, dict[int, int]]:
    """{topic id: {document id: adjudicated grade}}."""
    result: dict[int, dict[int, int]] = defaultdict(dict)
    for topic_id, document_id, grade in Adjudication.objects.filter(topic__collection_id=collection_id).values_list(
        "topic_id", "document_id", "grade"
    ):
        result[topic_id][document_id] = grade
    return dict(result)


def _by_two_keys(rows) -> dict[int, dict[int, np.ndarray]]:
    """{outer: {inner: document ids}} from (outer, inner, stored ids) rows, streamed."""
    result: dict[int, dict[int, np.ndarray]] = defaultdict(dict)
    for outer, inner, blob in rows.iterator(chunk_size=500):
        result[outer][inner] = stored.ids_from_bytes(blob)
    return dict(result)


def collection_rankings(*, collection_id: int) -> dict[int, dict[int, np.ndarray]]:
    """{run id: {topic id: document ids in trec_eval order}} for every run of a collection, streamed."""
    rows = Ranking.objects.filter(run__collection_id=collection_id)
    return _by_two_keys(rows.values_list("run_id", "topic_id", "document_ids"))


def topic_rankings_by_run(*, run_id: int) -> dict[int, np.ndarray]:
    """{topic id: document ids in trec_eval order} for one run."""
    rows = Ranking.objects.filter(run_id=run_id).values_list("topic_id", "document_ids")
    return {topic_id: stored.ids_from_bytes(blob) for topic_id, blob in rows}


def topics_rankings(*, topic_ids: list[int]) -> dict[int, dict[int, np.ndarray]]:
    """{topic id: {run id: document ids in trec_eval order}} for these topics: one query."""
    rows = Ranking.objects.filter(topic_id__in=topic_ids)
    return _by_two_keys(rows.values_list("topic_id", "run_id", "document_ids"))


def topic_rankings(*, topic_id: int) -> dict[int, np.ndarray]:
    """{run id: document ids in trec_eval order} for every run that retrieved for the topic: one query."""
    rows = Ranking.objects.filter(topic_id=topic_id).values_list("run_id", "document_ids")
    return {run_id: stored.ids_from_bytes(blob) for run_id, blob in rows}
