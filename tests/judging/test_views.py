"""Pages: each role lands on its start page; anonymous visitors log in first; the leaderboard shows freshness."""

from __future__ import annotations

import pytest
from django.urls import reverse

from judging import services

from ..factories import make_user

pytestmark = pytest.mark.django_db


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
