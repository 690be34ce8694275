"""In a real browser: an assessor who keeps disagreeing is paused, kindly, on a 390 px phone (their next grade is
not saved and the page says why); the admin reads the reliability table on the campaign page at 1280 px, sees the
reason and resumes them. No page breaks its Content-Security-Policy or throws."""

from __future__ import annotations

import pytest

from judging import services
from judging.models import Judgment, PoolItem, Topic
from judging.quality.models import AssessorPause
from tests.browser.conftest import log_in
from tests.browser.test_judging_page import grade_key, open_topic
from tests.browser.test_machine_judges import _watch
from tests.factories import make_collection, make_user

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_a_disagreeing_assessor_is_paused_on_a_phone_and_the_admin_resumes_them(browser, live_server, screenshot):
    collection = make_collection(max_grade=3, topics=1, documents=12, runs=2, depth=10, assessors_per_item=2,
                                 pause_below=0.5, pause_window=5, shuffle_within_priority=False)  # fmt: skip
    topic = Topic.objects.get(collection=collection)
    ann, bob, admin = make_user("assessor"), make_user("assessor"), make_user("admin")
    for person in (ann, bob):
        services.assignment_create(assessor=person, topic=topic)
    for item in PoolItem.objects.filter(topic=topic):
        services.judgment_record(assessor=ann, topic=topic, document=item.document, grade=0)
    problems: list[str] = []

    phone = browser.new_context(viewport={"width": 390, "height": 844})
    page = phone.new_page()
    _watch(page, problems)
    open_topic(page, live_server, bob, topic)
    for _ in range(5):  # ann said 0 everywhere; bob says 3
        grade_key(page, "3")
    page.wait_for_selector("#paused")
    assert "Nothing you judged is lost" in page.inner_text("#paused")
    grade_key(page, "3")
    page.wait_for_selector("#save-status:has-text('not saved')")  # kept in the page, marked, never lost silently
    screenshot(page, "paused-assessor-390")
    assert Judgment.objects.filter(assessor=bob).count() == 5
    phone.close()

    desk = browser.new_context(viewport={"width": 1280, "height": 800})
    page = desk.new_page()
    _watch(page, problems)
    log_in(page, live_server, admin.username)
    page.goto(f"{live_server.url}/judging/collections/{collection.id}/")
    page.wait_for_selector(f"[data-pause='{bob.username}']")
    assert "0 of their last 5" in page.inner_text(f"[data-pause='{bob.username}']")
    screenshot(page, "paused-admin-1280")
    page.click(f"[data-pause='{bob.username}'] button:has-text('Resume')")
    page.wait_for_selector("#reliability-table")
    assert not AssessorPause.objects.filter(assessor=bob, resumed_at__isnull=True).exists()
    desk.close()
    # The refused save is a 403 the browser reports as a failed resource; nothing else may appear.
    assert [p for p in problems if "status of 403" not in p] == []
    assert sum("status of 403" in p for p in problems) == 1
