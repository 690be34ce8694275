"""The hand-written SQL layer (config/sql.py) writes what the ORM would, on PostgreSQL and SQLite alike."""

from __future__ import annotations

import json
import os
import subprocess
import sys

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


def test_updating_many_rows_at_once_writes_each_its_own_text_and_json_and_leaves_the_others():
    from judging.models import Document

    collection = make_collection(topics=1, documents=6, runs=1, depth=1)
    documents = list(Document.objects.filter(collection=collection).order_by("id"))
    written = [
        (documents[0].pk, "a title", "a body\twith a tab\nand a line", "https://example.org/a", {"k": [1, "two"]}),
        (documents[1].pk, "", "", "", {}),
        (documents[2].pk, "ünïcode \\ backslash", "NUL-free \\N text", "", {"placeholder": None}),
        (documents[3].pk, "t", "b", "", {"nested": {"x": 1.5}}),
    ]

    sql.update_many(Document, ["title", "body", "url", "extra"], written)

    stored = {d.pk: (d.title, d.body, d.url, d.extra) for d in Document.objects.filter(collection=collection)}
    assert {pk: stored[pk] for pk, *_ in written} == {pk: tuple(values) for pk, *values in written}
    untouched = documents[4]
    assert stored[untouched.pk] == (untouched.title, untouched.body, untouched.url, untouched.extra)


@pytest.mark.services
def test_on_postgresql_a_statement_run_often_is_prepared_in_the_server_and_planned_once():
    from judging.models import Topic

    collection = make_collection(topics=1, documents=1, runs=1, depth=1)
    for _ in range(6):
        Topic.objects.filter(collection=collection).count()

    prepared = [statement for (statement,) in sql.fetch("SELECT statement FROM pg_prepared_statements", [])]
    assert any('FROM "judging_topic"' in statement for statement in prepared)


@pytest.mark.services
def test_several_statements_with_parameters_still_travel_as_one_query_string():
    # The server binds one statement a query; these are bound by the client, in one round trip.
    assert sql.fetch_each([("SELECT %s::int", [1]), ("SELECT %s::text", ["two"])]) == [[(1,)], [("two",)]]


@pytest.mark.parametrize(("given", "threshold"), [(None, 5), ("2", 2), ("off", None)])
def test_the_prepare_threshold_is_the_operators_and_off_behind_a_transaction_pooler(given, threshold):
    env = {**os.environ, "DATABASE_URL": "postgres://nobody@127.0.0.1:1/none", "DEBUG": "true"}
    env.pop("DATABASE_PREPARE_THRESHOLD", None)
    if given is not None:
        env["DATABASE_PREPARE_THRESHOLD"] = given
    code = "import json, config.settings as s; print(json.dumps(s.DATABASES['default']['OPTIONS']))"
    options = json.loads(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, check=True).stdout)

    assert options == {"server_side_binding": True, "prepare_threshold": threshold}


def test_stamping_several_rows_computed_leaves_out_one_a_newer_generation_already_stamped():
    from django.utils import timezone

    from evaluation.models import TopicState

    collection = make_collection(topics=3, documents=2, runs=1, depth=1)
    a, b, c = collection.topics.order_by("id").values_list("id", flat=True)
    TopicState.objects.filter(topic_id__in=[a, b, c]).update(generation=4, computed_generation=1, dirty=False)
    TopicState.objects.filter(topic_id=b).update(dirty=True)  # a change landed while it was computed
    TopicState.objects.filter(topic_id=c).update(computed_generation=4)  # a newer computation stored first

    stamped = sql.run_together([sql.mark_computed_many(TopicState, {a: 3, b: 3, c: 3}, timezone.now())])

    assert sorted(stamped) == [(a, False), (b, True)]
    assert dict(TopicState.objects.filter(topic_id__in=[a, b, c]).values_list("topic_id", "computed_generation")) == {
        a: 3,
        b: 3,
        c: 4,
    }
