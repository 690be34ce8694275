"""A worker's recompute takes along the collection's topics that wait longest, and stores them as one: each exactly
as if it had been recomputed alone."""

from __future__ import annotations

from unittest import mock

import pytest
from django.db import transaction

from evaluation import services as evaluation_services
from evaluation.models import TopicState
from evaluation.services import recompute, staleness
from judging import services
from tests.factories import make_collection, make_user, stored_aggregates, stored_values

pytestmark = pytest.mark.django_db(transaction=True)


def _waiting(topics) -> None:
    """Marks the topics stale one after the other (the first waits longest), with no recompute sent."""
    with mock.patch.object(staleness, "_enqueue", return_value=False):
        for topic in topics:
            with transaction.atomic():
                staleness.topics_changed(topic_ids=[topic.id], collection_id=topic.collection_id)


def _stale(collection) -> set[int]:
    return {s.topic_id for s in TopicState.objects.filter(topic__collection=collection) if not s.fresh}


def test_a_recompute_takes_along_the_longest_waiting_topics_of_its_collection_only():
    collection, other = make_collection(topics=6, runs=2), make_collection(topics=2, runs=2)
    for c in (collection, other):
        evaluation_services.collection_recompute(collection_id=c.id)
    topics = list(collection.topics.order_by("id"))
    _waiting([*other.topics.all(), *topics])

    assert evaluation_services.topic_recompute(topic_id=topics[5].id) is True

    taken = recompute.TOPICS_TAKEN_ALONG
    assert _stale(collection) == {t.id for t in topics[taken:5]}  # the message's topic and the three oldest: fresh
    assert _stale(other) == {t.id for t in other.topics.all()}  # another collection's waiting topics wait on


def test_topics_stored_together_hold_what_one_at_a_time_would():
    collection = make_collection(topics=5, runs=3, documents=8, depth=6)
    topics, person = list(collection.topics.order_by("id")), make_user()
    with mock.patch.object(staleness, "_enqueue", return_value=False):  # a busy worker: every topic waits
        for n, topic in enumerate(topics):
            services.assignment_create(assessor=person, topic=topic)
            for i, item in enumerate(topic.pool_items.order_by("id")):
                services.judgment_record(assessor=person, topic=topic, document=item.document, grade=(i + n) % 4)

    evaluation_services.topic_recompute(topic_id=topics[0].id, taking_along=len(topics))
    together = (stored_values(collection), stored_aggregates(collection))
    assert not _stale(collection) and together[0]
    evaluation_services.collection_recompute(collection_id=collection.id)  # one at a time, totals counted afresh

    assert (stored_values(collection), stored_aggregates(collection)) == together
