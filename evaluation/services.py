"""Writes of the evaluation app: marking topics stale, recomputing a topic's metrics and agreement, sweeping.

The data flow (see STYLE.md): a judgment write calls `topics_changed` inside its transaction; the flag flips to
dirty and, only on that flip, a recompute is enqueued after commit. The task clears the flag first, computes from
the stored judgments and rankings with the pure engines, and upserts results stamped with the generation it read.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from datetime import timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from judging import selectors as judging_selectors
from judging.models import Collection, Run, Topic

from . import agreement
from .consensus import consensus
from .measures import PreparedQrels, PreparedRun, RunSet, as_measures, evaluate
from .models import RunValue, TopicAgreement, TopicState, TopicValue
from .selectors import run_topic_values

logger = logging.getLogger(__name__)

SWEEP_AFTER = timedelta(seconds=5)
AGREEMENT_STATISTICS = ("percent_agreement", "fleiss_kappa", "krippendorff_alpha_ordinal", "overlap", "gwet_ac1")


def _enqueue(topic_id: int) -> None:
    from .tasks import recompute_topic

    try:
        recompute_topic.delay(topic_id)
    except Exception:  # broker down: the judgment is saved and the topic stays dirty; the sweep will retry
        logger.warning("could not enqueue recompute of topic %s; the periodic sweep will", topic_id, exc_info=True)


def topics_changed(*, topic_ids: Iterable[int]) -> None:
    """Marks topics stale; call inside the transaction that changed their judgments or rankings.

    Bumps each topic's generation. Enqueues one recompute per topic, after commit, only for topics whose flag flips
    from clean to dirty: many changes while a recompute is pending cause no extra messages.
    """
    now = timezone.now()
    for topic_id in sorted(set(topic_ids)):
        TopicState.objects.get_or_create(topic_id=topic_id)
        flipped = TopicState.objects.filter(topic_id=topic_id, dirty=False).update(
            dirty=True, generation=F("generation") + 1, dirty_since=now
        )
        if flipped:
            transaction.on_commit(lambda t=topic_id: _enqueue(t))
        else:
            TopicState.objects.filter(topic_id=topic_id).update(generation=F("generation") + 1)


def collection_changed(*, collection_id: int) -> None:
    """Marks every topic of a collection stale (its threshold, consensus method or measure set changed)."""
    topics_changed(topic_ids=Topic.objects.filter(collection_id=collection_id).values_list("id", flat=True))


def _settings_key(collection: Collection) -> str:
    return (
        f"rel>={collection.relevance_threshold};scale=0..{collection.max_grade};consensus={collection.consensus_method}"
    )


def topic_qrels(*, topic_id: int, method: str) -> dict[int, int]:
    """The topic's consensus labels {document id: grade} from every assessor's stored judgments."""
    return consensus(judging_selectors.topic_judgments(topic_id=topic_id), method).labels


def topic_recompute(*, topic_id: int) -> bool:
    """Recomputes one topic's per-run values and agreement, then the runs' aggregates. Idempotent.

    Returns False when the topic was already clean (another worker did it). Clears the dirty flag before computing,
    so a judgment that lands meanwhile re-dirties the topic and causes exactly one more run; results carry the
    generation read here, and a slower, older computation never overwrites a newer one.
    """
    with transaction.atomic():
        state = TopicState.objects.select_for_update().filter(topic_id=topic_id).first()
        if state is None or not state.dirty:
            return False
        generation = state.generation
        TopicState.objects.filter(pk=topic_id).update(dirty=False, dirty_since=None)
    collection = judging_selectors.collection_for_topic(topic_id=topic_id)
    judgments = judging_selectors.topic_judgments(topic_id=topic_id)
    labels = consensus(judgments, collection.consensus_method).labels
    rankings = judging_selectors.topic_rankings(topic_id=topic_id)
    measures = as_measures(collection.measures)
    values = []
    if labels and rankings:
        runs = RunSet([PreparedRun.from_rankings(str(run_id), {topic_id: docs}) for run_id, docs in rankings.items()])
        result = evaluate(
            PreparedQrels.from_mapping({topic_id: labels}),
            runs,
            measures,
            relevance_level=collection.relevance_threshold,
            max_grade=collection.max_grade,
            collection_size=collection.collection_size or collection.documents.count(),
        )
        for tag, run_result in result.runs.items():
            for measure, value in zip(measures, run_result.values[0], strict=True):
                values.append((int(tag), str(measure), None if value != value else float(value)))
    report = agreement.agreement_report(
        list(judgments.values()), categories=range(collection.max_grade + 1), threshold=collection.relevance_threshold
    )
    _store_topic(collection, topic_id, generation, values, report, len(judgments))
    return True


@transaction.atomic
def _store_topic(collection: Collection, topic_id: int, generation: int, values, report, items: int) -> None:
    state = TopicState.objects.select_for_update().get(pk=topic_id)
    if state.computed_generation > generation:
        return  # a newer computation already stored its results
    key = _settings_key(collection)
    TopicValue.objects.filter(topic_id=topic_id).exclude(run_id__in={run_id for run_id, _, _ in values}).delete()
    TopicValue.objects.bulk_create(
        [
            TopicValue(run_id=run_id, topic_id=topic_id, measure=m, value=v, generation=generation, settings_key=key)
            for run_id, m, v in values
        ],
        update_conflicts=True,
        unique_fields=["run", "topic", "measure"],
        update_fields=["value", "generation", "settings_key", "computed_at"],
    )
    statistics = {
        "percent_agreement": report["graded"]["percent_agreement"],
        "fleiss_kappa": report["graded"]["fleiss_kappa"],
        "krippendorff_alpha_ordinal": report["graded"]["krippendorff_alpha_ordinal"],
        "gwet_ac1": report["graded"]["gwet_ac1"],
        "overlap": report["binary"]["overlap"],
    }
    TopicAgreement.objects.filter(collection=collection, topic_id=topic_id).delete()
    TopicAgreement.objects.bulk_create(
        TopicAgreement(
            collection=collection, topic_id=topic_id, statistic=name, value=value, items=items, generation=generation
        )
        for name, value in statistics.items()
    )
    TopicState.objects.filter(pk=topic_id).update(
        computed_generation=generation, computed_at=timezone.now(), recompute_count=F("recompute_count") + 1
    )
    runs_aggregate(collection=collection)


def runs_aggregate(*, collection: Collection) -> None:
    """Recomputes every run's aggregates from the stored per-topic values (no topic is re-evaluated)."""
    from .measures import aggregate

    measures = as_measures(collection.measures)
    key = _settings_key(collection)
    stored = run_topic_values(collection_id=collection.id)
    rows = []
    for run in Run.objects.filter(collection=collection).only("id"):
        per_measure = stored.get(run.id, {})
        for measure in measures:
            topic_values = per_measure.get(str(measure), [])
            value = (
                aggregate(measure, [float("nan") if v is None else v for v in topic_values]) if topic_values else None
            )
            rows.append(
                RunValue(
                    run=run,
                    measure=str(measure),
                    value=None if value != value else value,
                    topics=len(topic_values),
                    settings_key=key,
                )
            )
    RunValue.objects.bulk_create(
        rows,
        update_conflicts=True,
        unique_fields=["run", "measure"],
        update_fields=["value", "topics", "settings_key", "computed_at"],
    )


def stale_topics_sweep(*, older_than: timedelta = SWEEP_AFTER) -> int:
    """Re-enqueues topics left dirty longer than `older_than` (lost message, broker outage, killed worker)."""
    cutoff = timezone.now() - older_than
    stale = list(TopicState.objects.filter(dirty=True, dirty_since__lt=cutoff).values_list("topic_id", flat=True))
    for topic_id in stale:
        _enqueue(topic_id)
    return len(stale)


def collection_recompute(*, collection_id: int, progress: Callable[[int, int], None] | None = None) -> int:
    """Marks every topic stale and recomputes them all in this process, reporting (done, total) to `progress`."""
    topic_ids = list(Topic.objects.filter(collection_id=collection_id).values_list("id", flat=True))
    with transaction.atomic():
        for topic_id in topic_ids:
            TopicState.objects.get_or_create(topic_id=topic_id)
        TopicState.objects.filter(topic_id__in=topic_ids).update(
            dirty=True, generation=F("generation") + 1, dirty_since=timezone.now()
        )
    for done, topic_id in enumerate(topic_ids, start=1):
        topic_recompute(topic_id=topic_id)
        if progress:
            progress(done, len(topic_ids))
    return len(topic_ids)
