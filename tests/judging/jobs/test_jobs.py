"""The one job runner: every job ends as done or failed whatever its work raises, a job the broker never got is
sent again by the sweep, a duplicate message runs nothing twice, and uploads live in the database."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from judging.jobs import runner as jobs
from judging.jobs import uploads
from judging.jobs.models import Job, JobState, Upload
from tests.factories import make_collection

pytestmark = pytest.mark.django_db


def _queued(**fields) -> Job:
    return Job.objects.create(kind="import runs", task="judging.tasks.import_file", **fields)


def test_a_job_whose_work_raises_anything_ends_failed_with_a_readable_message():
    job = _queued()

    def broken(job, progress):
        raise KeyError("internal detail")

    assert jobs.job_run(job.id, broken) == {}
    job.refresh_from_db()
    assert job.state == JobState.FAILED
    assert "unexpected error (KeyError)" in job.message and "Retry" in job.message
    assert "internal detail" not in job.message


def test_a_refused_job_fails_with_its_message_and_result():
    job = _queued()

    def refuse(job, progress):
        raise jobs.JobRefused("2 problems; nothing was imported.", {"count": 2, "problems": []})

    jobs.job_run(job.id, refuse)
    job.refresh_from_db()
    assert (job.state, job.message, job.result["count"]) == (JobState.FAILED, "2 problems; nothing was imported.", 2)


def test_a_duplicate_message_runs_the_work_once():
    job = _queued()
    calls = []
    jobs.job_run(job.id, lambda job, progress: calls.append(1) or {"n": 1})
    jobs.job_run(job.id, lambda job, progress: calls.append(2) or {"n": 2})
    job.refresh_from_db()
    assert calls == [1] and job.result == {"n": 1}


def test_a_job_started_while_the_broker_is_down_says_so_and_the_sweep_sends_it_later(
    monkeypatch, django_capture_on_commit_callbacks
):
    sent = []

    class Task:
        def apply_async(self, args, retry):
            if not sent_ok:
                raise ConnectionError("broker down")
            sent.append(args)

    sent_ok = False
    monkeypatch.setattr(jobs, "_task", lambda name: Task())
    with django_capture_on_commit_callbacks(execute=True):
        job = jobs.job_start(kind="recompute", task="evaluation.tasks.recompute_collection", arguments={})
    job.refresh_from_db()
    assert job.state == JobState.QUEUED and job.message == jobs.WAITING_FOR_BROKER
    sent_ok = True
    assert jobs.jobs_sweep(now=timezone.now() + jobs.RESEND_QUEUED_AFTER * 2) == 1
    assert sent == [[job.id]]


def test_a_queued_job_whose_message_waits_is_not_sent_again_and_says_no_worker_takes_its_queue(monkeypatch):
    sent = []
    monkeypatch.setattr(
        jobs, "_task", lambda name: type("T", (), {"apply_async": lambda s, args, retry: sent.append(args)})()
    )
    monkeypatch.setattr(jobs, "messages_waiting", lambda queue: {"machine": 3, "jobs": 0}[queue])
    waiting = Job.objects.create(kind="judge", task="judging.tasks.machine_judge_run", arguments={})
    lost = Job.objects.create(kind="import", task="judging.tasks.import_file", arguments={})
    later = timezone.now()
    for _ in range(6):  # three minutes of sweeps
        later += jobs.RESEND_QUEUED_AFTER
        jobs.jobs_sweep(now=later)
    waiting.refresh_from_db()
    assert [lost.id] in sent and [waiting.id] not in sent  # the queue of `lost` is empty: its message was lost
    assert "celery -A config worker -Q machine" in waiting.message and waiting.state == JobState.QUEUED


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_runs_queued_with_no_machine_worker_are_each_one_message_in_redis():
    from config.broker import messages_waiting
    from config.celery import app

    app.control.purge()
    app.conf.task_always_eager = False  # restored by the suite's fixture
    started = [Job.objects.create(kind="judge", task="judging.tasks.machine_judge_run", arguments={}) for _ in "abc"]
    for job in started:
        assert jobs.job_enqueue(job.id)
    later = timezone.now()
    for _ in range(6):
        later += jobs.RESEND_QUEUED_AFTER
        jobs.jobs_sweep(now=later)
    try:
        assert messages_waiting("machine") == 3
    finally:
        app.control.purge()


def test_a_running_job_whose_worker_stopped_reporting_is_queued_again_by_the_sweep(monkeypatch):
    sent = []
    monkeypatch.setattr(
        jobs, "_task", lambda name: type("T", (), {"apply_async": lambda s, args, retry: sent.append(args)})()
    )
    job = _queued(state=JobState.RUNNING)
    later = timezone.now() + jobs.STALLED_AFTER + timedelta(minutes=1)
    jobs.jobs_sweep(now=later)
    job.refresh_from_db()
    assert job.state == JobState.QUEUED and "worker stopped" in job.message
    assert sent == [[job.id]]  # sent again by the sweep that found it stalled, not RESEND_QUEUED_AFTER later
    jobs.jobs_sweep(now=later + jobs.RESEND_QUEUED_AFTER / 2)
    assert sent == [[job.id]]  # and once: the next sweep leaves the message on its way


@pytest.mark.parametrize("size", [0, 1, uploads.CHUNK_BYTES - 1, uploads.CHUNK_BYTES, 2 * uploads.CHUNK_BYTES + 7])
def test_an_upload_is_stored_in_chunks_and_read_back_byte_for_byte(size):
    data = bytes(range(256)) * (size // 256) + bytes(size % 256)
    stored = uploads.upload_store(upload=SimpleUploadedFile("x.run", data))
    assert stored.size == size
    with uploads.upload_local_copy(upload_id=stored.id) as path:
        assert path.read_bytes() == data


def test_an_upload_name_is_cleaned_of_folders_control_characters_and_shortened():
    assert uploads.upload_name("../../etc/pass\x00wd\r\n.run") == "passwd.run"
    long = uploads.upload_name("a" * 300 + ".qrels")
    assert len(long) == uploads.MAX_NAME_CHARS and long.endswith("….qrels")


def test_failed_jobs_keep_their_upload_a_while_then_it_is_purged():
    collection = make_collection(runs=0)
    stored = uploads.upload_store(upload=SimpleUploadedFile("x.run", b"1 Q0 d1 1 1 r\n"))
    _queued(state=JobState.FAILED, upload=stored, collection=collection)
    assert uploads.uploads_purge(older_than=timezone.now() - timedelta(days=1)) == 0
    Upload.objects.filter(pk=stored.pk).update(created_at=timezone.now() - timedelta(days=8))
    assert uploads.uploads_purge(older_than=timezone.now() - jobs.KEEP_FAILED_UPLOADS) == 1


def test_a_dead_worker_is_noticed_within_about_a_minute_and_a_live_one_never(monkeypatch):
    """A killed import stayed "running 0/0" for 15 minutes; a running job is now stamped every few seconds."""
    monkeypatch.setattr(jobs, "job_enqueue", lambda job_id: True)  # its work is not what is tested here
    assert timedelta(seconds=90) >= jobs.STALLED_AFTER and jobs.STALLED_AFTER.seconds >= jobs.HEARTBEAT_SECONDS * 3
    job = _queued(state=JobState.RUNNING)
    jobs.jobs_sweep(now=timezone.now() + jobs.STALLED_AFTER / 2)
    job.refresh_from_db()
    assert job.state == JobState.RUNNING  # half a minute of silence is not death
    jobs.jobs_sweep(now=timezone.now() + jobs.STALLED_AFTER + timedelta(seconds=1))
    job.refresh_from_db()
    assert job.state == JobState.QUEUED


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_long_silent_step_keeps_its_job_alive_through_the_heartbeat(monkeypatch):
    monkeypatch.setattr(jobs, "HEARTBEAT_SECONDS", 0.05)
    job = _queued()
    stamps = []

    def silent_work(job, progress):
        first = Job.objects.get(pk=job.pk).updated_at
        time.sleep(0.4)  # a step that reports no progress
        stamps.extend([first, Job.objects.get(pk=job.pk).updated_at])
        return {}

    jobs.job_run(job.id, silent_work)
    assert stamps[1] > stamps[0]


@pytest.mark.django_db
def test_a_kind_longer_than_its_column_is_shortened_never_a_server_error():
    from judging.jobs.models import Job

    job = jobs.job_start(kind="import " + "msmarco-v2.1-document-segmented/" * 4, task="x", arguments={})
    stored = Job.objects.get(pk=job.pk).kind
    assert len(stored) == Job._meta.get_field("kind").max_length and stored.endswith("…")


def test_imports_of_one_collection_run_in_the_order_started_whatever_order_their_messages_arrive(monkeypatch):
    collection, other = make_collection(), make_collection()
    documents = _queued(collection=collection)
    runs = _queued(collection=collection)
    elsewhere = _queued(collection=other)
    sent, order = [], []
    monkeypatch.setattr(jobs, "job_enqueue", lambda job_id: sent.append(job_id) or True)

    def work(name):
        return lambda job, progress: order.append(name) or {}

    assert jobs.job_run(runs.id, work("runs")) == {}  # its message came first: it waits
    runs.refresh_from_db()
    assert runs.state == JobState.QUEUED and f"Waiting for job {documents.id}" in runs.message
    jobs.job_run(elsewhere.id, work("elsewhere"))  # another collection's import does not wait
    jobs.job_run(documents.id, work("documents"))
    assert order == ["elsewhere", "documents"] and sent == [runs.id]  # the earlier one sends the next when it ends
    jobs.job_run(runs.id, work("runs"))
    assert order == ["elsewhere", "documents", "runs"]
    assert Job.objects.get(pk=runs.id).state == JobState.DONE


def test_a_cancelled_or_failed_earlier_import_lets_the_next_one_go(monkeypatch):
    collection = make_collection()
    first, second, third = (_queued(collection=collection) for _ in range(3))
    sent = []
    monkeypatch.setattr(jobs, "job_enqueue", lambda job_id: sent.append(job_id) or True)
    jobs.job_run(third.id, lambda job, progress: {})
    jobs.job_cancel(job=first)
    assert sent == [second.id]

    def broken(job, progress):
        raise jobs.JobRefused("bad file")

    jobs.job_run(second.id, broken)
    assert sent == [second.id, third.id]
    jobs.job_run(third.id, lambda job, progress: {"ok": 1})
    assert Job.objects.get(pk=third.id).state == JobState.DONE


def test_jobs_that_do_not_write_the_collection_never_wait():
    collection = make_collection()
    _queued(collection=collection)
    task = "evaluation.tasks.recompute_collection"
    recompute = Job.objects.create(kind="recompute", task=task, collection=collection)
    assert jobs.job_run(recompute.id, lambda job, progress: {"done": 1}) == {"done": 1}
