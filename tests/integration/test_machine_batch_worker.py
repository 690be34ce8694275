"""A machine judge's run through the Batch API on a real Celery worker (PostgreSQL, Redis), against a local server
that speaks the Batch API: the worker is killed (SIGKILL) while its batch is in progress on the server, the job is
taken up by a new worker, which polls the same batch (its id kept in the database) and reads it back: no line is
sent twice and every pair is labelled once."""

from __future__ import annotations

import os
import signal

import pytest

from judging.jobs.models import Job, JobState
from judging.machines import services as machine_judges
from judging.machines.models import MachineBatch, MachineReply
from judging.models import Judgment, JudgmentHistory
from tests.batch_server import batch_server
from tests.integration.test_machine_judge_worker import judged_campaign, replaced_until_done
from tests.integration.test_recompute_resilience import stop, worker_process
from tests.integration.test_worker_recompute import wait_until

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_a_worker_killed_while_its_batch_is_in_progress_is_replaced_and_nothing_is_sent_or_labelled_twice(tmp_path):
    collection, truth = judged_campaign()
    with batch_server(truth) as server:
        server.hold_next()
        judge = machine_judges.machine_judge_create(
            collection=collection, name="batched", base_url=server.base_url, model="m", batch_api=True,
            batch_poll_seconds=0.2,
        )  # fmt: skip
        first = worker_process({}, tmp_path / "first.log")
        try:
            job = machine_judges.machine_judge_run_start(judge=judge)
            under_way = lambda: MachineBatch.objects.filter(judge=judge, status="in_progress").exists()  # noqa: E731
            assert wait_until(under_way, timeout=60), (tmp_path / "first.log").read_text()
            os.killpg(first.pid, signal.SIGKILL)
            first.wait(timeout=10)
        finally:
            stop(first)
        assert Job.objects.get(pk=job.pk).state == JobState.RUNNING and not MachineReply.objects.exists()
        server.held.clear()
        replaced_until_done(job, tmp_path)
    assert len(server.batches) == 1 and set(server.sent.values()) == {1} and len(server.sent) == len(truth)
    assert set(server.answered.values()) == {1} and server.cancels == []
    assert Judgment.objects.filter(assessor=judge.account).count() == len(truth)
    assert MachineReply.objects.filter(judge=judge).count() == len(truth)
    assert JudgmentHistory.objects.filter(assessor=judge.account).count() == len(truth)  # each label recorded once
    job = Job.objects.get(pk=job.pk)
    assert job.result["labelled"] == len(truth) and job.result["batches"][0]["status"] == "completed"
