"""Long work (imports, pool builds, full recomputes, trial runs) as Job rows that the pages and the API poll.

One path for every kind: `job_start` creates the Job and enqueues its task after commit; the task is a one-line
adapter over `job_run`, which claims the Job, reports progress, and always ends it as done or failed, whatever the
work raises. A Job whose message never reached a worker (broker down) or whose worker died is sent again by
`jobs_sweep`; claiming is a compare-and-set, so a duplicate message runs nothing twice.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from config import sql
from config.broker import messages_waiting
from judging.jobs import kinds as job_kinds
from judging.jobs.models import Job, JobState
from judging.jobs.uploads import upload_delete, uploads_purge

__all__ = [
    "Job",
    "JobCancelled",
    "JobRefused",
    "job_cancel",
    "job_cancel_requested",
    "job_retry",
    "job_run",
    "job_start",
    "job_tracker",
    "jobs_sweep",
]

logger = logging.getLogger(__name__)

MIN_SECONDS_BETWEEN_WRITES = 0.25
RESEND_QUEUED_AFTER = timedelta(seconds=30)
# A running job's worker stamps it this often (a heartbeat, beside its progress); a job silent for STALLED_AFTER
# lost its worker (killed, its machine gone) and the sweep, every 15 s, queues it again: noticed within ~75 s.
HEARTBEAT_SECONDS = 10.0
STALLED_AFTER = timedelta(seconds=60)
KEEP_FAILED_UPLOADS = timedelta(days=7)
WAITING_FOR_BROKER = "Waiting: the task queue could not be reached; the job starts as soon as it is back."

Progress = Callable[[int, int], None]


class JobRefused(Exception):
    """The work ended on an expected refusal (a malformed file, an impossible pool): the Job fails with `message`
    and `result` (e.g. the problems by file and line), and nothing is logged as an error."""

    def __init__(self, message: str, result: dict | None = None):
        super().__init__(message)
        self.message, self.result = message, result or {}


class JobCancelled(Exception):
    """The work stopped because the Job was cancelled (`job_cancel`): the Job ends cancelled with `result` (what was
    done before it stopped, which is kept)."""

    def __init__(self, result: dict | None = None):
        super().__init__("cancelled")
        self.result = result or {}


def job_cancel(*, job: Job) -> bool:
    """Asks a queued or running Job to stop: a queued one is cancelled at once, a running one at its work's next
    check (`job_cancel_requested`). Returns False when the Job had already ended."""
    if Job.objects.filter(pk=job.pk, state=JobState.QUEUED).update(
        state=JobState.CANCELLED,
        cancel_requested=True,
        message="Cancelled before it started.",
        updated_at=timezone.now(),
    ):
        _send_next_in_order(job.pk)  # one waiting for it goes ahead
        return True
    return bool(Job.objects.filter(pk=job.pk, state=JobState.RUNNING).update(cancel_requested=True))


def job_cancel_requested(job_id: int) -> bool:
    return Job.objects.filter(pk=job_id, cancel_requested=True).exists()


def _task(name: str):
    from config.celery import app

    app.loader.import_default_modules()  # the tasks of every app, also in a process that has not run one yet
    return app.tasks[name]


def job_enqueue(job_id: int) -> bool:
    """Sends a Job's task; returns False (and says so on the Job) when the broker cannot be reached. Never raises:
    the Job stays queued and the sweep sends it again. In embedded mode (WORKBENCH_JOBS_IN_THREADS) the task runs in
    a thread of this process instead, so the request that started it is not held for the whole job."""
    job = Job.objects.filter(pk=job_id).only("task").first()
    if job is None:
        return False
    if settings.WORKBENCH_JOBS_IN_THREADS:
        threading.Thread(target=_run_here, args=(job.task, job_id), name=f"job-{job_id}", daemon=True).start()
        return True
    try:
        _task(job.task).apply_async(args=[job_id], retry=False)
    except Exception:
        logger.warning("could not enqueue job %s (%s); the sweep will", job_id, job.task, exc_info=True)
        Job.objects.filter(pk=job_id, state=JobState.QUEUED).update(message=WAITING_FOR_BROKER)
        return False
    return True


def _run_here(task: str, job_id: int) -> None:
    from django.db import connection

    try:
        _task(task).apply(args=[job_id], throw=False)  # job_run ends the Job whatever the work raises
    finally:
        connection.close()


def job_start(*, kind: str, task: str, arguments: dict, collection=None, created_by=None, upload=None) -> Job:
    """Creates a queued Job and sends its task after the surrounding transaction commits (never before: the worker
    must find the row). `task` is the Celery task's name; it is called with the Job's id only. `kind` is a label:
    one longer than the column is shortened (a long judge's or dataset's name once made this a server error)."""
    most = Job._meta.get_field("kind").max_length
    kind = kind if len(kind) <= most else kind[: most - 1] + "…"
    job = Job.objects.create(
        kind=kind, task=task, arguments=arguments, collection=collection, created_by=created_by, upload=upload
    )
    transaction.on_commit(lambda: job_enqueue(job.id))
    return job


def job_retry(*, job: Job, created_by=None, **changes) -> Job:
    """Starts a failed Job again as a new Job with the same work (and upload), `changes` overriding arguments."""
    if job.state != JobState.FAILED:
        raise ValueError("only a failed job can be retried")
    arguments = {**job.arguments, **changes}
    retry = job_start(
        kind=job.kind,
        task=job.task,
        arguments=arguments,
        collection=job.collection,
        created_by=created_by or job.created_by,
        upload=job.upload,
    )
    Job.objects.filter(pk=retry.pk).update(retry_of=job)
    return retry


def job_tracker(job_id: int | None) -> Progress:
    """The `progress(done, total, detail=None)` callback services accept, writing to the Job at most a few times a
    second; `detail`, a dict of running figures (failures, tokens...), is the running Job's result until it ends."""
    last = [0.0]

    def progress(done: int, total: int, detail: dict | None = None) -> None:
        now = time.monotonic()
        if job_id is None or (now - last[0] < MIN_SECONDS_BETWEEN_WRITES and done < total):
            return
        last[0] = now
        fields = {"done": done, "total": total, "updated_at": timezone.now()}
        if detail is not None:
            fields["result"] = detail
        Job.objects.filter(pk=job_id, state=JobState.RUNNING).update(**fields)

    return progress


