"""Celery tasks: one-line adapters over evaluation services. They take ids only and are safe to run twice."""

from celery import shared_task

from evaluation import services
from evaluation.analysis import trial_runs
from evaluation.nuggets import services as answer_services
from evaluation.online import services as search_logs
from judging.jobs import runner as jobs

# A recompute is idempotent: retried with backoff through a broker or database hiccup.
RETRIED = dict(acks_late=True, autoretry_for=(Exception,), retry_backoff=True, retry_backoff_max=60, max_retries=8)


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


@shared_task(name="evaluation.tasks.sweep_stale_topics", acks_late=True)
def sweep_stale_topics() -> int:
    return services.stale_topics_sweep()


@shared_task(name="evaluation.tasks.recompute_collection", acks_late=True)
def recompute_collection(job_id: int) -> dict:
    # Safe to run twice: a second full recompute finds every topic fresh, or recomputes it to the same values.
    return jobs.job_run(job_id, services.collection_recompute_job_work)


@shared_task(name="evaluation.tasks.trial_run", acks_late=True)
def trial_run(job_id: int) -> dict:
    return jobs.job_run(job_id, trial_runs.trial_run_job_work)


@shared_task(name="evaluation.tasks.import_search_log", acks_late=True)
def import_search_log(job_id: int) -> dict:
    # Safe to run twice: the log's store skips the ids it already holds.
    return jobs.job_run(job_id, search_logs.search_log_import_job_work)


@shared_task(name="evaluation.tasks.recompute_answer_topic", **RETRIED)
def recompute_answer_topic(topic_id: int) -> bool:
    return answer_services.answer_topic_recompute(topic_id=topic_id)


@shared_task(name="evaluation.tasks.recompute_answer_topics", **RETRIED)
def recompute_answer_topics(topic_ids: list[int]) -> int:
    return answer_services.answer_topics_recompute(topic_ids=topic_ids)
