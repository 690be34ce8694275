"""In a real browser: gold items and repeated items mixed into a queue look exactly like any other document (the
same markup around the document, the same requests with the same fields, the same fields in every save's answer)
and move the counters as any document does ("Document X of Y" and "N / M judged" agree after every save), by
keyboard at 1280 px and by touch on a 390 px phone. No page breaks its Content-Security-Policy or throws."""

from __future__ import annotations

import re

import pytest

from judging import services
from judging.models import Document, PoolItem, Topic
from judging.quality.models import CheckKind, QualityCheck
from tests.browser.test_judging_page import GUARD_MS, open_topic
from tests.browser.test_machine_judges import _watch
from tests.factories import make_collection, make_user

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

OWN, GOLD = 8, 4  # enough for checks of both kinds to come due, repeats among them

SKELETON = """() => [...document.querySelectorAll('#document-slot *')].map(
    (e) => `${e.tagName}#${e.id}.${[...e.classList].sort().join('.')}[${[...e.attributes].map((a) => a.name).sort()}]`
).join(' ')"""


@pytest.fixture
def campaign():
    """Two topics of OWN + GOLD pooled documents, one judgment per item; a reference's labels of GOLD documents per
    topic are gold (filled: an assessor sees them only as gold items). Ann judges topic 1, Bob topic 2."""
    collection = make_collection(max_grade=3, topics=2, documents=OWN + GOLD, runs=1, depth=OWN + GOLD,
                                 assessors_per_item=1, gold_rate=0.25, repeat_rate=0.3,
                                 shuffle_within_priority=False)  # fmt: skip
    reference, ann, bob = make_user("assessor"), make_user("assessor"), make_user("assessor")
    topics = list(Topic.objects.filter(collection=collection).order_by("id"))
    labels = {}
    for topic in topics:
        pooled = PoolItem.objects.filter(topic=topic).order_by("-priority", "id").select_related("document")
        for item in list(pooled)[-GOLD:]:
            labels[(reference, topic.id, item.document_id)] = _grade(item.document.docno)
    services.judgments_record_bulk(labels=labels)
    services.collection_settings_update(collection=collection, gold_assessors=[reference.pk])
    services.assignment_create(assessor=ann, topic=topics[0])
    services.assignment_create(assessor=bob, topic=topics[1])
    return topics, ann, bob


def _grade(docno: str) -> int:
    return int(docno[1:]) % 4


def _judge_the_whole_queue(page, answer) -> list[tuple[int, str, str]]:
    """Judges until the page says all are judged, checks that came due at the end included; returns (document id,
    markup around it, progress text) for each document shown."""
    shown = []
    for _ in range(4 * (OWN + GOLD)):
        page.wait_for_selector("#save-status:has-text('All saved')")
        if page.is_visible("#complete"):
            page.wait_for_timeout(400)  # a check that came due with the last save is shown next
            if page.is_visible("#complete"):
                return shown
        current = page.get_attribute("#judging", "data-shown")
        page.wait_for_selector("#document")
        counters = (page.inner_text("#judged-count"), page.inner_text("#position"))
        shown.append((int(current), page.evaluate(SKELETON), counters))
        docno = Document.objects.get(pk=current).docno
        page.wait_for_timeout(GUARD_MS)
        answer(page, str(_grade(docno)))
        page.wait_for_function(
            "(was) => document.getElementById('judging').dataset.shown !== was "
            "|| !document.getElementById('complete').hidden",
            arg=current,
        )
    raise AssertionError("the queue never emptied")


def _requests(page) -> list[tuple[str, str, tuple]]:
    seen: list[tuple[str, str, tuple]] = []

    def on_request(request):
        if "/static/" in request.url:
            return
        path = re.sub(r"\d+", "N", request.url.split("//", 1)[1].split("/", 1)[1].split("?")[0])
        fields = tuple(sorted(k.split("=")[0] for k in (request.post_data or "").split("&") if k))
        seen.append((request.method, path, fields))

    page.on("request", on_request)
    return seen


def _answers(page) -> list[frozenset]:
    """The field names of every save's JSON answer."""
    seen: list[frozenset] = []

    def on_response(response):
        if response.request.method == "POST" and "/judging/judge/" in response.url:
            seen.append(frozenset(response.json()))

    page.on("response", on_response)
    return seen


def _assert_blind_and_counted_alike(shown, requests, answers, assessor, topic):
    checks = {c.document_id: c.kind for c in QualityCheck.objects.filter(assessor=assessor, topic=topic)}
    kinds = {kind for kind in checks.values()}
    assert kinds == {CheckKind.GOLD, CheckKind.REPEAT}  # both kinds were met, or the test proves nothing
    assert len({skeleton for _, skeleton, _ in shown}) == 1  # the same markup around every document
    assert len(shown) > OWN and len({d for d, _, _ in shown}) < len(shown)  # more shown than theirs; some twice
    assert {(method, path) for method, path, _ in requests} <= {("GET", "judging/judge/N/doc/N/"),
                                                                ("POST", "judging/judge/N/N/")}  # fmt: skip
    saves = {fields for method, _, fields in requests if method == "POST"}
    assert saves == {("cannot_judge_reason", "entry", "grade", "note", "seconds_total")}
    assert len(answers) == len(shown) and len(set(answers)) == 1  # every save answered with the same fields
    # Every document shown, check or not, is one more judged: "Document X of Y" is the next to judge, and the
    # total grows only as checks are scheduled (never on the check itself).
    totals = []
    for index, (_, _, (judged_text, position_text)) in enumerate(shown):
        judged, total = (int(part.split()[0]) for part in judged_text.split("/"))
        assert judged == index and position_text == f"Document {index + 1} of {total}", (judged_text, position_text)
        totals.append(total)
    assert totals == sorted(totals) and totals[-1] == len(shown)


def test_checks_look_like_any_document_by_keyboard_and_by_touch(browser, live_server, campaign, screenshot):
    topics, ann, bob = campaign
    problems: list[str] = []

    desk = browser.new_context(viewport={"width": 1280, "height": 800})
    page = desk.new_page()
    _watch(page, problems)
    open_topic(page, live_server, ann, topics[0])
    requests, answers = _requests(page), _answers(page)
    shown = _judge_the_whole_queue(page, lambda p, key: p.keyboard.press(key))
    screenshot(page, "checks-done-1280")
    assert page.inner_text("#judged-count") == f"{len(shown)} / {len(shown)} judged"
    _assert_blind_and_counted_alike(shown, requests, answers, ann, topics[0])
    desk.close()

    phone = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page = phone.new_page()
    _watch(page, problems)
    open_topic(page, live_server, bob, topics[1])
    requests, answers = _requests(page), _answers(page)
    shown = _judge_the_whole_queue(page, lambda p, key: p.tap(f".judge-bar button[data-grade='{key}']"))
    screenshot(page, "checks-done-390")
    _assert_blind_and_counted_alike(shown, requests, answers, bob, topics[1])
    phone.close()
    assert problems == []
