"""In a real browser, against a real chat-completions server on a local port (tests/chat_server.py): an admin
configures a machine judge, previews its prompt on a pair with the model's answer, runs it on two topics and reads
the agreement panel; an assessor verifies items from the queue at 1280 px and on a 390 px phone (blind: the machine's
grade only after their own); a researcher sees the people's and the holes-filled leaderboards side by side and
downloads both qrels. No page breaks its Content-Security-Policy or throws."""

from __future__ import annotations

import pytest

from evaluation import services as evaluation_services
from judging import services
from judging.machines import services as machine_judges
from judging.machines.models import MachineJudge
from judging.models import PoolItem
from tests.browser.conftest import log_in
from tests.browser.test_judging_page import grade_key, open_topic
from tests.chat_server import chat_server
from tests.factories import make_collection, make_user

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _watch(page, problems: list[str]) -> None:
    def on_console(message):
        if message.type == "error" or "Content Security Policy" in message.text:
            problems.append(f"{page.url}: {message.type}: {message.text}")

    page.on("console", on_console)
    page.on("pageerror", lambda error: problems.append(f"{page.url}: {error}"))


def _add_chat_judge(page, live_server, collection, name: str, base_url: str, **fields) -> None:
    """Adds a chat judge of model "tiny" through the machine-judges page's form, `fields` filled (True: checked)."""
    page.goto(f"{live_server.url}/judging/collections/{collection.id}/machine-judges/")
    page.fill("#id_name", name)
    page.check("input[name=provider][value=chat]")
    page.fill("#id_base_url", base_url)
    page.fill("#id_model", "tiny")
    for field, value in fields.items():
        page.check(f"#id_{field}") if value is True else page.fill(f"#id_{field}", value)
    page.click("main form:not([action]) button[type=submit]")
    page.wait_for_selector(f"#machine-judges [data-judge={name}]")


@pytest.fixture
def campaign():
    collection = make_collection(max_grade=3, threshold=2, topics=3, documents=12, runs=3, depth=6)
    person = make_user("assessor")
    truth = {}
    for item in PoolItem.objects.filter(topic__collection=collection).select_related("topic", "document"):
        number = item.document.docno[1:]
        truth[(item.topic.number, number)] = (int(number) + int(item.topic.number)) % 4
    for topic in collection.topics.order_by("id"):
        services.assignment_create(assessor=person, topic=topic)
        if topic.number == "3":
            continue  # left for the verification walk
        for item in PoolItem.objects.filter(topic=topic).select_related("document").order_by("id")[:4]:
            grade = truth[(topic.number, item.document.docno[1:])]
            services.judgment_record(assessor=person, topic=topic, document=item.document, grade=grade)
    evaluation_services.collection_recompute(collection_id=collection.id)
    return collection, person, truth


def test_an_admin_configures_previews_and_runs_a_judge_then_reads_its_agreement(
    browser, page, live_server, campaign, screenshot
):
    collection, _, truth = campaign
    admin = make_user("admin")
    problems: list[str] = []
    _watch(page, problems)
    with chat_server(truth, noise=0.2, seed=4) as server:
        log_in(page, live_server, admin.username)
        _add_chat_judge(page, live_server, collection, "umbrela-local", server.base_url)
        judge = MachineJudge.objects.get(collection=collection, name="umbrela-local")

        page.goto(f"{live_server.url}/judging/machine-judges/{judge.id}/preview/")
        page.click("button[name=ask]")
        page.wait_for_selector("#preview [data-grade]")
        assert "Query: topic" in page.inner_text("pre.prompt")
        assert page.inner_text("pre.reply").startswith("##final score:")
        screenshot(page, "machine-preview-1280")
        requests_before = server.requests

        page.goto(f"{live_server.url}/judging/collections/{collection.id}/machine-judges/")
        topics = [str(t.id) for t in collection.topics.order_by("id")[:2]]
        page.select_option(f"#id_run{judge.id}-topics", topics)
        page.click(f"form[action$='/machine-judges/{judge.id}/run/'] button[type=submit]")
        page.wait_for_selector("[data-state=done]")
        figures = page.locator(".machine-figures")
        pooled = PoolItem.objects.filter(topic_id__in=topics).count()
        assert figures.get_attribute("data-labelled") == str(pooled) and figures.get_attribute("data-failed") == "0"
        assert server.requests - requests_before == pooled
        screenshot(page, "machine-run-done-1280")

    page.goto(f"{live_server.url}/results/{collection.id}/machines/")
    assert page.locator("#machine-agreement [data-against=consensus]").count() == 1
    assert page.locator("#machine-agreement tbody tr").count() == 2  # the consensus and the one person
    screenshot(page, "machine-agreement-1280")
    assert problems == []


