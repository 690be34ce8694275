"""The judging page in a real browser: keyboard-only judging, prefetch, double presses, undo, changes, reloads,
failed saves, notes and can't-judge, the key map, and blindness."""

from __future__ import annotations

import pytest

from judging import selectors, services
from judging.models import Judgment, JudgmentHistory
from tests.browser.conftest import log_in
from tests.factories import make_collection, make_user

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

GUARD_MS = 300  # the page ignores grade keys for 250 ms after a document appears (a double press)


@pytest.fixture
def setting():
    collection = make_collection(max_grade=3, topics=1, documents=10, runs=2, depth=4)
    topic = collection.topics.get()
    assessor, other = make_user("assessor"), make_user("assessor")
    for user in (assessor, other):
        services.assignment_create(assessor=user, topic=topic)
    first = topic.pool_items.order_by("-priority", "id").first()
    services.judgment_record(assessor=other, topic=topic, document=first.document, grade=3, note="OTHER-NOTE")
    return topic, assessor


def open_topic(page, live_server, assessor, topic):
    log_in(page, live_server, assessor.username)
    page.wait_for_selector("text=My assignments")
    page.goto(f"{live_server.url}/judging/judge/{topic.id}/")
    page.wait_for_selector("#document")


def grade_key(page, key: str) -> None:
    page.wait_for_timeout(GUARD_MS)
    page.keyboard.press(key)


def all_saved(page) -> None:
    page.wait_for_selector("#save-status:has-text('All saved')")


def own(assessor):
    return list(Judgment.objects.filter(assessor=assessor).order_by("id").values_list("document_id", "grade"))


def test_an_assessor_judges_a_whole_topic_by_keyboard_only(page, live_server, setting, screenshot):
    topic, assessor = setting
    total = topic.pool_items.count()
    order = [e["id"] for e in selectors.judging_queue(assessor_id=assessor.id, topic=topic)]
    open_topic(page, live_server, assessor, topic)
    assert "OTHER-NOTE" not in page.content() and "run0" not in page.content()  # blind
    screenshot(page, "judging-page")
    for position in range(total):
        page.wait_for_selector(f"#position:has-text('Document {position + 1} of {total}')")
        grade_key(page, str(position % 4))
    page.wait_for_selector("#complete:has-text('Topic complete')")
    all_saved(page)
    assert own(assessor) == [(document, p % 4) for p, document in enumerate(order)]
    assert all(j.seconds_spent > 0.2 for j in Judgment.objects.filter(assessor=assessor))
    page.goto(f"{live_server.url}/judging/assignments/")
    assert f"{total} / {total}" in page.inner_text("table")
    screenshot(page, "assessor-start-page")


def test_the_next_document_is_prefetched_and_shows_in_under_100_ms(page, live_server, setting):
    topic, assessor = setting
    open_topic(page, live_server, assessor, topic)
    page.wait_for_timeout(500)  # the prefetch of the next documents lands
    first = page.get_attribute("#judging", "data-shown")
    grade_key(page, "1")
    page.wait_for_function(f"() => document.querySelector('#judging').dataset.shown !== '{first}'")
    assert int(page.get_attribute("#judging", "data-last-show-ms")) < 100
    all_saved(page)


def test_a_double_key_press_judges_only_the_document_it_was_meant_for(page, live_server, setting):
    topic, assessor = setting
    open_topic(page, live_server, assessor, topic)
    page.wait_for_timeout(GUARD_MS)
    page.keyboard.press("2")
    page.keyboard.press("2")  # the second press lands on the next document at once
    page.wait_for_selector("#position:has-text('Document 2 of')")
    page.wait_for_selector("#key-hint:has-text('Key 2 ignored')")  # and the page says why nothing happened
    all_saved(page)
    page.wait_for_timeout(GUARD_MS)
    assert len(own(assessor)) == 1


def test_undo_takes_back_the_last_judgment_and_returns_to_its_document(page, live_server, setting):
    topic, assessor = setting
    open_topic(page, live_server, assessor, topic)
    first = page.get_attribute("#judging", "data-shown")
    grade_key(page, "3")
    page.wait_for_selector("#position:has-text('Document 2 of')")
    page.keyboard.press("u")
    page.wait_for_selector("#position:has-text('Document 1 of')")
    assert page.get_attribute("#judging", "data-shown") == first
    all_saved(page)
    assert own(assessor) == []
    assert list(JudgmentHistory.objects.filter(assessor=assessor).order_by("id").values_list("action", flat=True)) == [
        "created",
        "deleted",
    ]