def _finish(job_id: int, *, result: dict | None = None, error: str = "") -> None:
    state = JobState.FAILED if error else JobState.DONE
    Job.objects.filter(pk=job_id).update(state=state, message=error, result=result or {}, updated_at=timezone.now())


def _earlier_in_order(job_id: int) -> Job | None:
    """The job this one waits for, when its kind runs in order within its collection (`JobKind.in_order`): the
    earliest started job of such a kind in the same collection, queued or running, started before it."""
    tasks = job_kinds.in_order_tasks()
    job = Job.objects.filter(pk=job_id, task__in=tasks, collection__isnull=False).values("collection_id").first()
    if job is None:
        return None
    ahead = Job.objects.filter(
        collection_id=job["collection_id"], task__in=tasks, pk__lt=job_id, state__in=[JobState.QUEUED, JobState.RUNNING]
    )
    return ahead.order_by("pk").only("pk", "kind").first()


def _send_next_in_order(job_id: int) -> None:
    """After a job ends: sends the next queued job of its collection that waited for it (in order of starting)."""
    ended = Job.objects.filter(pk=job_id).values("collection_id", "task").first()
    if ended is None or ended["collection_id"] is None or ended["task"] not in job_kinds.in_order_tasks():
        return
    following = Job.objects.filter(
        collection_id=ended["collection_id"], task__in=job_kinds.in_order_tasks(), state=JobState.QUEUED, pk__gt=job_id
    )
    after = following.order_by("pk").values_list("pk", flat=True).first()
    if after is not None:
        job_enqueue(after)


def job_run(job_id: int, work: Callable[[Job, Progress], dict]) -> dict:
    """Runs `work(job, progress)` for a queued Job and ends the Job: done with the returned result, failed with a
    JobRefused's message and result, or failed with a plain sentence for anything else (logged with its traceback).
    A Job that is not queued (done, failed, or claimed by another worker) is left alone: returns {}. A Job whose
    kind runs in order within its collection and that an earlier one is still ahead of stays queued, saying which
    it waits for; the earlier one sends it when it ends (and the sweep, should that message be lost)."""
    ahead = _earlier_in_order(job_id)
    if ahead is not None:
        Job.objects.filter(pk=job_id, state=JobState.QUEUED).update(
            message=f"Waiting for job {ahead.pk} ({ahead.kind}) of this collection to finish: its imports run in "
            "the order they were started.",
            updated_at=timezone.now(),
        )
        if _earlier_in_order(job_id) is None:  # it ended meanwhile, before it could send this one
            return job_run(job_id, work)
        return {}
    claimed = Job.objects.filter(pk=job_id, state=JobState.QUEUED).update(
        state=JobState.RUNNING, started_at=timezone.now(), message=""
    )
    if not claimed:
        return {}
    try:
        return _run_claimed(job_id, work)
    finally:
        _send_next_in_order(job_id)