def test_an_assessor_verifies_blind_at_1280_and_on_a_phone(browser, live_server, campaign, screenshot):
    collection, person, _ = campaign
    judge = machine_judges.machine_judge_create(collection=collection, name="bm25", provider="lexical")
    machine_judges.machine_judge_run(judge=judge)
    services.collection_settings_update(collection=collection, verification_judge=judge)
    topic = collection.topics.get(number="3")
    problems: list[str] = []
    for width, height in ((1280, 800), (390, 844)):
        context = browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        _watch(page, problems)
        open_topic(page, live_server, person, topic)
        assert page.locator("#machine-label").count() == 0  # blind: nothing of the machine before judging
        grade_key(page, "2")
        page.wait_for_selector("#machine-note:not([hidden])")
        note = page.inner_text("#machine-note")
        assert "you 2" in note and "bm25 (machine)" in note
        screenshot(page, f"machine-verify-{width}")
        box = page.locator("#machine-note").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width + 1  # on the screen, not cut at the right
        context.close()
    assert problems == []


def test_a_researcher_compares_the_leaderboards_and_downloads_both_qrels(page, live_server, campaign, screenshot):
    collection, _, _ = campaign
    judge = machine_judges.machine_judge_create(collection=collection, name="bm25", provider="lexical")
    machine_judges.machine_judge_run(judge=judge)
    evaluation_services.collection_recompute(collection_id=collection.id)
    researcher = make_user("researcher")
    problems: list[str] = []
    _watch(page, problems)
    log_in(page, live_server, researcher.username)
    page.goto(f"{live_server.url}/results/{collection.id}/machines/")
    page.select_option("select[name=measure]", "nDCG@10")
    page.wait_for_selector("#holes-filled-leaderboard[data-measure='nDCG@10']")
    assert page.locator("#holes-filled-leaderboard tbody tr").count() == 3
    screenshot(page, "machine-holes-filled-1280")
    links = page.locator("#holes-filled .actions a")
    people = page.request.get(live_server.url + links.nth(0).get_attribute("href"))
    filled = page.request.get(live_server.url + links.nth(1).get_attribute("href"))
    assert people.status == filled.status == 200
    people_lines, filled_lines = people.text().splitlines(), filled.text().splitlines()
    assert len(filled_lines) == PoolItem.objects.filter(topic__collection=collection).count()
    assert set(people_lines) < set(filled_lines)
    assert "filled" in filled.headers["content-disposition"]
    assert problems == []


def test_after_an_llm_judge_labels_the_whole_pool_where_we_stand_counts_people_only(
    browser, live_server, campaign, screenshot
):
    """#47: the campaign page's "Where we stand" counts people's labels of the pool, never the machine's that
    labelled all of it, and says how many items only the machine labelled; the Sources page shows who is what.
    At 1280 px and on a 390 px phone, as an admin; an assessor is refused both pages."""
    collection, person, truth = campaign
    with chat_server(truth, noise=0.0, seed=1) as server:
        judge = machine_judges.machine_judge_create(
            collection=collection, name="llm", provider="chat", base_url=server.base_url, model="tiny"
        )
        machine_judges.machine_judge_run(judge=judge)
    pooled = PoolItem.objects.filter(topic__collection=collection).count()
    by_people = 8  # the campaign fixture's person judged 4 items of each of two topics
    admin = make_user("admin")
    problems: list[str] = []
    for width, height in ((1280, 800), (390, 844)):
        context = browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        _watch(page, problems)
        log_in(page, live_server, admin.username)
        page.goto(f"{live_server.url}/judging/collections/{collection.id}/")
        page.wait_for_selector("[data-figure=judged-by-people]")
        said = page.inner_text("[data-figure=judged-by-people]")
        assert f"Judged by people (a person's grade): {by_people} of {pooled} pooled documents" in said
        assert f"{pooled - by_people} labelled only by a machine" in said
        assert page.locator("[data-stop=done]").count() == 0  # not "every pooled document is judged"
        page.locator("[data-standing]").scroll_into_view_if_needed()
        screenshot(page, f"standing-after-llm-{width}")
        page.goto(f"{live_server.url}/judging/collections/{collection.id}/sources/")
        row = page.locator(f"#sources tr[data-source='{judge.name}']")
        assert (row.get_attribute("data-kind"), row.get_attribute("data-role")) == ("machine", "advisory")
        assert page.evaluate("document.documentElement.scrollWidth") <= width + 1  # the table scrolls, not the page
        # Every row's controls in view, its Save button too, with no sideways scrolling (a card a row on a phone).
        rights = page.eval_on_selector_all(
            "#sources form :is(select, input, button)", "controls => controls.map(c => c.getBoundingClientRect().right)"
        )
        assert rights and max(rights) <= width, rights
        screenshot(page, f"sources-{width}")
        context.close()
    context = browser.new_context()
    page = context.new_page()
    log_in(page, live_server, person.username)
    for path in (f"/judging/collections/{collection.id}/sources/", f"/judging/collections/{collection.id}/"):
        answer = page.goto(f"{live_server.url}{path}")
        assert answer.status == 403 or "/login" in page.url or "/assignments" in page.url
    context.close()
    assert problems == []


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844)])
def test_an_admin_sees_the_estimate_the_failures_by_class_and_the_gullibility_flag(
    browser, live_server, campaign, screenshot, width, height
):
    from decimal import Decimal

    collection, _, truth = campaign
    admin = make_user("admin")
    problems: list[str] = []
    page = browser.new_context(viewport={"width": width, "height": height}).new_page()
    _watch(page, problems)
    with chat_server(truth) as server:
        judge = machine_judges.machine_judge_create(
            collection=collection, name="priced", base_url=server.base_url, model="tiny", retries=0,
            concurrency=1, price_prompt=Decimal("2"), price_completion=Decimal("6"),
        )  # fmt: skip
        log_in(page, live_server, admin.username)
        page.goto(f"{live_server.url}/judging/collections/{collection.id}/machine-judges/")
        estimate = page.locator(".estimate").first
        pooled = PoolItem.objects.filter(topic__collection=collection).count()
        assert estimate.get_attribute("data-estimate-calls") == str(pooled)
        assert "tokens" in estimate.inner_text() and estimate.locator("[data-estimate-cost]").count() == 1
        screenshot(page, f"machine-estimate-{width}")
        server.faults = ["500", "garbage"]
        page.click(f"form[action$='/machine-judges/{judge.id}/run/'] button[type=submit]")
        page.wait_for_selector("[data-state=done]")
        assert page.locator("[data-failure-class='HTTP 500']").count() == 1
        assert page.locator("[data-failure-class='unreadable reply']").count() == 1
        screenshot(page, f"machine-failures-by-class-{width}")
        server.gullible = True
        page.goto(f"{live_server.url}/judging/collections/{collection.id}/machine-judges/")
        page.fill(f"form[action$='/machine-judges/{judge.id}/probes/'] input[name=count]", "4")
        page.click(f"form[action$='/machine-judges/{judge.id}/probes/'] button[type=submit]")
        page.wait_for_selector("[data-state=done]")
        assert page.locator("[data-probe=instruction_injection]").get_attribute("data-flipped") == "4"
    page.goto(f"{live_server.url}/judging/collections/{collection.id}/machine-judges/")
    assert page.locator("[data-judge=priced] [data-gullible=instruction_injection]").count() == 1
    screenshot(page, f"machine-gullible-{width}")
    page.goto(f"{live_server.url}/results/{collection.id}/machines/?judge=priced")
    assert page.locator("[data-gullibility-warning]").count() == 1
    page.context.close()
    assert problems == []