def test_an_earlier_judgment_is_changed_from_the_judged_list(page, live_server, setting):
    topic, assessor = setting
    open_topic(page, live_server, assessor, topic)
    first = int(page.get_attribute("#judging", "data-shown"))
    grade_key(page, "1")
    grade_key(page, "0")
    page.wait_for_selector("#position:has-text('Document 3 of')")
    page.click(f"#judged-list a[href='?doc={first}']")
    page.wait_for_selector("#position:has-text('Document 1 of')")
    assert page.get_attribute("button[data-grade='1']", "aria-pressed") == "true"
    grade_key(page, "3")
    all_saved(page)
    assert Judgment.objects.get(assessor=assessor, document_id=first).grade == 3
    assert JudgmentHistory.objects.filter(assessor=assessor, document_id=first).count() == 2


def test_a_reload_mid_topic_resumes_where_the_assessor_was(page, live_server, setting):
    topic, assessor = setting
    total = topic.pool_items.count()
    open_topic(page, live_server, assessor, topic)
    grade_key(page, "1")
    grade_key(page, "2")
    page.wait_for_selector("#position:has-text('Document 3 of')")
    all_saved(page)
    page.reload()
    page.wait_for_selector(f"#position:has-text('Document 3 of {total}')")
    for _ in range(total - 2):
        grade_key(page, "0")
    page.wait_for_selector("#complete:has-text('Topic complete')")
    all_saved(page)
    assert len(own(assessor)) == total


def test_a_failed_save_is_shown_retried_and_stored_once(page, live_server, setting):
    topic, assessor = setting
    failures = {"left": 2}

    def flaky(route):
        if route.request.method == "POST" and failures["left"]:
            failures["left"] -= 1
            route.fulfill(status=503, body="down for a moment")
        else:
            route.continue_()

    open_topic(page, live_server, assessor, topic)
    page.route("**/judging/judge/*/*/", flaky)
    grade_key(page, "2")
    page.wait_for_selector("#save-status:has-text('Not saved yet')")
    assert own(assessor) == []
    all_saved(page)  # retried after 1 s, then 2 s
    assert failures["left"] == 0
    assert [grade for _, grade in own(assessor)] == [2]
    assert JudgmentHistory.objects.filter(assessor=assessor).count() == 1


def test_a_save_that_failed_before_a_reload_is_sent_after_it(page, live_server, setting):
    topic, assessor = setting
    open_topic(page, live_server, assessor, topic)
    page.route(
        "**/judging/judge/*/*/", lambda route: route.abort() if route.request.method == "POST" else route.continue_()
    )
    grade_key(page, "3")
    page.wait_for_selector("#save-status:has-text('Not saved yet')")
    page.unroute("**/judging/judge/*/*/")
    page.reload()
    all_saved(page)
    assert [grade for _, grade in own(assessor)] == [3]


def test_a_note_and_cant_judge_are_made_from_the_keyboard(page, live_server, setting):
    topic, assessor = setting
    open_topic(page, live_server, assessor, topic)
    page.keyboard.press("e")
    page.keyboard.type("mentions the topic only in passing")
    page.keyboard.press("Escape")
    grade_key(page, "1")
    page.wait_for_selector("#position:has-text('Document 2 of')")
    page.keyboard.press("x")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    page.wait_for_selector("#position:has-text('Document 3 of')")
    all_saved(page)
    first, second = Judgment.objects.filter(assessor=assessor).order_by("id")
    assert (first.grade, first.note) == (1, "mentions the topic only in passing")
    assert (second.grade, second.cannot_judge_reason) == (None, "Document does not load or is empty")


def test_question_mark_shows_and_hides_the_key_map(page, live_server, setting):
    topic, assessor = setting
    open_topic(page, live_server, assessor, topic)
    page.keyboard.press("?")
    page.wait_for_selector("#keymap[open]")
    assert "Undo the last judgment" in page.inner_text("#keymap")
    page.keyboard.press("?")
    page.wait_for_selector("#keymap:not([open])", state="attached")
    grade_key(page, "1")
    page.wait_for_selector("#position:has-text('Document 2 of')")


