"""RAG answers end to end in chromium, at 1280 px and on a 390 px phone: an admin imports two RAG runs and has a
machine (the local chat-completions server) propose nuggets; an assessor post-edits and accepts them; two assessors
label the answers' nuggets and a few citations' support by keys; the RAG leaderboard follows each label, fresh, and
equals what the stored labels give. No page breaks its Content-Security-Policy or throws."""

from __future__ import annotations

import pytest

from evaluation.nuggets import selectors as rag_scores
from judging import services
from judging.machines.services import machine_judge_create
from judging.rag.models.answers import Answer, SupportJudgment
from judging.rag.models.nuggets import Nugget, NuggetAssignment, NuggetChange
from tests.browser.conftest import _wait_for_the_live_server_to_go_quiet, log_in
from tests.browser.test_machine_judges import _watch
from tests.chat_server import chat_server
from tests.factories import make_collection, make_user
from tests.rag_files import rag24

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

RUNS = [
    rag24("rag-a", "1", ["d1", "d2"], [("Paris is the capital of France.", [0]), ("It is large.", [1])]),
    rag24("rag-a", "2", ["d3"], [("Rome is old.", [0])]),
    rag24("rag-b", "1", ["d2"], [("Lyon is large.", [0])]),
    rag24("rag-b", "2", ["d4", "d3"], [("Rome is the capital of Italy.", [0, 1])]),
]


def _board(collection) -> dict:
    return {row["run"]: row for row in rag_scores.rag_leaderboard(collection=collection)["runs"]}


def _label_answer(page, live_server, answer: Answer, keys: str) -> None:
    """Labels the answer's nuggets in order, one key each, waiting for each save to show."""
    page.goto(f"{live_server.url}/judging/answers/{answer.id}/")
    page.wait_for_selector(".nugget-item.current")
    for index, key in enumerate(keys):
        page.keyboard.press(key)
        page.locator(".nugget-item").nth(index).locator(f'button[data-key="{key}"][aria-pressed="true"]').wait_for()


