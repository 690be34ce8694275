"""Two requests that pass a service's "is it free?" check together: the second one's insert breaks the unique
constraint, and is answered 409 in the error shape (a page for a page), nothing of it kept; never a 500."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction

from config.api_errors import taken_constraint
from judging.models import Collection
from judging.tracks import services as tracks
from judging.tracks.models import Team, TeamMember
from tests.api_clients import api_as
from tests.factories import make_collection, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def raced(monkeypatch):
    """The team-name check passes, then another organizer's team of that name is committed before the insert."""
    checked = tracks._team_checked

    def check_then_lose_the_race(collection, name, members, team=None):
        answer = checked(collection, name, members, team)
        Team.objects.create(collection=collection, name=name)
        return answer

    monkeypatch.setattr(tracks, "_team_checked", check_then_lose_the_race)
    return make_collection(), make_user("participant")


def test_the_api_answers_a_lost_race_409_and_keeps_nothing_of_it(raced):
    collection, member = raced
    response = api_as(make_user("admin")).post(
        f"/api/collections/{collection.id}/teams/", {"name": "alpha", "members": [member.username]}, format="json"
    )
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "conflict" and "another request saved the same thing" in error["message"]
    assert not Team.objects.exists()  # the rival, written here inside the same transaction, went with it
    assert not TeamMember.objects.filter(user=member).exists()


def test_a_page_answers_a_lost_race_with_a_409_page(raced, client):
    collection, member = raced
    client.force_login(make_user("admin"))
    response = client.post(f"/judging/tracks/{collection.id}/teams/", {"name": "alpha", "members": member.username})
    assert response.status_code == 409
    assert b"Someone else just did the same" in response.content
    assert not TeamMember.objects.filter(user=member).exists()


def test_only_a_broken_unique_constraint_is_a_conflict():
    taken = make_collection().name
    with pytest.raises(IntegrityError) as unique, transaction.atomic():
        Collection.objects.create(name=taken, max_grade=1, relevance_threshold=1)
    assert taken_constraint(unique.value) is not None
    with pytest.raises(IntegrityError) as missing_row, transaction.atomic(), connection.constraint_checks_disabled():
        Team.objects.create(collection_id=999_999, name="orphan")
        connection.check_constraints(table_names=[Team._meta.db_table])
    assert taken_constraint(missing_row.value) is None
    assert taken_constraint(ValueError("UNIQUE constraint failed: x")) is None
