"""Recomputing a topic's metrics and agreement, a collection's agreement, and a whole collection."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from django.db import transaction
from django.db.models import F, Q, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from config import sql
from evaluation import ranking_cache
from evaluation.models import CollectionState, TopicState
from evaluation.selectors import (
    consensus_inputs,
    consensus_labels,
    engine_options,
    settings_key,
    stale_topics_beside,
    stored_measures,
)
from evaluation.services import storage, totals
from evaluation.services.phases import NO_PHASES, Phases
from judging import selectors as judging_selectors
from judging.jobs import kinds as job_kinds
from judging.jobs import runner as jobs
from judging.models import Collection, Topic
from judging.sources import selectors as sources
from measures import PreparedQrels, agreement, as_measures, evaluate, parse_measure
from measures.ranking_agreement import system_ranking_agreement

# The lock namespaces of the staleness protocol (the first of PostgreSQL's two advisory-lock keys).
TOPIC, COLLECTION = 1, 2


def _exclusively(namespace: int, model, pk: int, compute: Callable[[int], bool | None], *, once: bool = False) -> bool:
    """Runs `compute(generation)` while the row is stale, holding its lock; returns whether anything was computed.
    A `compute` that returns False has seen the row clean as it stored its results: no claim follows.

    A caller that finds the lock taken returns at once: the holder loops until the row is clean. The holder looks
    once more after letting go, so a change that landed just as it finished is never left to the sweep. With
    `once`, it computes at most one generation: a change landing meanwhile flips the cleared flag again, which
    enqueues the next run (the collection-wide agreement is recomputed at that pace, not in a loop that would hold
    a worker for as long as judgments keep coming)."""
    computed = False
    while True:
        mine, generation = sql.lock_and_claim(namespace, model, pk)
        if not mine:
            return computed
        try:
            while generation is not None:
                more = compute(generation)
                computed = True
                if once:
                    break
                generation = None if more is False else sql.claim(model, pk)
        except BaseException:
            sql.release(namespace, pk)
            raise
        if not sql.release_and_check(namespace, model, pk) or once:
            return computed


# A worker taking a topic's recompute takes along at most this many more of the collection's dirty topics, the
# longest waiting first: they share one store (one transaction, one read and write of the runs' totals), about a
# third of a topic's recompute. Their own messages then find them fresh. Under a steady load more topics wait, so
# each recompute carries more of them; one at a time, the worker kept up with fewer judgments than the web took.
TOPICS_TAKEN_ALONG = 3


def topic_recompute(*, topic_id: int, phases: Phases = NO_PHASES, taking_along: int = TOPICS_TAKEN_ALONG) -> bool:
    """Brings one topic's per-run values and agreement up to date, then the runs' aggregates, with up to
    `taking_along` of the collection's other stale topics. Idempotent; returns False when there was nothing to do
    (already fresh, or other workers hold the topics). `phases` is given the time each step took."""
    waiting = stale_topics_beside(topic_id=topic_id, limit=taking_along)
    return _topics_exclusively([topic_id, *waiting], phases)


def _topics_exclusively(topic_ids: list[int], phases: Phases) -> bool:
    """`_exclusively` for several topics at once: each one whose lock this worker gets is claimed, all of them are
    computed and stored together, those changed meanwhile are claimed and computed again, and each lock is let go
    with a last look (a topic found stale again is locked and claimed anew). A topic whose lock another worker holds
    is left to it. Returns whether anything was computed."""
    computed = False
    while topic_ids:
        held: dict[int, int | None] = {}
        try:
            for topic_id in topic_ids:
                mine, generation = sql.lock_and_claim(TOPIC, TopicState, topic_id)
                if mine:
                    held[topic_id] = generation
            due = {topic_id: generation for topic_id, generation in held.items() if generation is not None}
            while due:
                again = _topics(due, phases)
                computed = True
                due = {t: g for t in sorted(again) if (g := sql.claim(TopicState, t)) is not None}
        except BaseException:
            for topic_id in held:
                sql.release(TOPIC, topic_id)
            raise
        topic_ids = [topic_id for topic_id in held if sql.release_and_check(TOPIC, TopicState, topic_id)]
    return computed


def _topics(due: dict[int, int], phases: Phases) -> set[int]:
    """Computes the topics ({topic: generation}) and stores each collection's in one transaction; returns the
    topics that may be stale again."""
    by_collection: dict[int, tuple[Collection, str, list]] = {}
    for topic_id, generation in due.items():
        collection, key, result = _topic(topic_id, generation, phases)
        by_collection.setdefault(collection.pk, (collection, key, []))[2].append(result)
    again: set[int] = set()
    with phases("store"):
        for collection, key, results in by_collection.values():
            again |= storage.store_topics(collection, results, phases, key=key)
    return again


def _topic(topic_id: int, generation: int, phases: Phases) -> tuple[Collection, str, storage.TopicResult]:
    with phases("load judgments"):
        inputs = judging_selectors.topic_recompute_inputs(topic_id=topic_id)
        collection, judgments = inputs.collection, inputs.judgments
    with phases("consensus"):
        labels = consensus_labels(
            collection=collection, inputs={topic_id: (judgments, inputs.adjudications)}, advisory=inputs.advisory
        )
        labels = labels[topic_id].labels
    with phases("load rankings"):
        runs = ranking_cache.topic_runs(topic_id=topic_id, name=inputs.rankings_name)
    with phases("measures"):
        measures = as_measures(stored_measures(collection))
        values, consensus_scores = {}, None
        if labels and len(runs):
            result = evaluate(
                PreparedQrels.from_mapping({topic_id: labels}),
                runs,
                measures,
                **engine_options(collection),
            )
            values = _by_measure(result, measures)
            consensus_scores = _scores_of(result, measures, collection.agreement_measure)
    with phases("agreement"):
        report = _agreement(collection, judgments, labels.get, advisory=inputs.advisory)
        counted = sources.counted_grades(judgments, advisory=inputs.advisory)
        if len(runs) and counted:
            report["system_ranking"] = system_ranking_agreement(
                {topic_id: counted},
                {topic_id: labels},
                runs,
                measure=collection.agreement_measure,
                consensus_scores=consensus_scores,
                **engine_options(collection),
            )
    key = settings_key(collection, advisory=inputs.advisory)
    return collection, key, storage.TopicResult(topic_id, generation, values, report)


def _agreement(collection: Collection, grades: dict, consensus: Callable, *, advisory) -> dict:
    """The agreement report of these items ({item: {account: grade}}, `consensus(item)` their consensus label) among
    the accounts whose labels count, as the one selector decides (`counted_grades`): an advisory machine judge is no
    assessor here. Each advisory source is measured against the consensus apart, under "advisory_against_consensus"
    (what the reliability table shows of it)."""
    categories, threshold = range(collection.max_grade + 1), collection.relevance_threshold
    counted = sources.counted_grades(grades, advisory=advisory)
    report = agreement.agreement_report(
        list(counted.values()), categories=categories, threshold=threshold, reference=[consensus(i) for i in counted]
    )
    measured = sources.advisory_grades(grades, advisory=advisory)
    if measured:
        report["advisory_against_consensus"] = agreement.against_reference(
            list(measured.values()), [consensus(i) for i in measured], categories=categories, threshold=threshold
        )
    return report


def _by_measure(result, measures) -> dict[str, dict[int, float | None]]:
    """The one topic's values as {measure: {run id: value}}, runs ascending (the stored lists' order); NaN, an
    undefined value, as None."""
    run_index, _, values = result.reported_rows()
    if not len(run_index):
        return {}
    ids = np.array([int(tag) for tag in result.tags])[run_index]
    order = np.argsort(ids, kind="stable")
    ids = ids[order].tolist()
    return {
        str(measure): dict(zip(ids, [None if v != v else v for v in column], strict=True))
        for measure, column in zip(measures, values[order].T.tolist(), strict=True)
    }


def _scores_of(result, measures, measure: str) -> dict[str, float] | None:
    """Each run's aggregate of `measure` in an evaluation that already computed it (None if it did not)."""
    names = [str(m) for m in measures]
    wanted = str(parse_measure(measure))
    if wanted not in names:
        return None
    return dict(zip(result.tags, result.aggregates[:, names.index(wanted)].tolist(), strict=True))


