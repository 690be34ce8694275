"""A machine judge's run on a real Celery worker (PostgreSQL, Redis), against a real chat-completions server on a
local port: the worker is killed (SIGKILL) mid-run, the job is taken up again by a new worker, and no pair whose
reply was kept is asked again (the server counts its requests); every label ends up recorded once."""

from __future__ import annotations

import os
import signal
from datetime import timedelta

import pytest
from django.utils import timezone

from config.celery import app
from judging.jobs import runner as jobs
from judging.jobs.models import Job, JobState
from judging.machines import services as machine_judges
from judging.machines.models import MachineReply
from judging.models import Judgment, PoolItem
from tests.chat_server import chat_server
from tests.factories import make_collection
from tests.integration.test_recompute_resilience import stop, worker_process
from tests.integration.test_worker_recompute import wait_until

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def judged_campaign():
    """A purged broker, a small pooled collection, and the model servers' truth about its pairs (keyed as they read
    prompts: topic number, document number)."""
    app.control.purge()
    collection = make_collection(max_grade=3, topics=2, documents=10, runs=2, depth=8)
    truth = {}
    for item in PoolItem.objects.filter(topic__collection=collection).select_related("topic", "document"):
        truth[(item.topic.number, item.document.docno[1:])] = int(item.document.docno[1:]) % 4
    return collection, truth


def replaced_until_done(job, tmp_path) -> None:
    """The killed worker's job requeued by the sweep (which does so once a running job has been silent for a
    minute; here, at once) and done by a new worker."""
    jobs.jobs_sweep(now=timezone.now() + jobs.STALLED_AFTER + timedelta(seconds=1))
    jobs.jobs_sweep(now=timezone.now() + jobs.STALLED_AFTER + jobs.RESEND_QUEUED_AFTER + timedelta(seconds=2))
    second = worker_process({}, tmp_path / "second.log")
    try:
        done = lambda: Job.objects.get(pk=job.pk).state == JobState.DONE  # noqa: E731
        assert wait_until(done, timeout=90), (tmp_path / "second.log").read_text()
    finally:
        stop(second)


def test_a_worker_killed_mid_run_is_replaced_and_no_kept_reply_is_asked_again(tmp_path):
    collection, truth = judged_campaign()
    with chat_server(truth) as server:
        server.delay = 0.25  # slow enough to kill the worker between two replies
        judge = machine_judges.machine_judge_create(
            collection=collection, name="slow", base_url=server.base_url, model="m", concurrency=1
        )
        first = worker_process({}, tmp_path / "first.log")
        try:
            job = machine_judges.machine_judge_run_start(judge=judge)
            kept = lambda: MachineReply.objects.filter(judge=judge).count()  # noqa: E731
            assert wait_until(lambda: kept() >= 4, timeout=60), (tmp_path / "first.log").read_text()
            os.killpg(first.pid, signal.SIGKILL)
            first.wait(timeout=10)
        finally:
            stop(first)
        kept_before, asked_before = kept(), server.requests
        assert kept_before < len(truth) and Job.objects.get(pk=job.pk).state == JobState.RUNNING
        replaced_until_done(job, tmp_path)
        prompts = list(server.prompts)
    assert asked_before <= kept_before + 1  # at most the one call in flight when the worker died
    assert server.requests <= len(truth) + 1
    assert len(set(prompts[asked_before:])) == len(prompts) - asked_before == len(truth) - kept_before
    labels = Judgment.objects.filter(assessor=judge.account)
    assert labels.count() == len(truth) == MachineReply.objects.filter(judge=judge).count()
