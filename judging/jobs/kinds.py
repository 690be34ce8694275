"""Every kind of Job, registered once beside the service that starts it: the Celery task that runs it (a Job's
`task`, the registry's key), what the job page calls it, the partial that shows a finished job's result, and where
to upload a corrected file when it failed. The job page reads these, so a new kind of work is one `register` call,
never another branch in a template."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.urls import reverse


@dataclass(frozen=True)
class JobKind:
    task: str
    label: str
    result_template: str | None = None  # rendered with `job` and `r` (its result) once the job is done
    corrected_file_url: Callable | None = None  # job -> the page that takes a corrected upload, for a failed job
    running_template: str | None = None  # rendered with `job` and `r`, its running figures, while it runs
    cancellable: bool = False  # its work stops when asked (`jobs.job_cancel`)


REGISTRY: dict[str, JobKind] = {}


def register(kind: JobKind) -> JobKind:
    REGISTRY[kind.task] = kind
    return kind


def kind_of(job) -> JobKind:
    """The job's kind; a task no longer registered (an old row) gets a plain one named after the job."""
    return REGISTRY.get(job.task) or JobKind(task=job.task, label=job.kind)


def import_page(job) -> str | None:
    return reverse("judging:import", args=[job.collection_id]) if job.collection_id else None
