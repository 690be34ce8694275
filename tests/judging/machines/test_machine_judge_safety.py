"""A machine judge cannot be made to leak: its configuration names only a WORKBENCH_SECRET_* variable that is set and
a server the rules allow (refused at save, naming the field; refused again at run time for what was saved before);
nothing stored or served holds 8 characters of the key; a preview answers within its own short deadline with no
retry; a cancel stops a run that waits on a slow server; two starts of one judge are one run."""

from __future__ import annotations

import threading

import pytest
from django.core.exceptions import ValidationError
from django.db import connection

from judging.jobs import runner as jobs
from judging.jobs.models import Job, JobState
from judging.machines import providers
from judging.machines import services as machine_judges
from judging.machines.models import MachineJudge, MachineReply
from judging.models import PoolItem
from tests.chat_server import chat_server
from tests.factories import make_collection, make_user

pytestmark = pytest.mark.django_db
KEY = "sk-proj-4f9a1c2e7b3d5f6a8c0e2b4d6f8a0c2e4b6d8f0a"


@pytest.fixture(autouse=True)
def _quick_backoff(monkeypatch):
    monkeypatch.setattr(providers, "RETRY_BACKOFF", 0.01)


def _collection():
    return make_collection(max_grade=3, topics=2, documents=6, runs=2, depth=4)


@pytest.mark.parametrize("variable", ["SECRET_KEY", "DATABASE_URL", "REDIS_URL", "WORKBENCH_SECRET_UNSET"])
def test_a_judge_naming_a_server_variable_or_an_unset_secret_is_refused_at_save(variable, monkeypatch):
    monkeypatch.setenv("SECRET_KEY", "server-secret") if variable == "SECRET_KEY" else None
    monkeypatch.delenv("WORKBENCH_SECRET_UNSET", raising=False)
    with pytest.raises(ValidationError) as refused:
        machine_judges.machine_judge_create(
            collection=_collection(), name="j", base_url="http://x/v1", model="m", api_key_env=variable
        )
    assert list(refused.value.message_dict) == ["api_key_env"]


@pytest.mark.parametrize("url", ["http://127.0.0.1:6379/v1", "http://2130706433/v1", "http://[::ffff:10.0.0.1]/v1",
                                 "http://169.254.169.254/latest", "http://localhost:5432"])  # fmt: skip
def test_a_judge_pointed_inside_is_refused_at_save_unless_the_operator_allows_it(url, monkeypatch):
    with pytest.raises(ValidationError) as refused:
        machine_judges.machine_judge_create(collection=_collection(), name="j", base_url=url, model="m")
    assert "WORKBENCH_OUTBOUND_ALLOW" in refused.value.message_dict["base_url"][0]
    monkeypatch.setenv("WORKBENCH_OUTBOUND_ALLOW", "127.0.0.0/8,10.0.0.0/8,169.254.169.254,localhost")
    machine_judges.machine_judge_create(collection=_collection(), name="j", base_url=url, model="m")


def test_a_judge_saved_before_the_rule_with_a_server_variable_is_refused_when_run(monkeypatch):
    monkeypatch.setenv("SECRET_KEY", "server-secret-that-must-stay")
    collection = _collection()
    with chat_server({}) as server:
        judge = machine_judges.machine_judge_create(collection=collection, name="j", base_url=server.base_url,
                                                    model="m")  # fmt: skip
        MachineJudge.objects.filter(pk=judge.pk).update(api_key_env="SECRET_KEY")
        job = Job.objects.create(kind="judge", task=machine_judges.MACHINE_TASK, arguments={"judge_id": judge.id})
        jobs.job_run(job.id, machine_judges.machine_judge_run_job_work)
        judge.refresh_from_db()
        with pytest.raises(ValidationError):
            machine_judges.machine_judge_preview(judge=judge, topic=_pair(collection)[0], document=_pair(collection)[1],
                                                 ask=True)  # fmt: skip
    job.refresh_from_db()
    assert job.state == JobState.FAILED and job.message.startswith("api_key_env:")
    assert server.requests == 0 and not any(server.authorizations)


def _pair(collection):
    item = PoolItem.objects.filter(topic__collection=collection).select_related("topic", "document").first()
    return item.topic, item.document


def test_no_stretch_of_the_key_is_stored_or_served_when_a_server_quotes_it(client, monkeypatch):
    monkeypatch.setenv("WORKBENCH_SECRET_JUDGE", KEY)
    collection = _collection()
    with chat_server({}) as server:
        judge = machine_judges.machine_judge_create(
            collection=collection, name="j", base_url=server.base_url, model="m", api_key_env="WORKBENCH_SECRET_JUDGE",
            retries=0, concurrency=1,
        )  # fmt: skip
        server.faults = ["404key", "echo"]
        machine_judges.machine_judge_run(judge=judge, limit=2)
    assert server.authorizations[0] == f"Bearer {KEY}"
    client.force_login(make_user("researcher"))
    served = client.get(f"/api/machine-judges/{judge.id}/labels/").content.decode()
    stored = str(list(MachineReply.objects.values("failure", "reply")))
    assert "HTTP 404" in stored and "[key]" in stored
    for text in (served, stored):
        assert not any(KEY[i : i + 8] in text for i in range(len(KEY) - 7))


