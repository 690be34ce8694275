"""In a real browser: a researcher opens the leaderboard, sorts it, compares two runs, and sees every plot render
(curves, per-topic bars, histogram, agreement heatmap, confusion matrices). Screenshots go to test-artifacts/."""

from __future__ import annotations

import pytest

from tests.browser.conftest import log_in
from tests.factories import make_user, stored_aggregates
from tests.judged_collection import make_judged_collection

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _plots_rendered(page) -> list[str]:
    """Names of the plots whose image loaded and decoded; waits for every <img> on the page to settle first."""
    page.wait_for_function("() => [...document.querySelectorAll('img[data-plot]')].every(i => i.complete)")
    return page.eval_on_selector_all(
        "img[data-plot]", "imgs => imgs.filter(i => i.naturalWidth > 0).map(i => i.dataset.plot)"
    )


def _run_order(page) -> list[str]:
    return page.eval_on_selector_all("#leaderboard tbody tr", "rows => rows.map(r => r.dataset.run)")


def test_a_researcher_sorts_the_leaderboard_compares_two_runs_and_sees_the_plots(page, live_server, screenshot):
    collection, _, _ = make_judged_collection(topics=4, runs=4)
    researcher = make_user("researcher")
    tags = dict(collection.runs.values_list("id", "tag"))
    ap = {tags[run_id]: value for (run_id, _), (value, _) in stored_aggregates(collection, ["AP"]).items()}
    log_in(page, live_server, researcher.username)
    page.goto(f"{live_server.url}/results/{collection.id}/")
    page.wait_for_selector("#leaderboard")

    page.click("th a[data-sort=AP]")
    page.wait_for_selector("th[aria-sort=descending] a[data-sort=AP]")
    assert _run_order(page) == sorted(ap, key=lambda tag: (-ap[tag], tag))
    page.click("th a[data-sort=AP]")
    page.wait_for_selector("th[aria-sort=ascending] a[data-sort=AP]")
    assert _run_order(page) == sorted(ap, key=lambda tag: (ap[tag], tag))
    screenshot(page, "results-leaderboard-sorted")

    best, second = sorted(ap, key=lambda tag: -ap[tag])[:2]
    page.check(f"tr[data-run={best}] input[name=runs]")
    page.check(f"tr[data-run={second}] input[name=runs]")
    page.click("text=Compare the two selected runs")
    page.wait_for_selector("#comparison-figures")
    heading = page.inner_text("h1")
    assert set(heading.removesuffix(" on AP").split(" vs ")) == {best, second}, heading
    assert page.locator("#all-pairs tbody tr").count() == 6
    assert sorted(_plots_rendered(page)) == ["differences", "precision-recall"]
    screenshot(page, "results-compare")

    page.click("nav.subnav >> text=Leaderboard")
    page.click(f"#leaderboard a:text-is('{best}')")
    page.wait_for_selector(f"h1:has-text('{best}')")
    assert sorted(_plots_rendered(page)) == ["histogram", "precision-recall", "roc", "topics"]
    screenshot(page, "results-run")

    page.click("nav.subnav >> text=Curves")
    assert sorted(_plots_rendered(page)) == ["precision-recall", "roc"]
    screenshot(page, "results-curves")

    page.click("nav.subnav >> text=Agreement")
    rendered = _plots_rendered(page)
    assert rendered == ["kappa"]  # the confusion matrices are tables, not an image each
    assert page.locator("figure.confusion table").count() == 3  # a vs b, each vs the consensus
    screenshot(page, "results-agreement")

    with page.expect_download() as download:
        page.click("figure.plot:has(img[data-plot=kappa]) >> text=PNG")
    assert download.value.suggested_filename == f"{collection.name}-kappa.png"
