"""Search logs in the app: created and configured by admins, imported through a job from the page (faulty lines named,
nothing half-imported), their figures equal to the pure engine's, implicit judgments from clicks recorded as the
clicks assessor, topics sampled from traffic, the online/offline correlation, the page, its plots and the command."""

from __future__ import annotations

import json
from datetime import datetime
from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse

from evaluation.models import TopicValues
from evaluation.online import selectors as online_selectors
from evaluation.online import services as search_logs
from evaluation.online.core import store
from evaluation.online.core.measures import OnlineSettings, online_measures
from evaluation.online.core.simulate import SimulatedTopic, simulated_log, write_jsonl
from evaluation.online.models import SearchLog
from judging.jobs.models import Job, JobState, Upload
from judging.models import Judgment, Topic
from judging.sources import selectors as sources
from tests.evaluation.online.worked_log import EVENTS, QUERIES
from tests.factories import make_collection, make_user

pytestmark = pytest.mark.django_db


def _jsonl(name: str, records: list[dict]) -> SimpleUploadedFile:
    body = "".join(json.dumps(r) + "\n" for r in records).encode()
    return SimpleUploadedFile(name, body, content_type="application/x-ndjson")


def _rounded(value):
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return round(value, 12) if isinstance(value, float) else value


def _client(role: str) -> Client:
    client = Client()
    client.force_login(make_user(role))
    return client


def _simulated_files(collection, tmp_path, *, sessions=1500):
    """A log over the collection's topics: arms run0 and run1 serve those runs' rankings; grades by document."""
    topics = []
    for topic in collection.topics.prefetch_related("pool_items__document"):
        docs = [item.document.docno for item in topic.pool_items.all()]
        topics.append(
            SimulatedTopic(topic.title, {"run0": docs, "run1": docs[::-1]}, {doc: i % 4 for i, doc in enumerate(docs)})
        )
    queries, events = simulated_log(topics, sessions=sessions, start=datetime(2026, 3, 1), days=5, seed=2)
    return {"queries": write_jsonl(queries, tmp_path / "q.jsonl"), "events": write_jsonl(events, tmp_path / "e.jsonl")}


@pytest.fixture
def collection():
    return make_collection(topics=4, documents=12, runs=2, depth=6, measures=["AP", "P@5"])


def test_creating_a_log_refuses_a_taken_name_an_unknown_format_and_bad_settings(collection):
    search_logs.search_log_create(collection=collection, name="prod")
    with pytest.raises(ValidationError, match="already has a log"):
        search_logs.search_log_create(collection=collection, name="prod")
    with pytest.raises(ValidationError, match="unknown format"):
        search_logs.search_log_create(collection=collection, name="x", log_format="csv")
    with pytest.raises(ValidationError, match="dwell"):
        search_logs.search_log_create(collection=collection, name="y", settings={"dwell_seconds": -1})
    with pytest.raises(ValidationError, match="unknown settings"):
        search_logs.search_log_create(collection=collection, name="z", settings={"dwel_seconds": 3})


def test_arms_can_only_be_tied_to_the_collections_runs(collection):
    log = search_logs.search_log_create(collection=collection, name="prod")
    with pytest.raises(ValidationError, match="no run tagged nope"):
        search_logs.search_log_configure(search_log=log, settings={}, arm_runs={"A": "nope"})
    search_logs.search_log_configure(search_log=log, settings={"arm": "application"}, arm_runs={"A": "run0"})
    log.refresh_from_db()
    assert log.arm_runs == {"A": "run0"} and log.settings == {"arm": "application"}


def test_the_logs_figures_are_the_pure_engines_on_the_same_files(collection, tmp_path, worked_files):
    log = search_logs.search_log_create(collection=collection, name="worked", settings={"arm": "application"})
    entry = search_logs.search_log_import(search_log=log, files=worked_files)
    log.refresh_from_db()
    assert entry["queries"] == len(QUERIES) and entry["events"] == len(EVENTS)
    assert log.imports == [entry]
    figures = online_selectors.search_log_figures(search_log=log, by="day")
    root = tmp_path / "reference"
    store.import_log(root, files=worked_files, log_format="ubi")
    with store.connect(root) as con:
        expected = online_measures(con, OnlineSettings(arm="application"), by="day")
    for part in ("overall", "by", "arms"):  # the cached tables sum in another order: equal to the last bits
        assert _rounded(figures[part]) == _rounded(expected[part])
    assert set(figures["ab"]["arms"]) == set(expected["arms"])
    again = search_logs.search_log_import(search_log=log, files=worked_files)
    assert again["queries"] == 0 and again["skipped_queries"] == len(QUERIES)


def test_an_empty_log_has_no_figures_and_the_page_says_so(collection):
    log = search_logs.search_log_create(collection=collection, name="empty")
    assert online_selectors.search_log_figures(search_log=log) is None
    page = _client("researcher").get(f"/results/{collection.id}/online/?log={log.id}")
    assert page.status_code == 200 and b'id="no-imports"' in page.content


