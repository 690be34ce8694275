"""Migration 0006 keeps every stored value: rows per (run, topic, measure) become one row per (topic, measure)."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("evaluation", "0005_recompute_write_path")]
AFTER = [("evaluation", "0006_compact_values")]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def test_old_values_and_totals_are_copied_into_one_row_per_topic_and_measure():
    apps = _migrate(BEFORE)
    try:
        Collection, Topic, Run = (apps.get_model("judging", name) for name in ("Collection", "Topic", "Run"))
        TopicValue, RunValue = apps.get_model("evaluation", "TopicValue"), apps.get_model("evaluation", "RunValue")
        collection = Collection.objects.create(name="migrated")
        topics = [Topic.objects.create(collection=collection, number=str(n), title=f"t{n}") for n in (1, 2)]
        runs = [Run.objects.create(collection=collection, tag=f"r{n}") for n in (1, 2)]
        for topic in topics:
            for run in runs:
                value = None if (topic, run) == (topics[1], runs[1]) else topic.id / 10 + run.id
                TopicValue.objects.create(
                    run=run, topic=topic, measure="AP", value=value, generation=topic.id, settings_key="k"
                )
        for run in runs:
            RunValue.objects.create(
                run=run, measure="AP", value=0.5, topics=2, defined=2, total="1<<3", qrels_version=7, settings_key="k"
            )
        RunValue.objects.filter(run=runs[1]).update(settings_key="other")
        apps = _migrate(AFTER)
        TopicValues, RunAggregates = (apps.get_model("evaluation", n) for n in ("TopicValues", "RunAggregates"))
        rows = {row.topic_id: row for row in TopicValues.objects.all()}
        ids = [run.id for run in runs]
        assert rows[topics[0].id].runs == ids
        assert rows[topics[0].id].values == [topics[0].id / 10 + ids[0], topics[0].id / 10 + ids[1]]
        assert rows[topics[1].id].values == [topics[1].id / 10 + ids[0], None]
        assert rows[topics[1].id].generation == topics[1].id and rows[topics[1].id].settings_key == "k"
        aggregates = RunAggregates.objects.get(collection_id=collection.id, measure="AP")
        assert (aggregates.runs, aggregates.values, aggregates.topics) == (ids, [0.5, 0.5], [2, 2])
        assert (aggregates.totals, aggregates.qrels_version) == (["1<<3", "1<<3"], 7)
        assert aggregates.settings_key == ""  # counted under two settings: the next store recounts it
    finally:
        _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
