"""The recompute API: status per topic (fresh or being recomputed, with qrels version and settings), a full
recompute started by an admin as a Job, and the Job's progress."""

from __future__ import annotations

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from evaluation import services as evaluation_services
from evaluation.models import RunAggregates
from judging import services
from judging.jobs.models import Job, JobState
from tests.factories import make_collection, make_user

pytestmark = pytest.mark.django_db


def api_as(role):
    user = make_user(role)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client, user


def test_status_says_which_topics_are_being_recomputed_and_from_which_qrels():
    collection = make_collection(topics=2)
    evaluation_services.collection_recompute(collection_id=collection.id)
    client, _ = api_as("researcher")
    topic = collection.topics.first()
    assessor = make_user()
    services.assignment_create(assessor=assessor, topic=topic)
    document = topic.pool_items.first().document
    services.judgment_record(assessor=assessor, topic=topic, document=document, grade=1)  # callbacks held: stale
    status = client.get(f"/api/collections/{collection.id}/status/").json()
    assert status["fresh"] is False and status["stale_topics"] == 1
    assert status["settings"].startswith("rel>=1;scale=0..3")
    assert {t["topic"]: t["fresh"] for t in status["topics"]} == {topic.number: False, "2": True}
    evaluation_services.topic_recompute(topic_id=topic.id)  # what the worker does with the queued message
    status = client.get(f"/api/collections/{collection.id}/status/").json()
    assert status["stale_topics"] == 0 and status["qrels_version"] == 1


def test_an_admin_starts_a_full_recompute_and_follows_its_job(django_capture_on_commit_callbacks):
    collection = make_collection(topics=3)
    RunAggregates.objects.all().delete()
    client, _ = api_as("admin")
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/api/collections/{collection.id}/recompute/")
    assert response.status_code == 202
    job = client.get(response.json()["url"]).json()
    assert (job["state"], job["percent"], job["result"]) == (JobState.DONE, 100, {"topics": 3})
    assert RunAggregates.objects.filter(collection=collection).exists()


@pytest.mark.parametrize("role", ["assessor", "researcher"])
def test_only_admins_can_recompute_or_read_jobs(role):
    collection = make_collection(topics=1)
    client, _ = api_as(role)
    assert client.post(f"/api/collections/{collection.id}/recompute/").status_code == 403
    job = Job.objects.create(kind="recompute", collection=collection)
    assert client.get(f"/api/jobs/{job.id}/").status_code == 403
    assert APIClient().get(f"/api/collections/{collection.id}/status/").status_code in (401, 403)


def test_status_lists_topics_a_page_at_a_time_and_can_list_only_the_stale_ones(monkeypatch):
    from evaluation.api.results import StatusTopicsPagination

    monkeypatch.setattr(StatusTopicsPagination, "page_size", 2)
    collection = make_collection(topics=5)
    evaluation_services.collection_recompute(collection_id=collection.id)
    topic = collection.topics.order_by("id").last()
    assessor = make_user()
    services.assignment_create(assessor=assessor, topic=topic)
    services.judgment_record(assessor=assessor, topic=topic, document=topic.pool_items.first().document, grade=1)
    client, _ = api_as("researcher")
    first = client.get(f"/api/collections/{collection.id}/status/").json()
    assert (first["topics_count"], first["pages"], [t["topic"] for t in first["topics"]]) == (5, 3, ["1", "2"])
    assert first["next"].endswith("/status/?page=2") and first["previous"] is None
    third = client.get(f"/api/collections/{collection.id}/status/?page=3").json()
    assert [t["topic"] for t in third["topics"]] == ["5"] and third["next"] is None
    stale = client.get(f"/api/collections/{collection.id}/status/?stale=1").json()
    assert [(t["topic"], t["fresh"]) for t in stale["topics"]] == [("5", False)] and stale["stale_topics"] == 1
    assert client.get(f"/api/collections/{collection.id}/status/?page=x").status_code == 400