def test_an_upload_from_the_page_imports_as_a_job_and_the_page_shows_the_figures(
    collection, django_capture_on_commit_callbacks
):
    admin = _client("admin")
    response = admin.post(f"/results/{collection.id}/online/new/", {"name": "prod", "log_format": "ubi"})
    log = SearchLog.objects.get(collection=collection, name="prod")
    assert response.status_code == 302
    with django_capture_on_commit_callbacks(execute=True):
        response = admin.post(
            f"/results/{collection.id}/online/{log.id}/upload/",
            {"queries": _jsonl("ubi_queries.jsonl", QUERIES), "events": _jsonl("ubi_events.jsonl", EVENTS)},
        )
    job = Job.objects.get(task="evaluation.tasks.import_search_log")
    assert response.status_code == 302 and response["Location"] == reverse("judging:job", args=[job.id])
    job.refresh_from_db()
    assert job.state == JobState.DONE, job.message
    assert job.result["queries"] == len(QUERIES) and job.result["files"] == ["ubi_events.jsonl", "ubi_queries.jsonl"]
    page = admin.get(f"/results/{collection.id}/online/?log={log.id}")
    overall = online_selectors.search_log_figures(search_log=SearchLog.objects.get(pk=log.pk))["overall"]
    assert (
        f'data-measure="query_ctr"><td>Query CTR</td><td class="num">{overall["query_ctr"]:.3f}'.encode()
        in page.content
    )
    assert admin.get(reverse("judging:job", args=[job.id])).content.count(b"See the online measures") == 1
    assert not Upload.objects.exists()  # both files dropped once imported


def test_a_faulty_upload_fails_its_job_naming_file_line_and_field_and_imports_nothing(
    collection, django_capture_on_commit_callbacks
):
    admin = _client("admin")
    log = search_logs.search_log_create(collection=collection, name="prod")
    broken = [*QUERIES[:3], {**QUERIES[3], "timestamp": "yesterday"}, *QUERIES[4:]]
    with django_capture_on_commit_callbacks(execute=True):
        admin.post(
            f"/results/{collection.id}/online/{log.id}/upload/",
            {"queries": _jsonl("q.jsonl", broken), "events": _jsonl("e.jsonl", EVENTS)},
        )
    job = Job.objects.get(task="evaluation.tasks.import_search_log")
    assert job.state == JobState.FAILED
    assert job.result["problems"][0] | {"reason": ""} == {
        "file": "q.jsonl",
        "line": 4,
        "field": "timestamp",
        "reason": "",
    }
    log.refresh_from_db()
    assert log.imports == [] and store.imports(log.store_path) == []
    page = admin.get(reverse("judging:job", args=[job.id]))
    assert b"q.jsonl:4" in page.content and b"Upload a corrected file" in page.content


def test_only_admins_change_logs_and_assessors_see_no_online_figures(collection):
    log = search_logs.search_log_create(collection=collection, name="prod")
    researcher = _client("researcher")
    assert researcher.get(f"/results/{collection.id}/online/").status_code == 200
    assert (
        researcher.post(f"/results/{collection.id}/online/new/", {"name": "x", "log_format": "ubi"}).status_code == 403
    )
    assert researcher.post(f"/results/{collection.id}/online/{log.id}/settings/", {}).status_code == 403
    assert _client("assessor").get(f"/results/{collection.id}/online/").status_code == 403


def test_settings_from_the_page_change_the_figures(collection, worked_files):
    log = search_logs.search_log_create(collection=collection, name="prod")
    search_logs.search_log_import(search_log=log, files=worked_files)
    before = online_selectors.search_log_figures(search_log=log)["overall"]["session_success_rate"]
    admin = _client("admin")
    admin.post(
        f"/results/{collection.id}/online/{log.id}/settings/",
        {
            "click_actions": "click",
            "success_actions": "",
            "dwell_seconds": "0",
            "session_gap_minutes": "30",
            "arm": "application",
            "control": "",
            "arm_runs": "A=run0, B=run1",
        },
    )
    log.refresh_from_db()
    assert log.settings["dwell_seconds"] == 0 and log.arm_runs == {"A": "run0", "B": "run1"}
    after = online_selectors.search_log_figures(search_log=log)
    assert after["overall"]["session_success_rate"] > before
    assert after["ab"] is not None
    response = admin.post(
        f"/results/{collection.id}/online/{log.id}/settings/",
        {"click_actions": "click", "dwell_seconds": "5", "session_gap_minutes": "30", "arm": "bad name!"},
        follow=True,
    )
    assert b"Settings not saved" in response.content
    log.refresh_from_db()
    assert log.settings["dwell_seconds"] == 0


