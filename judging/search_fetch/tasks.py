"""Celery tasks of the live-search feature: one fetch, and the periodic look for fetches due. Names are
pinned (those they had in `judging.tasks`), so queued messages and stored Jobs stay valid."""

from celery import shared_task

from judging.jobs import runner as jobs
from judging.search_fetch import services as searches


@shared_task(name="judging.tasks.search_fetch", acks_late=True)
def search_fetch(job_id: int) -> dict:
    # Run twice (after a lost worker), it makes a second snapshot: a fetch is a moment, both are true.
    return jobs.job_run(job_id, searches.snapshot_fetch_job_work)


@shared_task(name="judging.tasks.search_fetches_due", acks_late=True)
def search_fetches_due() -> list[int]:
    return searches.snapshot_fetches_due()
