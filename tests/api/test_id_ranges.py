"""An id out of the primary keys' range (1 .. 2^63 - 1) is a 400 naming where it came from, never a 500: the schema
fuzzing found `PATCH /api/collections/ID/` with gold_assessors=-73068522953720877775983805988864 answering 500
(`OverflowError: Python int too large to convert to SQLite INTEGER`). Each example it found is kept here."""

from __future__ import annotations

import pytest

from judging import services
from tests.api_clients import api_as
from tests.factories import make_collection, make_user

pytestmark = pytest.mark.django_db
HUGE = -73068522953720877775983805988864  # the fuzzer's own example


@pytest.fixture
def admin_api():
    return api_as(make_user("admin"))


@pytest.mark.parametrize("field", ["gold_assessors", "advisory_assessors"])
@pytest.mark.parametrize("value", [HUGE, 2**63, 0])
def test_a_collection_patch_with_an_account_id_out_of_range_is_a_400_naming_the_field(admin_api, field, value):
    collection = make_collection()
    answer = admin_api.patch(f"/api/collections/{collection.id}/", {field: [value]}, format="json")
    assert answer.status_code == 400 and field in answer.json()["error"]["fields"]


def test_a_verification_judge_id_out_of_range_is_a_400_naming_it(admin_api):
    collection = make_collection()
    answer = admin_api.patch(f"/api/collections/{collection.id}/", {"verification_judge": HUGE}, format="json")
    assert answer.status_code == 400 and "verification_judge" in answer.json()["error"]["fields"]


@pytest.mark.parametrize("path", ["/api/collections/{big}/", "/judging/collections/{big}/", "/results/{big}/"])
def test_an_id_out_of_range_in_a_url_is_a_400_naming_the_parameter(client, path):
    client.force_login(make_user("admin"))
    answer = client.get(path.format(big=10**30))
    assert answer.status_code == 400 and "collection_id" in answer.content.decode()


def test_a_judgment_naming_a_topic_out_of_range_is_a_400_naming_the_field():
    collection = make_collection()
    assessor = make_user("assessor")
    topic = collection.topics.first()
    services.assignment_create(assessor=assessor, topic=topic)
    body = {"topic": 10**30, "document": topic.pool_items.first().document_id, "grade": 1}
    answer = api_as(assessor).post("/api/judgments/", body, format="json")
    assert answer.status_code == 400 and "topic" in answer.json()["error"]["fields"]


def test_a_run_or_snapshot_named_by_an_id_out_of_range_in_a_query_is_a_400(client):
    collection = make_collection(runs=2)
    client.force_login(make_user("admin"))
    compare = client.get(f"/api/collections/{collection.id}/compare/", {"a": str(10**30), "b": str(10**30 + 1)})
    assert compare.status_code == 400 and "a" in compare.json()["error"]["fields"]
    snapshots = client.get("/api/search-snapshots/compare/", {"before": str(10**30), "after": "1"})
    assert snapshots.status_code == 400
    page = client.get("/judging/search/compare/", {"before": str(10**30), "after": "1"})
    assert page.status_code == 400 and "before" in page.content.decode()
