"""In a real browser: an admin creates a search log, uploads its files, follows the import job, and reads the online
page (measures, the A/B table with intervals, three plots) on a laptop and on a phone. Screenshots go to
test-artifacts/."""

from __future__ import annotations

import pytest

from evaluation.online import selectors as online_selectors
from evaluation.online import services as search_logs
from evaluation.online.models import SearchLog
from tests.browser.conftest import log_in
from tests.factories import make_collection, make_user

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _plots_rendered(page) -> list[str]:
    page.wait_for_function("() => [...document.querySelectorAll('img[data-plot]')].every(i => i.complete)")
    return page.eval_on_selector_all(
        "img[data-plot]", "imgs => imgs.filter(i => i.naturalWidth > 0).map(i => i.dataset.plot)"
    )


def test_an_admin_imports_a_log_in_the_browser_and_reads_its_online_measures(
    page, live_server, screenshot, worked_files
):
    collection = make_collection(topics=2)
    admin = make_user("admin")
    log_in(page, live_server, admin.username)
    page.goto(f"{live_server.url}/results/{collection.id}/online/")
    page.fill("#log-new input[name=name]", "production")
    page.click("#log-new button[type=submit]")
    page.wait_for_selector("#no-imports")
    log = SearchLog.objects.get(collection=collection, name="production")

    page.set_input_files("#log-import input[name=queries]", str(worked_files["queries"]))
    page.set_input_files("#log-import input[name=events]", str(worked_files["events"]))
    page.click("#log-import button[type=submit]")
    page.wait_for_selector("[data-state=done]")
    screenshot(page, "online-import-job-done")
    page.click("text=See the online measures")

    page.click("#log-settings summary")
    page.fill("#log-settings input[name=arm]", "application")
    page.click("#log-settings button[type=submit]")
    page.wait_for_selector("#ab-table")
    log.refresh_from_db()
    figures = online_selectors.search_log_figures(search_log=log)
    shown = page.inner_text("#online-overall tr[data-measure=query_ctr] td.num")
    assert shown == f"{figures['overall']['query_ctr']:.3f}"
    arms = page.eval_on_selector_all("#ab-table thead th", "cells => cells.slice(1).map(c => c.innerText)")
    assert [a.replace(" (control)", "") for a in arms] == sorted(figures["arms"])
    assert page.locator("#ab-table [data-difference]").count() > 0
    assert sorted(_plots_rendered(page)) == ["online-frequency", "online-positions", "online-rate"]
    screenshot(page, "online-page-1280")

    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    _plots_rendered(page)
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width}px wide on a 390px phone"
    screenshot(page, "online-page-390")


def test_a_researcher_sees_the_online_page_but_not_its_admin_forms(page, live_server, worked_files):
    collection = make_collection(topics=2)
    log = search_logs.search_log_create(collection=collection, name="production")
    search_logs.search_log_import(search_log=log, files=worked_files)
    log_in(page, live_server, make_user("researcher").username)
    page.goto(f"{live_server.url}/results/{collection.id}/")
    page.click("nav.subnav >> text=Online")
    page.wait_for_selector("#online-overall")
    assert page.locator("#log-import").count() == 0 and page.locator("#log-new").count() == 0
