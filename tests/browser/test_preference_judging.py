"""In a real browser: an assessor runs a preference tournament by keyboard at 1280 px, another by tapping on a
390 px phone (the documents stacked); a researcher reads the leaderboard's preference card, downloads the prefs
file, and the file run through `python -m evaluation -R prefs` prints the card's values. No page breaks its
Content-Security-Policy or throws."""

from __future__ import annotations

import pytest

from evaluation.cli.trec_eval import main
from judging import services
from judging.models import Topic
from judging.preferences.models import Preference
from tests.browser.conftest import log_in
from tests.browser.test_judging_page import GUARD_MS
from tests.browser.test_machine_judges import _watch
from tests.factories import make_collection, make_user
from tests.judging.preferences.test_preference_judging import _run_files

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _tournament(page, answer) -> int:
    for made in range(40):
        if page.is_visible("#compare-complete"):
            return made
        before = page.get_attribute("input[name=left]", "value"), page.get_attribute("input[name=right]", "value")
        page.wait_for_timeout(GUARD_MS)
        answer(page)
        page.wait_for_function(
            "(was) => !document.querySelector('input[name=left]') || "
            "[document.querySelector('input[name=left]').value, document.querySelector('input[name=right]').value]"
            ".join() !== was || document.querySelector('[role=status], .messages')",
            arg=",".join(before),
        )
    raise AssertionError("the tournament never ended")


def test_preferences_by_keyboard_and_touch_give_the_leaderboards_values(
    browser, live_server, screenshot, tmp_path, capsys
):
    collection = make_collection(max_grade=3, topics=1, documents=8, runs=2, depth=8, judging_mode="preferences",
                                 preference_candidates=5, preference_top=2)  # fmt: skip
    topic = Topic.objects.get(collection=collection)
    ann, bob, rita = make_user("assessor"), make_user("assessor"), make_user("researcher")
    for person in (ann, bob):
        services.assignment_create(assessor=person, topic=topic)
    problems: list[str] = []

    desk = browser.new_context(viewport={"width": 1280, "height": 800})
    page = desk.new_page()
    _watch(page, problems)
    log_in(page, live_server, ann.username)
    page.goto(f"{live_server.url}/judging/assignments/")
    page.click("a:has-text('Compare')")
    page.wait_for_selector(".pair")
    boxes = [page.locator(".pair-side").nth(i).bounding_box() for i in range(2)]
    assert boxes[0]["x"] + boxes[0]["width"] <= boxes[1]["x"]  # side by side
    screenshot(page, "compare-1280")
    made = _tournament(page, lambda p: p.keyboard.press("1"))
    assert made == Preference.objects.filter(assessor=ann).count() > 0
    assert page.locator("#top-list li").count() == 2
    screenshot(page, "compare-done-1280")
    desk.close()

    phone = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page = phone.new_page()
    _watch(page, problems)
    log_in(page, live_server, bob.username)
    page.goto(f"{live_server.url}/judging/compare/{topic.id}/")
    page.wait_for_selector(".pair")
    boxes = [page.locator(".pair-side").nth(i).bounding_box() for i in range(2)]
    assert boxes[1]["y"] >= boxes[0]["y"] + boxes[0]["height"]  # stacked
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, "compare-390")
    _tournament(page, lambda p: p.tap("button[data-answer=right]"))
    phone.close()

    desk = browser.new_context(viewport={"width": 1280, "height": 800}, accept_downloads=True)
    page = desk.new_page()
    _watch(page, problems)
    log_in(page, live_server, rita.username)
    page.goto(f"{live_server.url}/results/{collection.id}/")
    page.wait_for_selector("#preferences-table")
    page.locator("#preferences").scroll_into_view_if_needed()
    screenshot(page, "preferences-card-1280")
    shown = {
        row.get_attribute("data-run"): [cell.inner_text() for cell in row.locator("td.num").all()]
        for row in page.locator("#preferences-table tbody tr").all()
    }
    with page.expect_download() as download:
        page.click("#prefs-download")
    prefs = tmp_path / "prefs.txt"
    download.value.save_as(prefs)
    desk.close()
    (tmp_path / "runs").mkdir()
    for run_file in _run_files(collection, tmp_path / "runs"):
        assert main(["-R", "prefs", "-m", "all_prefs", str(prefs), str(run_file)]) == 0
        printed = dict(line.split("\tall\t") for line in capsys.readouterr().out.splitlines())
        cells = shown[run_file.stem]
        assert cells[:4] == [printed[f"{m:<22}"] for m in ("prefs_simp", "prefs_pair", "prefs_avgjg",
                                                            "prefs_avgjg_Rnonrel")]  # fmt: skip
        assert cells[4] == printed[f"{'prefs_num_prefs_poss':<22}"]
    assert problems == []
