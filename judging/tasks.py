"""Celery tasks of the judging app: one-line adapters; each takes a Job's id and runs through `jobs.job_run`."""

from celery import shared_task

from judging.jobs import runner as jobs
from judging.services import pools


@shared_task(name="judging.tasks.build_pool", acks_late=True)
def build_pool(job_id: int) -> dict:
    # Safe to run twice (after a lost worker): building is incremental, a second run adds nothing.
    return jobs.job_run(job_id, pools.pool_build_job_work)
