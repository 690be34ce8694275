"""Celery tasks of the machines feature: a judge's run and its probe, each through the one job runner. Names
are pinned (those they had in `judging.tasks`), so queued messages and stored Jobs stay valid."""

from celery import shared_task

from judging.jobs import runner as jobs
from judging.machines import services as machine_judges


@shared_task(name="judging.tasks.machine_judge_run", acks_late=True)
def machine_judge_run(job_id: int) -> dict:
    # Safe to run twice (after a lost worker): every reply is kept as it arrives, a second run asks only the rest.
    return jobs.job_run(job_id, machine_judges.machine_judge_run_job_work)


@shared_task(name="judging.tasks.machine_judge_probe", acks_late=True)
def machine_judge_probe(job_id: int) -> dict:
    # Safe to run twice: a probe run records no label, a second run replaces the report.
    return jobs.job_run(job_id, machine_judges.machine_judge_probe_job_work)
