"""Celery task of the imports feature: a file import, run through the one job runner. Its name is pinned
(the name it had in `judging.tasks`), so queued messages and stored Jobs stay valid."""

from celery import shared_task

from judging.imports import services as imports
from judging.jobs import runner as jobs


@shared_task(name="judging.tasks.import_file", acks_late=True)
def import_file(job_id: int) -> dict:
    # Not retried: a refused file fails the same way twice, and the Job already says why.
    return jobs.job_run(job_id, imports.import_job_work)