def _run_claimed(job_id: int, work: Callable[[Job, Progress], dict]) -> dict:
    job = Job.objects.select_related("collection", "created_by", "upload").get(pk=job_id)
    try:
        with _heartbeat(job_id):
            result = work(job, job_tracker(job_id))
    except JobCancelled as cancelled:
        Job.objects.filter(pk=job_id).update(
            state=JobState.CANCELLED, message="Cancelled.", result=cancelled.result, updated_at=timezone.now()
        )
        return cancelled.result
    except JobRefused as refusal:
        _finish(job_id, result=refusal.result, error=refusal.message)
        return refusal.result
    except Exception as error:
        logger.exception("job %s (%s) failed", job_id, job.kind)
        _finish(
            job_id,
            error=f"The job stopped on an unexpected error ({type(error).__name__}); nothing was "
            "half-saved. Retry it; if it fails again, an operator will find the details in the log.",
        )
        return {}
    _finish(job_id, result=result)
    if job.upload_id:  # kept while the job may be retried; done, it is no longer needed
        upload_delete(upload_id=job.upload_id)
    return result


@contextlib.contextmanager
def _heartbeat(job_id: int) -> Iterator[None]:
    """Stamps the running Job every HEARTBEAT_SECONDS from a thread of its own, so a long step that reports no
    progress (reading a large file, one slow query) is not taken for a dead worker. Not on SQLite: the embedded mode
    runs jobs in the web process, with no sweep to tell, and a second writer there would only wait on the first."""
    if not sql.concurrent_writers():
        yield
        return
    stop = threading.Event()

    def beat() -> None:
        from django.db import connection as own

        try:
            while not stop.wait(HEARTBEAT_SECONDS):
                Job.objects.filter(pk=job_id, state=JobState.RUNNING).update(updated_at=timezone.now())
        except Exception:  # a missed beat is what the sweep is for; it must never end the job
            logger.warning("job %s: heartbeat failed", job_id, exc_info=True)
        finally:
            own.close()

    thread = threading.Thread(target=beat, name=f"job-{job_id}-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=HEARTBEAT_SECONDS)


def job_queue(task: str) -> str:
    """The Celery queue a Job's task is routed to."""
    from django.conf import settings

    return settings.CELERY_TASK_ROUTES.get(task, {}).get("queue", settings.CELERY_TASK_DEFAULT_QUEUE)


def waiting_for_a_worker(queue: str) -> str:
    return (
        f"Waiting for a worker: none has taken this job from the '{queue}' queue yet. If it stays queued, no "
        f"worker is consuming that queue (or all are busy): an operator starts one with "
        f"'celery -A config worker -Q {queue}' (docs/deployment.md)."
    )


def jobs_sweep(*, now=None) -> int:
    """Sends again every Job left queued whose message is not waiting in its queue (never sent: the broker was down
    when it started; or lost: the broker restarted empty, its worker was killed) and requeues every running Job
    whose worker stopped reporting (killed). A Job whose queue still holds messages is not sent again (each resend
    was one more copy for the worker to come); it says instead that no worker is taking its queue. Returns how many
    were sent."""
    now = now or timezone.now()
    stalled = list(
        Job.objects.filter(state=JobState.RUNNING, updated_at__lt=now - STALLED_AFTER).values_list("pk", flat=True)
    )
    Job.objects.filter(pk__in=stalled, state=JobState.RUNNING).update(
        state=JobState.QUEUED, message="Restarted: its worker stopped.", updated_at=now
    )
    uploads_purge(older_than=now - KEEP_FAILED_UPLOADS)
    # A job whose worker died is sent again at once (waiting RESEND_QUEUED_AFTER more made a restart take ~115 s).
    sent = sum(job_enqueue(job_id) for job_id in stalled)
    waiting = Job.objects.filter(state=JobState.QUEUED, updated_at__lt=now - RESEND_QUEUED_AFTER)
    lengths = {}
    for job_id, task, message in list(waiting.values_list("pk", "task", "message")[:100]):
        queue = job_queue(task)
        if queue not in lengths:
            lengths[queue] = messages_waiting(queue)
        if message != WAITING_FOR_BROKER and lengths[queue] != 0:  # on its way (or the broker cannot tell)
            Job.objects.filter(pk=job_id).update(updated_at=now, message=waiting_for_a_worker(queue))
            continue
        Job.objects.filter(pk=job_id).update(updated_at=now, message="")
        sent += job_enqueue(job_id)
    return sent
