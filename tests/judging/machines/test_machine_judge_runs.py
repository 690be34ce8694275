"""Machine judges in a collection: an advisory assessor account with a versioned configuration, runs over the pool
against a real chat-completions server (tests/chat_server.py) whose requests are counted, every reply kept beside
the judgment it gave, faults recorded per pair, a budget and a cancel that stop a run, a rerun or a resumed crash
that never asks for a pair twice, and the embedded BM25 baseline that needs no server."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.core.management.base import CommandError

from judging import services
from judging.jobs import runner as jobs
from judging.jobs.models import Job, JobState
from judging.machines import providers
from judging.machines import services as machine_judges
from judging.machines.models import MachineReply
from judging.models import Judgment, PoolItem
from judging.selectors import items_filled_by_others
from judging.sources import selectors as sources
from tests.chat_server import chat_server
from tests.factories import make_collection, make_user

pytestmark = pytest.mark.django_db


def _collection(**settings):
    return make_collection(max_grade=3, topics=2, documents=8, runs=2, depth=5, **settings)


def _truth(collection) -> dict[tuple[str, str], int]:
    """The server's model of the qrels, keyed as it reads prompts: ("topic number", "document number")."""
    truth = {}
    for item in PoolItem.objects.filter(topic__collection=collection).select_related("topic", "document"):
        number = item.document.docno[1:]
        truth[(item.topic.number, number)] = (int(number) + int(item.topic.number)) % 4
    return truth


@pytest.fixture(autouse=True)
def _quick_backoff(monkeypatch):
    monkeypatch.setattr(providers, "RETRY_BACKOFF", 0.01)


def _judge(collection, server, **settings):
    settings.setdefault("concurrency", 2)
    return machine_judges.machine_judge_create(
        collection=collection, name="umbrela-m", base_url=server.base_url, model="m", **settings
    )


def _labels(judge) -> dict[tuple[str, str], int]:
    rows = Judgment.objects.filter(assessor=judge.account).values_list("topic__number", "document__docno", "grade")
    return {(topic, docno[1:]): grade for topic, docno, grade in rows}


def test_a_judge_is_an_advisory_assessor_account_that_never_logs_in():
    collection = _collection()
    judge = machine_judges.machine_judge_create(collection=collection, name="j", base_url="http://x/v1", model="m")
    collection.refresh_from_db()
    assert judge.account.pk in sources.advisory_accounts(collection=collection)
    assert not judge.account.is_active and not judge.account.has_usable_password()
    assert judge.version == 1 and len(judge.configuration) == 64


def test_the_version_rises_when_what_a_reply_depends_on_changes_and_not_for_limits():
    collection = _collection()
    judge = machine_judges.machine_judge_create(collection=collection, name="j", base_url="http://x/v1", model="m")
    judge = machine_judges.machine_judge_update(judge=judge, concurrency=8, requests_per_minute=60)
    assert judge.version == 1
    judge = machine_judges.machine_judge_update(judge=judge, model="bigger")
    assert judge.version == 2
    judge = machine_judges.machine_judge_update(judge=judge, prompt="binary")
    assert judge.version == 3


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"base_url": "ftp://x"}, "base_url"),
        ({"base_url": "http://user:secret@x/v1"}, "base_url"),
        ({"api_key_env": "sk-live-1234"}, "api_key_env"),
        ({"model": " "}, "model"),
        ({"prompt": "custom", "template": "Rate {query}: {document}"}, "template"),
        ({"prompt": "custom", "template": "Rate {title} {"}, "template"),
        ({"prompt": "custom", "template": "Rate {title}"}, "template"),
        ({"scale_map": {"7": 1}}, "scale_map"),
        ({"scale_map": {"3": 9}}, "scale_map"),
        ({"batch": "all"}, "batch"),
        ({"concurrency": 0}, "concurrency"),
    ],
)
def test_a_configuration_that_could_not_run_is_refused_naming_the_field(options, field):
    collection = _collection()
    options = {"base_url": "http://x/v1", "model": "m", **options}
    with pytest.raises(ValidationError) as refused:
        machine_judges.machine_judge_create(collection=collection, name="j", **options)
    assert field in refused.value.message_dict


def test_a_run_labels_every_pooled_pair_as_the_judges_judgments_with_the_reply_beside_each():
    collection = _collection()
    truth = _truth(collection)
    with chat_server(truth) as server:
        judge = _judge(collection, server)
        result = machine_judges.machine_judge_run(judge=judge)
    assert _labels(judge) == truth
    assert (result["labelled"], result["failed"], result["left"]) == (len(truth), 0, 0)
    assert server.requests == len(truth)
    reply = MachineReply.objects.filter(judge=judge).first()
    assert reply.reply.startswith("##final score:") and reply.prompt_tokens > 0 and reply.completion_tokens == 4
    assert result["tokens"]["completion"] == 4 * len(truth)


