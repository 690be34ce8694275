"""Celery task of the datasets feature: an ir_datasets import through the one job runner (name pinned, as it
was in `judging.tasks`)."""

from celery import shared_task

from judging.datasets import services as datasets
from judging.jobs import runner as jobs


@shared_task(name="judging.tasks.import_dataset", acks_late=True)
def import_dataset(job_id: int) -> dict:
    # Safe to run twice: every part is an upsert (topics, documents) or the same labels again (qrels).
    return jobs.job_run(job_id, datasets.dataset_import_job_work)
