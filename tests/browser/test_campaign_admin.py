"""In a real browser: an admin runs a campaign from the web pages alone (upload topics, documents and runs, build
a depth-10 pool, assign two assessors) and watches the dashboard move when an assessor judges."""

from __future__ import annotations

import json

import pytest

from judging import services
from judging.models import Assignment, PoolItem
from tests.browser.conftest import log_in
from tests.factories import make_user

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

TOPICS = """<top>
<num> Number: 301
<title> solar power storage
<desc> Description:
How is solar power stored for the night?
</top>
<top>
<num> Number: 302
<title> river flood defences
</top>
"""


def _files(tmp_path):
    documents = tmp_path / "docs.jsonl"
    documents.write_text(
        "\n".join(json.dumps({"docno": f"D{i}", "title": f"Document {i}", "text": f"text {i}"}) for i in range(15))
    )
    runs = tmp_path / "runs.txt"
    lines = [
        f"{topic} Q0 D{(i * step) % 15} {i + 1} {20 - i} {tag}"
        for tag, step in (("alpha", 1), ("beta", 2))
        for topic in (301, 302)
        for i in range(12)
    ]
    runs.write_text("\n".join(lines) + "\n")
    topics = tmp_path / "topics.txt"
    topics.write_text(TOPICS)
    return {"topics": topics, "documents": documents, "runs": runs}


def _import(page, live_server, collection, kind, path):
    page.goto(f"{live_server.url}/judging/collections/{collection.id}/import/")
    page.select_option("#id_kind", kind)
    page.set_input_files("#id_file", str(path))
    page.click("main button[type=submit]")
    page.wait_for_selector("[data-state=done], [data-state=failed]")
    assert page.get_attribute("[data-state]", "data-state") == "done", page.inner_text("#job")


def test_an_admin_imports_pools_assigns_and_sees_the_dashboard_follow_a_judgment(
    browser, page, live_server, tmp_path, screenshot
):
    admin = make_user("admin")
    first, second = make_user("assessor"), make_user("assessor")
    collection = services.collection_create(name="Web campaign", max_grade=1, assessors_per_item=2)
    log_in(page, live_server, admin.username)
    page.wait_for_selector("h1:has-text('Campaign dashboard')")
    for kind, path in _files(tmp_path).items():
        _import(page, live_server, collection, kind, path)
    assert collection.runs.count() == 2

    page.goto(f"{live_server.url}/judging/collections/{collection.id}/pool/")
    page.select_option("#id_strategy", "depth")
    page.fill("#id_size", "10")
    page.click("button[name=preview]")
    page.wait_for_selector("#preview")
    assert PoolItem.objects.count() == 0  # a preview writes nothing
    page.click("button[name=build]")
    page.wait_for_selector("[data-state=done], [data-state=failed]")
    assert page.get_attribute("[data-state]", "data-state") == "done", page.inner_text("#job")
    pool_size = PoolItem.objects.filter(topic__collection=collection).count()
    assert pool_size > 20

    page.goto(f"{live_server.url}/judging/collections/{collection.id}/assignments/")
    page.check(f"input[name=assessors][value='{first.id}']")
    page.check(f"input[name=assessors][value='{second.id}']")
    page.click("form:has(#id_topics) button[type=submit]")
    page.wait_for_selector("text=4 assignment(s) added.")
    assert Assignment.objects.filter(topic__collection=collection).count() == 4

    page.goto(f"{live_server.url}/judging/collections/{collection.id}/")
    page.wait_for_selector("[data-figure=judgments]:has-text('0')")
    assessor_page = browser.new_context().new_page()
    log_in(assessor_page, live_server, first.username)
    assessor_page.wait_for_selector("text=My assignments")
    topic = collection.topics.get(number="301")
    assessor_page.goto(f"{live_server.url}/judging/judge/{topic.id}/")
    assessor_page.wait_for_selector("#document")
    assessor_page.wait_for_timeout(300)  # grade keys are ignored for 250 ms after a document appears
    assessor_page.keyboard.press("1")
    assessor_page.wait_for_selector("#save-status:has-text('All saved')")
    # No reload: the dashboard's own polling brings the judgment in.
    page.wait_for_selector("[data-figure=judgments]:has-text('1')", timeout=15_000)
    page.wait_for_selector(f"tr[data-assessor='{first.username}'] [data-judgments]:has-text('1')")
    screenshot(page, "campaign-dashboard")
