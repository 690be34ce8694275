"""What the staleness service sends, and where: one message on the judgments queue for an assessor's change,
batches on the bulk queue for an import's, and a sweep that never sends again what is still on its way."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from evaluation.models import TopicState
from evaluation.services import staleness
from judging import services
from tests.factories import make_collection, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent(monkeypatch):
    """Every message the staleness service sends: (task, key, queue), none actually published."""
    messages = []

    def record(task_name, key, *, countdown=0, sweeping=False, queue=None):
        messages.append((task_name, key, queue))
        return True

    monkeypatch.setattr(staleness, "_enqueue", record)
    return messages


def _topics(sent_messages):
    return sorted(
        t
        for task, key, _ in sent_messages
        if task.startswith("recompute_topic")
        for t in ([key] if task == "recompute_topic" else key)
    )


def test_an_assessors_change_is_one_message_on_the_judgments_queue(sent, django_capture_on_commit_callbacks):
    collection = make_collection(topics=2)
    topic = collection.topics.first()
    person = make_user()
    services.assignment_create(assessor=person, topic=topic)
    TopicState.objects.update(dirty=False)
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        services.judgment_record(assessor=person, topic=topic, document=topic.pool_items.first().document, grade=1)
    assert [m for m in sent if m[0] != "recompute_collection_agreement"] == [("recompute_topic", topic.id, None)]


def test_a_bulk_change_goes_to_the_bulk_queue_in_batches(sent, django_capture_on_commit_callbacks, monkeypatch):
    monkeypatch.setattr(staleness, "TOPICS_PER_MESSAGE", 4)
    collection = make_collection(topics=10, runs=1)
    TopicState.objects.update(dirty=False)
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        services.run_create(collection=collection, tag="new", scores={str(t): {"d1": 1.0} for t in range(1, 11)})
    batches = [(task, len(key), queue) for task, key, queue in sent if task == "recompute_topics"]
    assert batches == [
        ("recompute_topics", 4, "bulk"),
        ("recompute_topics", 4, "bulk"),
        ("recompute_topics", 2, "bulk"),
    ]
    assert _topics(sent) == sorted(collection.topics.values_list("id", flat=True))


def _left_dirty(collection, *, seconds_ago, resent_seconds_ago=None):
    now = timezone.now()
    TopicState.objects.filter(topic__collection=collection).update(
        dirty=True,
        dirty_since=now - timedelta(seconds=seconds_ago),
        resent_at=None if resent_seconds_ago is None else now - timedelta(seconds=resent_seconds_ago),
    )


def test_while_messages_wait_the_sweep_sends_nothing_that_is_on_its_way(sent, monkeypatch):
    collection = make_collection(topics=3, runs=1)
    monkeypatch.setattr(staleness, "queues_idle", lambda: False)
    _left_dirty(collection, seconds_ago=60)  # sent a minute ago: still on its way behind the queue
    sent.clear()
    for _ in range(20):  # the sweep runs every 5 s: a hundred seconds of sweeps
        assert staleness.stale_topics_sweep() == 0
    assert _topics(sent) == []
    _left_dirty(collection, seconds_ago=400)  # older than RESEND_AFTER: overdue, so sent once more
    assert staleness.stale_topics_sweep() == 3
    assert staleness.stale_topics_sweep() == 0  # and not again on the next sweep
    assert [(task, queue) for task, _, queue in sent if task == "recompute_topics"] == [("recompute_topics", "sweep")]


def test_when_every_queue_is_empty_the_sweep_sends_what_stayed_dirty_at_once(sent, monkeypatch):
    """A broker that restarted empty lost every message: nothing is on its way, so nothing waits for overdue."""
    collection = make_collection(topics=3, runs=1)
    monkeypatch.setattr(staleness, "queues_idle", lambda: True)
    _left_dirty(collection, seconds_ago=10, resent_seconds_ago=6)
    sent.clear()
    assert staleness.stale_topics_sweep() == 3
    assert _topics(sent) == sorted(collection.topics.values_list("id", flat=True))


def test_a_topic_that_flips_dirty_again_starts_a_new_resend_clock(sent, django_capture_on_commit_callbacks):
    collection = make_collection(topics=1, runs=1)
    topic = collection.topics.get()
    TopicState.objects.filter(topic=topic).update(dirty=False, resent_at=timezone.now() - timedelta(hours=1))
    person = make_user()
    services.assignment_create(assessor=person, topic=topic)
    with django_capture_on_commit_callbacks(execute=True):
        services.judgment_record(assessor=person, topic=topic, document=topic.pool_items.first().document, grade=1)
    assert TopicState.objects.get(topic=topic).resent_at is None


def test_the_queue_lengths_are_read_from_the_broker():
    assert staleness.queues_idle() in (True, False)


def test_a_collection_waiting_for_its_delayed_agreement_is_not_sent_again_until_the_delay_has_passed(sent, monkeypatch):
    from evaluation.models import CollectionState

    collection = make_collection(topics=1, runs=1)
    topic = collection.topics.get()
    person = make_user()
    services.assignment_create(assessor=person, topic=topic)
    monkeypatch.setattr(staleness, "queues_idle", lambda: True)
    services.judgment_record(assessor=person, topic=topic, document=topic.pool_items.first().document, grade=1)

    def swept_after(seconds: float) -> list:
        since = timezone.now() - timedelta(seconds=seconds)
        CollectionState.objects.filter(pk=collection.pk).update(dirty=True, dirty_since=since, resent_at=None)
        sent.clear()
        staleness.stale_topics_sweep()
        return [key for task, key, _ in sent if task == "recompute_collection_agreement"]

    assert swept_after((staleness.SWEEP_AFTER + staleness.AGREEMENT_DELAY).total_seconds() - 2) == []
    assert swept_after((staleness.SWEEP_AFTER + staleness.AGREEMENT_DELAY).total_seconds() + 2) == [collection.pk]
