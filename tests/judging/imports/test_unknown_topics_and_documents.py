"""Runs and qrels the collection doesn't know yet (#51, item 3): a refusal says it in one line first (how many lines
name how many topics and documents it lacks); importing with "create what is missing" makes them placeholders (the
number or docno) so submitted runs are evaluated against qrels at once, and a later import fills their text; in
the browser a refused import offers that retry, and the API takes the option."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from evaluation import services as evaluation_services
from judging.imports.core.problems import ImportFailed
from judging.imports.services import documents_import, qrels_import, runs_import
from judging.jobs.models import Job, JobState
from judging.models import Document, Judgment, Run, Topic
from tests.api_clients import role_clients
from tests.factories import make_collection, make_user, stored_values

pytestmark = pytest.mark.django_db
RUN = "".join(f"{t} Q0 D{t}-{d} {d + 1} {10 - d} nist\n" for t in (301, 302, 303) for d in range(4)) + (
    "301 Q0 D301-0 9 0.5 other\n"  # a document named by two runs, counted once
)
QRELS = "301 0 D301-0 1\n302 0 D302-1 1\n303 0 D303-9 0\n"


def _file(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_refusal_says_first_how_many_lines_name_how_many_topics_and_documents_it_lacks(tmp_path):
    collection = make_collection(topics=0, documents=0, runs=0)
    with pytest.raises(ImportFailed) as refused:
        runs_import(collection=collection, paths=[_file(tmp_path, "results.test", RUN)], names=["results.test"])
    first = refused.value.problems[0]
    assert first.reason.startswith("these 13 lines name 3 topics and 12 documents this collection doesn't have")
    assert refused.value.count == 14 and refused.value.problems[1].line == 1
    assert Run.objects.count() == Topic.objects.count() == Document.objects.count() == 0


def test_with_create_missing_runs_and_qrels_are_evaluated_at_once_and_a_later_import_fills_the_text(tmp_path):
    collection = make_collection(topics=0, documents=0, runs=0, max_grade=1)
    report = runs_import(collection=collection, paths=[_file(tmp_path, "r", RUN)], names=["r"], create_missing=True)
    assert report.created == 2 and "made 3 topics and 12 documents as placeholders" in report.warnings[0].reason
    topic = Topic.objects.get(collection=collection, number="301")
    assert topic.title == "301" and topic.extra == {"placeholder": True}
    qrels_import(collection=collection, path=_file(tmp_path, "q", QRELS), create_missing=True)
    assert Document.objects.filter(collection=collection).count() == 13  # D303-9 only in the qrels
    assert Judgment.objects.filter(topic__collection=collection).count() == 3
    evaluation_services.collection_recompute(collection_id=collection.id)
    nist = Run.objects.get(collection=collection, tag="nist")
    values = stored_values(collection, ["P@5"])
    assert values[(nist.id, topic.id, "P@5")] == pytest.approx(0.2)  # D301-0 relevant at rank 1 of 5 asked
    documents_import(collection=collection, path=_file(tmp_path, "d.tsv", "D301-0\tthe real text\n"))
    filled = Document.objects.get(collection=collection, docno="D301-0")
    assert "the real text" in (filled.title + filled.body) and filled.extra != {"placeholder": True}


def test_a_refused_import_offers_to_create_what_is_missing_and_the_api_takes_it(
    client, django_capture_on_commit_callbacks, tmp_path, settings
):
    settings.MEDIA_ROOT = tmp_path
    collection = make_collection(topics=0, documents=0, runs=0)
    client.force_login(make_user("admin"))
    data = {"kind": "runs", "file": SimpleUploadedFile("results.test", RUN.encode())}
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("judging:import", args=[collection.id]), data)
    job = Job.objects.get(pk=int(response.url.rstrip("/").split("/")[-1]))
    assert job.state == JobState.FAILED
    page = client.get(reverse("judging:job", args=[job.id])).content.decode()
    assert "Retry, creating what is missing as placeholders" in page and "this collection doesn&#x27;t have" in page
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("judging:job_retry", args=[job.id]), {"create_missing": "1"})
    retry = Job.objects.get(pk=int(response.url.rstrip("/").split("/")[-1]))
    assert retry.state == JobState.DONE and Run.objects.filter(collection=collection).count() == 2

    other = make_collection(topics=0, documents=0, runs=0)
    with django_capture_on_commit_callbacks(execute=True):
        answer = role_clients()["admin"].post(
            f"/api/collections/{other.id}/imports/",
            {"kind": "runs", "file": SimpleUploadedFile("r.run", RUN.encode()), "create_missing": "true"},
            format="multipart",
        )
    assert answer.status_code == 202
    assert Job.objects.get(pk=answer.json()["id"]).arguments["create_missing"] is True
