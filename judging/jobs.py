"""Progress of long work (imports, pool builds, full recomputes) as Job rows the pages and the API poll.

`job_tracker` turns a Job into the `progress(done, total)` callback the services accept; it writes at most a few
times a second, so reporting never dominates the work.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from .models import Job, JobState

__all__ = ["Job", "job_create", "job_finish", "job_tracker"]

MIN_SECONDS_BETWEEN_WRITES = 0.25


def job_create(*, kind: str, collection=None, created_by=None, total: int = 0) -> Job:
    return Job.objects.create(kind=kind, collection=collection, created_by=created_by, total=total)


def job_tracker(job_id: int | None) -> Callable[[int, int], None]:
    last = [0.0]

    def progress(done: int, total: int) -> None:
        now = time.monotonic()
        if job_id is None or (now - last[0] < MIN_SECONDS_BETWEEN_WRITES and done < total):
            return
        last[0] = now
        Job.objects.filter(pk=job_id).update(state=JobState.RUNNING, done=done, total=total)

    return progress


def job_finish(job_id: int | None, *, result: dict | None = None, error: str = "") -> None:
    if job_id is None:
        return
    state = JobState.FAILED if error else JobState.DONE
    Job.objects.filter(pk=job_id).update(state=state, message=error, result=result or {})
