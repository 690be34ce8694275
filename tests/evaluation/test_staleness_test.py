"""Whether stored results are stale is decided once: the queryset's `stale()`, its SQL spelling `STALE_ROW` that the
claims use, and a row's `fresh` agree on every combination of the protocol's fields."""

from __future__ import annotations

import itertools

import pytest

from config import sql
from evaluation.models import TopicState
from tests.factories import make_collection

pytestmark = pytest.mark.django_db


def test_stale_rows_are_the_same_by_queryset_by_sql_and_by_row():
    collection = make_collection(topics=4, documents=2, runs=1, depth=2)
    cases = list(itertools.product([False, True], [(3, 3), (3, 2)]))  # dirty; (generation, computed generation)
    states = []
    for topic, (dirty, (generation, computed)) in zip(collection.topics.order_by("id"), cases, strict=True):
        state, _ = TopicState.objects.get_or_create(topic=topic)
        TopicState.objects.filter(pk=state.pk).update(dirty=dirty, generation=generation, computed_generation=computed)
        states.append(state.pk)
    rows = TopicState.objects.filter(pk__in=states)
    by_queryset = set(rows.stale().values_list("pk", flat=True))
    table, key = TopicState._meta.db_table, TopicState._meta.pk.column
    marks = ", ".join(["%s"] * len(states))
    found = sql.fetch(f"SELECT {key} FROM {table} WHERE {sql.STALE_ROW} AND {key} IN ({marks})", states)
    by_sql = {pk for (pk,) in found}
    by_row = {row.pk for row in rows if not row.fresh}
    assert by_queryset == by_sql == by_row
    assert len(by_queryset) == 3  # only the clean row whose results are its generation's is fresh
