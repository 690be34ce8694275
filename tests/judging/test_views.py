"""Pages: each role lands on its start page; anonymous visitors log in first; the leaderboard shows freshness."""

from __future__ import annotations

import pytest
from django.urls import reverse

from judging import services
from tests.factories import make_user

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("role", "start"),
    [
        ("admin", "judging:dashboard"),
        ("assessor", "judging:assignments"),
    ],
)
def test_each_role_lands_on_its_start_page(client, campaign, role, start):
    client.force_login(make_user(role))
    response = client.get("/", follow=True)
    assert response.status_code == 200
    assert response.redirect_chain[0][0] == reverse(start)


def test_a_researcher_lands_on_the_leaderboard_of_the_one_collection_or_the_list_of_several(client, campaign):
    from tests.factories import make_collection

    collection, _ = campaign
    client.force_login(make_user("researcher"))
    assert client.get("/").url == reverse("evaluation:leaderboard", args=[collection.id])
    make_collection()
    assert client.get("/").url == reverse("evaluation:leaderboard_index")


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


def test_an_assessor_opening_an_admin_page_gets_the_styled_403_not_the_admin_login(client, campaign):
    client.force_login(make_user("assessor"))
    for url in ("/judging/dashboard/", f"/results/{campaign[0].id}/", "/results/"):
        response = client.get(url)
        assert response.status_code == 403, url
        assert b"Not for your role" in response.content and b"Go to your start page" in response.content


@pytest.mark.parametrize(
    ("role", "shown", "hidden"),
    [
        ("assessor", ["My assignments"], ["Results", "Dashboard", "Collections"]),
        ("researcher", ["Results", "Collections"], ["Dashboard", "My assignments"]),
        ("admin", ["Dashboard", "Results", "Collections", "People"], ["My assignments"]),
    ],
)
def test_the_navigation_shows_each_role_its_own_links(client, campaign, role, shown, hidden):
    client.force_login(make_user(role))
    page = client.get("/", follow=True).content.decode()
    nav = page[page.index('<nav aria-label="Main">') : page.index("</nav>")]
    assert all(f">{link}<" in nav for link in shown), nav
    assert not any(f">{link}<" in nav for link in hidden), nav


def test_the_results_index_lists_every_collection_with_a_way_in(client, campaign):
    other = services.collection_create(name="second campaign")
    client.force_login(make_user("researcher"))
    page = client.get("/results/").content.decode()
    for collection in (campaign[0], other):
        assert f'href="/results/{collection.id}/"' in page and collection.name in page


def test_a_collection_created_in_the_django_admin_gets_its_scale(client):
    from judging.models import Collection

    client.force_login(make_user("admin"))
    data = {
        "name": "made in the admin",
        "max_grade": 3,
        "relevance_threshold": 2,
        "assessors_per_item": 1,
        "disagreement_tolerance": 0,
        "consensus_method": "majority",
        "measures": '["AP", "nDCG@10"]',
        "agreement_measure": "AP",
        "trec_eval_version": 10,  # the admin's selects post their defaults
        "judging_order": "best_rank",
        "blind": "on",
    }
    response = client.post("/admin/judging/collection/add/", data)
    assert response.status_code == 302, response.content.decode()[:3000]
    collection = Collection.objects.get(name="made in the admin")
    assert list(collection.grades.values_list("value", flat=True)) == [0, 1, 2, 3]
    assert collection.relevance_threshold == 2 and collection.measures == ["AP", "nDCG@10"]


def test_admin_deletions_go_through_the_services(client, campaign):
    from evaluation.models import TopicState
    from judging.models import Judgment, JudgmentHistory

    collection, assessor = campaign
    topic = collection.topics.first()
    item = topic.pool_items.first()
    judgment = services.judgment_record(assessor=assessor, topic=topic, document=item.document, grade=2)
    TopicState.objects.filter(topic=topic).update(dirty=False)
    client.force_login(make_user("admin"))
    response = client.post(f"/admin/judging/judgment/{judgment.id}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not Judgment.objects.filter(pk=judgment.pk).exists()
    assert JudgmentHistory.objects.filter(action="deleted", document=item.document).exists()
    assert TopicState.objects.get(topic=topic).dirty
    run = collection.runs.first()
    TopicState.objects.filter(topic__collection=collection).update(dirty=False)
    client.post(f"/admin/judging/run/{run.id}/delete/", {"post": "yes"})
    assert not collection.runs.filter(pk=run.pk).exists()
    assert TopicState.objects.filter(topic__collection=collection, dirty=True).exists()
