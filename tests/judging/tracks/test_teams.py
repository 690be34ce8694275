"""An organizer edits a team in the browser or over the API: renames it, adds and takes off members, with the same
checks as a new team; a member taken off can no longer submit, and their runs stay on the team's record."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from judging.models import ROLE_PARTICIPANT
from judging.tracks import services as tracks
from judging.tracks.models import Submission, TeamMember
from tests.api_clients import api_as
from tests.factories import make_user
from tests.track_campaign import run_file, submit, submitted, team, track

pytestmark = pytest.mark.django_db


def _members(team_) -> list[str]:
    return sorted(TeamMember.objects.filter(team=team_).values_list("user__username", flat=True))


def test_a_team_is_renamed_and_its_members_set_in_one_save():
    collection = track()
    alpha, _first = team(collection, "alpha")
    second, third = make_user("participant"), make_user("assessor")
    tracks.team_update(team=alpha, name=" Alpha Labs ", members=[second.username, third.username])
    alpha.refresh_from_db()
    assert alpha.name == "Alpha Labs"
    assert _members(alpha) == sorted([second.username, third.username])
    assert third.groups.filter(name=ROLE_PARTICIPANT).exists()  # an added member may now submit


@pytest.mark.parametrize(
    ("name", "members", "field", "says"),
    [
        ("", None, "name", "a team needs a name"),
        ("BETA", None, "name", "already has a team 'BETA'"),
        ("alpha", [], "members", "at least one member"),
        ("alpha", ["nobody-here"], "members", "no active account 'nobody-here'"),
        ("alpha", ["beta-member"], "members", "already in a team of this collection"),
    ],
)
def test_an_edit_is_checked_as_a_new_team_is_and_changes_nothing_when_refused(name, members, field, says):
    collection = track()
    alpha, first = team(collection, "alpha")
    _, beta_member = team(collection, "beta")
    given = (
        [first.username] if members is None else [beta_member.username if m == "beta-member" else m for m in members]
    )
    with pytest.raises(ValidationError) as refused:
        tracks.team_update(team=alpha, name=name, members=given)
    assert says in " ".join(refused.value.message_dict[field])
    alpha.refresh_from_db()
    assert alpha.name == "alpha" and _members(alpha) == [first.username]


def test_keeping_its_own_name_and_members_is_no_conflict_with_itself():
    collection = track()
    alpha, first = team(collection, "alpha")
    tracks.team_update(team=alpha, name="ALPHA", members=[first.username])
    alpha.refresh_from_db()
    assert alpha.name == "ALPHA" and _members(alpha) == [first.username]


def test_a_member_taken_off_can_no_longer_submit_and_their_run_stays_on_the_record():
    collection = track()
    alpha, first = team(collection, "alpha")
    kept = submitted(collection, first, run_file("alpha0"))
    second = make_user("participant")
    tracks.team_update(team=alpha, name="alpha", members=[second.username])
    response = submit(api_as(first), collection, run_file("alpha1"))
    assert response.status_code == 403
    kept.refresh_from_db()
    assert (kept.team_id, kept.submitted_by_id) == (alpha.id, first.id)
    assert Submission.objects.filter(collection=collection).count() == 1
    assert submit(api_as(second), collection, run_file("alpha1")).status_code == 201


def test_an_admin_edits_a_team_from_the_organizers_page(client):
    collection = track()
    alpha, first = team(collection, "alpha")
    second = make_user("participant")
    client.force_login(make_user("admin"))
    page = client.get(reverse("judging:track_organize", args=[collection.id])).content.decode()
    assert reverse("judging:team_edit", args=[collection.id, alpha.id]) in page
    assert f'value="{first.username}"' in page  # the members' field starts from the team as it is
    url = reverse("judging:team_edit", args=[collection.id, alpha.id])
    answer = client.post(url, {"name": "alpha two", "members": f"{first.username}, {second.username}"}, follow=True)
    assert "Team alpha two saved." in answer.content.decode()
    assert _members(alpha) == sorted([first.username, second.username])
    refused = client.post(url, {"name": "alpha two", "members": "nobody-here"}, follow=True).content.decode()
    assert "no active account" in refused and _members(alpha) == sorted([first.username, second.username])


@pytest.mark.parametrize("role", ["participant", "assessor", "researcher"])
def test_no_one_but_an_admin_edits_a_team(client, role):
    collection = track()
    alpha, member = team(collection, "alpha")
    user = member if role == "participant" else make_user(role)
    client.force_login(user)
    response = client.post(
        reverse("judging:team_edit", args=[collection.id, alpha.id]), {"name": "mine now", "members": user.username}
    )
    assert response.status_code == 403
    alpha.refresh_from_db()
    assert alpha.name == "alpha"
    api = api_as(user).put(
        f"/api/collections/{collection.id}/teams/{alpha.id}/", {"name": "x", "members": [user.username]}, format="json"
    )
    assert api.status_code == 403


def test_the_api_puts_a_whole_team_and_names_the_field_it_refuses():
    collection = track()
    alpha, _first = team(collection, "alpha")
    admin = api_as(make_user("admin"))
    url = f"/api/collections/{collection.id}/teams/{alpha.id}/"
    second = make_user("participant")
    answer = admin.put(url, {"name": "alpha", "members": [second.username]}, format="json")
    assert answer.status_code == 200 and answer.json() == {
        "id": alpha.id,
        "name": "alpha",
        "members": [second.username],
    }
    refused = admin.put(url, {"name": "alpha", "members": ["nobody-here"]}, format="json")
    assert refused.status_code == 400 and "members" in str(refused.json())
    assert admin.get(url).json()["members"] == [second.username]


def test_an_account_put_in_another_team_after_the_check_is_refused_by_name_and_nothing_is_saved(monkeypatch):
    from judging.tracks import services as tracks_services
    from judging.tracks.models import Team

    collection = track()
    _, beta_member = team(collection, "beta")
    # As if another organizer's save had put beta's member in beta between this save's check and its write.
    monkeypatch.setattr(
        tracks_services, "_team_checked", lambda collection, name, members, team=None: (name, [beta_member])
    )
    with pytest.raises(ValidationError) as refused:
        tracks.team_create(collection=collection, name="gamma", members=[beta_member.username])
    assert "just joined another team" in " ".join(refused.value.message_dict["members"])
    assert not Team.objects.filter(collection=collection, name="gamma").exists()
