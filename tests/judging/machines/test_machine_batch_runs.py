"""A machine judge set to the Batch API, through the app: its run sends batch jobs and keeps each one as a row, its
replies carry the batch and line they came from, its money is the batch price before and after the run; a run
that stopped while a batch was under way leaves it to the next, which reads it without sending its lines again,
and the budget counts its lines as sent."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from judging.jobs import runner as jobs
from judging.jobs.models import Job, JobState
from judging.machines import providers, selectors
from judging.machines import services as machine_judges
from judging.machines.models import MachineBatch, MachineReply
from tests.batch_server import batch_server
from tests.judging.machines.test_machine_judge_runs import _collection, _labels, _truth

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _quick_backoff(monkeypatch):
    monkeypatch.setattr(providers, "RETRY_BACKOFF", 0.01)


def _judge(collection, server, **settings):
    return machine_judges.machine_judge_create(
        collection=collection, name="batched", base_url=server.base_url, model="m", batch_api=True,
        batch_poll_seconds=0.02, **settings,
    )  # fmt: skip


def _job(judge) -> Job:
    return Job.objects.create(kind="machine judge", task=machine_judges.MACHINE_TASK, arguments={"judge_id": judge.id})


def _killed_mid_batch(judge) -> Job:
    """A run of `judge` as a Job whose worker dies once its batch is in progress on the server (no cancel sent)."""
    job = _job(judge)

    def killed():
        if MachineBatch.objects.filter(judge=judge, status="in_progress").exists():
            raise RuntimeError("worker killed")
        return False

    with pytest.raises(RuntimeError):
        machine_judges.machine_judge_run(judge=judge, cancelled=killed, job_id=job.id)
    return job


def test_a_batch_run_as_a_job_labels_every_pair_and_keeps_each_batch_and_each_replys_line():
    collection = _collection()
    truth = _truth(collection)
    with batch_server(truth) as server:
        server.max_lines = 8
        judge = _judge(collection, server, batch_max_requests=8)
        job = _job(judge)
        jobs.job_run(job.id, machine_judges.machine_judge_run_job_work)
    job.refresh_from_db()
    assert job.state == JobState.DONE and job.result["labelled"] == len(truth) and _labels(judge) == truth
    rows = MachineBatch.objects.filter(judge=judge).order_by("id")
    assert [len(row.custom_ids) for row in rows] == [8] * (len(truth) // 8) + ([len(truth) % 8] if len(truth) % 8
                                                                              else [])  # fmt: skip
    assert all(row.collected and row.status == "completed" and row.run_job_id == job.id for row in rows)
    assert [b["id"] for b in job.result["batches"]] == [row.server_id for row in rows]
    replies = MachineReply.objects.filter(judge=judge)
    assert not replies.filter(batch__isnull=True).exists() and not replies.filter(custom_id="").exists()
    assert set(server.sent.values()) == {1}


def test_the_estimate_and_the_spending_are_at_the_batch_price_within_the_completion_window():
    collection = _collection()
    truth = _truth(collection)
    prices = {"price_prompt": Decimal("1"), "price_completion": Decimal("2")}
    with batch_server(truth) as server:
        judge = _judge(collection, server, **prices)
        estimate = selectors.run_estimate(judge=judge)
        machine_judges.machine_judge_run(judge=judge)
        spent = selectors.judge_spending(judge=judge)
        judge = machine_judges.machine_judge_update(judge=judge, batch_api=False)
        MachineReply.objects.filter(judge=judge).delete()  # the pairs to label again, online this time
        online = selectors.run_estimate(judge=judge)
    assert estimate["window"] == "24h" and estimate["seconds"] is None and estimate["discount"] == 50.0
    full = (spent["tokens"]["prompt"] * 1 + spent["tokens"]["completion"] * 2) / 1000
    assert spent["cost"] == pytest.approx(full / 2, abs=1e-6) and spent["cost"] > 0
    assert online["window"] is None and online["discount"] is None


def test_a_run_stopped_while_a_batch_is_under_way_leaves_it_to_the_next_which_reads_it_and_sends_nothing_again():
    collection = _collection()
    truth = _truth(collection)
    with batch_server(truth) as server:
        server.hold_next()
        judge = _judge(collection, server)
        job = _killed_mid_batch(judge)
        assert MachineReply.objects.filter(judge=judge).count() == 0 and server.cancels == []
        server.held.clear()
        result = machine_judges.machine_judge_run(judge=judge, job_id=job.id)
    assert result["labelled"] == len(truth) and _labels(judge) == truth
    assert set(server.sent.values()) == {1} and len(server.batches) == 1
    assert MachineBatch.objects.get(judge=judge).collected


def test_a_restarted_run_counts_the_lines_under_way_against_its_budget():
    collection = _collection()
    truth = _truth(collection)
    with batch_server(truth) as server:
        server.hold_next()
        judge = _judge(collection, server, budget_requests=len(truth))
        job = _killed_mid_batch(judge)
        server.plans = ["partial"]  # the batch the restarted run reads answers half: the rest is out of budget
        server.batches["batch_2"]["_plan"] = "partial"
        server.held.clear()
        result = machine_judges.machine_judge_run(judge=judge, job_id=job.id)
    assert sum(server.sent.values()) == len(truth)  # never more lines than the budget allows
    assert result["labelled"] == (len(truth) + 1) // 2 and "budget" in result["stopped"]


def test_a_cancelled_run_cancels_its_batches_on_the_server():
    collection = _collection()
    truth = _truth(collection)
    with batch_server(truth) as server:
        server.hold_next()
        judge = _judge(collection, server)
        job = _job(judge)
        looked = lambda: len(server.looks.get("batch_2", [])) >= 2  # noqa: E731
        result = machine_judges.machine_judge_run(judge=judge, cancelled=looked, job_id=job.id)
    assert result["stopped"] == "cancelled" and server.cancels == ["batch_2"]
    assert MachineBatch.objects.get(judge=judge).status == "cancelling"


def test_only_a_chat_judge_sends_batch_jobs():
    collection = _collection()
    with pytest.raises(ValidationError) as refused:
        machine_judges.machine_judge_create(collection=collection, name="bm25", provider="lexical", batch_api=True)
    assert "batch_api" in refused.value.message_dict


def test_the_api_sets_and_shows_the_batch_settings_and_the_estimate_says_the_window(client):
    from tests.factories import make_user

    collection = _collection()
    client.force_login(make_user("admin"))
    with batch_server({}) as server:
        made = client.post(f"/api/collections/{collection.id}/machine-judges/", {
            "name": "b", "base_url": server.base_url, "model": "m", "batch_api": True, "batch_max_requests": 1000,
            "batch_poll_seconds": 30, "batch_discount": "40",
        }, content_type="application/json")  # fmt: skip
        assert made.status_code == 201, made.content
        shown = client.get(f"/api/machine-judges/{made.json()['id']}/").json()
        refused = client.patch(f"/api/machine-judges/{made.json()['id']}/", {"batch_poll_seconds": 0},
                               content_type="application/json")  # fmt: skip
    assert shown["batch_api"] is True and shown["batch_max_requests"] == 1000 and shown["batch_poll_seconds"] == 30
    assert shown["estimate"]["window"] == "24h" and shown["estimate"]["discount"] == 40.0
    assert refused.status_code == 400 and "batch_poll_seconds" in refused.json()["error"]["fields"]
