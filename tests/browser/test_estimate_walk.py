"""The demo's machine-assisted leaderboard in chromium, as a researcher reads it at 1280×800 and on a phone: each
value with its interval, a pair of runs not separated with how many more topics would separate them, and the
comparison page's difference interval; the admin draws the next topics; an assessor is refused."""

from __future__ import annotations

import pytest

from evaluation.estimate.demo import demo_topics_drawn
from evaluation.estimate.models import TopicDraw
from judging.demo import DEMO_USERS, demo_create
from tests.browser.conftest import log_in

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _account(role):
    return next((username, password) for username, password, r in DEMO_USERS if r == role)


def test_a_researcher_reads_intervals_and_an_admin_draws_topics(browser, live_server):
    collection = demo_create()
    demo_topics_drawn(collection=collection)
    runs = list(collection.runs.order_by("id")[:2])
    for width, height in ((1280, 800), (390, 844)):
        context = browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        errors: list[str] = []
        page.on("console", lambda m, errors=errors: errors.append(m.text) if m.type == "error" else None)
        log_in(page, live_server, *_account("researcher"))
        page.goto(f"{live_server.url}/results/{collection.id}/")
        page.wait_for_selector("#estimate-table [data-interval]", timeout=30_000)
        card = page.inner_text("#estimate")
        assert "corrected by people's labels on the 4 they judged whole" in card
        assert page.locator("[data-estimate-invalid]").count() == 0  # the demo's topics were drawn at random
        assert page.locator("#estimate-pairs [data-separated=no]").count() >= 1
        advice = page.inner_text("#estimate-pairs")
        assert page.locator("#estimate-pairs [data-more-topics]").count() >= 1
        assert "judge about" in advice or "its topics cannot separate them" in advice
        assert page.locator("#estimate-draw").count() == 0  # researchers read; admins draw
        page.goto(f"{live_server.url}/results/{collection.id}/compare/?a={runs[0].id}&b={runs[1].id}&measure=AP")
        page.wait_for_selector("#estimate-pair [data-separated]", timeout=30_000)
        assert f"{runs[0].tag} − {runs[1].tag} on AP" in page.inner_text("#estimate-pair")
        assert errors == []
        context.close()
    context = browser.new_context()
    page = context.new_page()
    log_in(page, live_server, *_account("admin"))
    page.goto(f"{live_server.url}/results/{collection.id}/")
    page.wait_for_selector("#estimate-draw", timeout=30_000)
    page.fill("#estimate-draw input[name=count]", "2")
    page.click("#estimate-draw button")
    page.wait_for_url(f"**/judging/collections/{collection.id}/assignments/")
    assert "Drawn at random for people to judge" in page.content()
    assert TopicDraw.objects.filter(collection=collection).count() == 6
    context.close()
    context = browser.new_context()
    page = context.new_page()
    log_in(page, live_server, *_account("assessor"))
    assert page.goto(f"{live_server.url}/results/{collection.id}/how-sure/").status == 403
    context.close()
