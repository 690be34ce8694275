"""Adaptive judging orders in the app: the judging page's queue and each save's answer follow the collection's
order, rebuilt from the stored judgments; assessors working at once get different documents."""

from __future__ import annotations

import pytest
from django.urls import reverse

from judging import selectors, services
from judging.models import Document
from judging.ordering import selectors as adaptive
from judging.ordering.core.orders import ORDERS, order_choices
from tests.factories import make_user
from tests.judging.test_judging_pages import config_of, save

pytestmark = pytest.mark.django_db


def two_run_topic(order: str, *, assessors: int = 1, per_item: int = 1, shuffle: bool = False):
    """One topic; run A ranks a0..a4, run B b0..b4 (disjoint), pooled at depth 5."""
    collection = services.collection_create(
        name=f"adaptive {order} {assessors} {per_item} {shuffle}",
        max_grade=2,
        relevance_threshold=1,
        assessors_per_item=per_item,
        judging_order=order,
        shuffle_within_priority=shuffle,
    )
    (topic,) = services.topics_create(collection=collection, topics=[{"number": "1", "title": "t"}])
    docnos = [f"a{i}" for i in range(5)] + [f"b{i}" for i in range(5)]
    services.documents_create(collection=collection, documents=[{"docno": d, "body": d} for d in docnos])
    for tag in ("A", "B"):
        scores = {"1": {f"{tag.lower()}{i}": 5.0 - i for i in range(5)}}
        services.run_create(collection=collection, tag=tag, scores=scores)
    services.pool_build_depth(collection=collection, depth=5)
    users = [make_user("assessor") for _ in range(assessors)]
    for user in users:
        services.assignment_create(assessor=user, topic=topic)
    topic.refresh_from_db()
    return topic, users


def doc(topic, docno) -> Document:
    return Document.objects.get(collection=topic.collection_id, docno=docno)


def docnos(topic, ids) -> list[str]:
    names = dict(Document.objects.filter(pk__in=ids).values_list("id", "docno"))
    return [names[i] for i in ids]


def test_the_collection_setting_offers_exactly_the_pure_orders():
    assert [name for name, _ in order_choices()] == list(ORDERS)


def test_under_mtf_the_next_document_follows_the_run_that_just_found_a_relevant_one(client):
    topic, (assessor,) = two_run_topic("mtf")
    client.force_login(assessor)
    page = client.get(reverse("judging:judge", args=[topic.id]))
    config = config_of(page)
    assert config["adaptive"] is True
    assert config["queue"][config["start"]]["docno"] == "a0"
    answer = save(client, topic, doc(topic, "a0"), grade="2", seconds_total="3").json()
    assert docnos(topic, [e["id"] for e in answer["upcoming"]])[:2] == ["a1", "b0"]  # A stays at the front
    answer = save(client, topic, doc(topic, "a1"), grade="0", seconds_total="3").json()
    assert docnos(topic, [e["id"] for e in answer["upcoming"]])[0] == "b0"  # A gave a non-relevant document: B's turn


def test_under_mtf_a_non_relevant_first_document_hands_over_to_the_other_run(client):
    topic, (assessor,) = two_run_topic("mtf")
    client.force_login(assessor)
    answer = save(client, topic, doc(topic, "a0"), grade="0", seconds_total="3").json()
    assert docnos(topic, [e["id"] for e in answer["upcoming"]])[0] == "b0"


def test_a_static_order_answers_a_save_without_an_order(client):
    topic, (assessor,) = two_run_topic("best_rank")
    client.force_login(assessor)
    assert save(client, topic, doc(topic, "a0"), grade="2", seconds_total="3").json() == {"saved": True}
    assert config_of(client.get(reverse("judging:judge", args=[topic.id])))["adaptive"] is False


def test_the_order_is_rebuilt_from_the_judgments_whoever_made_them(client):
    topic, (first, second) = two_run_topic("mtf", assessors=2, per_item=2)
    services.judgment_record(assessor=first, topic=topic, document=doc(topic, "a0"), grade=2)
    queue = selectors.judging_queue(assessor_id=second.id, topic=topic)
    # The second assessor first gets what the first labelled (it needs a second label), then the frontier, where A
    # stays at the front because a0 was relevant.
    assert [e["docno"] for e in queue[:3]] == ["a0", "a1", "b0"]
    queue = selectors.judging_queue(assessor_id=first.id, topic=topic)
    assert [e["docno"] for e in queue[:2]] == ["a0", "a1"] and queue[0]["judged"] and not queue[1]["judged"]


def test_the_highest_grade_counts_and_cannot_judge_is_not_relevant():
    topic, (first, second) = two_run_topic("mtf", assessors=2, per_item=2)
    services.judgment_record(assessor=first, topic=topic, document=doc(topic, "a0"), grade=0)
    services.judgment_record(assessor=second, topic=topic, document=doc(topic, "a0"), grade=2)
    services.judgment_record(
        assessor=first, topic=topic, document=doc(topic, "a1"), grade=None, cannot_judge_reason="unreadable"
    )
    labels = adaptive.topic_labels_in_arrival_order(topic_id=topic.id)
    names = docnos(topic, [document for document, _ in labels])
    assert list(zip(names, [grade for _, grade in labels], strict=True)) == [("a0", 2), ("a1", None)]
    frontier = adaptive.topic_frontier(topic=topic, rankings=selectors.topic_rankings(topic_id=topic.id))
    assert docnos(topic, frontier)[0] == "b0"  # a0 relevant kept A at the front; a1 (cannot judge) did not


def test_assessors_judging_a_topic_at_once_get_different_next_documents():
    topic, users = two_run_topic("mtf", assessors=2, shuffle=True)
    firsts = [selectors.judging_queue(assessor_id=u.id, topic=topic)[0]["docno"] for u in users]
    assert sorted(firsts) == ["a0", "b0"]


@pytest.mark.parametrize("order", ORDERS)
def test_every_order_serves_the_whole_pool_through_the_page(client, order):
    topic, (assessor,) = two_run_topic(order)
    client.force_login(assessor)
    seen = []
    for _ in range(10):
        config = config_of(client.get(reverse("judging:judge", args=[topic.id])))
        entry = config["queue"][config["start"]]
        assert not entry["judged"]
        seen.append(entry["docno"])
        save(client, topic, Document.objects.get(pk=entry["id"]), grade="1" if "a" in entry["docno"] else "0")
    assert sorted(seen) == sorted([f"a{i}" for i in range(5)] + [f"b{i}" for i in range(5)])
