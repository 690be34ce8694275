"""Celery tasks: one-line adapters over evaluation services. They take ids only and are safe to run twice."""

from celery import shared_task

from config.celery import RECOMPUTE_RETRY as RETRIED
from evaluation import services
from judging.jobs import runner as jobs


@shared_task(name="evaluation.tasks.recompute_topic", **RETRIED)
def recompute_topic(topic_id: int) -> bool:
    return services.topic_recompute(topic_id=topic_id)


@shared_task(name="evaluation.tasks.recompute_topics", **RETRIED)
def recompute_topics(topic_ids: list[int]) -> int:
    # A batch from a bulk change or the sweep; a retry redoes only the topics still dirty (the others are no-ops).
    return services.topics_recompute(topic_ids=topic_ids)


@shared_task(name="evaluation.tasks.recompute_collection_agreement", **RETRIED)
def recompute_collection_agreement(collection_id: int) -> bool:
    return services.collection_agreement_recompute(collection_id=collection_id)


@shared_task(name="evaluation.tasks.recount_run_totals", **RETRIED)
def recount_run_totals(collection_id: int) -> bool:
    return services.run_totals_recount(collection_id=collection_id)


@shared_task(name="evaluation.tasks.sweep_stale_topics", acks_late=True)
def sweep_stale_topics() -> int:
    return services.stale_topics_sweep()


@shared_task(name="evaluation.tasks.recompute_collection", acks_late=True)
def recompute_collection(job_id: int) -> dict:
    # Safe to run twice: a second full recompute finds every topic fresh, or recomputes it to the same values.
    return jobs.job_run(job_id, services.collection_recompute_job_work)
