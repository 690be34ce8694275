"""Reads for adaptive judging: a topic's frontier (the pooled documents nobody has labelled yet) in the order its
collection's judging order proposes them, rebuilt from the stored judgments on every call.

Nothing is kept between requests: the order is replayed from the labels in the order they first arrived, which
gives the same state on any web worker and after any restart (the orders are deterministic given the labels; the
bandits' draws are seeded by the topic and the number of labels).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .models import Document, Judgment, PoolItem, Run, Topic
from .ordering import judging_order

LOOKAHEAD = 50  # documents ordered by the strategy itself; the rest of the frontier follows in the pool's order


def topic_labels_in_arrival_order(*, topic_id: int) -> list[tuple[int, int | None]]:
    """(document id, label) for each document someone judged, in the order their first judgments arrived. The label
    is the highest grade any assessor gave (None if every assessor could not judge it): a run found a relevant
    document if anyone says so, as the pool builder's Move-to-Front reads it."""
    labels: dict[int, int | None] = {}
    rows = Judgment.objects.filter(topic_id=topic_id).order_by("created_at", "id").values_list("document_id", "grade")
    for document_id, grade in rows:
        known = labels.get(document_id)
        labels[document_id] = grade if known is None else max(known, grade if grade is not None else known)
    return list(labels.items())


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
