"""The stores' contract: results stamped with an older generation never overwrite a newer one's, and a store holds
the state row that every save updates only for its last statement."""

from __future__ import annotations

import pytest

from evaluation.models import AgreementReport, CollectionState, TopicAgreement, TopicState
from evaluation.services import storage
from judging import services
from tests.factories import make_collection, make_user, stored_aggregates, stored_values

pytestmark = pytest.mark.django_db(transaction=True)  # real commits, so on_commit recomputes run


def test_results_of_an_older_generation_are_not_stored_over_a_newer_one():
    collection = make_collection(topics=1, documents=6, runs=2, depth=4)
    topic, assessor = collection.topics.get(), make_user()
    services.assignment_create(assessor=assessor, topic=topic)
    for docno, grade in (("d1", 2), ("d2", 0)):
        services.judgment_record(
            assessor=assessor, topic=topic, document=collection.documents.get(docno=docno), grade=grade
        )
    state = TopicState.objects.get(pk=topic.pk)
    assert not state.dirty and state.computed_generation == state.generation  # stored by the embedded recompute
    values, aggregates = stored_values(collection), stored_aggregates(collection)
    report = AgreementReport.objects.get(topic=topic).report

    late = {measure: {run_id: 0.5 for run_id, _, m in values if m == measure} for _, _, measure in values}
    storage.store_topic(collection, topic.pk, state.computed_generation - 1, late, {**report, "late": True})

    assert stored_values(collection) == values
    assert stored_aggregates(collection) == aggregates
    assert AgreementReport.objects.get(topic=topic).report == report
    after = TopicState.objects.get(pk=topic.pk)
    assert (after.computed_generation, after.recompute_count) == (state.computed_generation, state.recompute_count)


def test_the_store_answers_whether_a_change_landed_while_it_computed():
    collection = make_collection(topics=1, documents=6, runs=2, depth=4)
    topic, assessor = collection.topics.get(), make_user()
    services.assignment_create(assessor=assessor, topic=topic)
    services.judgment_record(assessor=assessor, topic=topic, document=collection.documents.get(docno="d1"), grade=2)
    state = TopicState.objects.get(pk=topic.pk)
    values: dict = {}
    for (run_id, _, measure), value in sorted(stored_values(collection).items()):
        values.setdefault(measure, {})[run_id] = value
    report = AgreementReport.objects.get(topic=topic).report

    assert storage.store_topic(collection, topic.pk, state.generation, values, report) is False  # no claim follows
    TopicState.objects.filter(pk=topic.pk).update(dirty=True, generation=state.generation + 1)  # a save meanwhile
    assert storage.store_topic(collection, topic.pk, state.generation, values, report) is True  # claimed again


def _judged_by_two(collection):
    topic, a, b = collection.topics.get(), make_user(), make_user()
    for assessor, grades in ((a, (2, 0, 1)), (b, (2, 1, 1))):
        services.assignment_create(assessor=assessor, topic=topic)
        for docno, grade in zip(("d1", "d2", "d3"), grades, strict=True):
            services.judgment_record(
                assessor=assessor, topic=topic, document=collection.documents.get(docno=docno), grade=grade
            )


def test_a_collection_agreement_of_an_older_generation_is_not_stored_over_a_newer_one():
    collection = make_collection(topics=1, documents=6, runs=2, depth=4)
    _judged_by_two(collection)
    state = CollectionState.objects.get(pk=collection.pk)
    assert not state.dirty and state.computed_generation == state.generation  # stored by the embedded recompute
    report = AgreementReport.objects.get(collection=collection, topic=None).report
    overall = TopicAgreement.objects.filter(collection=collection, topic=None)
    statistics = dict(overall.values_list("statistic", "value"))
    late = {**report, "graded": {**report["graded"], "percent_agreement": 0.01}}

    storage.store_collection_agreement(collection, state.computed_generation - 1, late)

    assert AgreementReport.objects.get(collection=collection, topic=None).report == report
    assert dict(overall.values_list("statistic", "value")) == statistics
    assert CollectionState.objects.get(pk=collection.pk).computed_generation == state.computed_generation

    storage.store_collection_agreement(collection, state.computed_generation, late)  # the same generation: stored
    assert AgreementReport.objects.get(collection=collection, topic=None).report == late
    assert TopicAgreement.objects.get(collection=collection, topic=None, statistic="percent_agreement").value == 0.01


def test_a_collection_agreement_store_writes_the_state_row_only_in_its_last_statement():
    # Every save in the collection updates its state row: a store that locked it first (it once read it FOR UPDATE,
    # then wrote the report) made every save wait for the whole store, and the jobs worker runs at a lower priority.
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    collection = make_collection(topics=1, documents=6, runs=2, depth=4)
    _judged_by_two(collection)
    state = CollectionState.objects.get(pk=collection.pk)
    report = AgreementReport.objects.get(collection=collection, topic=None).report
    table = CollectionState._meta.db_table

    with CaptureQueriesContext(connection) as queries:
        storage.store_collection_agreement(collection, state.computed_generation, report)

    statements = [q["sql"] for q in queries.captured_queries if q["sql"] not in ("BEGIN", "COMMIT")]
    statements = [s for s in statements if not s.startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))]
    touching = [n for n, statement in enumerate(statements) if table in statement]
    assert touching == [len(statements) - 1], statements
    assert f"UPDATE {table}" in statements[-1].split(";")[-1]
    assert all(table not in part for part in statements[-1].split(";")[:-1])


def _postgresql_catalog(query: str) -> dict:
    """{first column: the other columns} of a query on PostgreSQL's catalog; skips elsewhere, where the storage
    settings these tests read do not exist."""
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("storage, logging and fill factors are PostgreSQL's settings")
    with connection.cursor() as cursor:
        cursor.execute(query)
        return {name: (setting, options or []) for name, setting, options in cursor.fetchall()}


def test_totals_rows_are_kept_uncompressed_and_agreement_reports_compressed_on_postgresql():
    rows = _postgresql_catalog(
        "SELECT a.attname, a.attstorage, c.reloptions FROM pg_attribute a JOIN pg_class c "
        "ON c.oid = a.attrelid WHERE c.relname IN ('evaluation_runaggregates', 'evaluation_agreementreport') "
        "AND a.attname IN ('totals', 'values', 'report')"
    )
    assert all(rows[n][0] == "e" and "toast_tuple_target=8160" in rows[n][1] for n in ("totals", "values"))
    assert rows["report"][0] == "m" and not any(o.startswith("toast_tuple_target") for o in rows["report"][1])


def test_the_runs_totals_write_no_log_and_topic_values_leave_room_to_be_updated_in_place_on_postgresql():
    rows = _postgresql_catalog(
        "SELECT relname, relpersistence, reloptions FROM pg_class "
        "WHERE relname IN ('evaluation_runaggregates', 'run_aggregates_unique', 'evaluation_topicvalues')"
    )
    assert rows["evaluation_runaggregates"][0] == "u" and rows["run_aggregates_unique"][0] == "u"
    assert rows["evaluation_topicvalues"][0] == "p" and "fillfactor=50" in rows["evaluation_topicvalues"][1]
