"""Celery task of the jobs platform: the periodic sweep that ends or re-sends stalled jobs (name pinned)."""

from celery import shared_task

from judging.jobs import runner as jobs


@shared_task(name="judging.tasks.sweep_jobs", acks_late=True)
def sweep_jobs() -> int:
    return jobs.jobs_sweep()
