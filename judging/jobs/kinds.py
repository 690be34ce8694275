"""Every kind of Job: the Celery task that runs it (a Job's `task`, the registry's key), what the job page calls it,
the partial that shows a finished job's result, and where to upload a corrected file when it failed. Each service
that starts a kind of job declares its JobKind beside it; the apps register them in their `ready()`, explicitly and
nowhere else. The job page reads the registry, so a new kind of work is one declaration and one name in `ready()`,
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
    # It writes its collection's data (topics, documents, runs, qrels, the pool): such jobs of one collection run one
    # at a time in the order they were started, so a script's documents import is in before its runs import reads.
    in_order: bool = False


REGISTRY: dict[str, JobKind] = {}


def register(*kinds: JobKind) -> None:
    for kind in kinds:
        REGISTRY[kind.task] = kind


def kind_of(job) -> JobKind:
    """The job's kind; a task no longer registered (an old row) gets a plain one named after the job."""
    return REGISTRY.get(job.task) or JobKind(task=job.task, label=job.kind)


def in_order_tasks() -> list[str]:
    """The tasks of every kind that runs in order within its collection (`JobKind.in_order`)."""
    return [task for task, kind in REGISTRY.items() if kind.in_order]


def import_page(job) -> str | None:
    return reverse("judging:import", args=[job.collection_id]) if job.collection_id else None
