"""A track end to end in chromium, at 1280 px and on a 390 px phone: an organizer opens submissions and adds two
teams; one team's file is refused with its line named, then fixed; the other submits from a phone; the organizer
pools by priority; an assessor judges; the results are released; each team reads its report and downloads it. No page
breaks its Content-Security-Policy or throws, and no page scrolls sideways on the phone."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from judging import services
from judging.models import PoolItem
from judging.tracks.models import Submission
from tests.browser.conftest import _wait_for_the_live_server_to_go_quiet, log_in
from tests.browser.test_judging_page import GUARD_MS
from tests.browser.test_machine_judges import _watch
from tests.factories import make_collection, make_user
from tests.track_campaign import run_file

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _fits_the_phone(page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= 390, page.url


def _submit(page, live_server, collection, path, priority: int) -> None:
    page.goto(f"{live_server.url}/judging/tracks/{collection.id}/")
    page.set_input_files("#id_file", str(path))
    page.select_option("#id_run_type", "automatic")
    page.fill("#id_priority", str(priority))
    page.click("#submit button[type=submit]")


def test_a_track_from_open_submissions_to_each_teams_report(browser, live_server, tmp_path, screenshot):
    collection = make_collection(topics=3, documents=12, runs=0, max_grade=3)
    admin, assessor = make_user("admin"), make_user("assessor")
    alpha_member, beta_member = make_user("participant"), make_user("participant")
    problems: list[str] = []

    desk = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    _watch(desk, problems)
    log_in(desk, live_server, admin.username)
    desk.goto(f"{live_server.url}/judging/collections/{collection.id}/")
    desk.click("text=Track and teams")
    now = timezone.now()
    desk.fill("#id_opens", (now - timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M"))
    closes = now + timedelta(days=2)
    desk.fill("#id_closes", closes.strftime("%Y-%m-%dT%H:%M"))
    desk.fill("#id_runs_per_team", "2")
    desk.fill("#id_depth", "8")
    desk.click("#settings form button[type=submit]")
    desk.wait_for_selector(f"text=closes {closes:%Y-%m-%d %H:%M} UTC")
    for name, member in (("alpha", alpha_member), ("beta", beta_member)):
        desk.fill("#team-new #id_name", name)
        desk.fill("#team-new #id_members", member.username)
        desk.click("#team-new button[type=submit]")
        desk.wait_for_selector(f"#teams li:has-text('{name}: {member.username}')")

    # Team alpha at 1280 px: a file with a docno twice is refused, its line and field named; then fixed.
    alpha = browser.new_context(viewport={"width": 1280, "height": 800}, accept_downloads=True).new_page()
    _watch(alpha, problems)
    log_in(alpha, live_server, alpha_member.username)
    alpha.wait_for_selector(f"h1:has-text('{collection.name}')")  # a participant's home is their track
    bad = tmp_path / "alpha-bad.txt"
    bad.write_text(run_file("alpha1", depth=8) + "2 Q0 d3 9 0.1 alpha1\n")
    _submit(alpha, live_server, collection, bad, 1)
    alpha.wait_for_selector("#problems")
    row = alpha.locator("#problems tbody tr").first.inner_text()
    assert row.startswith("25") and "docno" in row and "already ranked for topic '2'" in row, row
    screenshot(alpha, "track-refused")
    assert not Submission.objects.exists()
    good = tmp_path / "alpha1.txt"
    good.write_text(run_file("alpha1", depth=8))
    _submit(alpha, live_server, collection, good, 1)
    alpha.wait_for_selector("text=Run alpha1 received at")
    second = tmp_path / "alpha2.txt"
    second.write_text(run_file("alpha2", depth=8, shift=5))
    _submit(alpha, live_server, collection, second, 2)
    alpha.wait_for_selector('#runs tr[data-run="alpha2"]')
    alpha.once("dialog", lambda dialog: dialog.dismiss())  # asked first: dismissed, nothing happens
    alpha.click('button[aria-label="withdraw alpha2"]')
    assert Submission.objects.get(tag="alpha2", state="current")
    alpha.once("dialog", lambda dialog: dialog.accept())
    alpha.click('button[aria-label="withdraw alpha2"]')
    alpha.wait_for_selector("text=Run alpha2 withdrawn; its slot is free.")
    _submit(alpha, live_server, collection, second, 2)  # the slot is free again
    alpha.wait_for_selector('#runs tr[data-run="alpha2"]')

    # Team beta on a phone.
    phone = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, accept_downloads=True
    ).new_page()
    _watch(phone, problems)
    log_in(phone, live_server, beta_member.username)
    beta_run = tmp_path / "beta1.txt"
    beta_run.write_text(run_file("beta1", depth=8, shift=2))
    _submit(phone, live_server, collection, beta_run, 1)
    phone.wait_for_selector("text=Run beta1 received at")
    _fits_the_phone(phone)
    screenshot(phone, "track-phone")
    assert "alpha" not in phone.locator("main").inner_text()  # nothing of the other team

    # The organizer sees every submission, freezes the window and pools by priority.
    desk.goto(f"{live_server.url}/judging/tracks/{collection.id}/organize/")
    for tag in ("alpha1", "alpha2", "beta1"):
        desk.wait_for_selector(f'#submissions tr[data-run="{tag}"]')
    desk.click("text=Freeze submissions now")
    desk.wait_for_selector("text=Submissions are frozen")
    desk.fill("#id_first", "6")
    desk.fill("#id_rest", "3")
    desk.click('#pool button[name="preview"]')
    desk.wait_for_selector("#preview h3")
    assert not PoolItem.objects.filter(topic__collection=collection).exists()
    desk.click('#pool button[name="build"]')
    desk.wait_for_selector("text=documents added to the pool over 3 topics")  # the job's page, followed to its end
    assert PoolItem.objects.filter(topic__collection=collection).exists()
    screenshot(desk, "track-organizer")

    # An assessor judges: a few documents by keys in the judging page, the rest through the same write service.
    for topic in collection.topics.all():
        services.assignment_create(assessor=assessor, topic=topic)
    judge = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    _watch(judge, problems)
    log_in(judge, live_server, assessor.username)
    first_topic = collection.topics.order_by("id").first()
    judge.goto(f"{live_server.url}/judging/judge/{first_topic.id}/")
    judge.wait_for_selector("#document")
    for key in "3102":
        judge.wait_for_timeout(GUARD_MS)
        judge.keyboard.press(key)
    judge.wait_for_selector("#save-status:has-text('All saved')")
    judged = set(assessor.judgments.values_list("topic_id", "document_id"))
    for item in PoolItem.objects.filter(topic__collection=collection).order_by("id"):
        if (item.topic_id, item.document_id) not in judged:
            grade = (item.document_id * 7 + item.topic_id) % 4
            services.judgment_record(assessor=assessor, topic=item.topic, document=item.document, grade=grade)
    judge.context.close()

    # Before the release a team has no report; then the organizer releases the results.
    alpha.goto(f"{live_server.url}/judging/tracks/{collection.id}/")
    assert alpha.locator('#runs tr[data-run="alpha1"] a:has-text("Report")').count() == 0
    desk.goto(f"{live_server.url}/judging/tracks/{collection.id}/organize/")
    desk.check("#id_released")
    desk.click("#settings form button[type=submit]")
    desk.wait_for_selector("text=Submission settings saved.")

    # Each team reads its own report and downloads it.
    alpha.goto(f"{live_server.url}/judging/tracks/{collection.id}/")
    alpha.click('#runs tr[data-run="alpha1"] a:has-text("Report")')
    alpha.wait_for_selector("#topics tr[data-topic='1']")
    assert alpha.locator(".median-plot rect").count() == 3
    screenshot(alpha, "track-report")
    with alpha.expect_download() as download:
        alpha.click("text=Download (trec_eval -q)")
    text = download.value.path().read_text()
    assert "runid                 \tall\talpha1" in text and "beta1" not in text
    alpha.goto(f"{live_server.url}/results/{collection.id}/track/")
    assert alpha.locator("#track-results tbody tr").count() == 3  # after the release: every submitted run
    assert alpha.locator('#track-results tr[data-run="beta1"] a:has-text("Report")').count() == 0

    beta_submission = Submission.objects.get(tag="beta1")
    phone.goto(f"{live_server.url}/results/{collection.id}/reports/{beta_submission.id}/")
    phone.wait_for_selector("#topics tr[data-topic='3']")
    _fits_the_phone(phone)
    screenshot(phone, "track-report-phone")
    alpha_submission = Submission.objects.get(tag="alpha1")
    refused = phone.goto(f"{live_server.url}/results/{collection.id}/reports/{alpha_submission.id}/")
    assert refused.status == 403  # another team's report

    for opened in (desk, alpha, phone):
        opened.context.close()
    _wait_for_the_live_server_to_go_quiet()
    expected = [  # chromium logs every 4xx page it loads: the refused file's (400) and another team's report (403)
        f"{live_server.url}/judging/tracks/{collection.id}/: error: Failed to load resource: the server responded "
        "with a status of 400 (Bad Request)",
        f"{live_server.url}/results/{collection.id}/reports/{alpha_submission.id}/: error: Failed to load resource: "
        "the server responded with a status of 403 (Forbidden)",
    ]
    assert problems == expected
