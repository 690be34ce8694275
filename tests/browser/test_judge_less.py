"""Judging less, in a real browser: under Move-to-Front the next document follows the judgment just made, and the
campaign page says where the campaign stands and when it could stop."""

from __future__ import annotations

import pytest

from judging import services
from judging.models import Document
from tests.browser.conftest import log_in
from tests.browser.test_judging_page import grade_key, open_topic
from tests.factories import make_user
from tests.judging.ordering.test_adaptive_queue import two_run_topic

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def shown(page) -> str:
    document_id = page.get_attribute("#judging", "data-shown")
    return Document.objects.get(pk=int(document_id)).docno


def wait_until_shown(page, docno: str) -> None:
    document = Document.objects.filter(docno=docno).order_by("-id").first()
    page.wait_for_selector(f"#judging[data-shown='{document.id}']:not([data-choosing])")


def test_under_mtf_the_next_document_follows_a_relevant_judgment(page, live_server, screenshot):
    topic, (assessor,) = two_run_topic("mtf")
    open_topic(page, live_server, assessor, topic)
    assert shown(page) == "a0"
    grade_key(page, "2")  # relevant: run A stays at the front (the static order would give b0 next)
    wait_until_shown(page, "a1")
    grade_key(page, "0")  # not relevant: run B's turn
    wait_until_shown(page, "b0")
    screenshot(page, "judging-mtf-next-document")
    page.wait_for_selector("#save-status:has-text('All saved')")


def stable_campaign():
    """Three topics; run "good" ranks 8 relevant documents in its top 10, run "bad" none in its top 10, run "mid"
    between; the top 10 of good and bad are judged, the rest of the depth-20 pool is not."""
    collection = services.collection_create(name="judge less", max_grade=1, relevance_threshold=1)
    numbers = ["1", "2", "3"]
    services.topics_create(collection=collection, topics=[{"number": n, "title": f"topic {n}"} for n in numbers])
    services.documents_create(collection=collection, documents=[{"docno": f"d{i}", "body": "x"} for i in range(60)])
    good, bad = list(range(20)), list(range(40, 60))
    for tag, ranking in (("good", good), ("bad", bad), ("mid", good[:5] + bad[:15])):
        scores = {n: {f"d{d}": 100.0 - i for i, d in enumerate(ranking)} for n in numbers}
        services.run_create(collection=collection, tag=tag, scores=scores)
    services.pool_build_depth(collection=collection, depth=20)
    assessor = make_user("assessor")
    documents = {d.docno: d for d in Document.objects.filter(collection=collection)}
    for topic in collection.topics.all():
        services.assignment_create(assessor=assessor, topic=topic)
        for d in good[:10] + bad[:10]:
            grade = int(d in good[:8])
            services.judgment_record(assessor=assessor, topic=topic, document=documents[f"d{d}"], grade=grade)
    return collection


def test_the_campaign_page_shows_the_stability_and_suggests_stopping(page, live_server, screenshot):
    collection = stable_campaign()
    admin = make_user("admin")
    log_in(page, live_server, admin.username)
    page.goto(f"{live_server.url}/judging/collections/{collection.id}/")
    page.wait_for_selector("[data-standing] [data-figure='stability']")
    stability = page.inner_text("[data-figure='stability']")
    assert stability.endswith("%") and int(stability[:-1]) >= 95
    assert page.inner_text("[data-figure='relevant-found']") == "24"
    stop = page.inner_text("[data-stop]")
    assert "You could stop now" in stop and "60 pooled documents not judged by people" in stop
    screenshot(page, "campaign-stop-suggestion-1280")
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    page.wait_for_selector("[data-standing] [data-figure='stability']")
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width}px wide on a 390px phone"
    screenshot(page, "campaign-stop-suggestion-390")
