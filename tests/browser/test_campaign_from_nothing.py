"""A whole campaign in the browser, from a blank database to trusted qrels: the admin sets it up, two assessors judge
(one with the keyboard at 1280×800, one by tapping on a phone), the admin adjudicates, and the researcher's
downloaded qrels give, through trec_eval, exactly the leaderboard's numbers. Screenshots of every page at both widths
go to test-artifacts/campaign-*.png.

The only step outside the browser is the first admin account (`manage.py createsuperuser` on a real install).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import pytrec_eval

from judging import services
from tests.browser.conftest import ARTIFACTS, _wait_for_the_live_server_to_go_quiet

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

DESKTOP = {"viewport": {"width": 1280, "height": 800}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
PASSWORD = "campaign-pass-4821"

TOPICS = "101\tparse json text\n102\tread csv rows\n"
DOCUMENTS = "".join(
    json.dumps({"docno": f"d{i}", "title": f"Document {i}", "text": text}) + "\n"
    for i, text in enumerate(
        [
            "json.loads parses a JSON document held in a string.",
            "csv.reader yields the rows of a CSV file.",
            "Example:\n\n    >>> json.loads('[1, 2]')\n    [1, 2]",
            "The csv module reads and writes tabular data.",
            "os.path joins file system paths.",
            "re.match matches a regular expression.",
            "json.dump writes JSON to a file.",
            "Column one    Column two\nalpha         beta",
        ]
    )
)
RUNS = {
    "alpha": ["d0", "d2", "d6", "d4", "d1"],
    "beta": ["d6", "d0", "d5", "d2", "d3"],
}
# {run tag: {column's sort key: the text shown}} read off the leaderboard.
LEADERBOARD_CELLS = """() => {
  const keys = [...document.querySelectorAll('#leaderboard thead th')].map(th => th.querySelector('a')?.dataset.sort);
  const rows = [...document.querySelectorAll('#leaderboard tbody tr')];
  return Object.fromEntries(rows.map(tr =>
    [tr.dataset.run, Object.fromEntries([...tr.children].map((td, i) => [keys[i], td.innerText.trim()]))]));
}"""
MEASURES = {"AP": "map", "P@10": "P_10", "nDCG@10": "ndcg_cut_10", "RR": "recip_rank", "Bpref": "bpref"}


def _run_file(tag: str, order: list[str]) -> str:
    return "".join(
        f"{topic} Q0 {docno} {rank} {10 - rank} {tag}\n"
        for topic in ("101", "102")
        for rank, docno in enumerate(order if topic == "101" else list(reversed(order)), start=1)
    )


class Screens:
    """Screenshots of each step at 1280×800 and at 390×844 (the page resized, then put back), named
    campaign-<step>-<width>.png and listed in campaign-screenshots.txt."""

    def __init__(self):
        ARTIFACTS.mkdir(exist_ok=True)
        self.taken: list[str] = []

    def __call__(self, page, step: str) -> None:
        size = dict(page.viewport_size)
        for viewport in (size, *[v["viewport"] for v in (DESKTOP, PHONE) if v["viewport"] != size]):
            page.set_viewport_size(viewport)
            name = f"campaign-{step}-{viewport['width']}.png"
            page.screenshot(path=str(ARTIFACTS / name), full_page=True)
            self.taken.append(name)
        page.set_viewport_size(size)


def log_in(page, url, username, password=PASSWORD):
    page.goto(f"{url}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("button[type=submit]")
    page.wait_for_selector("h1")


def grade_bar_in_view(page) -> bool:
    top, bottom, height = page.evaluate(
        "() => { const r = document.querySelector('.judge-bar .grades').getBoundingClientRect();"
        " return [r.top, r.bottom, window.innerHeight]; }"
    )
    return top >= 0 and bottom <= height


def import_file(page, url, collection_id, kind, name, text, tmp_path, screens=None):
    path = tmp_path / name
    path.write_text(text)
    page.goto(f"{url}/judging/collections/{collection_id}/import/")
    page.select_option("#id_kind", kind)
    page.set_input_files("#id_file", str(path))
    page.click("main button[type=submit]")
    page.wait_for_selector("[data-state=done]", timeout=20_000)
    if screens:
        screens(page, f"import-{kind}")


def invite(page, username, role) -> str:
    page.fill("#id_username", username)
    page.select_option("#id_role", role)
    page.click("text=Add and make an invitation link")
    return page.inner_text("#invitation-link")


def accept_invitation(browser, link, options) -> None:
    context = browser.new_context(**options)
    page = context.new_page()
    page.goto(link)
    page.wait_for_selector("text=Choose your password")
    page.fill("#id_new_password1", PASSWORD)
    page.fill("#id_new_password2", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_selector("text=Your password is set")
    context.close()


def judge_topic(page, url, screens, *, step, grade_for, tap: bool) -> int:
    """Judges every document of the topic open on `page`; returns how many. Checks the grade bar is in view on
    every document, also scrolled to the document's end."""
    judged = 0
    while page.is_visible(".judge-bar .grades"):
        page.wait_for_selector("#document")
        assert grade_bar_in_view(page), "grade bar out of view"
        page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        assert grade_bar_in_view(page), "grade bar out of view at the document's end"
        if judged == 0:
            screens(page, step)
        docno = page.inner_text("#document .muted").split(" ")[0]
        grade = grade_for(docno)
        shown = page.get_attribute("#judging", "data-shown")
        page.wait_for_timeout(300)  # past the double-press guard
        if tap:
            page.tap(f".judge-bar button[data-grade='{grade}']")
        else:
            page.keyboard.press(str(grade))
        judged += 1
        page.wait_for_function(
            f"() => document.querySelector('#judging').dataset.shown !== '{shown}'"
            " || !document.querySelector('#complete').hidden"
        )
        if not page.is_hidden("#complete"):
            break
    page.wait_for_selector("#save-status:has-text('All saved')")
    return judged


