"""Reads for judging less: a topic's frontier (the pooled documents nobody has labelled yet) in the order its
collection's judging order proposes them, rebuilt from the stored judgments on every call.

Nothing is kept between requests: the order is replayed from the labels in the order they first arrived, which
gives the same state on any web worker and after any restart (the orders are deterministic given the labels; the
bandits' draws are seeded by the topic and the number of labels). `selectors.collection_standing` feeds
`stopping` (where a campaign stands and whether to stop) with labels read the same way.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from judging.models import Document, PoolItem, Run, Topic
from judging.ordering.core.orders import judging_order
from judging.sources import selectors as sources

LOOKAHEAD = 50  # documents ordered by the strategy itself; the rest of the frontier follows in the pool's order


def topic_labels_in_arrival_order(*, topic_id: int) -> list[tuple[int, int | None]]:
    """(document id, label) for each document someone judged, in the order their first judgments arrived. The label
    is the highest grade any counted assessor gave (None if every one could not judge it): a run found a relevant
    document if anyone says so, as the pool builder's Move-to-Front reads it. Advisory assessors (machine judges,
    clicks) steer no order: their labels are measured, never taken as evidence."""
    labels: dict[int, int | None] = {}
    collection = Topic.objects.select_related("collection").get(pk=topic_id).collection
    rows = sources.counted_labels(collection=collection, topic_ids=[topic_id])
    rows = rows.order_by("created_at", "id").values_list("document_id", "grade")
    for document_id, grade in rows:
        labels[document_id] = higher_label(labels.get(document_id), grade)
    return list(labels.items())


def higher_label(known: int | None, grade: int | None) -> int | None:
    """The higher of two labels, 'cannot judge' (None) below every grade."""
    return grade if known is None else known if grade is None else max(known, grade)


def topic_frontier(*, topic: Topic, rankings: Mapping[int, np.ndarray], limit: int = LOOKAHEAD) -> list[int]:
    """The topic's unlabelled pooled documents, the first `limit` in the collection's judging order, the rest in
    the pool's priority order. `rankings` is `selectors.topic_rankings` of the topic (run id: document ids)."""
    collection = topic.collection
    pool = list(PoolItem.objects.filter(topic=topic).order_by("-priority", "id").values_list("document_id", flat=True))
    tags = dict(Run.objects.filter(collection_id=collection.id).values_list("id", "tag"))
    rankings = {tags[run_id]: documents.tolist() for run_id, documents in rankings.items()}
    texts = None
    if collection.judging_order == "cal":
        rows = Document.objects.filter(pk__in=pool).values_list("id", "title", "body")
        texts = {document_id: f"{title} {body}" for document_id, title, body in rows}
    order = judging_order(
        collection.judging_order,
        rankings,
        pool,
        relevance_level=collection.relevance_threshold,
        seed=topic.id,
        texts=texts,
    )
    for document_id, grade in topic_labels_in_arrival_order(topic_id=topic.id):
        order.observe(document_id, grade)
    first = order.upcoming(limit)
    chosen = set(first)
    return first + [d for d in pool if d not in chosen and d not in order.labels]
