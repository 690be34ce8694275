"""Money, time and failures in view (#48, item 6): a judge's spending under its configuration (tokens, cost from its
prices per 1,000 tokens, latency p50/p95) and its failures grouped by class with examples, on its page, in its API
and in the run's job result (the page once said only "23 failed")."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from judging.machines import services as machine_judges
from judging.machines.selectors import _quantile, failure_class, judge_spending, run_estimate
from judging.models import PoolItem
from tests.api_clients import role_clients
from tests.chat_server import chat_server
from tests.factories import make_collection, make_user

pytestmark = pytest.mark.django_db


def test_a_failure_is_classed_by_its_reason_before_the_detail():
    assert failure_class("HTTP 429: slow down") == "HTTP 429"
    assert failure_class("timed out") == "timed out"
    assert failure_class("unreadable reply: not chat-completions JSON") == "unreadable reply"


def test_latency_quantiles_are_nearest_rank():
    assert _quantile([0.1, 0.2, 0.3, 0.4], 0.5) == 0.2 and _quantile([0.1, 0.2, 0.3, 0.4], 0.95) == 0.4
    assert _quantile([], 0.5) is None


def test_a_runs_spending_and_failures_by_class_show_on_the_page_the_api_and_the_job(client, monkeypatch):
    from judging.machines import providers

    monkeypatch.setattr(providers, "RETRY_BACKOFF", 0.01)
    collection = make_collection(max_grade=3, topics=1, documents=6, runs=1, depth=6)
    pool = list(PoolItem.objects.filter(topic__collection=collection).select_related("topic", "document"))
    truth = {(i.topic.number, i.document.docno[1:]): 2 for i in pool}
    with chat_server(truth) as server:
        judge = machine_judges.machine_judge_create(
            collection=collection, name="llm", provider="chat", base_url=server.base_url, model="tiny", retries=0,
            concurrency=1, price_prompt=Decimal("0.5"), price_completion=Decimal("1.5"),
        )  # fmt: skip
        server.faults = ["garbage", "500"]  # the first two pairs fail, each its own way
        result = machine_judges.machine_judge_run(judge=judge)
    spending = judge_spending(judge=judge)
    assert sorted((f["class"], f["count"]) for f in spending["failures"]) == [("HTTP 500", 1), ("unreadable reply", 1)]
    assert all(f["examples"][0]["docno"] for f in spending["failures"])
    tokens = spending["tokens"]
    assert tokens["prompt"] > 0 and spending["cost"] == pytest.approx(
        (0.5 * tokens["prompt"] + 1.5 * tokens["completion"]) / 1000
    )
    assert spending["latency"]["p50"] is not None and spending["latency"]["p95"] >= spending["latency"]["p50"]
    assert [f["class"] for f in result["failures"]] == [f["class"] for f in spending["failures"]]

    client.force_login(make_user("admin"))
    page = client.get(f"/judging/collections/{collection.id}/machine-judges/").content.decode()
    assert 'data-failure-class="HTTP 500"' in page and "data-cost" in page
    api = role_clients()["researcher"].get(f"/api/machine-judges/{judge.id}/").json()
    assert api["spending"]["failures"] == spending["failures"] and api["price_prompt"] == "0.500000"


def _chat_judge(collection, server, **settings):
    return machine_judges.machine_judge_create(
        collection=collection, name="llm", base_url=server.base_url, model="tiny", retries=0, concurrency=1,
        **settings,
    )  # fmt: skip


def test_before_a_run_the_page_and_api_estimate_calls_tokens_money_and_time(client):
    collection = make_collection(max_grade=3, topics=2, documents=6, runs=1, depth=6)
    pool = list(PoolItem.objects.filter(topic__collection=collection).select_related("topic", "document"))
    truth = {(i.topic.number, i.document.docno[1:]): 2 for i in pool}
    with chat_server(truth) as server:
        judge = _chat_judge(collection, server, samples=2, price_prompt=Decimal("1"), price_completion=Decimal("2"))
        before = run_estimate(judge=judge)
        assert (before["pairs"], before["calls"], before["basis"], before["seconds"]) == (len(pool), 2 * len(pool),
                                                                                         "rendered", None)  # fmt: skip
        assert before["tokens"]["prompt"] > 0 and before["cost"] == pytest.approx(
            (before["tokens"]["prompt"] * 1 + before["tokens"]["completion"] * 2) / 1000, abs=1e-4
        )
        machine_judges.machine_judge_run(judge=judge, limit=4)
    after = run_estimate(judge=judge)
    spent = judge_spending(judge=judge)
    per_pair = spent["tokens"]["prompt"] / 4
    assert (after["pairs"], after["basis"]) == (len(pool) - 4, "measured")
    assert after["tokens"]["prompt"] == round(per_pair * (len(pool) - 4)) and after["seconds"] is not None
    client.force_login(make_user("admin"))
    page = client.get(f"/judging/collections/{collection.id}/machine-judges/").content.decode()
    assert f'data-estimate-calls="{after["calls"]}"' in page and "data-estimate-cost" in page
    assert role_clients()["researcher"].get(f"/api/machine-judges/{judge.id}/").json()["estimate"] == after


def test_an_offline_judge_is_estimated_at_no_call():
    collection = make_collection()
    judge = machine_judges.machine_judge_create(collection=collection, name="bm25", provider="lexical")
    found = run_estimate(judge=judge)
    assert found["pairs"] > 0 and (found["calls"], found["cost"]) == (0, None)


def test_a_budget_in_money_stops_the_run_and_the_estimate_says_where():
    collection = make_collection(max_grade=3, topics=1, documents=8, runs=1, depth=8)
    pool = list(PoolItem.objects.filter(topic__collection=collection).select_related("topic", "document"))
    truth = {(i.topic.number, i.document.docno[1:]): 1 for i in pool}
    with chat_server(truth) as server:
        with pytest.raises(ValidationError) as refused:
            _chat_judge(collection, server, budget_money=Decimal("1"))
        assert "budget_money" in refused.value.message_dict
        judge = _chat_judge(collection, server, price_prompt=Decimal("1000"), price_completion=Decimal("0"))
        machine_judges.machine_judge_run(judge=judge, limit=1)
        cost_of_one = judge_spending(judge=judge)["cost"]
        judge = machine_judges.machine_judge_update(judge=judge, budget_money=Decimal(str(round(cost_of_one * 2.5, 4))))
        assert run_estimate(judge=judge)["budget_calls"] == 3  # 2.5 calls' worth: the third starts, then it stops
        result = machine_judges.machine_judge_run(judge=judge)
        assert server.requests == 1 + 3
    assert result["stopped"] and result["labelled"] == 3


class WorkerKilled(Exception):
    """Stands for a SIGKILL: the attempt ends where it is, with the replies it stored kept."""


def _killed_after(replies: int):
    def progress(done, total, detail=None):
        if done >= replies:
            raise WorkerKilled

    return progress


@pytest.mark.parametrize(
    ("limits", "limit", "expected"), [({"budget_requests": 5}, None, 5), ({}, 6, 6)], ids=["budget", "limit"]
)
def test_a_run_started_again_after_its_worker_died_counts_what_it_already_stored(limits, limit, expected):
    from judging.jobs.models import Job
    from judging.machines.models import MachineReply

    collection = make_collection(max_grade=3, topics=1, documents=10, runs=1, depth=10)
    pool = list(PoolItem.objects.filter(topic__collection=collection).select_related("topic", "document"))
    truth = {(i.topic.number, i.document.docno[1:]): 1 for i in pool}
    with chat_server(truth) as server:
        judge = _chat_judge(collection, server, **limits)
        arguments = {"judge_id": judge.id, "topic_ids": [], "limit": limit, "retry_failed": False}
        job = Job.objects.create(kind="machine judge llm", task=machine_judges.MACHINE_TASK, arguments=arguments)
        with pytest.raises(WorkerKilled):
            machine_judges.machine_judge_run_job_work(Job.objects.get(pk=job.pk), _killed_after(3))
        assert MachineReply.objects.filter(judge=judge).count() == 3
        asked = server.requests  # a call in flight when the worker died is paid and lost: a kill's own cost
        result = machine_judges.machine_judge_run_job_work(Job.objects.get(pk=job.pk), lambda *a, **k: None)
        assert MachineReply.objects.filter(judge=judge).count() == expected
        assert server.requests - asked == expected - 3
    assert result["labelled"] == expected  # the run's figures cover both attempts
