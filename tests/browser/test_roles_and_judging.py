"""In a real browser: every role logs in to its start page; an assessor judges a whole topic by keyboard."""

from __future__ import annotations

import pytest

from judging import services
from judging.models import Judgment

from ..factories import make_collection, make_user
from .conftest import log_in

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize(
    ("role", "heading"),
    [("admin", "Campaign dashboard"), ("assessor", "My assignments"), ("researcher", "leaderboard")],
)
def test_each_role_logs_in_and_sees_its_start_page(page, live_server, role, heading):
    make_collection()
    user = make_user(role)
    log_in(page, live_server, user.username)
    page.wait_for_selector("h1")
    assert heading in page.inner_text("h1")


def test_an_assessor_judges_a_whole_topic_with_the_keyboard_only(page, live_server, screenshot):
    collection = make_collection(max_grade=3, topics=1, documents=8, runs=2, depth=3)
    assessor, other = make_user("assessor"), make_user("assessor")
    topic = collection.topics.get()
    for user in (assessor, other):
        services.assignment_create(assessor=user, topic=topic)
    first = topic.pool_items.order_by("-priority", "id").first()
    services.judgment_record(assessor=other, topic=topic, document=first.document, grade=3, note="OTHER-NOTE")
    total = topic.pool_items.count()

    log_in(page, live_server, assessor.username)
    page.wait_for_selector("text=My assignments")
    screenshot(page, "assessor-start-page")
    page.click("text=Start")
    page.wait_for_selector("#judge-panel article")
    assert "OTHER-NOTE" not in page.content()  # blind: another assessor's label never reaches the page
    screenshot(page, "judging-page")
    for position in range(total):
        page.wait_for_selector(f"text=Document {position + 1} of {total}")
        page.keyboard.press(str(position % 4))
    page.wait_for_selector("text=Topic complete")
    grades = list(Judgment.objects.filter(assessor=assessor).order_by("id").values_list("grade", flat=True))
    assert grades == [p % 4 for p in range(total)]
