"""An assessor's world: their queue in the collection's judging order, what closes an item to them (filled by
others, gold kept for checks), their undo history, assignments and pace."""

from __future__ import annotations

import hashlib
from collections import Counter

import numpy as np
from django.db.models import Count, F, Sum

from judging import plugins
from judging.models import (
    Assignment,
    Judgment,
    JudgmentHistory,
    PoolItem,
    Topic,
)
from judging.ordering import selectors as adaptive
from judging.ordering.core.orders import is_adaptive
from judging.selectors.inputs import topic_rankings
from judging.sources import selectors as sources
from judging.sources.models import SourceRole

UNDO_DEPTH = 50


def topics_with_settings():
    """Topics with their collection and every feature's settings row, one query a topic: what a save and the judging
    page read of the collection (its scale, pausing, checks, the verified judge) then costs no query more."""
    return plugins.with_settings(Topic.objects.select_related("collection"), through="collection__")


def undo_history(*, assessor_id: int, topic: Topic) -> list[dict]:
    """What the judging page's undo takes back after a reload, oldest first: for each document the assessor judged
    (by their latest change), its state before that change, from the append-only history. One query."""
    rows = JudgmentHistory.objects.filter(assessor_id=assessor_id, topic=topic, changed_by_id=assessor_id).order_by(
        "id"
    )
    previous: dict[int, dict] = {}
    latest: dict[int, tuple[int, dict, str]] = {}
    for row_id, document_id, action, new_grade, note in rows.values_list(
        "id", "document_id", "action", "new_grade", "note"
    ):
        before = previous.get(document_id, {"judged": False, "grade": None, "note": "", "reason": ""})
        latest[document_id] = (row_id, before, action)
        previous[document_id] = (
            {"judged": False, "grade": None, "note": "", "reason": ""}
            if action == "deleted"
            else {"judged": True, "grade": new_grade, "note": note, "reason": ""}
        )
    undoable = sorted((row_id, doc, before) for doc, (row_id, before, action) in latest.items() if action != "deleted")
    return [{"id": doc, "before": before} for _, doc, before in undoable[-UNDO_DEPTH:]]


def next_assigned_topic(*, assessor_id: int, after: Topic) -> Topic | None:
    """The assessor's next assigned topic after `after` (by topic id, wrapping round), for the "next topic" button;
    one query."""
    others = Topic.objects.filter(assignments__assessor_id=assessor_id).exclude(pk=after.pk).order_by("id")
    candidates = list(others.values("id", "number", "title")[:1000])
    chosen = next((t for t in candidates if t["id"] > after.pk), candidates[0] if candidates else None)
    return Topic(**chosen) if chosen else None


def assignments_for_assessor(*, assessor_id: int) -> list[Assignment]:
    """The assessor's assignments with judged/total counts and seconds spent, in four queries whatever their number;
    the total leaves out items others already filled with the collection's k judgments."""
    mine = Assignment.objects.filter(assessor_id=assessor_id).select_related("topic__collection")
    assignments = list(
        plugins.with_settings(mine, through="topic__collection__")
        .annotate(total=Count("topic__pool_items", distinct=True))
        .order_by("topic__collection__name", "topic__id")
    )
    topic_ids = [a.topic_id for a in assignments]
    judged = {
        row["topic"]: row
        for row in Judgment.objects.filter(sources.pooled(), assessor_id=assessor_id, topic_id__in=topic_ids)
        .values("topic")
        .annotate(n=Count("id"), seconds=Sum("seconds_spent"))
    }
    own = set(
        Judgment.objects.filter(sources.pooled(), assessor_id=assessor_id, topic_id__in=topic_ids).values_list(
            "topic_id", "document_id"
        )
    )
    filled = items_filled_by_others(assessor_id=assessor_id, topic_ids=topic_ids)
    for collection in {a.topic.collection_id: a.topic.collection for a in assignments}.values():
        filled |= plugins.reserved_items(collection=collection, assessor_id=assessor_id, topic_ids=topic_ids)
    closed = Counter(topic_id for topic_id, _ in filled - own)
    for assignment in assignments:
        assignment.total -= closed[assignment.topic_id]
        row = judged.get(assignment.topic_id, {})
        assignment.judged = row.get("n", 0)
        assignment.seconds = row.get("seconds") or 0.0
        assignment.percent = round(100 * assignment.judged / assignment.total) if assignment.total else 0
    return assignments


def items_filled_by_others(*, assessor_id: int, topic_ids: list[int]) -> set[tuple[int, int]]:
    """(topic id, document id) of the pool items that already have their collection's k graded judgments from
    counted sources other than this assessor (advisory sources, machines among them, take no slot): unless the
    assessor judged them too, they are closed to them (the write service refuses them; queues and totals leave them
    out). Only pool items: labels of documents outside the pool (an imported qrels reaches past it) close nothing
    (they once made an assessor's start page read "-3658 documents left")."""
    return set(
        Judgment.objects.filter(
            ~sources.source_is(role=SourceRole.ADVISORY), sources.pooled(), topic_id__in=topic_ids, grade__isnull=False
        )
        .exclude(assessor_id=assessor_id)
        .values("topic_id", "document_id", "topic__collection__assessors_per_item")
        .annotate(n=Count("id"))
        .filter(n__gte=F("topic__collection__assessors_per_item"))
        .values_list("topic_id", "document_id")
    )