def test_a_rerun_asks_for_nothing_already_answered_and_a_new_configuration_asks_again():
    collection = _collection()
    truth = _truth(collection)
    with chat_server(truth) as server:
        judge = _judge(collection, server)
        machine_judges.machine_judge_run(judge=judge)
        again = machine_judges.machine_judge_run(judge=judge)
        assert (server.requests, again["total"]) == (len(truth), 0)
        judge = machine_judges.machine_judge_update(judge=judge, prompt="binary")
        machine_judges.machine_judge_run(judge=judge, limit=3)
        assert server.requests == len(truth) + 3


def test_faults_are_failures_of_their_pairs_and_retrying_asks_only_for_those():
    collection = _collection()
    truth = _truth(collection)
    with chat_server(truth) as server:
        judge = _judge(collection, server, retries=1, concurrency=1)
        server.faults = ["500", "500", "garbage", "garbage"]  # the first two pairs fail after their one retry
        result = machine_judges.machine_judge_run(judge=judge)
        assert (result["labelled"], result["failed"]) == (len(truth) - 2, 2)
        failures = list(MachineReply.objects.filter(judge=judge).exclude(failure="").values_list("failure", flat=True))
        assert sorted(failures) == ["HTTP 500", "unreadable reply: not chat-completions JSON"]
        before = server.requests
        retried = machine_judges.machine_judge_run(judge=judge, retry_failed=True)
        assert (retried["labelled"], retried["failed"], server.requests - before) == (2, 0, 2)
    assert _labels(judge) == truth
    assert not MachineReply.objects.filter(judge=judge).exclude(failure="").exists()


def test_a_reply_off_the_scale_is_a_recorded_failure_never_a_guessed_grade():
    collection = _collection()
    with chat_server({key: 7 for key in _truth(collection)}) as server:
        judge = _judge(collection, server)
        result = machine_judges.machine_judge_run(judge=judge, limit=2)
    assert result["failed"] == 2 and not Judgment.objects.filter(assessor=judge.account).exists()
    assert "off the scale" in MachineReply.objects.filter(judge=judge).first().failure


def test_a_spent_budget_stops_the_run_and_leaves_the_rest_unasked_not_failed():
    collection = _collection()
    truth = _truth(collection)
    with chat_server(truth) as server:
        judge = _judge(collection, server, budget_requests=3, concurrency=1)
        result = machine_judges.machine_judge_run(judge=judge)
    assert (result["labelled"], result["failed"], server.requests) == (3, 0, 3)
    assert "budget" in result["stopped"] and result["left"] == len(truth) - 3
    assert MachineReply.objects.filter(judge=judge).count() == 3


def test_one_call_per_topic_rates_its_documents_as_a_json_list():
    collection = _collection()
    truth = _truth(collection)
    with chat_server(truth) as server:
        judge = _judge(collection, server, batch="topic")
        result = machine_judges.machine_judge_run(judge=judge)
    assert _labels(judge) == truth and result["failed"] == 0
    assert server.requests == 2  # two topics, each in one call


def test_a_scale_map_maps_the_prompts_grades_onto_the_collections():
    collection = _collection()
    truth = _truth(collection)
    with chat_server(truth) as server:
        judge = _judge(collection, server, scale_map={"0": 0, "1": 0, "2": 3, "3": 3})
        machine_judges.machine_judge_run(judge=judge)
    assert _labels(judge) == {key: (3 if grade >= 2 else 0) for key, grade in truth.items()}


def test_a_crashed_run_resumes_without_asking_for_any_pair_twice():
    collection = _collection()
    truth = _truth(collection)

    def crash_after_three_replies():
        if MachineReply.objects.filter(judge=judge).count() >= 3:
            raise RuntimeError("worker killed")
        return False

    with chat_server(truth) as server:
        # Replies are kept together at least every FLUSH_SECONDS: one slower than that is kept as it arrives.
        server.delay = machine_judges.FLUSH_SECONDS * 1.5
        judge = _judge(collection, server, concurrency=1)
        with pytest.raises(RuntimeError):
            machine_judges.machine_judge_run(judge=judge, cancelled=crash_after_three_replies)
        server.delay = 0.0
        kept = MachineReply.objects.filter(judge=judge).count()
        asked_before = len(server.prompts)
        machine_judges.machine_judge_run(judge=judge)
        before, after = server.prompts[:asked_before], server.prompts[asked_before:]
    assert kept == 3 and _labels(judge) == truth
    # The calls queued behind the crash never went out; at most the one in flight (its reply lost with the worker)
    # is asked again, and no pair whose reply was kept is.
    assert asked_before <= kept + 1
    assert len(set(after)) == len(after) == len(truth) - kept
    assert len(set(before) & set(after)) <= asked_before - kept


