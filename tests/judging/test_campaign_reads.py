"""One rule for a campaign's setup on its pages and in its API (`reads_or_changes_campaign`): researchers read the
sources, the standing, the search endpoints and snapshots wherever the API lets them, an admin alone changes them,
and a researcher reaches them from the results pages; names there are as blind as everywhere else."""

from __future__ import annotations

import pytest

from judging import services
from judging.search_fetch import services as search_services
from tests.chat_server import outbound_allowed
from tests.factories import make_collection, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def collection():
    collection = make_collection(topics=2, documents=6, runs=2, depth=3)
    assessor = make_user("assessor")
    topic = collection.topics.first()
    services.assignment_create(assessor=assessor, topic=topic)
    services.judgment_record(assessor=assessor, topic=topic, document=topic.pool_items.first().document, grade=1)
    with outbound_allowed("127.0.0.1:9"):
        search_services.search_endpoint_create(
            collection=collection, name="es", engine="elasticsearch", url="http://127.0.0.1:9"
        )
    collection.assessor = assessor
    return collection


def _pages(collection) -> dict[str, tuple[str, str | None]]:
    endpoint = collection.search_endpoints.get()
    return {
        "sources": (f"/judging/collections/{collection.id}/sources/", f"/api/collections/{collection.id}/sources/"),
        "standing": (f"/judging/collections/{collection.id}/standing/", f"/api/collections/{collection.id}/standing/"),
        "endpoints": (
            f"/judging/collections/{collection.id}/search/",
            f"/api/collections/{collection.id}/search-endpoints/",
        ),
        "endpoint": (f"/judging/search/{endpoint.id}/", f"/api/search-endpoints/{endpoint.id}/"),
    }


@pytest.mark.parametrize("role", ["researcher", "admin", "assessor"])
def test_a_page_and_its_api_answer_each_role_alike(client, collection, role):
    client.force_login(make_user(role))
    for name, (page, api) in _pages(collection).items():
        page_status, api_status = client.get(page).status_code, client.get(api).status_code
        assert (page_status == 200) == (api_status == 200) == (role != "assessor"), (name, page_status, api_status)


def test_a_researcher_reads_without_a_way_to_change_and_may_not_post(client, collection):
    client.force_login(make_user("researcher"))
    sources = client.get(f"/judging/collections/{collection.id}/sources/").content.decode()
    assert 'name="role"' not in sources and "data-source=" in sources
    assert collection.assessor.username not in sources  # blind, as the results pages are
    endpoints = client.get(f"/judging/collections/{collection.id}/search/").content.decode()
    assert 'data-endpoint="es"' in endpoints and "Add an endpoint" not in endpoints and "data-fetch" not in endpoints
    endpoint = collection.search_endpoints.get()
    edit = client.get(f"/judging/search/{endpoint.id}/").content.decode()
    assert 'name="save"' not in edit and "disabled" in edit
    assert client.post(f"/judging/search/{endpoint.id}/", {"save": "1"}).status_code == 403
    assert client.post(f"/judging/collections/{collection.id}/sources/{collection.assessor.id}/",
                       {"kind": "person", "role": "advisory"}).status_code == 403  # fmt: skip
    leaderboard = client.get(f"/results/{collection.id}/").content.decode()
    assert f'href="/judging/collections/{collection.id}/search/"' in leaderboard
    assert f'href="/judging/collections/{collection.id}/sources/"' in leaderboard


@pytest.mark.parametrize("role", ["admin", "researcher"])
def test_the_sources_page_keeps_the_whole_top_bar_and_a_way_back(client, collection, role):
    client.force_login(make_user(role))
    page = client.get(f"/judging/collections/{collection.id}/sources/").content.decode()
    bar = page[page.index('<nav aria-label="Main">') : page.index("</nav>")]
    assert 'href="/results/"' in bar  # its context once shadowed the roles the bar is drawn from
    assert ('href="/judging/dashboard/"' in bar) is (role == "admin")
    assert f'href="/results/{collection.id}/"' in page
    assert (f'href="/judging/collections/{collection.id}/"' in page) is (role == "admin")