def test_a_campaign_from_a_blank_database_to_trusted_qrels(browser, live_server, tmp_path):
    url = live_server.url
    screens = Screens()
    services.user_create(username="chief", password=PASSWORD, role="admin")  # createsuperuser, on a real install

    admin_context = browser.new_context(**DESKTOP)
    admin = admin_context.new_page()
    admin.set_default_timeout(15_000)
    log_in(admin, url, "chief")
    screens(admin, "dashboard-empty")

    # The collection, graded 0-3, two assessors per item.
    admin.click("text=New collection")
    admin.fill("#id_name", "Campaign from nothing")
    admin.select_option("#id_max_grade", "3")
    admin.fill("#id_relevance_threshold", "2")
    admin.fill("#id_assessors_per_item", "2")
    admin.fill("#id_guidelines", "Judge whether the document **answers** the question.")
    admin.click("text=Preview")
    admin.wait_for_selector("#guidelines-preview strong")
    screens(admin, "collection-new")
    admin.click("text=Create the collection")
    admin.wait_for_selector("h1:has-text('Import')")
    collection_id = int(admin.url.rstrip("/").split("/")[-2])

    # People, invited by one-time links.
    admin.goto(f"{url}/judging/people/")
    links = {
        name: invite(admin, name, role)
        for name, role in (("alice", "assessor"), ("bob", "assessor"), ("rita", "researcher"))
    }
    screens(admin, "people")
    for name, link in links.items():
        accept_invitation(browser, link, PHONE if name == "bob" else DESKTOP)

    # Files: topics, documents, two runs, a seed of qrels.
    import_file(admin, url, collection_id, "topics", "topics.tsv", TOPICS, tmp_path, screens)
    import_file(admin, url, collection_id, "documents", "docs.jsonl", DOCUMENTS, tmp_path)
    for tag, order in RUNS.items():
        import_file(admin, url, collection_id, "runs", f"{tag}.run", _run_file(tag, order), tmp_path)
    import_file(admin, url, collection_id, "qrels", "seed.qrels", "101 0 d7 0 nist\n", tmp_path)

    # The pool: preview, then build.
    admin.goto(f"{url}/judging/collections/{collection_id}/pool/")
    admin.select_option("#id_strategy", "depth")
    admin.fill("#id_size", "3")
    admin.click("button[name=preview]")
    admin.wait_for_selector("text=unique", timeout=15_000)
    screens(admin, "pool-preview")
    admin.click("button[name=build]")
    admin.wait_for_selector("[data-state=done]")

    # Both assessors on every topic.
    admin.goto(f"{url}/judging/collections/{collection_id}/assignments/")
    admin.check("#assign-form label:has-text('alice') input")
    admin.check("#assign-form label:has-text('bob') input")
    admin.click("#assign-form button[type=submit]")
    admin.wait_for_selector("[data-topic]")
    screens(admin, "assignments")

    # Alice judges with the keyboard at 1280x800; bob taps on a phone; they disagree on d0.
    for name, options, tap, grade_for in (
        ("alice", DESKTOP, False, lambda docno: 3 if docno in ("d0", "d6") else 1),
        ("bob", PHONE, True, lambda docno: 0 if docno == "d0" else (3 if docno == "d6" else 1)),
    ):
        context = browser.new_context(**options)
        page = context.new_page()
        page.set_default_timeout(15_000)
        log_in(page, url, name)
        screens(page, f"assignments-{name}")
        page.click("table a >> nth=0")
        total = judge_topic(page, url, screens, step=f"judging-{name}", grade_for=grade_for, tap=tap)
        assert total > 0
        page.click("#next-topic")
        judge_topic(page, url, screens, step=f"judging-{name}-topic2", grade_for=grade_for, tap=tap)
        screens(page, f"topic-complete-{name}")
        context.close()

    # The admin settles the disagreement by keyboard.
    admin.goto(f"{url}/judging/collections/{collection_id}/")
    screens(admin, "campaign")
    admin.goto(f"{url}/judging/collections/{collection_id}/adjudication/next/")
    admin.wait_for_selector("#adjudicate-form")
    screens(admin, "adjudicate")
    while admin.is_visible("#adjudicate-form"):
        before = admin.get_attribute("#document", "data-document")
        admin.keyboard.press("2")
        admin.wait_for_function(
            "() => !document.querySelector('#document')"
            f" || document.querySelector('#document').dataset.document !== '{before}'"
        )
    admin.wait_for_selector("text=No open disagreements")
    admin_context.close()

    # The researcher: fresh results and agreement, the qrels and results downloaded from the page.
    for options in (DESKTOP, PHONE):
        context = browser.new_context(**options, accept_downloads=True)
        page = context.new_page()
        page.set_default_timeout(15_000)
        log_in(page, url, "rita")  # the one collection's leaderboard is her start page
        page.wait_for_url(f"**/results/{collection_id}/")
        page.wait_for_selector(".badge.fresh")
        assert page.locator("[data-statistic=fleiss_kappa]").count() == 1
        screens(page, "leaderboard")
        if options is DESKTOP:
            shown = page.evaluate(LEADERBOARD_CELLS)
            with page.expect_download() as qrels_download:
                page.click("text=qrels (TREC)")
            qrels_text = Path(qrels_download.value.path()).read_text()
            with page.expect_download() as results_download:
                page.click("text=results (JSON)")
            results = json.loads(Path(results_download.value.path()).read_text())
        page.click("nav.subnav >> text=Agreement")
        page.wait_for_selector("#agreement-statistics [data-statistic=fleiss_kappa]")
        screens(page, "agreement")
        context.close()

    qrels: dict[str, dict[str, int]] = {}
    for line in qrels_text.splitlines():
        topic, _, docno, grade = line.split()
        qrels.setdefault(topic, {})[docno] = int(grade)
    assert qrels["101"]["d0"] == 2  # the adjudicated label
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES.values()), relevance_level=2)
    for tag in RUNS:
        scores = {}
        for line in _run_file(tag, RUNS[tag]).splitlines():
            topic, _, docno, _, score, _ = line.split()
            scores.setdefault(topic, {})[docno] = float(score)
        per_topic = evaluator.evaluate(scores)
        for ours, theirs in MEASURES.items():
            expected = sum(values[theirs] for values in per_topic.values()) / len(per_topic)
            assert results["aggregates"][tag][ours] == pytest.approx(expected, abs=1e-12), (tag, ours)
            assert shown[tag][ours] == f"{expected:.4f}", (tag, ours)  # what the leaderboard shows
    (ARTIFACTS / "campaign-screenshots.txt").write_text("\n".join(screens.taken) + "\n")
    _wait_for_the_live_server_to_go_quiet()  # before the teardown truncates the tables
