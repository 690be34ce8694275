"""The campaign API: who may read and change collections, pools and assignments; imports and pool builds as jobs;
one JSON shape for errors."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from judging.jobs.models import Job, JobState
from judging.models import Assignment, PoolItem, Topic
from judging.quality.selectors import quality_settings
from judging.sources import selectors as sources
from tests.api_clients import role_clients
from tests.factories import make_collection, make_user

pytestmark = pytest.mark.django_db

READ = ["", "topics/", "documents/", "runs/", "pool/"]


@pytest.fixture
def clients():
    return role_clients()


@pytest.mark.parametrize("suffix", READ)
def test_researchers_and_admins_read_the_campaign_assessors_and_strangers_do_not(clients, suffix):
    collection = make_collection()
    url = f"/api/collections/{collection.id}/{suffix}"
    codes = {role: client.get(url).status_code for role, client in clients.items()}
    assert codes == {"admin": 200, "researcher": 200, "assessor": 403, "anonymous": 401}


def test_only_admins_create_collections_and_a_bad_scale_is_a_400_naming_the_field(clients):
    body = {"name": "new", "max_grade": 3, "relevance_threshold": 2}
    assert clients["researcher"].post("/api/collections/", body, format="json").status_code == 403
    created = clients["admin"].post("/api/collections/", body, format="json")
    assert created.status_code == 201 and created.json()["max_grade"] == 3
    bad = clients["admin"].post("/api/collections/", {"name": "x", "max_grade": 9}, format="json")
    assert bad.status_code == 400
    error = bad.json()["error"]
    assert error["status"] == 400 and "max_grade" in error["fields"] and "max_grade" in error["message"]


def test_admins_patch_any_setting_the_settings_page_has_and_a_bad_value_names_its_field(clients):
    collection = make_collection(max_grade=3)
    person = make_user("assessor")
    url = f"/api/collections/{collection.id}/"
    changes = {"gold_rate": 0.2, "repeat_rate": 0.1, "pause_below": 0.5, "blind": False, "guidelines": "Be kind.",
               "consensus_method": collection.consensus_method, "gold_assessors": [person.id]}  # fmt: skip
    answer = clients["admin"].patch(url, changes, format="json")
    assert answer.status_code == 200, answer.content
    collection.refresh_from_db()
    quality = quality_settings(collection)
    assert (quality.gold_rate, quality.repeat_rate, quality.pause_below) == (0.2, 0.1, 0.5)
    shown = clients["admin"].get(url).json()
    assert (shown["gold_rate"], shown["pause_below"], shown["pause_window"], shown["judging_mode"]) == (
        0.2,
        0.5,
        20,
        "graded",
    )
    gold = sorted(sources.gold_accounts(collection=collection))
    assert (collection.blind, collection.guidelines, gold) == (False, "Be kind.", [person.id])
    refused = clients["admin"].patch(url, {"verification_judge": 999999}, format="json")
    assert refused.status_code == 400 and "verification_judge" in refused.json()["error"]["fields"]
    assert clients["researcher"].patch(url, {"gold_rate": 0.9}, format="json").status_code == 403
    assert clients["admin"].put(url, changes, format="json").status_code == 405
    collection.refresh_from_db()
    assert quality_settings(collection).gold_rate == 0.2


def test_errors_share_one_shape_and_unknown_api_urls_answer_json(clients):
    missing = clients["admin"].get("/api/collections/999999/")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    nowhere = clients["admin"].get("/api/no/such/thing/")
    assert nowhere.status_code == 404 and nowhere.json()["error"]["message"] == "no API endpoint at /api/no/such/thing/"
    anonymous = clients["anonymous"].get("/api/collections/")
    assert anonymous.json()["error"]["status"] == 401


def test_an_import_uploaded_over_the_api_runs_as_a_job_and_reports_problems_by_line(
    clients, django_capture_on_commit_callbacks
):
    collection = make_collection(topics=1)
    url = f"/api/collections/{collection.id}/imports/"
    good = SimpleUploadedFile("topics.tsv", b"7\tnew topic\n8\tanother\n")
    with django_capture_on_commit_callbacks(execute=True):
        response = clients["admin"].post(url, {"kind": "topics", "file": good}, format="multipart")
    assert response.status_code == 202
    job = clients["admin"].get(response.json()["url"]).json()
    assert job["state"] == "done" and Topic.objects.filter(collection=collection, number="8").exists()
    bad = SimpleUploadedFile("topics.tsv", b"9\tfine\n10\n")
    with django_capture_on_commit_callbacks(execute=True):
        response = clients["admin"].post(url, {"kind": "topics", "file": bad}, format="multipart")
    failed = Job.objects.get(pk=response.json()["id"])
    assert failed.state == JobState.FAILED and failed.result["problems"][0]["line"] == 2
    assert not Topic.objects.filter(collection=collection, number="9").exists()
    assert clients["researcher"].post(url, {"kind": "topics"}, format="multipart").status_code == 403


def test_pool_preview_answers_at_once_and_a_build_is_a_job(clients, django_capture_on_commit_callbacks):
    collection = make_collection(topics=2, documents=10, runs=2, depth=6)
    PoolItem.objects.filter(topic__collection=collection).delete()
    url = f"/api/collections/{collection.id}/pool/"
    preview = clients["admin"].post(url, {"strategy": "take_n", "size": 3, "preview": True}, format="json")
    assert preview.status_code == 200 and preview.json()["added"] == 6
    assert set(preview.json()["unique"]) == {"run0", "run1"} and not PoolItem.objects.exists()
    with django_capture_on_commit_callbacks(execute=True):
        built = clients["admin"].post(url, {"strategy": "take_n", "size": 3, "runs": ["run0"]}, format="json")
    assert built.status_code == 202 and PoolItem.objects.count() == 6
    assert {tag for item in clients["researcher"].get(url).json()["results"] for tag in item["contributing_runs"]} == {
        "run0"
    }
    unknown = clients["admin"].post(url, {"strategy": "depth", "size": 3, "runs": ["nope"]}, format="json")
    assert unknown.status_code == 400 and "nope" in unknown.json()["error"]["message"]


def test_assignments_over_the_api_balance_reassign_and_delete(clients):
    collection = make_collection(topics=2, assessors_per_item=1)
    a, b = make_user("assessor"), make_user("assessor")
    url = f"/api/collections/{collection.id}/assignments/"
    created = clients["admin"].post(url, {"assessors": [a.username, b.username]}, format="json")
    assert created.status_code == 201 and len(created.json()) == 2
    first = Assignment.objects.filter(assessor=a).get()
    moved = clients["admin"].patch(f"/api/assignments/{first.id}/", {"assessor": b.username}, format="json")
    assert moved.status_code == 200 and moved.json()["assessor"] == b.username
    assert clients["admin"].delete(f"/api/assignments/{first.id}/").status_code == 204
    assert clients["admin"].post(url, {"assessors": ["ghost"]}, format="json").status_code == 400
    assert clients["researcher"].get(url).status_code == 403


def test_the_api_adds_assessors_to_topics_beyond_k(clients):
    collection = make_collection(topics=2, assessors_per_item=1)
    a, b = make_user(), make_user()
    url = f"/api/collections/{collection.id}/assignments/"
    clients["admin"].post(url, {"assessors": [a.username]}, format="json")
    added = clients["admin"].post(url, {"assessors": [b.username], "topics": ["1"], "mode": "add"}, format="json")
    assert added.status_code == 201 and [row["assessor"] for row in added.json()] == [b.username]
    assert Assignment.objects.filter(topic__number="1", topic__collection=collection).count() == 2
    refused = clients["admin"].post(url, {"assessors": [b.username], "mode": "add"}, format="json")
    assert refused.status_code == 400 and "topics" in refused.json()["error"]["fields"]
