"""The hand-written SQL layer (config/sql.py) writes what the ORM would, on PostgreSQL and SQLite alike."""

from __future__ import annotations

import pytest

from config import sql
from evaluation.models import RunAggregates
from tests.factories import make_collection

pytestmark = pytest.mark.django_db


def test_updating_several_rows_at_once_writes_each_its_own_values_nulls_included():
    collection = make_collection(topics=1, documents=2, runs=1, depth=1)
    rows = [
        RunAggregates.objects.create(collection=collection, measure=measure, runs=[1, 2], values=[0.5, 0.25])
        for measure in ("AP", "P@10", "nDCG")
    ]
    written = [
        (rows[0].pk, [None, 0.75], ["7", "8"]),
        (rows[1].pk, [1.0, None], []),
        (rows[2].pk, [None, None], ["x"]),
    ]

    sql.run_together(sql.updates(RunAggregates, ["values", "totals"], written))

    stored = {r.pk: (r.values, r.totals) for r in RunAggregates.objects.all()}
    assert stored == {pk: (values, totals) for pk, values, totals in written}
