"""A worker's memory of topics' prepared rankings: served while the rankings stand, dropped when a run changes."""

from __future__ import annotations

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from evaluation import ranking_cache
from evaluation import services as evaluation_services
from judging import selectors, services
from judging.services.runs import run_store
from tests.evaluation.test_recompute_pipeline import from_scratch
from tests.factories import make_collection, make_user, stored_values

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def empty_memory():
    ranking_cache.forget()
    yield
    ranking_cache.forget()


def ranked(runs, topic_id: int) -> dict[str, list[int]]:
    return {tag: runs.docs[runs.start[i] : runs.start[i] + runs.length[i]].tolist() for i, tag in enumerate(runs.tags)}


def replace_run(collection, tag: str, scores: dict[int, dict[str, float]]) -> None:
    """A run re-imported under its tag, as the run import does it."""
    documents = dict(collection.documents.values_list("docno", "id"))
    per_topic = {
        topic: {docno: (score, line) for line, (docno, score) in enumerate(ranked.items())}
        for topic, ranked in scores.items()
    }
    assert run_store(collection=collection, tag=tag, per_topic=per_topic, documents=documents)[0] == "updated"


def stored_rankings(topic_id: int) -> dict[str, list[int]]:
    return {str(run): docs.tolist() for run, docs in selectors.topic_rankings(topic_id=topic_id).items()}


def test_a_topic_seen_before_is_served_from_memory_with_one_small_query():
    topic = make_collection(topics=1, runs=3).topics.get()
    first = ranking_cache.topic_runs(topic_id=topic.id)
    with CaptureQueriesContext(connection) as queries:
        again = ranking_cache.topic_runs(topic_id=topic.id)
    assert again is first
    assert len(queries) == 1 and "document_ids" not in queries[0]["sql"]
    assert ranked(again, topic.id) == stored_rankings(topic.id)


def test_replacing_a_run_replaces_its_rankings_in_memory():
    collection = make_collection(topics=1, runs=2, documents=6, depth=4)
    topic = collection.topics.get()
    before = ranked(ranking_cache.topic_runs(topic_id=topic.id), topic.id)
    replace_run(collection, "run0", {topic.id: {"d5": 3.0, "d4": 2.0, "d0": 1.0}})
    after = ranked(ranking_cache.topic_runs(topic_id=topic.id), topic.id)
    assert after != before and after == stored_rankings(topic.id)


def test_deleting_a_run_or_adding_one_changes_what_memory_serves():
    collection = make_collection(topics=1, runs=3)
    topic = collection.topics.get()
    ranking_cache.topic_runs(topic_id=topic.id)
    services.run_delete(run=collection.runs.get(tag="run1"))
    assert ranked(ranking_cache.topic_runs(topic_id=topic.id), topic.id) == stored_rankings(topic.id)
    services.run_create(collection=collection, tag="late", scores={"1": {"d1": 1.0}})
    assert ranked(ranking_cache.topic_runs(topic_id=topic.id), topic.id) == stored_rankings(topic.id)
    assert len(stored_rankings(topic.id)) == 3


def test_memory_stays_within_its_budget_least_recently_used_first_out(settings):
    collection = make_collection(topics=4, runs=3, documents=20, depth=10)
    topics = list(collection.topics.order_by("number"))
    one = ranking_cache._nbytes(ranking_cache.topic_runs(topic_id=topics[0].id))
    ranking_cache.forget()
    settings.WORKBENCH_RANKING_CACHE_MB = 2.5 * one / 2**20  # room for two topics, not three
    for topic in topics:
        ranking_cache.topic_runs(topic_id=topic.id)
    assert ranking_cache.held_bytes() <= ranking_cache.budget_bytes()
    assert list(ranking_cache._entries) == [topics[2].id, topics[3].id]


@pytest.mark.django_db(transaction=True)  # real commits, so on_commit recomputes run
def test_recomputing_after_a_run_is_replaced_stores_what_a_from_scratch_evaluation_gives():
    collection = make_collection(topics=2, runs=3, documents=10, depth=6)
    assessor = make_user()
    for topic in collection.topics.all():
        services.assignment_create(assessor=assessor, topic=topic)
    topic = collection.topics.get(number="1")
    for item in topic.pool_items.all()[:4]:
        services.judgment_record(assessor=assessor, topic=topic, document=item.document, grade=2)
    assert ranking_cache._entries  # the recomputes above loaded the topic: this process now holds it
    rng = np.random.default_rng(3)
    replace_run(collection, "run2", {topic.id: {f"d{d}": float(rng.random()) for d in range(10)}})
    expected, _ = from_scratch(collection)
    values = stored_values(collection)
    assert values == pytest.approx(expected, abs=1e-12)
    assert evaluation_services.topic_recompute(topic_id=topic.id) is False  # nothing left stale


