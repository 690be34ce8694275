"""Storing computed results: per-topic values and agreement, collection agreement, and run aggregates."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Avg, Count, F, Sum
from django.utils import timezone

from judging.models import Collection, Run

from ..measures import aggregate, as_measures
from ..models import AgreementReport, CollectionState, RunValue, TopicAgreement, TopicState, TopicValue

# The per-topic statistics stored as rows (for the pages and the API to filter and average); the full report,
# matrices included, is stored as JSON beside them.
STORED_STATISTICS = {
    "percent_agreement": ("graded", "percent_agreement"),
    "fleiss_kappa": ("graded", "fleiss_kappa"),
    "krippendorff_alpha_ordinal": ("graded", "krippendorff_alpha_ordinal"),
    "krippendorff_alpha_nominal": ("graded", "krippendorff_alpha_nominal"),
    "gwet_ac1": ("graded", "gwet_ac1"),
    "cohen_kappa_quadratic": ("graded", "cohen_kappa_quadratic"),
    "binary_fleiss_kappa": ("binary", "fleiss_kappa"),
    "overlap": ("binary", "overlap"),
}


def settings_key(collection: Collection) -> str:
    """The evaluation settings a stored value depends on (measure parameters are in the measure's own name)."""
    return (
        f"rel>={collection.relevance_threshold};scale=0..{collection.max_grade};"
        f"consensus={collection.consensus_method};primary={collection.primary_assessor_id or '-'}"
    )


def _statistic_rows(collection: Collection, topic_id: int | None, report: dict, generation: int):
    items = report["graded"]["items"]
    return [
        TopicAgreement(
            collection=collection,
            topic_id=topic_id,
            statistic=name,
            value=report[view].get(key),
            items=items,
            generation=generation,
        )
        for name, (view, key) in STORED_STATISTICS.items()
    ]


@transaction.atomic
def store_topic(collection: Collection, topic_id: int, generation: int, values, report: dict) -> None:
    state = TopicState.objects.select_for_update().get(pk=topic_id)
    if state.computed_generation > generation:
        return  # a newer computation already stored its results
    key = settings_key(collection)
    TopicValue.objects.filter(topic_id=topic_id).exclude(run_id__in={run_id for run_id, _, _ in values}).delete()
    TopicValue.objects.filter(topic_id=topic_id).exclude(measure__in={m for _, m, _ in values}).delete()
    TopicValue.objects.bulk_create(
        [
            TopicValue(run_id=run_id, topic_id=topic_id, measure=m, value=v, generation=generation, settings_key=key)
            for run_id, m, v in values
        ],
        update_conflicts=True,
        unique_fields=["run", "topic", "measure"],
        update_fields=["value", "generation", "settings_key", "computed_at"],
    )
    TopicAgreement.objects.filter(collection=collection, topic_id=topic_id).delete()
    TopicAgreement.objects.bulk_create(_statistic_rows(collection, topic_id, report, generation))
    AgreementReport.objects.update_or_create(
        collection=collection,
        topic_id=topic_id,
        defaults={"report": report, "generation": generation, "settings_key": key},
    )
    TopicState.objects.filter(pk=topic_id).update(
        computed_generation=generation, computed_at=timezone.now(), recompute_count=F("recompute_count") + 1
    )
    runs_aggregate(collection=collection)


@transaction.atomic
def store_collection_agreement(collection: Collection, generation: int, report: dict) -> None:
    state = CollectionState.objects.select_for_update().get(pk=collection.pk)
    if state.computed_generation > generation:
        return
    TopicAgreement.objects.filter(collection=collection, topic__isnull=True).delete()
    TopicAgreement.objects.bulk_create(_statistic_rows(collection, None, report, generation))
    AgreementReport.objects.update_or_create(
        collection=collection,
        topic=None,
        defaults={"report": report, "generation": generation, "settings_key": settings_key(collection)},
    )
    CollectionState.objects.filter(pk=collection.pk).update(computed_generation=generation, computed_at=timezone.now())


def runs_aggregate(*, collection: Collection) -> None:
    """Recomputes every run's aggregates from the stored per-topic values, no topic re-evaluated.

    Means and sums are computed by the database (NULL, an undefined per-topic value, is left out of a mean as the
    engine does); only geometric means (GMAP) fetch their per-topic values.
    """
    measures = as_measures(collection.measures)
    key = settings_key(collection)
    qrels_version = (
        CollectionState.objects.filter(pk=collection.pk).values_list("qrels_version", flat=True).first() or 0
    )
    stored = TopicValue.objects.filter(run__collection=collection, measure__in=[str(m) for m in measures])
    summary = {
        (row["run_id"], row["measure"]): row
        for row in stored.values("run_id", "measure").annotate(
            topics=Count("id"), mean=Avg("value"), total=Sum("value")
        )
    }
    geometric = [str(m) for m in measures if m.spec.aggregate == "gmean"]
    per_topic: dict[tuple[int, str], list[float]] = {}
    for run_id, measure, value in stored.filter(measure__in=geometric).values_list("run_id", "measure", "value"):
        per_topic.setdefault((run_id, measure), []).append(float("nan") if value is None else value)
    rows = []
    for run_id in Run.objects.filter(collection=collection).values_list("id", flat=True):
        for measure in measures:
            row = summary.get((run_id, str(measure)))
            if row is None:
                value, topics = None, 0
            elif measure.spec.aggregate == "gmean":
                value, topics = aggregate(measure, per_topic[(run_id, str(measure))]), row["topics"]
            else:
                value, topics = (row["total"] if measure.spec.aggregate == "sum" else row["mean"]), row["topics"]
            rows.append(
                RunValue(
                    run_id=run_id,
                    measure=str(measure),
                    value=None if value is None or value != value else float(value),
                    topics=topics,
                    qrels_version=qrels_version,
                    settings_key=key,
                )
            )
    RunValue.objects.filter(run__collection=collection).exclude(measure__in=[str(m) for m in measures]).delete()
    RunValue.objects.bulk_create(
        rows,
        update_conflicts=True,
        unique_fields=["run", "measure"],
        update_fields=["value", "topics", "qrels_version", "settings_key", "computed_at"],
    )
