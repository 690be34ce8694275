"""Celery task of the online feature: a search log's import through the one job runner (name pinned, as it
was in `evaluation.tasks`)."""

from celery import shared_task

from evaluation.online import services as search_logs
from judging.jobs import runner as jobs


@shared_task(name="evaluation.tasks.import_search_log", acks_late=True)
def import_search_log(job_id: int) -> dict:
    # Safe to run twice: the log's store skips the ids it already holds.
    return jobs.job_run(job_id, search_logs.search_log_import_job_work)