def rankings_by_run_and_topic(runs) -> dict[tuple[str, int], list[int]]:
    return {
        (runs.tags[run], int(topic)): runs.docs[start : start + length].tolist()
        for run, topic, start, length in zip(runs.row_run, runs.row_topic, runs.start, runs.length, strict=True)
    }


def test_a_collections_run_set_made_from_the_topics_in_memory_equals_one_read_from_all_its_rankings():
    from measures import PreparedRun, RunSet

    collection = make_collection(topics=3, runs=3, documents=12, depth=5)
    services.run_create(collection=collection, tag="partial", scores={"2": {"d3": 2.0, "d1": 1.0}})
    topic_ids = list(collection.topics.order_by("id").values_list("id", flat=True))
    ranking_cache.topic_runs(topic_id=topic_ids[1])  # one topic already in memory, the others read now

    combined = ranking_cache.collection_runs(topic_ids=topic_ids)

    rankings = selectors.collection_rankings(collection_id=collection.id)
    read = RunSet([PreparedRun.from_rankings(str(run), per_topic) for run, per_topic in sorted(rankings.items())])
    assert combined.tags == read.tags == [str(run) for run in sorted(rankings)]
    assert rankings_by_run_and_topic(combined) == rankings_by_run_and_topic(read)
    assert (combined.row_topic.tolist(), combined.row_run.tolist()) == (read.row_topic.tolist(), read.row_run.tolist())
    assert combined.docs.tolist() == read.docs.tolist()
    assert set(ranking_cache._entries) == set(topic_ids)  # the topics read for it kept, there being room


def test_topics_read_for_a_collections_run_set_never_push_out_the_ones_held(settings):
    collection = make_collection(topics=3, runs=3, documents=12, depth=5)
    topic_ids = list(collection.topics.order_by("id").values_list("id", flat=True))
    one = ranking_cache._nbytes(ranking_cache.topic_runs(topic_id=topic_ids[1]))
    settings.WORKBENCH_RANKING_CACHE_MB = 2.5 * one / 2**20  # room for one more topic beside the held one, not two

    combined = ranking_cache.collection_runs(topic_ids=topic_ids)

    assert set(combined.topics.tolist()) == set(topic_ids)
    assert topic_ids[1] in ranking_cache._entries and len(ranking_cache._entries) == 2
    assert ranking_cache.held_bytes() <= ranking_cache.budget_bytes()


def test_run_sets_that_share_a_topic_are_not_combined():
    from measures import RunSet

    topic = make_collection(topics=1, runs=2).topics.get()
    part = ranking_cache.topic_runs(topic_id=topic.id)
    with pytest.raises(ValueError, match="share topics"):
        RunSet.combined([part, part], part.tags)


def test_a_collections_run_set_asked_again_is_served_from_memory_until_a_ranking_changes():
    collection = make_collection(topics=3, runs=3, documents=12, depth=5)
    topic_ids = list(collection.topics.order_by("id").values_list("id", flat=True))
    first = ranking_cache.collection_runs(topic_ids=topic_ids)

    with CaptureQueriesContext(connection) as queries:
        again = ranking_cache.collection_runs(topic_ids=topic_ids)
    assert again is first and len(queries) == 1  # the rankings' names only

    replace_run(collection, "run1", {topic_ids[0]: {"d5": 3.0, "d4": 2.0}})
    changed = ranking_cache.collection_runs(topic_ids=topic_ids)
    assert changed is not first
    run1 = str(collection.runs.get(tag="run1").pk)
    documents = dict(collection.documents.values_list("docno", "id"))
    assert rankings_by_run_and_topic(changed)[(run1, topic_ids[0])] == [documents["d5"], documents["d4"]]


def test_a_collections_run_set_is_kept_only_where_it_fits_in_the_budget(settings):
    collection = make_collection(topics=3, runs=3, documents=12, depth=5)
    topic_ids = list(collection.topics.order_by("id").values_list("id", flat=True))
    held = sum(ranking_cache._nbytes(ranking_cache.topic_runs(topic_id=t)) for t in topic_ids)
    settings.WORKBENCH_RANKING_CACHE_MB = 1.5 * held / 2**20  # the topics fit, the combined set beside them does not

    first = ranking_cache.collection_runs(topic_ids=topic_ids)

    assert ranking_cache.collection_runs(topic_ids=topic_ids) is not first
    assert set(ranking_cache._entries) == set(topic_ids)
    assert ranking_cache.held_bytes() <= ranking_cache.budget_bytes()