def assessor_pace(*, assessor_id: int) -> float | None:
    """The assessor's median seconds per judgment (judgments with time recorded), None before any."""
    seconds = sorted(
        Judgment.objects.filter(assessor_id=assessor_id, seconds_spent__gt=0).values_list("seconds_spent", flat=True)
    )
    return float(np.median(seconds)) if seconds else None


SHUFFLE_BAND = 10  # items of the priority order shuffled together, per assessor, when the collection asks


def _shuffle_key(assessor_id: int, topic_id: int, document_id: int) -> bytes:
    return hashlib.blake2b(f"{assessor_id}:{topic_id}:{document_id}".encode(), digest_size=8).digest()


def _shuffled_in_bands(items: list, key, width: int) -> list:
    return [item for start in range(0, len(items), width) for item in sorted(items[start : start + width], key=key)]


def judging_queue(*, assessor_id: int, topic: Topic) -> list[dict]:
    """The assessor's documents for a topic in judging order, each with their own judgment so far (never anyone
    else's), leaving out items others already filled with the collection's k judgments.

    Static order (best_rank): pool priority; with the collection's shuffling on, each run of SHUFFLE_BAND
    consecutive items is put in an order of its own for every assessor (stable across reloads) so that no position
    effect is shared. Adaptive orders: the assessor's judged documents (as judged), then those others labelled that
    still need this assessor (shuffled in bands likewise, so a second assessor does not follow the first's sequence),
    then the frontier nobody labelled, in the order the strategy proposes now (`adaptive.topic_frontier`); with
    shuffling on, the frontier is dealt in bands as wide as the topic has assessors, each assessor starting at their
    own place, so assessors judging the topic at the same time get different documents. With a verification judge
    (a machine judge whose labels people verify), the documents still to judge come in verification order
    (`plugins.queue_orders`: the machine's likeliest errors first), whatever the judging order."""
    collection = topic.collection
    own = {
        j["document_id"]: j
        for j in Judgment.objects.filter(assessor_id=assessor_id, topic=topic)
        .order_by("created_at", "id")
        .values("document_id", "grade", "note", "cannot_judge_reason", "seconds_spent")
    }
    filled = items_filled_by_others(assessor_id=assessor_id, topic_ids=[topic.id])
    filled |= plugins.reserved_items(collection=collection, assessor_id=assessor_id, topic_ids=[topic.id])
    closed = {d for _, d in filled} - set(own)
    pool = PoolItem.objects.filter(topic=topic).order_by("-priority", "id")
    pool = pool.values_list("document_id", "document__docno")
    items = [item for item in pool if item[0] not in closed]
    shuffle = collection.shuffle_within_priority

    def key(item):
        return _shuffle_key(assessor_id, topic.id, item[0])

    if not is_adaptive(collection.judging_order):
        if shuffle:
            items = _shuffled_in_bands(items, key, SHUFFLE_BAND)
    else:
        docnos = dict(items)
        frontier = adaptive.topic_frontier(topic=topic, rankings=topic_rankings(topic_id=topic.id))
        unlabelled = set(frontier)
        mine = [(d, docnos[d]) for d in own if d in docnos]
        others = [item for item in items if item[0] not in own and item[0] not in unlabelled]
        upcoming = [(d, docnos[d]) for d in frontier if d in docnos]
        if shuffle:
            others = _shuffled_in_bands(others, key, SHUFFLE_BAND)
            assessors = sorted(Assignment.objects.filter(topic=topic).values_list("assessor_id", flat=True))
            width = max(len(assessors), 1)
            turn = assessors.index(assessor_id) if assessor_id in assessors else 0
            upcoming = [
                item
                for start in range(0, len(upcoming), width)
                for item in _rotated(upcoming[start : start + width], turn)
            ]
        items = mine + others + upcoming
    for order in plugins.queue_orders:  # e.g. the machine's likeliest errors first, after what is judged
        scores = order(topic=topic, rankings=lambda: topic_rankings(topic_id=topic.id))
        if scores is None:
            continue
        waiting = sorted((i for i in items if i[0] not in own), key=lambda item: -scores.get(item[0], 0.0))
        items = [i for i in items if i[0] in own] + waiting
    queue = []
    for document_id, docno in items:
        judgment = own.get(document_id)
        queue.append(
            {
                "id": document_id,
                "docno": docno,
                "judged": judgment is not None,
                "grade": judgment["grade"] if judgment else None,
                "note": judgment["note"] if judgment else "",
                "reason": judgment["cannot_judge_reason"] if judgment else "",
                "seconds": judgment["seconds_spent"] if judgment else 0.0,
            }
        )
    return queue


def _rotated(band: list, turn: int) -> list:
    turn %= max(len(band), 1)
    return band[turn:] + band[:turn]