@pytest.mark.slow
def test_implicit_judgments_become_the_clicks_assessors_and_join_the_agreement(collection, tmp_path):
    log = search_logs.search_log_create(collection=collection, name="prod")
    search_logs.search_log_import(search_log=log, files=_simulated_files(collection, tmp_path))
    found = search_logs.implicit_judgments_import(search_log=log, model="pbm", min_impressions=5)
    clicks = Judgment.objects.filter(assessor__username="qrels:clicks", topic__collection=collection)
    assert found["matched"] == clicks.count() > 0
    assert found["created"] == found["matched"] and found["queries_without_topic"] == 0
    assert set(clicks.values_list("grade", flat=True)) <= set(range(collection.max_grade + 1))
    collection.refresh_from_db()
    assert sources.advisory_accounts(collection=collection) == {
        clicks.first().assessor_id
    }  # measured, never counted in the consensus
    again = search_logs.implicit_judgments_import(search_log=log, model="pbm", min_impressions=5)
    assert again["created"] == 0 and again["unchanged"] == found["matched"]
    coec = search_logs.implicit_judgments_import(search_log=log, model="coec", min_impressions=5)
    assert coec["created"] == 0 and coec["updated"] + coec["unchanged"] == found["matched"]


def test_topics_from_traffic_are_added_once_with_their_coverage(collection, worked_files):
    log = search_logs.search_log_create(collection=collection, name="prod")
    search_logs.search_log_import(search_log=log, files=worked_files)
    found = search_logs.traffic_topics_create(search_log=log, method="pps", size=3, seed=1)
    added = Topic.objects.filter(collection=collection, number__startswith="log-")
    assert found["created"] == added.count() == len(found["queries"]) == 3
    assert 0 < found["coverage"] <= 1
    assert {t.extra["method"] for t in added} == {"pps"}
    again = search_logs.traffic_topics_create(search_log=log, method="pps", size=3, seed=1)
    assert again["created"] == 0 and again["already_topics"] == 3


@pytest.mark.slow
def test_online_offline_correlation_pairs_each_arms_run_with_its_clicks(collection, tmp_path):
    log = search_logs.search_log_create(collection=collection, name="prod", settings={"arm": "application"})
    search_logs.search_log_configure(search_log=log, settings=log.settings, arm_runs={"run0": "run0", "run1": "run1"})
    search_logs.search_log_import(search_log=log, files=_simulated_files(collection, tmp_path))
    runs = sorted(collection.runs.values_list("id", flat=True))
    for topic in collection.topics.all():  # offline values to correlate with: the stored AP, set for the test
        TopicValues.objects.update_or_create(
            topic=topic,
            measure="AP",
            defaults={
                "runs": runs,
                "values": [int(topic.number) / 10] * len(runs),
                "generation": 0,
                "settings_key": "test",
            },
        )
    rows = online_selectors.online_offline(search_log=log)
    assert [(r["arm"], r["run"], r["queries"]) for r in rows] == [("run0", "run0", 4), ("run1", "run1", 4)]
    assert all(r["kendall_tau"] is None or -1 <= r["kendall_tau"] <= 1 for r in rows)


def test_the_online_plots_render_for_a_log_and_refuse_an_unknown_one(collection, worked_files):
    log = search_logs.search_log_create(collection=collection, name="prod", settings={"arm": "application"})
    search_logs.search_log_import(search_log=log, files=worked_files)
    researcher = _client("researcher")
    for name in ("online-rate", "online-positions", "online-frequency"):
        response = researcher.get(f"/results/{collection.id}/plots/{name}.svg?log={log.id}&rate=hour")
        assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml", name
        assert b"mathdefault" not in response.content
    assert researcher.get(f"/results/{collection.id}/plots/online-rate.svg?log=999").status_code == 400


def test_the_import_command_names_a_faulty_line_and_imports_a_good_log(collection, worked_files, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(QUERIES[0]) + "\n{not json\n")
    with pytest.raises(CommandError, match=r"bad.jsonl:2"):
        call_command("import_log", collection.name, str(bad), "--log", "prod", stderr=StringIO())
    out = StringIO()
    call_command(
        "import_log",
        str(collection.id),
        str(worked_files["queries"]),
        str(worked_files["events"]),
        "--log",
        "prod",
        stdout=out,
        stderr=StringIO(),
    )
    assert f"{len(QUERIES)} queries and {len(EVENTS)} events added" in out.getvalue()
    with pytest.raises(CommandError, match="holds ubi records"):
        call_command("import_log", collection.name, str(bad), "--log", "prod", "--format", "aol", stderr=StringIO())


def test_an_upload_without_a_file_or_a_taken_name_is_refused_on_the_page(collection):
    admin = _client("admin")
    log = search_logs.search_log_create(collection=collection, name="prod")
    response = admin.post(f"/results/{collection.id}/online/{log.id}/upload/", {}, follow=True)
    assert b"choose a file to import" in response.content and not Job.objects.exists()
    response = admin.post(f"/results/{collection.id}/online/new/", {"name": "prod", "log_format": "ubi"}, follow=True)
    assert b"already has a log named" in response.content
    assert SearchLog.objects.filter(collection=collection).count() == 1
