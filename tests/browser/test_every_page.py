"""Every page of the demo campaign, for each role that sees it, loaded in chromium at 1280×800 and on a 390×844
phone: it answers, and its console shows no Content-Security-Policy violation and no script error (an inline handler
the policy blocks is a control that silently does nothing)."""

from __future__ import annotations

import pytest

from evaluation.online.demo import demo_pages, demo_search_log_create
from judging.demo import DEMO_USERS, demo_create
from tests.browser.conftest import log_in

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SIZES = [(1280, 800), (390, 844)]


# The phone pass waits for the page's load and its htmx requests, not for half a second without traffic as the
# first pass does: the fragments and their scripts are the same at both widths (that wait was most of the test).
HTMX_SETTLED = "() => !document.querySelector('.htmx-request, .htmx-settling, .htmx-swapping')"


def _visit(page, url: str, problems: list[str], *, thorough: bool) -> None:
    response = page.goto(url, wait_until="networkidle" if thorough else "load")
    if not thorough:
        page.wait_for_function(HTMX_SETTLED)
    if response is None or response.status >= 400:
        problems.append(f"{url}: HTTP {response.status if response else 'no answer'}")


def test_no_page_breaks_its_content_security_policy_or_throws(browser, live_server):
    collection = demo_create()
    log = demo_search_log_create(collection=collection, sessions=300, days=3)
    accounts = {role: (username, password) for username, password, role in DEMO_USERS}
    problems: list[str] = []
    for role, urls in demo_pages(collection, log).items():
        username, password = accounts[role]
        for width, height in SIZES:
            context = browser.new_context(viewport={"width": width, "height": height})
            page = context.new_page()
            page.set_default_timeout(15_000)
            where = {"url": "", "who": f"{role} at {width}px"}

            def on_console(message, where=where):
                if message.type == "error" or "Content Security Policy" in message.text:
                    problems.append(f"{where['who']} {where['url']}: {message.type}: {message.text}")

            page.on("console", on_console)
            page.on("pageerror", lambda error, where=where: problems.append(f"{where['who']} {where['url']}: {error}"))
            log_in(page, live_server, username, password)
            page.wait_for_load_state("networkidle")
            for url in urls:
                where["url"] = url
                _visit(page, live_server.url + url, problems, thorough=width == SIZES[0][0])
            context.close()
    assert problems == []


def test_the_run_pages_measure_selector_changes_the_measure(page, live_server):
    collection = demo_create()
    run = collection.runs.order_by("id").first()
    username, password = next((u, p) for u, p, role in DEMO_USERS if role == "researcher")
    log_in(page, live_server, username, password)
    page.goto(f"{live_server.url}/results/{collection.id}/runs/{run.id}/")
    options = page.eval_on_selector_all("select[name=measure] option", "os => os.map(o => o.value)")
    page.select_option("select[name=measure]", options[-1])
    page.wait_for_url(f"**measure={options[-1].replace('@', '%40')}*")
    assert options[-1] in page.inner_text(".figures")