def test_a_preview_makes_one_try_within_its_own_deadline(monkeypatch):
    collection = _collection()
    monkeypatch.setattr(providers, "PREVIEW_SECONDS", 0.5)
    with chat_server({}) as server:
        judge = machine_judges.machine_judge_create(
            collection=collection, name="j", base_url=server.base_url, model="m", timeout=60, retries=10
        )
        server.faults, server.trickle_gap = ["trickle"], 0.2
        topic, document = _pair(collection)
        preview = machine_judges.machine_judge_preview(judge=judge, topic=topic, document=document, ask=True)
        assert server.requests == 1 and server.bytes_sent < 10  # no retry; cut off long before the ~12 s reply
    assert preview["failure"].startswith("timed out") and preview["grade"] is None


def test_a_cancel_stops_a_run_waiting_on_a_slow_server_and_the_run_says_cancelled():
    collection = _collection()
    with chat_server({}) as server:
        server.delay = 30.0  # each call would take 30 s; the run has 16 pairs
        judge = machine_judges.machine_judge_create(
            collection=collection, name="j", base_url=server.base_url, model="m", timeout=120, concurrency=2
        )
        pressed = threading.Event()
        threading.Timer(0.5, pressed.set).start()
        result = machine_judges.machine_judge_run(judge=judge, cancelled=pressed.is_set)
    assert result["stopped"] == "cancelled"
    assert result["labelled"] == result["failed"] == 0 and server.requests == 2  # the two calls under way, no more
    assert not MachineReply.objects.filter(judge=judge).exists()  # nothing paid for is lost: nothing was answered


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_two_starts_of_one_judge_at_once_are_one_run_and_one_refusal(monkeypatch):
    monkeypatch.setattr(jobs, "job_enqueue", lambda job_id: True)  # only the start is under test
    collection = _collection()
    judge = machine_judges.machine_judge_create(collection=collection, name="j", base_url="http://x/v1", model="m")
    barrier, outcomes = threading.Barrier(2), []

    def start() -> None:
        try:
            barrier.wait()
            machine_judges.machine_judge_run_start(judge=judge)
            outcomes.append("started")
        except ValidationError:
            outcomes.append("refused")
        finally:
            connection.close()

    for _ in range(5):
        Job.objects.all().delete()
        outcomes.clear()
        threads = [threading.Thread(target=start) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(outcomes) == ["refused", "started"]
        assert Job.objects.filter(task=machine_judges.MACHINE_TASK).count() == 1


@pytest.mark.django_db(transaction=True)
def test_in_embedded_mode_a_run_answers_at_once_and_its_job_goes_on_in_the_background(client, settings):
    """The demo's Run held the browser for the whole run (~70 s for 291 pairs)."""
    settings.WORKBENCH_JOBS_IN_THREADS = True
    collection = _collection()
    client.force_login(make_user("admin"))
    with chat_server({}) as server:
        server.delay = 0.3  # a call at a time, for every pooled pair
        judge = machine_judges.machine_judge_create(
            collection=collection, name="j", base_url=server.base_url, model="m", concurrency=1
        )
        answer = client.post(f"/judging/machine-judges/{judge.id}/run/", {f"run{judge.id}-limit": ""})
        assert answer.status_code == 302 and "/jobs/" in answer.url
        job = Job.objects.get(task=machine_judges.MACHINE_TASK)
        pairs = PoolItem.objects.filter(topic__collection=collection).count()
        assert job.state in (JobState.QUEUED, JobState.RUNNING) and server.requests < pairs  # not waited for
        assert client.get(answer.url).status_code == 200  # its page, with the progress, while it runs
        for _ in range(600):  # until the thread ends it (bounded; no timing is asserted)
            job.refresh_from_db()
            if job.state not in (JobState.QUEUED, JobState.RUNNING):
                break
            threading.Event().wait(0.05)
    assert job.state == JobState.DONE and job.result["labelled"] == pairs


@pytest.mark.parametrize(
    "template",
    [
        "{title:>2000000000} {document}",
        "{title:>99999999999999999999} {document}",
        "{title:{title}} {document}",
        "{title!r} {document}",
    ],
)
def test_a_template_placeholder_with_a_format_spec_or_conversion_is_refused_at_save_and_preview(template, client):
    collection = _collection()
    judge = machine_judges.machine_judge_create(collection=collection, name="j", base_url="http://x/v1", model="m")
    with pytest.raises(ValidationError) as refused:
        machine_judges.machine_judge_update(judge=judge, prompt="custom", template=template)
    assert "format spec" in refused.value.message_dict["template"][0]
    topic, document = _pair(collection)
    client.force_login(make_user("admin"))
    answer = client.post(
        f"/api/machine-judges/{judge.id}/preview/",
        {"topic": topic.number, "docno": document.docno, "template": template},
        content_type="application/json",
    )
    assert answer.status_code == 400 and "template" in answer.json()["error"]["fields"]


def test_a_stored_template_that_slipped_past_the_check_is_refused_not_run_and_a_prompt_is_bounded():
    from judging.machines.core.prompts import MAX_PROMPT_CHARS, custom, render

    with pytest.raises(ValueError, match="format spec"):
        render(custom("{title:>2000000000} {document}", scale=(0, 3)), title="t", document="d")
    prompt = render(custom("{title} {document}", scale=(0, 3)), title="t" * (MAX_PROMPT_CHARS * 2), document="d")
    assert len(prompt) <= MAX_PROMPT_CHARS + 2
