"""In a real browser: every role logs in to its start page."""

from __future__ import annotations

import pytest

from tests.browser.conftest import log_in
from tests.factories import make_collection, make_user

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize(
    ("role", "heading"),
    # a researcher with one collection starts on its leaderboard (with several, on the list of results)
    [("admin", "Campaign dashboard"), ("assessor", "My assignments"), ("researcher", "leaderboard")],
)
def test_each_role_logs_in_and_sees_its_start_page(page, live_server, role, heading):
    make_collection()
    user = make_user(role)
    log_in(page, live_server, user.username)
    page.wait_for_selector("h1")
    assert heading in page.inner_text("h1")
