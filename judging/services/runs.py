"""Writes of runs: their rankings, stored in trec_eval order; their topics recomputed."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from django.core.exceptions import ValidationError
from django.db import transaction

from evaluation import services as evaluation_services
from evaluation.measures import trec_order

from ..models import (
    Collection,
    Document,
    Ranking,
    Run,
    Topic,
)


@transaction.atomic
def run_create(
    *,
    collection: Collection,
    tag: str,
    scores: Mapping[str, Mapping[str, float]],
    description: str = "",
    owner=None,
    precedence: int = 1,
) -> Run:
    """Stores a run given as {topic number: {docno: score}}: one Ranking row per topic, in trec_eval order.

    Every topic and document must already exist in the collection. All the collection's topics that the run
    retrieves for are marked stale, so their metrics are recomputed.
    """
    topics = dict(Topic.objects.filter(collection=collection).values_list("number", "id"))
    unknown_topics = sorted(set(scores) - set(topics))
    if unknown_topics:
        raise ValidationError({"topic": f"run {tag!r} names topics not in the collection: {unknown_topics[:10]}"})
    wanted = {docno for docs in scores.values() for docno in docs}
    documents = dict(Document.objects.filter(collection=collection, docno__in=wanted).values_list("docno", "id"))
    missing = sorted(wanted - set(documents))
    if missing:
        raise ValidationError({"docno": f"run {tag!r} retrieves documents not in the collection: {missing[:10]}"})
    run = Run.objects.create(
        collection=collection, tag=tag, description=description, owner=owner, precedence=precedence
    )
    rankings = []
    for number, doc_scores in scores.items():
        docnos = list(doc_scores)
        values = np.fromiter(doc_scores.values(), dtype=np.float64, count=len(docnos))
        order = trec_order(docnos, values)
        ids = np.array([documents[d] for d in docnos], dtype="<i8")[order]
        rankings.append(
            Ranking(
                run=run,
                topic_id=topics[number],
                document_ids=ids.tobytes(),
                scores=values[order].astype("<f8").tobytes(),
                depth=len(docnos),
            )
        )
    Ranking.objects.bulk_create(rankings, batch_size=500)
    evaluation_services.topics_changed(topic_ids=[r.topic_id for r in rankings], qrels_changed=False)
    return run


@transaction.atomic
def run_delete(*, run: Run) -> None:
    """Deletes a run and its rankings; the topics it retrieved for are recomputed without it."""
    topic_ids = list(run.rankings.values_list("topic_id", flat=True))
    run.delete()
    evaluation_services.topics_changed(topic_ids=topic_ids, qrels_changed=False)
