"""A file's upload shows its progress and then that the server is checking it, on a laptop and a phone; the
answer replaces the page as a plain submit's would, its message and all. No CSP violation, nothing thrown."""

from __future__ import annotations

import threading

import pytest

from judging.tracks import services as tracks
from judging.tracks.models import Submission
from tests.browser.conftest import log_in
from tests.browser.test_machine_judges import _watch
from tests.track_campaign import run_file, team, track

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844)])
def test_a_submitted_run_shows_its_upload_then_the_check_then_the_receipt(
    browser, live_server, tmp_path, screenshot, monkeypatch, width, height
):
    collection = track(depth=8)
    _, member = team(collection, "alpha")
    page = browser.new_context(viewport={"width": width, "height": height}).new_page()
    problems: list[str] = []
    _watch(page, problems)
    log_in(page, live_server, member.username)
    page.goto(f"{live_server.url}/judging/tracks/{collection.id}/")
    path = tmp_path / "alpha1.txt"
    path.write_text(run_file("alpha1", depth=6))
    page.set_input_files("#id_file", str(path))
    page.select_option("#id_run_type", "automatic")
    page.fill("#id_priority", "1")

    # The server takes its time checking the file (held until the page has been looked at), as a big file's does.
    checking, looked = threading.Event(), threading.Event()
    receive = tracks.submission_receive

    def slow_receive(**kwargs):
        checking.set()
        looked.wait(30)
        return receive(**kwargs)

    monkeypatch.setattr(tracks, "submission_receive", slow_receive)
    page.click("#submit button[type=submit]")
    page.wait_for_selector("#submit .upload-status:has-text('the server is checking it')")
    assert checking.is_set()
    assert page.locator("#submit button[type=submit]").is_disabled()  # no second upload of the same file
    assert page.locator("#submit .upload-status progress").count() == 1
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    screenshot(page, f"upload-checking-{width}")
    assert width > 400 or page.evaluate("window.scrollY") > 0  # on the phone the form is below the fold
    looked.set()

    page.wait_for_selector("text=Run alpha1 received at")  # the message the server's redirect carried
    assert page.url.endswith(f"/judging/tracks/{collection.id}/")
    assert page.evaluate("window.scrollY") == 0  # at the top, where the message is, as a new page opens
    assert Submission.objects.filter(tag="alpha1", state="current").exists()
    page.wait_for_selector('#runs tr[data-run="alpha1"]')
    assert not page.locator("#submit button[type=submit]").is_disabled()  # a fresh page: the next run can go
    assert not problems, problems
