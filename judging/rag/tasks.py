"""Celery tasks of the RAG nugget feature: a machine proposing nuggets, assigning them, judging support.
Names are pinned (those they had in `judging.tasks`), so queued messages and stored Jobs stay valid."""

from celery import shared_task

from judging.jobs import runner as jobs
from judging.rag.services import machine as machine_nuggets


@shared_task(name="judging.tasks.nuggets_propose", acks_late=True)
def nuggets_propose(job_id: int) -> dict:
    # Safe to run twice: a topic the judge has proposed nuggets for is not asked again.
    return jobs.job_run(job_id, machine_nuggets.nuggets_propose_job_work)


@shared_task(name="judging.tasks.nuggets_assign", acks_late=True)
def nuggets_assign(job_id: int) -> dict:
    # Safe to run twice: an answer whose nuggets the judge has all labelled is not asked again.
    return jobs.job_run(job_id, machine_nuggets.nuggets_assign_job_work)


@shared_task(name="judging.tasks.support_judge", acks_late=True)
def support_judge(job_id: int) -> dict:
    # Safe to run twice: a citation the judge has judged is not asked again.
    return jobs.job_run(job_id, machine_nuggets.support_judge_job_work)
