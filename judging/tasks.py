"""Celery tasks of the judging app: one-line adapters; each takes a Job's id and runs through `jobs.job_run`."""

from celery import shared_task

from judging.datasets import services as datasets
from judging.imports import services as imports
from judging.jobs import runner as jobs
from judging.machines import services as machine_judges
from judging.nuggets.services import machine as machine_nuggets
from judging.search_fetch import services as searches
from judging.services import pools


@shared_task(name="judging.tasks.import_file", acks_late=True)
def import_file(job_id: int) -> dict:
    # Not retried: a refused file fails the same way twice, and the Job already says why.
    return jobs.job_run(job_id, imports.import_job_work)


@shared_task(name="judging.tasks.build_pool", acks_late=True)
def build_pool(job_id: int) -> dict:
    # Safe to run twice (after a lost worker): building is incremental, a second run adds nothing.
    return jobs.job_run(job_id, pools.pool_build_job_work)


@shared_task(name="judging.tasks.sweep_jobs", acks_late=True)
def sweep_jobs() -> int:
    return jobs.jobs_sweep()


@shared_task(name="judging.tasks.machine_judge_run", acks_late=True)
def machine_judge_run(job_id: int) -> dict:
    # Safe to run twice (after a lost worker): every reply is kept as it arrives, a second run asks only the rest.
    return jobs.job_run(job_id, machine_judges.machine_judge_run_job_work)


@shared_task(name="judging.tasks.machine_judge_probe", acks_late=True)
def machine_judge_probe(job_id: int) -> dict:
    # Safe to run twice: a probe run records no label, a second run replaces the report.
    return jobs.job_run(job_id, machine_judges.machine_judge_probe_job_work)


@shared_task(name="judging.tasks.search_fetch", acks_late=True)
def search_fetch(job_id: int) -> dict:
    # Run twice (after a lost worker), it makes a second snapshot: a fetch is a moment, both are true.
    return jobs.job_run(job_id, searches.snapshot_fetch_job_work)


@shared_task(name="judging.tasks.search_fetches_due", acks_late=True)
def search_fetches_due() -> list[int]:
    return searches.snapshot_fetches_due()


@shared_task(name="judging.tasks.import_dataset", acks_late=True)
def import_dataset(job_id: int) -> dict:
    # Safe to run twice: every part is an upsert (topics, documents) or the same labels again (qrels).
    return jobs.job_run(job_id, datasets.dataset_import_job_work)


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
