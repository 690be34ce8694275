"""Pooling strategies, worked by hand on three small runs, and the pool build service: incremental, preview,
unique contributions, judged documents not queued again."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from judging import services
from judging.models import PoolItem
from judging.ordering.core import pool_strategies
from judging.services.pools import pool_build
from tests.factories import make_collection, make_user

RUNS = {"a": [1, 2, 3, 4], "b": [2, 5, 6, 1], "c": [7, 1, 8, 9]}


def documents(candidates):
    return [c.document for c in candidates]


def test_depth_pool_is_the_union_of_top_k_ordered_by_best_rank_then_run_precedence():
    pool = pool_strategies.depth_pool(RUNS, depth=2, precedence={"a": 1, "b": 1, "c": 1})
    assert documents(pool) == [1, 2, 7, 5]
    assert {c.document: (c.best_rank, c.runs) for c in pool} == {
        1: (1, ("a", "c")),
        2: (1, ("a", "b")),
        5: (2, ("b",)),
        7: (1, ("c",)),
    }
    assert documents(pool_strategies.depth_pool(RUNS, depth=2, precedence={"c": 0})) == [7, 1, 2, 5]  # c judged first


def test_take_n_goes_round_robin_over_runs_until_the_budget():
    assert documents(pool_strategies.take_n_pool(RUNS, budget=5)) == [1, 2, 7, 3, 5]
    assert documents(pool_strategies.take_n_pool(RUNS, budget=100)) == [1, 2, 7, 3, 5, 8, 4, 6, 9]


def test_rrf_pools_the_best_fused_documents():
    pool = pool_strategies.rrf_pool(RUNS, budget=3, k=60)
    expected = {
        1: 1 / 61 + 1 / 64 + 1 / 62,
        2: 1 / 62 + 1 / 61,
        7: 1 / 61,
    }
    assert documents(pool) == [1, 2, 7]
    assert [c.priority for c in pool] == pytest.approx([expected[d] for d in (1, 2, 7)])


def test_move_to_front_keeps_taking_from_a_run_while_it_finds_relevant_documents():
    assert documents(pool_strategies.mtf_pool(RUNS, budget=4)) == [1, 2, 7, 3]
    # 1 is known relevant: run a stays in front and gives its next document at once
    assert documents(pool_strategies.mtf_pool(RUNS, budget=4, labels={1: 1})) == [2, 5, 7, 3]
    # 1 is known not relevant: run a goes to the back without using the budget
    assert documents(pool_strategies.mtf_pool(RUNS, budget=4, labels={1: 0})) == [2, 7, 3, 5]


def test_documents_already_judged_are_skipped_without_using_the_budget():
    assert documents(pool_strategies.take_n_pool(RUNS, budget=3, skip={1})) == [2, 5, 7]
    assert 1 not in documents(pool_strategies.depth_pool(RUNS, depth=2, skip={1}))


def test_unique_contribution_counts_documents_only_one_run_brought():
    assert pool_strategies.unique_contributions(pool_strategies.depth_pool(RUNS, depth=2)) == {"a": 0, "b": 1, "c": 1}


@pytest.mark.django_db
def test_a_preview_writes_nothing_and_a_deeper_pool_only_adds_keeping_judgments():
    collection = make_collection(topics=2, documents=12, runs=3, depth=6)
    PoolItem.objects.all().delete()
    preview = pool_build(collection=collection, strategy="depth", depth=2, commit=False)
    assert not PoolItem.objects.exists() and not preview.committed
    assert preview.added == sum(new for new, _ in preview.topics.values()) > 0
    built = pool_build(collection=collection, strategy="depth", depth=2)
    assert built.topics == preview.topics and PoolItem.objects.count() == built.added
    topic = collection.topics.get(number="1")
    assessor = make_user()
    services.assignment_create(assessor=assessor, topic=topic)
    judged = topic.pool_items.first()
    services.judgment_record(assessor=assessor, topic=topic, document=judged.document, grade=2)
    deeper = pool_build(collection=collection, strategy="depth", depth=4)
    assert all(existing == built.topics[number][0] for number, (_, existing) in deeper.topics.items())
    assert PoolItem.objects.filter(pk=judged.pk, priority=judged.priority).exists()
    assert topic.judgments.count() == 1
    assert pool_build(collection=collection, strategy="depth", depth=4).added == 0  # idempotent


@pytest.mark.django_db
def test_imported_judgments_are_not_queued_again_unless_more_assessors_are_wanted():
    collection = make_collection(topics=1, documents=12, runs=2, depth=6)
    PoolItem.objects.all().delete()
    topic = collection.topics.get()
    first = collection.documents.get(docno="d1")  # run0's top document for topic 1
    services.judgment_record(assessor=make_user(), topic=topic, document=first, grade=1, require_assignment=False)
    pool_build(collection=collection, strategy="take_n", budget=3)
    assert first.id not in set(topic.pool_items.values_list("document_id", flat=True))
    assert topic.pool_items.count() == 3
    pool_build(collection=collection, strategy="take_n", budget=3, more_assessors=True)
    assert first.id in set(topic.pool_items.values_list("document_id", flat=True))


@pytest.mark.django_db
def test_an_unknown_strategy_or_a_missing_budget_is_refused_with_the_field():
    collection = make_collection(topics=1)
    with pytest.raises(ValidationError, match="strategy"):
        pool_build(collection=collection, strategy="magic", budget=3)
    with pytest.raises(ValidationError, match="budget"):
        pool_build(collection=collection, strategy="rrf")


@pytest.mark.django_db
def test_the_build_pool_command_previews_then_builds(capsys):
    from django.core.management import call_command

    collection = make_collection(topics=2, documents=12, runs=3, depth=6)
    PoolItem.objects.all().delete()
    call_command("build_pool", collection.name, "--strategy", "rrf", "--budget", "4", "--preview")
    out = capsys.readouterr().out
    assert "would add (preview, nothing written) 8 items with rrf" in out and "run0\t" in out
    assert not PoolItem.objects.exists()
    call_command("build_pool", collection.name, "--strategy", "rrf", "--budget", "4")
    assert PoolItem.objects.count() == 8