def test_a_fast_run_keeps_its_replies_in_batches_and_a_crash_asks_again_only_what_was_not_kept(monkeypatch):
    monkeypatch.setattr(machine_judges, "REPLY_BATCH", 4)  # a small pool: batches of 500 would be the whole run
    monkeypatch.setattr(machine_judges, "FLUSH_SECONDS", 60.0)
    collection = _collection()
    truth = _truth(collection)
    transactions = []

    def crash_once_some_are_kept():
        if MachineReply.objects.filter(judge=judge).exists():
            raise RuntimeError("worker killed")
        return False

    with chat_server(truth) as server:
        judge = _judge(collection, server, concurrency=4)
        original = machine_judges.machine_replies_record

        def counted(**kwargs):
            transactions.append(len(kwargs["results"]))
            return original(**kwargs)

        machine_judges.machine_replies_record = counted
        try:
            with pytest.raises(RuntimeError):
                machine_judges.machine_judge_run(judge=judge, cancelled=crash_once_some_are_kept)
            kept = set(MachineReply.objects.filter(judge=judge).values_list("topic_id", "document_id"))
            asked_before = len(server.prompts)
            machine_judges.machine_judge_run(judge=judge)
        finally:
            machine_judges.machine_replies_record = original
        after = server.prompts[asked_before:]
    assert _labels(judge) == truth and len(after) == len(truth) - len(kept) == len(set(after))
    assert max(transactions) > 1  # replies kept several to a transaction, not one each


def test_machine_labels_take_no_slot_from_people():
    collection = _collection(assessors_per_item=1)
    truth = _truth(collection)
    person = make_user("assessor")
    topic = collection.topics.first()
    services.assignment_create(assessor=person, topic=topic)
    with chat_server(truth) as server:
        machine_judges.machine_judge_run(judge=_judge(collection, server))
    assert items_filled_by_others(assessor_id=person.id, topic_ids=[topic.id]) == set()
    item = PoolItem.objects.filter(topic=topic).select_related("document").first()
    services.judgment_record(assessor=person, topic=topic, document=item.document, grade=1)


def test_a_run_as_a_job_keeps_its_figures_and_a_queued_job_can_be_cancelled(django_capture_on_commit_callbacks):
    collection = _collection()
    truth = _truth(collection)
    admin = make_user("admin")
    with chat_server(truth) as server, django_capture_on_commit_callbacks(execute=True):
        judge = _judge(collection, server)
        job = machine_judges.machine_judge_run_start(judge=judge, limit=4, created_by=admin)
    job.refresh_from_db()
    assert job.state == JobState.DONE and job.result["labelled"] == 4 and job.result["left"] == 0
    waiting = machine_judges.machine_judge_run_start(judge=judge, limit=1)  # not sent: no commit in this test
    with pytest.raises(ValidationError, match="already under way"):
        machine_judges.machine_judge_run_start(judge=judge)
    jobs.job_cancel(job=waiting)
    queued = Job.objects.create(kind="machine judge", task=machine_judges.MACHINE_TASK, arguments={"judge_id": 0})
    assert jobs.job_cancel(job=queued)
    queued.refresh_from_db()
    assert queued.state == JobState.CANCELLED and not jobs.job_cancel(job=queued)


def test_a_running_job_asked_to_cancel_stops_and_keeps_what_it_labelled():
    collection = _collection()
    truth = _truth(collection)
    with chat_server(truth) as server:
        judge = _judge(collection, server, concurrency=1)
        job = Job.objects.create(
            kind="machine judge", task=machine_judges.MACHINE_TASK, arguments={"judge_id": judge.id}
        )
        Job.objects.filter(pk=job.pk).update(cancel_requested=True)  # asked while it runs: seen at its first check
        jobs.job_run(job.id, machine_judges.machine_judge_run_job_work)
    job.refresh_from_db()
    assert job.state == JobState.CANCELLED and job.result["stopped"] == "cancelled"
    assert job.result["labelled"] < len(truth)


