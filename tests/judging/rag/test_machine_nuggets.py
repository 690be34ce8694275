"""A machine judge proposing nuggets and assigning them to answers, against the local chat-completions server with
its faults: proposals wait for a person, a failed call is recorded as such (never guessed), a rerun asks only what
is left, and the machine's assignments are an advisory source until made counted."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from evaluation.nuggets import selectors as scores
from evaluation.nuggets.models import AnswerScores
from judging import services
from judging.jobs import runner as jobs
from judging.jobs.models import Job
from judging.machines.services import machine_judge_create
from judging.rag.core.nuggets import assigned_labels, proposed_nuggets, support_label
from judging.rag.models.answers import SupportJudgment
from judging.rag.models.nuggets import Nugget, NuggetAssignment
from judging.rag.services import assignments, machine
from judging.rag.services.nuggets import nugget_edit, nuggets_accept
from tests.chat_server import chat_server
from tests.rag_campaign import rag_campaign

pytestmark = pytest.mark.django_db


def test_a_proposal_reply_is_read_as_json_or_a_python_list_and_anything_else_is_none():
    assert proposed_nuggets('Sure: [{"text": "A  fact", "importance": "vital"}, "another", {"x": 1}]') == [
        ("A fact", "vital"), ("another", "okay")]  # fmt: skip
    assert proposed_nuggets("['one', 'two', 'one']") == [("one", "okay"), ("two", "okay")]
    assert proposed_nuggets("I cannot help with that.") is None


def test_an_assignment_reply_must_label_every_nugget_in_order():
    assert assigned_labels("['support', 'Partial Support', 'not_support']", 3) == [
        "support", "partial_support", "not_support"]  # fmt: skip
    assert assigned_labels('["support"]', 2) is None
    assert assigned_labels('["support", "maybe"]', 2) is None


def test_a_support_reply_is_read_as_its_first_support_word():
    assert support_label("Partially: the passage says Paris.") == "partial"
    assert support_label("FULL") == "full" and support_label("No.") == "none"
    assert support_label("I am unsure") is None


def _run(job: Job, work) -> dict:
    jobs.job_run(job.id, work)
    job.refresh_from_db()
    return job.result


@pytest.fixture
def rag():
    campaign = rag_campaign()
    admin = services.user_create(username="nugget-admin", password="pw-for-tests-123", role="admin")
    campaign.admin = admin
    return campaign


def test_a_machine_proposes_nuggets_from_the_relevant_segments_for_people_to_accept(rag):
    topic = rag.collection.topics.get(number="1")
    d1 = rag.collection.documents.get(docno="d1")
    services.pool_build_depth(collection=rag.collection, depth=2)  # the references pooled, as any run's ranking
    services.judgment_record(assessor=rag.alice, topic=topic, document=d1, grade=1)
    with chat_server({}) as server:
        server.nuggets = {"topic 1": [{"text": "Paris is the capital", "importance": "vital"}, "It is large"]}
        judge = machine_judge_create(collection=rag.collection, name="nuggetizer", base_url=server.base_url, model="m")
        job = machine.nuggets_propose_start(judge=judge, created_by=rag.admin)
        result = _run(job, machine.nuggets_propose_job_work)
        assert (result["topics"], result["proposed"], result["failures"]) == (2, 3, 0)
        asked = [p for p in server.prompts if "Search Query: topic 1" in p]
        assert "text 1" in asked[0]  # d1's text: the segment judged relevant
        again = _run(machine.nuggets_propose_start(judge=judge), machine.nuggets_propose_job_work)
        assert again["topics"] == 0 and server.requests == 2  # a rerun asks nothing already answered
    proposed = Nugget.objects.filter(topic=topic, proposed_by=judge)
    assert [(n.text, n.importance, n.accepted) for n in proposed] == [
        ("Paris is the capital", "vital", False), ("It is large", "okay", False)]  # fmt: skip
    with pytest.raises(ValidationError):  # not scored, not assignable, until a person accepts it
        assignments.assignment_record(assessor=rag.alice, answer=rag.answer("rag-a", "1"), nugget=proposed[0],
                                      label="support")  # fmt: skip
    assert nuggets_accept(topic=topic, by=rag.alice) == 2


@pytest.mark.parametrize("fault", ["500", "garbage", "empty", "400"])
def test_a_failed_proposal_is_counted_and_named_and_proposes_nothing(rag, fault):
    with chat_server({}) as server:
        judge = machine_judge_create(collection=rag.collection, name="n", base_url=server.base_url, model="m",
                                     retries=0, concurrency=1)  # fmt: skip
        server.faults = [fault]
        result = _run(machine.nuggets_propose_start(judge=judge), machine.nuggets_propose_job_work)
    assert (result["proposed"], result["failures"]) == (1, 1)
    assert result["errors"][0].startswith("topic 1: ")
    assert not Nugget.objects.filter(topic__number="1", topic__collection=rag.collection, proposed_by=judge).exists()


def test_a_machine_assigns_nuggets_to_answers_as_an_advisory_source(rag):
    for index, text in enumerate(["capital", "large", "history"]):
        nugget_edit(nugget=rag.nuggets["1", index], by=rag.alice, text=text)
    with chat_server({}) as server:
        judge = machine_judge_create(collection=rag.collection, name="assigner", base_url=server.base_url, model="m")
        result = _run(machine.nuggets_assign_start(judge=judge, created_by=rag.admin), machine.nuggets_assign_job_work)
        assert (result["answers"], result["assigned"], result["failures"]) == (4, 4, 0)
        rerun = _run(machine.nuggets_assign_start(judge=judge), machine.nuggets_assign_job_work)
        assert rerun["answers"] == 0 and server.requests == 4
    answer = rag.answer("rag-a", "1")  # "Paris is the capital. It is large."
    labels = dict(
        NuggetAssignment.objects.filter(answer=answer, assessor=judge.account).values_list("nugget__text", "label")
    )
    assert labels == {"capital": "support", "large": "support", "history": "not_support"}
    assert not AnswerScores.objects.filter(answer=answer).exclude(strict_all_score=None).exists()
    for nugget, label in [(rag.nuggets["1", 0], "support"), (rag.nuggets["1", 1], "not_support"),
                          (rag.nuggets["1", 2], "not_support")]:  # fmt: skip
        assignments.assignment_record(assessor=rag.alice, answer=answer, nugget=nugget, label=label)
    measured = scores.machine_against_people(collection=rag.collection)
    assert [(m["judge"], m["items"], m["equal"]) for m in measured] == [("assigner", 3, 2 / 3)]


def test_a_garbled_assignment_reply_records_failed_for_each_nugget_and_a_spent_budget_stops(rag):
    with chat_server({}) as server:
        judge = machine_judge_create(collection=rag.collection, name="a", base_url=server.base_url, model="m",
                                     retries=0, concurrency=1, budget_requests=2)  # fmt: skip
        server.faults = ["garbage"]
        result = _run(machine.nuggets_assign_start(judge=judge), machine.nuggets_assign_job_work)
    assert result["failures"] == 3  # one garbled reply, then two answers the budget did not allow
    assert server.requests == 2
    failed = NuggetAssignment.objects.filter(assessor=judge.account, label="failed")
    assert failed.values("answer").distinct().count() == 3


def test_only_a_chat_judge_proposes_nuggets(rag):
    judge = machine_judge_create(collection=rag.collection, name="bm25", provider="lexical")
    with pytest.raises(ValidationError):
        machine.nuggets_propose_start(judge=judge)


def test_a_machine_judges_each_citations_support_and_a_failed_call_leaves_it_unjudged(rag):
    # rag-a/1 "Paris is the capital." cites d1 ("doc 1 text 1"); every other sentence cites docs like it
    rag.collection.documents.filter(docno="d1").update(body="Paris is the capital of France")
    with chat_server({}) as server:
        judge = machine_judge_create(collection=rag.collection, name="support", base_url=server.base_url, model="m",
                                     retries=0, concurrency=1)  # fmt: skip
        server.faults = ["500"]
        result = _run(machine.support_judge_start(judge=judge), machine.support_judge_job_work)
        assert (result["pairs"], result["judged"], result["failures"]) == (7, 6, 1)
        rerun = _run(machine.support_judge_start(judge=judge), machine.support_judge_job_work)
        assert (rerun["pairs"], rerun["judged"]) == (1, 1)  # only the failed one is asked again
    answer = rag.answer("rag-a", "1")
    d1 = rag.collection.documents.get(docno="d1").id
    assert (
        SupportJudgment.objects.get(assessor=judge.account, answer=answer, sentence=0, document_id=d1).label == "full"
    )
    assert SupportJudgment.objects.filter(assessor=judge.account).count() == 7