def test_the_judge_and_endpoint_forms_show_the_chosen_kinds_fields_alone(page, live_server, campaign):
    collection, _, _ = campaign
    problems: list[str] = []
    _watch(page, problems)
    log_in(page, live_server, make_user("admin").username)
    page.goto(f"{live_server.url}/judging/collections/{collection.id}/machine-judges/")
    base_url, combine = page.locator("#id_base_url"), page.locator("#id_combine")
    assert base_url.is_visible() and not combine.is_visible()  # a chat server's settings, no panel's
    page.check('input[name="provider"][value="panel"]')
    assert combine.is_visible() and not base_url.is_visible()
    page.check('input[name="provider"][value="lexical"]')
    assert not combine.is_visible() and not base_url.is_visible() and page.locator("#id_name").is_visible()
    page.goto(f"{live_server.url}/judging/collections/{collection.id}/search/")
    index, method = page.locator("#id_new-index"), page.locator("#id_new-method")
    page.check('input[name="new-engine"][value="solr"]')
    assert index.is_visible() and not method.is_visible()
    page.check('input[name="new-engine"][value="json"]')
    assert method.is_visible() and not index.is_visible()
    secret = page.locator("#id_new-secret_env")
    assert not secret.is_visible()
    page.select_option("#id_new-auth", "bearer")
    assert secret.is_visible() and not page.locator("#id_new-auth_header").is_visible()
    assert problems == []


def test_an_admin_sends_a_judge_as_batch_jobs_and_follows_its_batch_to_the_end_at_1280_and_on_a_phone(
    browser, page, live_server, campaign, screenshot
):
    from tests.batch_server import batch_server

    collection, _, truth = campaign
    admin = make_user("admin")
    problems: list[str] = []
    _watch(page, problems)
    with batch_server(truth) as server:
        log_in(page, live_server, admin.username)
        _add_chat_judge(page, live_server, collection, "batched", server.base_url, batch_poll_seconds="0.05",
                        price_prompt="1", batch_api=True)  # fmt: skip
        assert "within the completion window (24h)" in page.inner_text("[data-batch-window]")
        assert "50% off" in page.inner_text("[data-batch-price]")
        judge = MachineJudge.objects.get(collection=collection, name="batched")
        page.click(f"form[action$='/machine-judges/{judge.id}/run/'] button[type=submit]")
        page.wait_for_selector("[data-state=done]")
        row = page.locator("table.batches [data-batch-status]")
        assert row.count() == 1 and row.get_attribute("data-batch-status") == "completed"
        pooled = PoolItem.objects.filter(topic__collection=collection).count()
        assert page.locator(".machine-figures").get_attribute("data-labelled") == str(pooled)
        screenshot(page, "machine-batch-done-1280")
        page.set_viewport_size({"width": 390, "height": 844})
        page.reload()
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        screenshot(page, "machine-batch-done-390")
    assert set(server.sent.values()) == {1} and problems == []