def test_the_api_key_is_sent_to_the_server_and_appears_nowhere_else(monkeypatch, django_capture_on_commit_callbacks):
    secret = "sk-test-very-secret-key-0123456789"
    monkeypatch.setenv("WORKBENCH_SECRET_JUDGE_KEY", secret)
    collection = _collection()
    with chat_server(_truth(collection)) as server:
        judge = _judge(collection, server, api_key_env="WORKBENCH_SECRET_JUDGE_KEY")
        server.faults = ["500"] * 4
        with django_capture_on_commit_callbacks(execute=True):
            job = machine_judges.machine_judge_run_start(judge=judge, limit=3)
    job.refresh_from_db()
    assert server.authorizations[0] == f"Bearer {secret}"
    stored = [str(job.result), job.message, str(list(MachineReply.objects.values()))]
    stored.append(str(list(machine_judges.MachineJudge.objects.values())))
    assert not any(secret in text for text in stored)


def test_manage_py_judge_runs_in_the_foreground_and_fails_on_failed_pairs(capsys):
    collection = _collection()
    truth = _truth(collection)
    with chat_server(truth) as server:
        _judge(collection, server)
        call_command("judge", collection.name, "--judge", "umbrela-m", "--topics", "1", "--limit", "3")
        assert "3 labelled, 0 failed" in capsys.readouterr().out
        server.faults = ["garbage"] * 4  # the pair's every attempt
        with pytest.raises(CommandError, match="1 pair"):
            call_command("judge", collection.name, "--judge", "umbrela-m", "--limit", "1")
    with pytest.raises(CommandError, match="no machine judge 'nobody'"):
        call_command("judge", collection.name, "--judge", "nobody")


def test_the_embedded_bm25_judge_labels_offline_with_thresholds_from_peoples_labels():
    collection = _collection()
    person = make_user("assessor")
    for item in PoolItem.objects.filter(topic__collection=collection).select_related("topic", "document"):
        services.assignment_create(assessor=person, topic=item.topic) if not item.topic.assignments.filter(
            assessor=person
        ).exists() else None
        grade = 3 if item.document.docno in ("d1", "d2") else 0
        services.judgment_record(assessor=person, topic=item.topic, document=item.document, grade=grade)
    judge = machine_judges.machine_judge_create(collection=collection, name="bm25", provider="lexical")
    result = machine_judges.machine_judge_run(judge=judge)
    assert result["failed"] == 0 and result["labelled"] == PoolItem.objects.filter(topic__collection=collection).count()
    assert set(Judgment.objects.filter(assessor=judge.account).values_list("grade", flat=True)) <= {0, 1, 2, 3}
    assert MachineReply.objects.filter(judge=judge).first().reply.startswith("BM25 ")


def test_a_collection_with_a_judge_and_its_labels_deletes_cleanly_and_its_account_is_no_person(client):
    collection = _collection()
    judge = machine_judges.machine_judge_create(collection=collection, name="bm25", provider="lexical")
    machine_judges.machine_judge_run(judge=judge)
    services.collection_settings_update(collection=collection, verification_judge=judge)
    client.force_login(make_user("admin"))
    assert judge.account.username not in client.get("/judging/people/").content.decode()
    services.collection_delete(collection=collection)
    assert not MachineReply.objects.exists() and not Judgment.objects.filter(assessor=judge.account).exists()


def test_a_machine_judges_labels_are_no_pool_work_disagreement_or_pace_on_the_campaign_page():
    from judging.progress import campaign_progress, disputed_count

    collection = _collection(assessors_per_item=1)
    person = make_user("assessor")
    topic = collection.topics.order_by("id").first()
    services.assignment_create(assessor=person, topic=topic)
    item = PoolItem.objects.filter(topic=topic).select_related("document").first()
    services.judgment_record(assessor=person, topic=topic, document=item.document, grade=3, seconds_spent=30.0)
    before = campaign_progress(collection=collection)
    judge = machine_judges.machine_judge_create(collection=collection, name="bm25", provider="lexical")
    machine_judges.machine_judge_run(judge=judge)  # labels the whole pool, that item included (its grade differs)
    collection.refresh_from_db()
    after = campaign_progress(collection=collection)
    figures = ("items_judged", "items_complete", "judgments", "last_hour", "remaining", "median_seconds")
    assert [getattr(after, f) for f in figures] == [getattr(before, f) for f in figures]
    assert disputed_count(collection=collection) == 0
    assert [a.advisory for a in after.assessors if a.judgments > 1] == [True]


def test_the_dashboard_counts_no_item_a_machine_alone_judged(admin_client):
    collection = _collection()
    machine_judges.machine_judge_run(
        judge=machine_judges.machine_judge_create(collection=collection, name="bm25", provider="lexical")
    )
    row = admin_client.get("/judging/dashboard/").content.decode().split(f'data-collection="{collection.id}"')[1]
    assert "0 of" in row.split("</tr>")[0]
