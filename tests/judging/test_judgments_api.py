"""The judgments API: assessors read and write only their own judgments, on their topics' pools."""

from __future__ import annotations

import pytest

from judging import services
from judging.models import Judgment
from tests.api_clients import api_as
from tests.factories import make_collection, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign():
    collection = make_collection(max_grade=3, topics=2, documents=10, runs=2, depth=4)
    assessor = make_user("assessor")
    topic = collection.topics.get(number="1")
    services.assignment_create(assessor=assessor, topic=topic)
    return collection, topic, assessor


def test_an_assessor_records_a_judgment_and_a_repeat_updates_it(campaign):
    _, topic, assessor = campaign
    client = api_as(assessor)
    document = topic.pool_items.first().document_id
    first = client.post("/api/judgments/", {"topic": topic.id, "document": document, "grade": 2}, format="json")
    again = client.post(
        "/api/judgments/", {"topic": topic.id, "document": document, "grade": 3, "note": "n"}, format="json"
    )
    assert (first.status_code, again.status_code) == (201, 200)
    assert Judgment.objects.get(assessor=assessor).grade == 3
    assert [j["grade"] for j in client.get(f"/api/judgments/?topic={topic.id}").json()["results"]] == [3]


def test_an_assessor_sees_only_their_own_judgments(campaign):
    _, topic, assessor = campaign
    other = make_user("assessor")
    services.assignment_create(assessor=other, topic=topic)
    services.judgment_record(assessor=other, topic=topic, document=topic.pool_items.first().document, grade=1)
    assert api_as(assessor).get("/api/judgments/").json()["results"] == []


def test_judging_an_unassigned_topic_an_unpooled_or_a_foreign_document_is_refused(campaign):
    collection, topic, assessor = campaign
    client = api_as(assessor)
    unassigned = collection.topics.get(number="2")
    pooled = set(topic.pool_items.values_list("document_id", flat=True))
    unpooled = collection.documents.exclude(id__in=pooled).first().id
    foreign = make_collection().documents.first().id
    pooled_other = unassigned.pool_items.first().document_id
    post = lambda t, d: client.post("/api/judgments/", {"topic": t, "document": d, "grade": 1}, format="json")  # noqa: E731
    assert post(unassigned.id, pooled_other).status_code == 403
    assert post(topic.id, unpooled).status_code == 403
    assert post(topic.id, foreign).status_code == 404
    assert not Judgment.objects.exists()


def test_a_researcher_cannot_judge(campaign):
    _, topic, _ = campaign
    response = api_as(make_user("researcher")).post(
        "/api/judgments/", {"topic": topic.id, "document": topic.pool_items.first().document_id, "grade": 1}
    )
    assert response.status_code == 403


@pytest.mark.parametrize(
    ("body", "field"),
    [({"grade": 9}, "grade"), ({"grade": "x"}, "grade"), ({"document": 10**9}, "document"), ({"grade": 4}, "grade")],
)
def test_malformed_input_is_a_400_naming_the_field(campaign, body, field):
    _, topic, assessor = campaign
    data = {"topic": topic.id, "document": topic.pool_items.first().document_id, "grade": 1} | body
    response = api_as(assessor).post("/api/judgments/", data, format="json")
    assert response.status_code == 400 and field in response.json()["error"]["fields"]


def test_a_full_item_is_a_409_and_a_bad_grade_a_400_naming_the_field(campaign):
    collection, topic, assessor = campaign
    collection.assessors_per_item = 1
    collection.save(update_fields=["assessors_per_item"])
    other = make_user("assessor")
    services.assignment_create(assessor=other, topic=topic)
    document = topic.pool_items.first().document
    services.judgment_record(assessor=other, topic=topic, document=document, grade=1)
    client = api_as(assessor)
    full = client.post("/api/judgments/", {"topic": topic.id, "document": document.id, "grade": 2}, format="json")
    assert full.status_code == 409 and full.json()["error"]["code"] == "item_full"
    second = topic.pool_items.all()[1].document_id
    bad = client.post(
        "/api/judgments/", {"topic": topic.id, "document": second, "grade": 1, "note": "a\u0000b"}, format="json"
    )
    assert bad.status_code == 400 and "note" in bad.json()["error"]["fields"]