def collection_agreement_recompute(*, collection_id: int) -> bool:
    """Brings the collection-wide agreement report up to date (all items pooled, and system-ranking agreement over
    all topics). Idempotent; False when there was nothing to do."""
    return _exclusively(
        COLLECTION, CollectionState, collection_id, lambda g: _collection_agreement(collection_id, g), once=True
    )


def _collection_agreement(collection_id: int, generation: int) -> None:
    collection = Collection.objects.get(pk=collection_id)
    inputs = consensus_inputs(collection_id=collection_id)
    # {topic: {doc: {who: grade}}}: the topics someone judged (an adjudicated-only topic has labels, no assessors)
    judgments = {topic: documents for topic, (documents, _) in inputs.items() if documents}
    advisory = sources.advisory_accounts(collection=collection)
    labels = {
        topic: result.labels
        for topic, result in consensus_labels(collection=collection, inputs=inputs, advisory=advisory).items()
    }
    items = {(t, d): grades for t, documents in judgments.items() for d, grades in documents.items()}
    report = _agreement(collection, items, lambda key: labels[key[0]].get(key[1]), advisory=advisory)
    counted = {t: sources.counted_grades(documents, advisory=advisory) for t, documents in judgments.items()}
    counted = {t: grades for t, grades in counted.items() if grades}
    if any(labels.values()):
        topic_ids = list(Topic.objects.filter(collection_id=collection_id).order_by("id").values_list("id", flat=True))
        # From the worker's prepared rankings: reading every ranking of the collection again took most of the time.
        runs = ranking_cache.collection_runs(topic_ids=topic_ids)
        if len(runs.tags):
            report["system_ranking"] = system_ranking_agreement(
                counted,
                labels,
                runs,
                measure=collection.agreement_measure,
                **engine_options(collection),
            )
    storage.store_collection_agreement(collection, generation, report)


