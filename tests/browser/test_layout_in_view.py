"""What a person must see without hunting for it, at 1280×800 and on a 390×844 phone: the leaderboard's run and
Judged@10 stay in view with a cue that more columns exist; an assessor's Start link; the document near the top once
the topic was read; no grade buttons on "Topic complete"; code that is not cut off. Screenshots go to
test-artifacts/."""

from __future__ import annotations

import pytest

from evaluation import services as evaluation_services
from judging import services
from tests.browser.conftest import log_in
from tests.factories import make_collection, make_user

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SIZES = {"laptop": (1280, 800), "phone": (390, 844)}
MEASURES = ["AP", "P@5", "P@10", "P@20", "nDCG@5", "nDCG@10", "nDCG@20", "RR", "Bpref", "R@100", "ERR@20"]


def _in_view(page, selector: str) -> bool:
    return page.eval_on_selector(
        selector,
        "e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.left >= 0 && r.right <= innerWidth + 1; }",
    )


@pytest.mark.parametrize("size", SIZES)
def test_the_run_and_judged_at_10_stay_in_view_and_the_hidden_columns_are_announced(
    browser, live_server, screenshot, size
):
    collection = make_collection(topics=2, runs=3, measures=MEASURES)
    evaluation_services.collection_recompute(collection_id=collection.id)
    researcher = make_user("researcher")
    page = browser.new_context(viewport=dict(zip(("width", "height"), SIZES[size], strict=True))).new_page()
    log_in(page, live_server, researcher.username)
    page.goto(f"{live_server.url}/results/{collection.id}/")
    page.wait_for_selector(".scroll-hint")
    assert "more column" in page.inner_text(".scroll-hint")
    page.eval_on_selector("#leaderboard-form .table-scroll", "box => { box.scrollLeft = box.scrollWidth; }")
    page.wait_for_timeout(200)
    assert _in_view(page, "#leaderboard tr[data-run=run0] td:nth-child(1)")
    assert _in_view(page, "#leaderboard thead th:nth-child(2)")  # Judged@10
    assert page.inner_text("#leaderboard thead th:nth-child(2)").startswith("Judged@10")
    assert _in_view(page, "#leaderboard thead th:last-child")
    screenshot(page, f"leaderboard-scrolled-{size}")
    page.click("#columns-chooser summary")
    for measure in MEASURES[2:]:
        page.uncheck(f"#columns-chooser input[value='{measure}']")
    page.click("#columns-chooser button[type=submit]")
    page.wait_for_selector("#columns-chooser summary:has-text('2 of 11')")
    headers = page.eval_on_selector_all("#leaderboard thead th a", "links => links.map(a => a.dataset.sort)")
    assert headers == ["tag", "judged", "topics", "AP", "P@5"]
    page.context.close()


CODE = (
    "def parse(text):\n    return [line.split() for line in text.splitlines() if line and not line.startswith('#')] + "
    * 3
)


def _code_topic(**settings):
    """One topic whose pooled documents are indented code with long lines (shown as preformatted blocks)."""
    collection = services.collection_create(name="code", max_grade=3, relevance_threshold=1, **settings)
    services.topics_create(collection=collection, topics=[{"number": "1", "title": "parsing"}])
    services.documents_create(
        collection=collection, documents=[{"docno": f"d{i}", "title": f"code {i}", "body": CODE} for i in range(4)]
    )
    services.run_create(collection=collection, tag="r", scores={"1": {f"d{i}": float(-i) for i in range(4)}})
    services.pool_build_depth(collection=collection, depth=4)
    topic = collection.topics.get()
    assessor = make_user("assessor")
    services.assignment_create(assessor=assessor, topic=topic)
    return topic, assessor


def test_an_assessor_on_a_phone_sees_start_and_later_the_document_near_the_top(browser, live_server, screenshot):
    topic, assessor = _code_topic(guidelines="# Read carefully\n\n" + "Judge the whole document. " * 60)
    phone = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    log_in(phone, live_server, assessor.username)
    phone.wait_for_selector("text=My assignments")
    assert _in_view(phone, "a.start")
    screenshot(phone, "assignments-phone")

    laptop = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    log_in(laptop, live_server, assessor.username)
    laptop.goto(f"{live_server.url}/judging/judge/{topic.id}/")
    laptop.wait_for_selector("#document")
    assert laptop.eval_on_selector("#topic-details", "d => d.open")  # the first visit shows it in full
    laptop.reload()
    laptop.wait_for_selector("#document")
    assert not laptop.eval_on_selector("#topic-details", "d => d.open")
    assert laptop.eval_on_selector("#document", "d => d.getBoundingClientRect().top") < 400
    screenshot(laptop, "judging-second-visit-1280")
    laptop.keyboard.press("t")
    assert laptop.eval_on_selector("#topic-details", "d => d.open")
    laptop.keyboard.press("t")

    total = topic.pool_items.count()
    for _ in range(total):
        laptop.wait_for_timeout(300)
        laptop.keyboard.press("1")
    laptop.wait_for_selector("#complete:not([hidden])")
    assert not laptop.is_visible(".judge-bar .grades")
    screenshot(laptop, "topic-complete-1280")


