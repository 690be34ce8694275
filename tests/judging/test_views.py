"""Pages: each role lands on its start page; assessors judge only what is theirs; queries stay bounded."""

from __future__ import annotations

import pytest
from django.urls import reverse

from judging import services
from judging.models import Judgment

from ..factories import make_collection, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign():
    collection = make_collection(max_grade=3, topics=3, documents=8, runs=2, depth=4)
    assessor = make_user("assessor")
    for topic in collection.topics.all():
        services.assignment_create(assessor=assessor, topic=topic)
    return collection, assessor


@pytest.mark.parametrize(
    ("role", "start"),
    [
        ("admin", "judging:dashboard"),
        ("assessor", "judging:assignments"),
        ("researcher", "evaluation:leaderboard_index"),
    ],
)
def test_each_role_lands_on_its_start_page(client, campaign, role, start):
    client.force_login(make_user(role))
    response = client.get("/", follow=True)
    assert response.status_code == 200
    assert response.redirect_chain[0][0] == reverse(start)


def test_anonymous_visitors_are_sent_to_login(client):
    assert client.get("/").url == reverse("login")
    assert client.get(reverse("judging:assignments")).status_code == 302


def test_assignments_page_shows_progress_in_constant_queries(client, campaign, django_assert_max_num_queries):
    _collection, assessor = campaign
    client.force_login(assessor)
    with django_assert_max_num_queries(8):
        response = client.get(reverse("judging:assignments"))
    assert response.content.decode().count('role="progressbar"') == 3


def test_judging_by_post_records_and_shows_the_next_document(client, campaign, django_assert_max_num_queries):
    collection, assessor = campaign
    topic = collection.topics.get(number="1")
    client.force_login(assessor)
    first = client.get(reverse("judging:judge", args=[topic.id]))
    document_id = first.context["item"].document_id
    with django_assert_max_num_queries(40):
        response = client.post(
            reverse("judging:judge_document", args=[topic.id, document_id]), {"grade": "2"}, HTTP_HX_REQUEST="true"
        )
    assert response.status_code == 200
    assert Judgment.objects.get(assessor=assessor, document_id=document_id).grade == 2
    assert response.context["item"].document_id != document_id


def test_an_assessor_cannot_judge_another_assessors_topic(client, campaign):
    collection, _ = campaign
    outsider = make_user("assessor")
    topic = collection.topics.first()
    client.force_login(outsider)
    document = collection.documents.first()
    assert client.get(reverse("judging:judge", args=[topic.id])).status_code == 403
    response = client.post(reverse("judging:judge_document", args=[topic.id, document.id]), {"grade": "1"})
    assert response.status_code == 403
    assert not Judgment.objects.exists()


def test_a_document_of_another_collection_is_not_found(client, campaign):
    collection, assessor = campaign
    foreign = make_collection().documents.first()
    client.force_login(assessor)
    topic = collection.topics.first()
    assert (
        client.post(reverse("judging:judge_document", args=[topic.id, foreign.id]), {"grade": "1"}).status_code == 404
    )


def test_grade_outside_scale_is_a_400_with_the_reason(client, campaign):
    collection, assessor = campaign
    client.force_login(assessor)
    topic = collection.topics.first()
    document = topic.pool_items.first().document
    response = client.post(reverse("judging:judge_document", args=[topic.id, document.id]), {"grade": "7"})
    assert response.status_code == 400
    assert b"outside this collection's scale" in response.content


def test_leaderboard_shows_stored_values_and_freshness(client, campaign):
    collection, assessor = campaign
    topic = collection.topics.first()
    for item in topic.pool_items.all()[:3]:
        services.judgment_record(assessor=assessor, topic=topic, document=item.document, grade=2)
    from evaluation.services import collection_recompute

    collection_recompute(collection_id=collection.id)
    client.force_login(make_user("researcher"))
    page = client.get(reverse("evaluation:leaderboard", args=[collection.id])).content.decode()
    assert "run0" in page and "run1" in page and "fresh" in page
