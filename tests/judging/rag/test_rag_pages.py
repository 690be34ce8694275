"""The RAG pages as each role uses them: an admin imports answer runs and edits nuggets, an assessor labels an
answer's nuggets and citations (blind to runs), a researcher reads the RAG leaderboard and exports, and whoever must
be refused is."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from judging.rag.models.answers import SupportJudgment
from judging.rag.models.nuggets import Nugget, NuggetAssignment, NuggetChange
from tests.factories import make_collection, make_user
from tests.rag_campaign import rag_campaign
from tests.rag_files import rag24

pytestmark = pytest.mark.django_db


def _upload(lines: list[str], name="runs.jsonl"):
    return SimpleUploadedFile(name, ("\n".join(lines) + "\n").encode(), content_type="application/jsonl")


def test_an_admin_imports_a_rag_run_in_the_browser_and_a_bad_file_is_refused_naming_its_line(client):
    collection = make_collection(topics=1, documents=3, runs=0)
    client.force_login(make_user("admin"))
    url = reverse("judging:answers", args=[collection.id])
    refused = client.post(url, {"file": _upload([rag24("r", "1", ["d1"], [("x", [3])])])})
    assert refused.status_code == 400
    assert "runs.jsonl, line 1, answer[0].citations" in refused.content.decode()
    done = client.post(url, {"file": _upload([rag24("r", "1", ["d1"], [("x", [0])])])}, follow=True)
    assert "Imported 1 answers of 1 run(s)" in done.content.decode()
    assert 'data-run="r"' in done.content.decode()


def test_an_assessor_labels_nuggets_and_citations_without_seeing_runs(client):
    rag = rag_campaign()
    answer = rag.answer("rag-a", "1")
    client.force_login(rag.alice)
    page = client.get(reverse("judging:answer_judge", args=[answer.id]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "rag-a" not in html and "rag-b" not in html
    assert "capital 1" in html and "Paris is the capital." in html
    saved = client.post(
        reverse("judging:answer_assign", args=[answer.id]),
        {"nugget": rag.nuggets["1", 0].id, "label": "support"},
        headers={"Accept": "application/json"},
    )
    assert saved.json() == {"saved": True}
    d1 = answer.references[0]
    client.post(reverse("judging:answer_support", args=[answer.id]), {"sentence": 0, "document": d1, "label": "full"})
    assert NuggetAssignment.objects.get(assessor=rag.alice).label == "support"
    assert SupportJudgment.objects.get(assessor=rag.alice).label == "full"
    wrong = client.post(
        reverse("judging:answer_support", args=[answer.id]),
        {"sentence": 0, "document": answer.references[1], "label": "full"},
        headers={"Accept": "application/json"},
    )
    assert wrong.status_code == 400 and "does not cite" in wrong.json()["error"]["message"]


def test_an_assessor_not_assigned_the_topic_and_a_researcher_are_refused_the_answer_page(client):
    rag = rag_campaign()
    answer = rag.answer("rag-a", "1")
    client.force_login(make_user("assessor"))
    assert client.get(reverse("judging:answer_judge", args=[answer.id])).status_code == 403
    client.force_login(make_user("researcher"))
    assert client.get(reverse("judging:answer_judge", args=[answer.id])).status_code == 403
    assert client.get(reverse("judging:answers", args=[rag.collection.id])).status_code == 403


def test_people_post_edit_nuggets_and_every_change_is_kept_with_who_made_it(client):
    rag = rag_campaign()
    topic = rag.collection.topics.get(number="1")
    client.force_login(rag.alice)
    url = reverse("judging:nuggets", args=[topic.id])
    first, second = rag.nuggets["1", 0], rag.nuggets["1", 1]
    client.post(url, {"action": "edit", "nugget": first.id, "text": "Paris is the capital", "importance": "vital"})
    client.post(url, {"action": "merge", "nugget": first.id, "other": second.id, "text": "Paris: capital, large"})
    client.post(url, {"action": "split", "nugget": first.id, "parts": "Paris is the capital\nParis is large"})
    client.post(url, {"action": "vote", "nugget": first.id, "importance": "okay"})
    texts = list(Nugget.objects.filter(topic=topic, removed=False).values_list("text", flat=True))
    assert texts[:2] == ["Paris is the capital", "Paris is large"]
    actions = list(NuggetChange.objects.filter(nugget=first).order_by("id").values_list("action", "changed_by"))
    assert [a for a, _ in actions] == ["created", "reworded", "merged", "split"]
    assert {who for _, who in actions[1:]} == {rag.alice.id}
    page = client.get(url).content.decode()
    assert "pyramid weight 0.00" in page


def test_a_researcher_reads_the_rag_leaderboard_and_exports_and_an_assessor_cannot(client):
    rag = rag_campaign()
    client.force_login(make_user("researcher"))
    page = client.get(reverse("evaluation:rag_leaderboard", args=[rag.collection.id]))
    assert page.status_code == 200 and 'data-run="rag-a"' in page.content.decode()
    run = rag.collection.runs.get(tag="rag-a")
    exported = client.get(reverse("evaluation:answers_export", args=[rag.collection.id, run.id]))
    lines = [json.loads(line) for line in exported.content.decode().splitlines()]
    assert [line["topic_id"] for line in lines] == ["1", "2"] and lines[0]["references"] == ["d1", "d2"]
    # the campaign was built without running its recomputes: the header says so
    assert json.loads(exported["X-Provenance"])["answer_scores"] == {"fresh": False, "stale_topics": 2}
    client.force_login(rag.alice)
    assert client.get(reverse("evaluation:rag_leaderboard", args=[rag.collection.id])).status_code == 403
    assert client.get(reverse("evaluation:nuggets_export", args=[rag.collection.id])).status_code == 403


def test_my_assignments_offers_a_topics_answers(client):
    rag = rag_campaign()
    client.force_login(rag.bob)
    page = client.get(reverse("judging:assignments")).content.decode()
    assert 'data-answers="1"' in page and "Answers (2)" in page


def test_the_machine_nuggets_form_refuses_a_work_it_does_not_know(client):
    from judging.jobs.models import Job
    from judging.machines.services import machine_judge_create
    from tests.chat_server import outbound_allowed

    rag = rag_campaign()
    with outbound_allowed("127.0.0.1:9"):
        judge = machine_judge_create(collection=rag.collection, name="llm", base_url="http://127.0.0.1:9/v1", model="m")
    client.force_login(make_user("admin"))
    url = reverse("judging:answers_machine", args=[rag.collection.id])
    answer = client.post(url, {"judge": judge.id, "work": "nonsense"}, follow=True)
    assert "Choose what the machine should do" in answer.content.decode()
    assert not Job.objects.exists()
