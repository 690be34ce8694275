"""In a real browser, against a local engine speaking Elasticsearch's protocol (tests/search_servers.py): an admin
adds an endpoint after testing a query, fetches the topics as a snapshot, changes a tuning variable, fetches again,
offers the new documents to the judging queue and reads the comparison, then the judged comparison with its
per-topic significance; the pages hold at 390 px. No page breaks its Content-Security-Policy or throws."""

from __future__ import annotations

import pytest

from judging.models import PoolItem, Topic
from judging.search_fetch.models import SearchEndpoint, SearchSnapshot
from tests.browser.conftest import log_in
from tests.browser.test_machine_judges import _watch
from tests.factories import make_collection, make_user
from tests.search_servers import search_server

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]
TEMPLATE = '{"query": {"multi_match": {"query": "{{query}} {{extra}}"}}}'


def _fits(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= innerWidth + 1")


def test_an_admin_fetches_two_snapshots_and_compares_them(browser, live_server, screenshot):
    collection = make_collection(topics=0, documents=0, runs=0)
    Topic.objects.create(collection=collection, number="1", title="red apples")
    Topic.objects.create(collection=collection, number="2", title="green pears")
    admin = make_user("admin")
    problems: list[str] = []
    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    _watch(page, problems)
    with search_server() as server:
        log_in(page, live_server, admin.username)
        page.goto(f"{live_server.url}/judging/collections/{collection.id}/search/")
        page.fill("#id_new-name", "es")
        page.check("input[name='new-engine'][value=elasticsearch]")
        page.fill("#id_new-url", server.url)
        page.fill("#id_new-index", "docs")
        page.fill("#id_new-template", TEMPLATE)
        page.fill("#id_new-variables", "extra=")
        page.fill("#id_new-title_path", "_id")
        page.fill("#id_new-depth", "5")
        page.fill("#id_try-query", 'red "apples"')
        page.click("button[name=try]")
        page.wait_for_selector("#tried-hits")
        assert page.locator("#tried-hits tbody tr").count() == len(server.ranked("red apples"))
        assert '\\"apples\\"' in page.inner_text("#tried pre") or '"apples"' in page.inner_text("#tried pre")
        assert SearchEndpoint.objects.count() == 0  # a test query saves nothing
        screenshot(page, "search-test-query-1280")
        page.click("button[name=save]")
        page.wait_for_selector("#search-endpoints [data-endpoint=es]")

        page.click("form[data-fetch=es] button[type=submit]")
        page.wait_for_selector("[data-state=done]")
        assert page.locator(".search-figures").get_attribute("data-failed") == "0"

        endpoint = SearchEndpoint.objects.get()
        page.goto(f"{live_server.url}/judging/search/{endpoint.id}/")
        page.fill("#id_new-variables", "extra=wine")  # a tuning variable changed
        page.click("button[name=save]")
        page.wait_for_selector("#search-endpoints")
        page.click("form[data-fetch=es] button[type=submit]")
        page.wait_for_selector("[data-state=done]")

    page.goto(f"{live_server.url}/judging/collections/{collection.id}/search/")
    page.click(".compare-snapshots button[type=submit]")
    page.wait_for_selector("#snapshot-topics")
    assert page.locator("[data-unjudged]").count() >= 1  # bravo ("red wine") entered
    screenshot(page, "search-compare-1280")
    pooled = PoolItem.objects.count()
    page.click("#pool-new")
    page.wait_for_selector("#snapshot-topics")
    assert PoolItem.objects.count() > pooled
    page.click("#judged-comparison")
    page.wait_for_load_state()
    assert "/compare/" in page.url and page.locator("text=es-s1").count() >= 1

    phone = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    _watch(phone, problems)
    log_in(phone, live_server, admin.username)
    first, second = SearchSnapshot.objects.order_by("id")
    for url in (f"/judging/collections/{collection.id}/search/",
                f"/judging/search/compare/?before={first.id}&after={second.id}&k=5"):  # fmt: skip
        phone.goto(live_server.url + url)
        assert _fits(phone), url
    screenshot(phone, "search-compare-390")
    phone.context.close()
    page.context.close()
    assert problems == []
