"""Marking topics and collections stale, and the sweep that re-enqueues whatever stayed stale.

Three queues, consumed in this order (`config/celery.py`): `judgments` (one topic's recompute after an assessor's
change, the sweeps themselves), `bulk` (topics changed many at a time by an import or a run, sent in batches of
TOPICS_PER_MESSAGE), `sweep` (what the sweep sends again). The collection-wide agreement, which reads every topic,
goes to the jobs queue's worker with the other long work. A judgment's recompute so never waits behind bulk or long
work, and the broker holds at most one message per dirty topic plus, after a delivery is overdue, one more."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from datetime import timedelta

from celery import current_app
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from config import sql
from config.broker import messages_waiting
from evaluation.models import AnswerTopicState, CollectionState, TopicState
from evaluation.selectors import collections_with_lost_totals
from judging.models import Topic

logger = logging.getLogger(__name__)

SWEEP_AFTER = timedelta(seconds=5)
AGREEMENT_DELAY = timedelta(seconds=10)
# While messages wait in the queues, a dirty topic's message is taken to be on its way for this long after it was
# sent; only then is it sent again. When every queue is empty, anything still dirty past SWEEP_AFTER was lost (a
# broker restarted empty, a message dropped) and is sent again at once.
RESEND_AFTER = timedelta(minutes=5)
# A change of more topics than this at once (an import, a run, a settings change) is bulk work.
TOPICS_PER_MESSAGE = 50
QUEUES = ("judgments", "bulk", "sweep")


# After one failed publish, later ones are not tried for this long: a save must not wait on a broker that is down,
# and whatever is not sent stays dirty for the sweep.
BROKER_BACKOFF_SECONDS = 5.0
_broker_down_until = [0.0]


def _enqueue(task_name: str, key, *, countdown: float = 0, sweeping: bool = False, queue: str | None = None) -> bool:
    """Sends a recompute without ever failing, and on a save's path without waiting on a broker known to be down
    (the sweep always tries); returns whether it was sent."""
    if not sweeping and time.monotonic() < _broker_down_until[0]:
        return False
    try:
        task = current_app.tasks[f"evaluation.tasks.{task_name}"]  # by name: tasks.py builds on these services
        task.apply_async(args=[key], countdown=countdown or None, retry=False, **({"queue": queue} if queue else {}))
    except Exception:  # broker down: the change is saved and stays dirty; the periodic sweep will retry
        _broker_down_until[0] = time.monotonic() + BROKER_BACKOFF_SECONDS
        logger.warning("could not enqueue %s(%s); the periodic sweep will", task_name, key, exc_info=True)
        return False
    _broker_down_until[0] = 0.0
    return True


def _enqueue_topics(topic_ids: list[int], *, queue: str, sweeping: bool = False) -> int:
    """Sends topics' recomputes: one message for a single topic on the judgments queue, batches of
    TOPICS_PER_MESSAGE otherwise; returns how many topics were sent."""
    if len(topic_ids) == 1 and queue == "judgments":
        return int(bool(_enqueue("recompute_topic", topic_ids[0], sweeping=sweeping)))
    sent = 0
    for start in range(0, len(topic_ids), TOPICS_PER_MESSAGE):
        batch = topic_ids[start : start + TOPICS_PER_MESSAGE]
        if not _enqueue("recompute_topics", batch, sweeping=sweeping, queue=queue):
            break
        sent += len(batch)
    return sent


def topics_changed(*, topic_ids: Iterable[int], qrels_changed: bool = True, collection_id: int | None = None) -> None:
    """Marks topics stale; call inside the transaction that changed their judgments or rankings. A caller that
    knows the topics' collection passes `collection_id` (they must all belong to it), which saves looking it up.

    Bumps each topic's generation and, when judgments changed (not only rankings), its collection's qrels version.
    Enqueues the recomputes after commit, only for topics whose flag flips from clean to dirty: many changes while
    a recompute is pending cause no extra messages. One flipped topic is one message on the judgments queue; more
    are bulk work, sent in batches on the bulk queue. The collection-wide agreement is enqueued the
    same way when its flag flips, but to start `AGREEMENT_DELAY` later, so that its heavier work never delays the
    per-topic metrics that assessors' changes are waiting for (and a burst of changes costs it one run).
    """
    now = timezone.now()
    topic_ids = sorted(set(topic_ids))
    flipped = [topic_id for topic_id, was_dirty in _flag_stale(TopicState, topic_ids, now).items() if not was_dirty]
    if flipped:
        queue = "judgments" if len(flipped) == 1 else "bulk"
        transaction.on_commit(lambda: _enqueue_topics(flipped, queue=queue))
    collection_ids = (
        [collection_id]
        if collection_id is not None
        else sorted(set(Topic.objects.filter(id__in=topic_ids).values_list("collection_id", flat=True)))
    )
    for collection_id, was_dirty in _flag_stale(CollectionState, collection_ids, now, int(qrels_changed)).items():
        if not was_dirty:
            transaction.on_commit(
                lambda c=collection_id: _enqueue(
                    "recompute_collection_agreement", c, countdown=AGREEMENT_DELAY.total_seconds()
                )
            )


def _flag_stale(model, keys: list[int], now, qrels_moved: int = 0) -> dict[int, bool]:
    """Sets the rows' flags and bumps their generations (and a collection's qrels version by `qrels_moved`);
    returns {key: whether it was already dirty}. Each row is locked in key order before its flag is read, so a
    worker's claim cannot slip between reading the flag and bumping the generation (which would leave a change
    behind a clean flag, with no message). On PostgreSQL one statement does it for rows that exist; rows that do not
    yet, and other databases, go row by row."""
    found = sql.flag_stale_rows(model, keys, now, qrels_moved=qrels_moved if model is CollectionState else None)
    for pk in keys:
        if pk in found:
            continue
        state, _ = model.objects.select_for_update().get_or_create(pk=pk)
        extra = {"qrels_version": F("qrels_version") + qrels_moved} if model is CollectionState else {}
        model.objects.filter(pk=pk).update(
            dirty=True,
            generation=F("generation") + 1,
            dirty_since=state.dirty_since or now if state.dirty else now,
            resent_at=state.resent_at if state.dirty else None,
            **extra,
        )
        found[pk] = state.dirty
    return found


def answer_topics_changed(*, topic_ids: Iterable[int]) -> None:
    """Marks topics' answer scores stale (their answers, nuggets, assignments or support judgments changed, or whose
    labels count did); call inside the changing transaction. The same protocol as `topics_changed` on the topics'
    answer-state rows: the recompute is enqueued after commit only when a flag flips, one topic on the judgments
    queue, more in batches on the bulk queue."""
    topic_ids = sorted(set(topic_ids))
    flipped = [t for t, was_dirty in _flag_stale(AnswerTopicState, topic_ids, timezone.now()).items() if not was_dirty]
    if len(flipped) == 1:
        transaction.on_commit(lambda: _enqueue("recompute_answer_topic", flipped[0]))
    elif flipped:
        transaction.on_commit(lambda: _enqueue_batches("recompute_answer_topics", flipped, queue="bulk"))


def _enqueue_batches(task_name: str, keys: list[int], *, queue: str, sweeping: bool = False) -> int:
    sent = 0
    for start in range(0, len(keys), TOPICS_PER_MESSAGE):
        if not _enqueue(task_name, keys[start : start + TOPICS_PER_MESSAGE], sweeping=sweeping, queue=queue):
            break
        sent += len(keys[start : start + TOPICS_PER_MESSAGE])
    return sent


def collection_answers_changed(*, collection_id: int) -> None:
    """Marks every answered topic of a collection stale (whose labels count changed)."""
    answered = Topic.objects.filter(collection_id=collection_id, answers__isnull=False).distinct()
    answer_topics_changed(topic_ids=answered.values_list("id", flat=True))


def collection_changed(*, collection_id: int) -> None:
    """Marks every topic of a collection stale (its threshold, consensus method, scale or measure set changed)."""
    topics_changed(topic_ids=Topic.objects.filter(collection_id=collection_id).values_list("id", flat=True))


def _left_stale(model, cutoff, overdue=None):
    """Rows dirty for longer than the cutoff, or claimed by a worker that never stored its results; with `overdue`,
    only those whose last send (first, or by the sweep) is older than that."""
    waiting = Q(dirty=True, dirty_since__lt=cutoff)
    abandoned = Q(dirty=False, computed_generation__lt=F("generation"), claimed_at__lt=cutoff)
    rows = model.objects.filter(waiting | abandoned)
    if overdue is not None:
        rows = rows.filter(
            Q(resent_at__lt=overdue)
            | Q(resent_at=None, dirty_since__lt=overdue)
            | Q(resent_at=None, dirty_since=None, claimed_at__lt=overdue)
        )
    return rows


def queues_idle() -> bool | None:
    """Whether no message waits in any recompute queue: True, False, or None when the broker cannot tell."""
    counts = [messages_waiting(queue) for queue in QUEUES]
    if None in counts:
        logger.warning("could not read the queues' lengths; resending only what is overdue")
        return None
    return not any(counts)


def stale_topics_sweep(
    *,
    older_than: timedelta = SWEEP_AFTER,
    resend_after: timedelta = RESEND_AFTER,
    agreement_delay: timedelta = AGREEMENT_DELAY,
) -> int:
    """Sends again the recomputes of topics (and collection-wide agreement) left stale longer than `older_than`:
    a lost message, a broker outage, a killed worker. When every queue is empty, any such message was lost, so all
    are sent again; while messages wait, only those whose last send is older than `resend_after` (so a busy queue
    never gets a second copy of what is on its way). Batches go to the sweep queue. Returns the topics sent. Runs'
    totals lost while every topic is fresh (a crash empties their unlogged table) are sent to be counted again.

    A collection's agreement is sent `agreement_delay` after its flag flips, so it counts as left stale only that
    much later: sooner, the sweep sent every waiting one at once, and under steady judging the agreement ran twice
    per delay instead of once."""
    now = timezone.now()
    overdue = None if queues_idle() else now - resend_after
    topics = list(_left_stale(TopicState, now - older_than, overdue).order_by("pk").values_list("pk", flat=True))
    sent = _enqueue_topics(topics, queue="sweep", sweeping=True)
    if sent:
        TopicState.objects.filter(pk__in=topics[:sent]).update(resent_at=now)
    answered = _left_stale(AnswerTopicState, now - older_than, overdue).order_by("pk")
    answered = list(answered.values_list("pk", flat=True))
    resent_answers = _enqueue_batches("recompute_answer_topics", answered, queue="sweep", sweeping=True)
    AnswerTopicState.objects.filter(pk__in=answered[:resent_answers]).update(resent_at=now)
    waiting = _left_stale(CollectionState, now - older_than - agreement_delay, overdue)
    collections = list(waiting.values_list("pk", flat=True))
    resent = [c for c in collections if _enqueue("recompute_collection_agreement", c, sweeping=True)]
    CollectionState.objects.filter(pk__in=resent).update(resent_at=now)
    for collection_id in collections_with_lost_totals():
        _enqueue("recount_run_totals", collection_id, sweeping=True, queue="sweep")
    return sent