def test_everything_also_works_with_the_mouse(page, live_server, setting):
    topic, assessor = setting
    open_topic(page, live_server, assessor, topic)
    first = int(page.get_attribute("#judging", "data-shown"))
    page.click("button[data-grade='2']")
    page.wait_for_selector("#position:has-text('Document 2 of')")
    page.click("#previous")
    page.wait_for_selector("#position:has-text('Document 1 of')")
    page.click("#next")
    page.wait_for_selector("#position:has-text('Document 2 of')")
    page.click("#undo")
    page.wait_for_selector("#position:has-text('Document 1 of')")
    page.select_option("#cannot-judge-reason", "Topic is unclear")
    page.click("#cannot-judge")
    page.wait_for_selector("#position:has-text('Document 2 of')")
    all_saved(page)
    judgment = Judgment.objects.get(assessor=assessor)
    assert (judgment.document_id, judgment.grade, judgment.cannot_judge_reason) == (first, None, "Topic is unclear")


def test_a_save_the_server_refuses_does_not_hold_back_the_next_documents(page, live_server, setting):
    topic, assessor = setting
    open_topic(page, live_server, assessor, topic)
    refused = int(page.get_attribute("#judging", "data-shown"))
    page.evaluate("document.querySelector('#note').value = 'pasted \\u0000 text'")  # a NUL: the server answers 400
    grade_key(page, "2")
    for key in ("1", "0", "3"):
        grade_key(page, key)
    page.wait_for_function("() => document.querySelectorAll('#judged-list li').length === 4")
    page.wait_for_selector("#save-status:has-text('1 judgment not saved')")
    assert len(own(assessor)) == 3 and refused not in [document for document, _ in own(assessor)]
    assert page.locator("#judged-list li:has-text('not saved')").count() == 1
    page.click(f"#judged-list a[href='?doc={refused}']")
    page.wait_for_selector("#save-error:has-text('NUL character')")
    page.fill("#note", "pasted text")
    page.click("#document")
    grade_key(page, "2")
    all_saved(page)
    assert (refused, 2) in own(assessor) and Judgment.objects.get(
        document_id=refused, assessor=assessor
    ).note == "pasted text"


def test_a_server_error_on_one_save_is_retried_while_the_others_are_saved(page, live_server, setting):
    topic, assessor = setting
    open_topic(page, live_server, assessor, topic)
    failing = page.get_attribute("#judging", "data-shown")
    page.route(
        f"**/judging/judge/{topic.id}/{failing}/",
        lambda route: route.fulfill(status=500, body="boom") if route.request.method == "POST" else route.continue_(),
    )
    grade_key(page, "3")
    grade_key(page, "1")
    grade_key(page, "0")
    for _ in range(50):
        if len(own(assessor)) == 2:
            break
        page.wait_for_timeout(100)
    assert sorted(grade for _, grade in own(assessor)) == [0, 1]
    page.unroute(f"**/judging/judge/{topic.id}/{failing}/")
    all_saved(page)
    assert (int(failing), 3) in own(assessor)


def test_a_note_typed_and_left_without_judging_is_kept_until_the_document_is_judged(page, live_server, setting):
    topic, assessor = setting
    open_topic(page, live_server, assessor, topic)
    first = int(page.get_attribute("#judging", "data-shown"))
    page.keyboard.press("e")
    page.keyboard.type("come back to this one")
    page.keyboard.press("Escape")
    page.keyboard.press("j")
    page.wait_for_function(f"() => document.querySelector('#judging').dataset.shown !== '{first}'")
    assert page.input_value("#note") == ""
    page.reload()
    page.goto(f"{live_server.url}/judging/judge/{topic.id}/?doc={first}")
    page.wait_for_selector("#document")
    assert page.input_value("#note") == "come back to this one"
    grade_key(page, "1")
    all_saved(page)
    assert Judgment.objects.get(assessor=assessor, document_id=first).note == "come back to this one"


def test_undo_still_works_after_a_reload(page, live_server, setting):
    topic, assessor = setting
    open_topic(page, live_server, assessor, topic)
    first = page.get_attribute("#judging", "data-shown")
    grade_key(page, "2")
    page.wait_for_selector("#position:has-text('Document 2 of')")
    second = page.get_attribute("#judging", "data-shown")
    grade_key(page, "1")
    all_saved(page)
    page.reload()
    page.wait_for_selector("#document")
    page.keyboard.press("u")
    page.wait_for_function(f"() => document.querySelector('#judging').dataset.shown === '{second}'")
    all_saved(page)
    assert [document for document, _ in own(assessor)] == [int(first)]
    page.keyboard.press("u")
    page.wait_for_function(f"() => document.querySelector('#judging').dataset.shown === '{first}'")
    all_saved(page)
    assert own(assessor) == []