def test_preformatted_text_is_wrapped_on_a_phone(browser, live_server, screenshot):
    topic, assessor = _code_topic()
    phone = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    log_in(phone, live_server, assessor.username)
    phone.goto(f"{live_server.url}/judging/judge/{topic.id}/")
    phone.wait_for_selector("#document .pre-block")
    widest = phone.eval_on_selector_all(
        "#document .pre-block", "blocks => Math.max(...blocks.map(b => b.scrollWidth - b.clientWidth))"
    )
    assert widest == 0
    assert phone.evaluate("document.documentElement.scrollWidth") <= 391
    screenshot(phone, "code-document-phone")


@pytest.mark.parametrize("size", SIZES)
def test_when_post_editing_the_machines_grade_is_in_view_beside_or_above_the_document(browser, live_server,
                                                                                    screenshot, size):  # fmt: skip
    from judging.machines import services as machine_judges

    collection = make_collection(max_grade=3, topics=1, documents=6, runs=1, depth=6)
    long = "A long passage of the document, one sentence after another, none of them short. " * 120
    collection.documents.update(body=long)
    judge = machine_judges.machine_judge_create(collection=collection, name="bm25", provider="lexical")
    machine_judges.machine_judge_run(judge=judge)
    services.collection_settings_update(collection=collection, verification_judge=judge, verification_mode="post_edit")
    assessor = make_user("assessor")
    topic = collection.topics.get()
    services.assignment_create(assessor=assessor, topic=topic)
    page = browser.new_context(viewport=dict(zip(("width", "height"), SIZES[size], strict=True))).new_page()
    log_in(page, live_server, assessor.username)
    page.goto(f"{live_server.url}/judging/judge/{topic.id}/")
    page.wait_for_selector("#machine-label")
    box = page.eval_on_selector("#machine-label", "e => { const r = e.getBoundingClientRect(); "
                                "return [r.top, r.bottom, r.left, r.right, innerHeight, innerWidth]; }")  # fmt: skip
    top, bottom, left, right, height, width = box
    assert top >= 0 and bottom <= height and left >= 0 and right <= width + 1, box  # no scrolling to find it
    document = page.eval_on_selector("#document", "e => e.getBoundingClientRect().top")
    assert document < height  # and the document starts in view too
    if size == "laptop":
        assert left > page.eval_on_selector("#document", "e => e.getBoundingClientRect().right") - 1  # beside it
    screenshot(page, f"post-editing-{size}")
    page.context.close()


SIX_GRADES = [
    ("Not relevant", ""),
    ("Marginally relevant", ""),
    ("Partially relevant", ""),
    ("Relevant", ""),
    ("Highly relevant", ""),
    ("Perfectly relevant", ""),
]


@pytest.mark.parametrize("size", SIZES)
def test_every_grade_label_is_shown_whole_on_a_phone_and_a_laptop(browser, live_server, screenshot, size):
    collection = make_collection(max_grade=5, threshold=2, grades=SIX_GRADES)
    topic = collection.topics.first()
    assessor = make_user("assessor")
    services.assignment_create(assessor=assessor, topic=topic)
    page = browser.new_context(viewport=dict(zip(("width", "height"), SIZES[size], strict=True))).new_page()
    log_in(page, live_server, assessor.username)
    page.goto(f"{live_server.url}/judging/judge/{topic.id}/")
    page.wait_for_selector(".judge-bar .grades button")
    labels = page.eval_on_selector_all(
        ".judge-bar .grades .grade-label",
        "spans => spans.map(s => ({text: s.textContent.trim(), cut: s.scrollWidth > s.clientWidth + 1,"
        " visible: s.getBoundingClientRect().width > 0}))",
    )
    assert [label["text"] for label in labels] == [name for name, _ in SIX_GRADES]
    assert all(label["visible"] and not label["cut"] for label in labels), labels
    ellipsized = page.eval_on_selector_all(
        ".judge-bar .grades .grade-label", "spans => spans.filter(s => getComputedStyle(s).textOverflow === 'ellipsis')"
    )
    assert not ellipsized
    broken_words = page.eval_on_selector_all(
        ".judge-bar .grades .grade-label",
        """spans => spans.flatMap(s => {
            const text = s.firstChild, words = [];
            for (const m of text.textContent.matchAll(/\\S+/g)) {
                const range = document.createRange();
                range.setStart(text, m.index); range.setEnd(text, m.index + m[0].length);
                if (range.getClientRects().length > 1) words.push(m[0]);  // a word split over two lines
            }
            return words;
        })""",
    )
    assert not broken_words
    assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size][0] + 1
    screenshot(page, f"six-grades-{size}")
    page.context.close()