def topics_recompute(*, topic_ids: list[int]) -> int:
    """Recomputes each topic in turn (a batch sent by a bulk change or the sweep); returns how many had work."""
    return sum(bool(topic_recompute(topic_id=topic_id)) for topic_id in topic_ids)


def collection_recompute(*, collection_id: int, progress: Callable[[int, int], None] | None = None, since=None) -> int:
    """Marks every topic stale and recomputes them all (and the collection-wide agreement) in this process,
    reporting (done, total) to `progress`. Returns the number of topics. With `since` (the job's start, when a
    job whose worker died runs again), topics computed since then are its checkpoint: they are not marked again,
    so the work resumes where it stopped (a change since then has marked them stale anyway)."""
    topic_ids = list(Topic.objects.filter(collection_id=collection_id).order_by("id").values_list("id", flat=True))
    now = timezone.now()
    with transaction.atomic():
        for topic_id in topic_ids:
            TopicState.objects.get_or_create(topic_id=topic_id)
        to_redo = TopicState.objects.filter(topic_id__in=topic_ids)
        if since is not None:
            to_redo = to_redo.filter(Q(computed_at__isnull=True) | Q(computed_at__lt=since))
        to_redo.update(dirty=True, generation=F("generation") + 1, dirty_since=now)
        CollectionState.objects.get_or_create(collection_id=collection_id)
        # With a timestamp, so that a recompute killed half-way is taken up by the sweep.
        CollectionState.objects.filter(pk=collection_id).update(
            dirty=True, generation=F("generation") + 1, dirty_since=Coalesce(F("dirty_since"), Value(now))
        )
    total = len(topic_ids) + 1
    for done, topic_id in enumerate(topic_ids, start=1):
        topic_recompute(topic_id=topic_id, taking_along=0)  # each topic stored as done: the progress, the checkpoint
        if progress:
            progress(done, total)
    # The topics moved the runs' totals only by what changed; a full recompute also rebuilds them from the stored
    # values, so totals that were lost or edited by hand come back.
    totals.runs_aggregate(collection=Collection.objects.get(pk=collection_id))
    collection_agreement_recompute(collection_id=collection_id)
    if progress:
        progress(total, total)
    return len(topic_ids)


RECOMPUTE_TASK = "evaluation.tasks.recompute_collection"
# What the job page shows of this work; registered in the app's ready().
RECOMPUTE_JOB = job_kinds.JobKind(RECOMPUTE_TASK, "Full recompute", "evaluation/jobs/_recompute_result.html")


def collection_recompute_start(*, collection: Collection, created_by=None):
    """Starts a full recompute as a Job (the API's, the pages' and the Django admin's one way in)."""
    return jobs.job_start(
        kind="recompute", task=RECOMPUTE_TASK, arguments={}, collection=collection, created_by=created_by
    )


def collection_recompute_job_work(job, progress) -> dict:
    """The work of a recompute Job: `collection_recompute` reporting its progress, resuming from its checkpoint
    (the topics computed since the job was created) when it runs again after its worker died."""
    return {"topics": collection_recompute(collection_id=job.collection_id, progress=progress, since=job.created_at)}
