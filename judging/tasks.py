"""Celery tasks of the judging app: one-line adapters over services; they take ids and paths only."""

from celery import shared_task

from .importers import services as imports


@shared_task(acks_late=True)
def import_file(job_id: int, kind: str, path: str, name: str, skip_invalid: bool = False) -> dict:
    # Not retried: a refused file fails the same way twice, and the Job already says why.
    return imports.import_job_run(job_id=job_id, kind=kind, path=path, name=name, skip_invalid=skip_invalid)
