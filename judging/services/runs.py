"""Writes of runs: their rankings, stored in trec_eval order; their topics recomputed."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from django.core.exceptions import ValidationError
from django.db import transaction

from judging import signals
from judging.core import rankings as stored
from judging.models import Collection, Document, Ranking, Run, Topic
from measures import trec_order


@transaction.atomic
def run_create(
    *,
    collection: Collection,
    tag: str,
    scores: Mapping[str, Mapping[str, float]],
    description: str = "",
    owner=None,
    precedence: int = 1,
    model_family: str = "",
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
    if Run.objects.filter(collection=collection, tag=tag).exists():
        raise ValidationError({"tag": f"the collection already has a run {tag!r}"})
    per_topic = {
        topics[number]: {docno: (score, 0) for docno, score in docs.items()} for number, docs in scores.items()
    }
    run_store(
        collection=collection,
        tag=tag,
        per_topic=per_topic,
        documents=documents,
        owner=owner,
        precedence=precedence,
        description=description,
        model_family=model_family,
    )
    return Run.objects.get(collection=collection, tag=tag)


def _rankings(per_topic, documents: Mapping[str, int]) -> dict[int, tuple[bytes, bytes, int]]:
    """{topic id: (document ids, scores, depth)} in trec_eval order, as stored, from {topic id: {docno: (score, _)}}."""
    rankings = {}
    for topic_id, ranked in per_topic.items():
        docnos = list(ranked)
        scores = np.fromiter((score for score, _ in ranked.values()), dtype=np.float64, count=len(docnos))
        order = trec_order(docnos, scores)
        ids = np.fromiter((documents[d] for d in docnos), dtype=np.int64, count=len(docnos))[order]
        rankings[topic_id] = (stored.ids_to_bytes(ids), stored.scores_to_bytes(scores[order]), len(docnos))
    return rankings


@transaction.atomic
def run_store(
    *,
    collection: Collection,
    tag: str,
    per_topic=None,
    documents: Mapping[str, int] | None = None,
    rankings: Mapping[int, tuple[bytes, bytes, int]] | None = None,
    owner=None,
    precedence: int = 1,
    description: str = "",
    model_family: str = "",
) -> tuple[str, set[int]]:
    """Writes one run's rankings, {topic id: {docno: (score, line)}} with every docno's id in `documents` (or, from
    a reader that ordered them already, `rankings`: {topic id: (document ids, scores, depth)} as stored, in
    trec_eval order), creating the run or replacing its rankings; returns ('created' | 'updated' | 'unchanged', the
    topics whose rankings changed), which are marked stale. The one write path for rankings: `run_create` and the
    run import call it."""
    rankings = dict(rankings) if rankings is not None else _rankings(per_topic, documents)
    run = Run.objects.filter(collection=collection, tag=tag).first()
    family = model_family.strip()[:100]
    if run is not None and family and run.model_family != family:  # declared (again) on a re-import
        run.model_family = family
        run.save(update_fields=["model_family"])
    outcome = "created"
    if run is not None:
        old = {r.topic_id: (bytes(r.document_ids), bytes(r.scores), r.depth) for r in run.rankings.all()}
        if old == rankings:
            return "unchanged", set()
        run.rankings.all().delete()
        outcome, touched = "updated", set(old)
    else:
        run = Run.objects.create(
            collection=collection, tag=tag, owner=owner, precedence=precedence, description=description,
            model_family=family,
        )  # fmt: skip
        touched = set()
    Ranking.objects.bulk_create(
        (
            Ranking(run=run, topic_id=topic_id, document_ids=ids, scores=scores, depth=depth)
            for topic_id, (ids, scores, depth) in rankings.items()
        ),
        batch_size=500,
    )
    changed = touched | set(rankings)
    signals.rankings_changed.send(sender=Run, topic_ids=sorted(changed), collection_id=collection.pk)
    return outcome, changed


@transaction.atomic
def run_delete(*, run: Run) -> None:
    """Deletes a run and its rankings; the topics it retrieved for are recomputed without it."""
    topic_ids, collection_id = list(run.rankings.values_list("topic_id", flat=True)), run.collection_id
    run.delete()
    signals.rankings_changed.send(sender=Run, topic_ids=sorted(topic_ids), collection_id=collection_id)


@transaction.atomic
def ranking_delete(*, ranking: Ranking) -> None:
    """Removes one topic's ranking from a run (the run then retrieved nothing for it); the topic is recomputed."""
    topic_id, collection_id = ranking.topic_id, ranking.run.collection_id
    ranking.delete()
    signals.rankings_changed.send(sender=Run, topic_ids=[topic_id], collection_id=collection_id)


def run_describe(*, run: Run, description: str, precedence: int, model_family: str) -> None:
    """Sets what a run's submitter says of it (a replacement's new questionnaire); no ranking changes, so nothing is
    recomputed (the model family marks the leaderboard at its next read)."""
    run.description, run.precedence, run.model_family = description, precedence, model_family.strip()[:100]
    run.full_clean(validate_unique=False, validate_constraints=False)
    run.save(update_fields=["description", "precedence", "model_family"])
