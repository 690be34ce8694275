"""Celery tasks of the judging app: one-line adapters over services; they take ids and paths only."""

from celery import shared_task

from . import pools
from .importers import services as imports


@shared_task(acks_late=True)
def import_file(job_id: int, kind: str, path: str, name: str, skip_invalid: bool = False) -> dict:
    # Not retried: a refused file fails the same way twice, and the Job already says why.
    return imports.import_job_run(job_id=job_id, kind=kind, path=path, name=name, skip_invalid=skip_invalid)


@shared_task(acks_late=True)
def pool_build(job_id: int, collection_id: int, strategy: str, size: int, run_ids: list[int], more: bool) -> dict:
    # Safe to run twice (after a lost worker): building is incremental, a second run adds nothing.
    return pools.pool_build_job(
        job_id=job_id, collection_id=collection_id, strategy=strategy, size=size, run_ids=run_ids, more_assessors=more
    )