def test_rag_answers_from_import_to_a_fresh_leaderboard(browser, live_server, tmp_path):
    collection = make_collection(topics=2, documents=6, runs=0, max_grade=1)
    admin, researcher = make_user("admin"), make_user("researcher")
    alice, bob = make_user("assessor"), make_user("assessor")
    for topic in collection.topics.all():
        services.assignment_create(assessor=alice, topic=topic)
        services.assignment_create(assessor=bob, topic=topic)
    runs = tmp_path / "rag-runs.jsonl"
    runs.write_text("\n".join(RUNS) + "\n")
    problems: list[str] = []
    with chat_server({}) as server:
        server.nuggets = {
            "topic 1": [{"text": "capital of France", "importance": "vital"}, {"text": "large", "importance": "okay"}],
            "topic 2": [{"text": "Rome is old", "importance": "vital"}, "capital of Italy"],
        }
        machine_judge_create(collection=collection, name="nuggetizer", base_url=server.base_url, model="m")
        admin_page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
        _watch(admin_page, problems)
        log_in(admin_page, live_server, admin.username)
        admin_page.goto(f"{live_server.url}/judging/collections/{collection.id}/answers/")
        admin_page.set_input_files("#id_file", str(runs))
        admin_page.click("#answer-import button[type=submit]")
        admin_page.wait_for_selector('tr[data-run="rag-b"]')
        admin_page.click('#machine-nuggets button[value="propose"]')
        admin_page.wait_for_selector('dd[data-figure="proposed"]:has-text("4")')
        assert Nugget.objects.filter(topic__collection=collection, accepted=False).count() == 4

    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True).new_page()
    _watch(phone, problems)
    log_in(phone, live_server, alice.username)
    topic1 = collection.topics.get(number="1")
    phone.goto(f"{live_server.url}/judging/topics/{topic1.id}/nuggets/")
    first = Nugget.objects.filter(topic=topic1).order_by("position").first()
    phone.fill(f"#text-{first.id}", "Paris is the capital of France")
    phone.click(f'li[data-nugget="{first.id}"] button[value="edit"]')
    phone.click("#accept-all")
    phone.wait_for_selector("text=2 proposal(s) accepted.")
    assert NuggetChange.objects.filter(nugget=first, action="reworded", changed_by=alice).exists()
    topic2 = collection.topics.get(number="2")
    phone.goto(f"{live_server.url}/judging/topics/{topic2.id}/nuggets/")
    phone.click("#accept-all")
    phone.wait_for_selector("text=2 proposal(s) accepted.")

    # Alice on her phone labels rag-a's answer to topic 1: both nuggets, then the first citation's support.
    answer = Answer.objects.get(run__tag="rag-a", topic=topic1)
    from judging.models import Document

    Document.objects.filter(pk=answer.references[0]).update(  # a segment with line breaks and a 600-wide line
        body="Paris\n+" + "-" * 80 + "+\n| capital | France |\n" + "x" * 600
    )
    phone.goto(f"{live_server.url}/judging/answers/{answer.id}/")
    phone.wait_for_selector(".nugget-item.current")
    assert phone.evaluate("window.scrollY") == 0  # it opens at the answer, not scrolled to the nuggets below it
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    assert "\n| capital | France |" in phone.locator(".segment").first.inner_text()  # its line breaks kept
    _label_answer(phone, live_server, answer, "sp")
    phone.keyboard.press("f")  # the focus moved on to the first citation
    phone.locator(".citation-item").first.locator('button[data-key="f"][aria-pressed="true"]').wait_for()
    assert phone.locator("#answer-progress").inner_text() == "2 of 2 nuggets labelled, 1 of 2 citations judged"
    box = phone.locator(".nugget-item").first.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390  # the phone's width, no sideways scrolling
    labels = NuggetAssignment.objects.filter(assessor=alice, answer=answer).values_list("nugget__text", "label")
    assert dict(labels) == {"Paris is the capital of France": "support", "large": "partial_support"}
    assert SupportJudgment.objects.get(assessor=alice, answer=answer).label == "full"

    reader = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    _watch(reader, problems)
    log_in(reader, live_server, researcher.username)
    reader.goto(f"{live_server.url}/results/{collection.id}/rag/")
    reader.wait_for_selector("#rag-freshness:has-text('fresh')")
    cell = reader.locator('tr[data-run="rag-a"] td[data-score="all_score"]')
    assert cell.inner_text() == f"{_board(collection)['rag-a']['all_score']:.4f}" == "0.7500"

    # Bob at 1280 px labels the same answer differently; the board follows, fresh.
    desk = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    _watch(desk, problems)
    log_in(desk, live_server, bob.username)
    desk.goto(f"{live_server.url}/judging/assignments/")
    desk.click('a[data-answers="1"]')
    desk.wait_for_selector("#topic-answers")
    _label_answer(desk, live_server, answer, "nn")
    for rag_answer in Answer.objects.filter(run__tag="rag-b"):
        _label_answer(desk, live_server, rag_answer, "sn")
    reader.goto(f"{live_server.url}/results/{collection.id}/rag/")
    reader.wait_for_selector("#rag-freshness:has-text('fresh')")
    board = _board(collection)
    # alice: support, partial; bob: none, none. Ties go to the more supportive label: support, partial.
    assert reader.locator('tr[data-run="rag-a"] td[data-score="all_score"]').inner_text() == "0.7500"
    assert reader.locator('tr[data-run="rag-b"] td[data-score="strict_all_score"]').inner_text() == (
        f"{board['rag-b']['strict_all_score']:.4f}") == "0.5000"  # fmt: skip
    assert (
        reader.locator("#assignment-agreement").inner_text().count("2 disagreement(s)") == 1
    )  # both of alice's labels against bob's
    for opened in (admin_page, phone, reader, desk):
        opened.context.close()
    _wait_for_the_live_server_to_go_quiet()
    assert problems == []
