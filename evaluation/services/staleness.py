"""Marking topics and collections stale, and the sweep that re-enqueues whatever stayed stale."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import timedelta

from django.db import transaction
from django.db.models import F, Q, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from judging.models import Topic

from ..models import CollectionState, TopicState

logger = logging.getLogger(__name__)

SWEEP_AFTER = timedelta(seconds=5)


def _enqueue(task_name: str, key: int) -> None:
    from .. import tasks

    try:
        getattr(tasks, task_name).delay(key)
    except Exception:  # broker down: the change is saved and stays dirty; the periodic sweep will retry
        logger.warning("could not enqueue %s(%s); the periodic sweep will", task_name, key, exc_info=True)


def topics_changed(*, topic_ids: Iterable[int], qrels_changed: bool = True) -> None:
    """Marks topics stale; call inside the transaction that changed their judgments or rankings.

    Bumps each topic's generation and, when judgments changed (not only rankings), its collection's qrels version.
    Enqueues one recompute per topic, after commit, only for topics whose flag flips from clean to dirty: many
    changes while a recompute is pending cause no extra messages. The collection-wide agreement is only marked
    stale: the sweep recomputes it a few seconds later, so that its heavier work never delays the per-topic metrics
    that assessors' changes are waiting for.
    """
    now = timezone.now()
    topic_ids = sorted(set(topic_ids))
    for topic_id in topic_ids:  # sorted, so concurrent writers lock rows in the same order
        # Locked, so a worker's claim cannot slip between reading the flag and bumping the generation (which would
        # leave a change behind a clean flag, with no message).
        state, _ = TopicState.objects.select_for_update().get_or_create(topic_id=topic_id)
        flipped = not state.dirty
        TopicState.objects.filter(topic_id=topic_id).update(
            dirty=True, generation=F("generation") + 1, dirty_since=now if flipped else state.dirty_since
        )
        if flipped:
            transaction.on_commit(lambda t=topic_id: _enqueue("recompute_topic", t))
    collection_ids = sorted(set(Topic.objects.filter(id__in=topic_ids).values_list("collection_id", flat=True)))
    for collection_id in collection_ids:
        CollectionState.objects.get_or_create(collection_id=collection_id)
        CollectionState.objects.filter(collection_id=collection_id).update(
            qrels_version=F("qrels_version") + int(qrels_changed),
            generation=F("generation") + 1,
            dirty=True,
            dirty_since=Coalesce(F("dirty_since"), Value(now)),
        )


def collection_changed(*, collection_id: int) -> None:
    """Marks every topic of a collection stale (its threshold, consensus method, scale or measure set changed)."""
    topics_changed(topic_ids=Topic.objects.filter(collection_id=collection_id).values_list("id", flat=True))


def _left_stale(model, cutoff):
    """Rows dirty for longer than the cutoff, or claimed by a worker that never stored its results."""
    waiting = Q(dirty=True, dirty_since__lt=cutoff)
    abandoned = Q(dirty=False, computed_generation__lt=F("generation"), claimed_at__lt=cutoff)
    return model.objects.filter(waiting | abandoned).values_list("pk", flat=True)


def stale_topics_sweep(*, older_than: timedelta = SWEEP_AFTER) -> int:
    """Re-enqueues topics (and collection-wide agreement) left stale longer than `older_than`: a lost message, a
    broker outage, a killed worker. A duplicate message is harmless: the topic's lock turns it into a no-op."""
    cutoff = timezone.now() - older_than
    topics = list(_left_stale(TopicState, cutoff))
    for topic_id in topics:
        _enqueue("recompute_topic", topic_id)
    for collection_id in list(_left_stale(CollectionState, cutoff)):
        _enqueue("recompute_collection_agreement", collection_id)
    return len(topics)
