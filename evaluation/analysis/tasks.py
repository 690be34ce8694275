"""Celery task of the analysis feature: a trial run through the one job runner (name pinned, as it was in
`evaluation.tasks`)."""

from celery import shared_task

from evaluation.analysis import trial_runs
from judging.jobs import runner as jobs


@shared_task(name="evaluation.tasks.trial_run", acks_late=True)
def trial_run(job_id: int) -> dict:
    return jobs.job_run(job_id, trial_runs.trial_run_job_work)
