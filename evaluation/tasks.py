"""Celery tasks: one-line adapters over evaluation services. They take ids only and are safe to run twice."""

from celery import shared_task

from . import services


@shared_task(acks_late=True, autoretry_for=(Exception,), retry_backoff=True, retry_backoff_max=60, max_retries=8)
def recompute_topic(topic_id: int) -> bool:
    return services.topic_recompute(topic_id=topic_id)


@shared_task(acks_late=True, autoretry_for=(Exception,), retry_backoff=True, retry_backoff_max=60, max_retries=8)
def recompute_collection_agreement(collection_id: int) -> bool:
    return services.collection_agreement_recompute(collection_id=collection_id)


@shared_task(acks_late=True)
def sweep_stale_topics() -> int:
    return services.stale_topics_sweep()


@shared_task(acks_late=True)
def recompute_collection(collection_id: int, job_id: int | None = None) -> int:
    return services.collection_recompute_job(collection_id=collection_id, job_id=job_id)
