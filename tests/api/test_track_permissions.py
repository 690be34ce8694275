"""What a track's participants may do over the API, for two teams before and after the organizer releases the
results: each team reaches its own submissions and (once allowed) its own reports, never another team's runs, the
pool, the judgments or the qrels; after the release, the leaderboard of the submitted runs."""

from __future__ import annotations

import pytest

from judging.tracks import services as tracks
from tests.track_campaign import api_as, run_file, submitted, team, track

pytestmark = pytest.mark.django_db

# Endpoints no participant reaches, released or not: the campaign's setup, its pool, labels and exports.
CLOSED_TO_PARTICIPANTS = [
    ("get", "/api/collections/{c}/"),
    ("get", "/api/collections/{c}/runs/"),
    ("get", "/api/collections/{c}/topics/"),
    ("get", "/api/collections/{c}/pool/"),
    ("get", "/api/collections/{c}/teams/"),
    ("post", "/api/collections/{c}/submissions/pool/"),
    ("get", "/api/collections/{c}/qrels/"),
    ("get", "/api/collections/{c}/results/export/"),
    ("get", "/api/collections/{c}/status/"),
    ("get", "/api/collections/{c}/agreement/"),
    ("get", "/api/judgments/"),
]


@pytest.fixture
def two_teams():
    collection = track(runs=1)  # run0: the organizer's own, never listed to a participant
    _, a = team(collection, "alpha")
    _, b = team(collection, "beta")
    ours = submitted(collection, a, run_file("alpha0"))
    theirs = submitted(collection, b, run_file("beta0", shift=2))
    return collection, api_as(a), ours, theirs


def _release(collection, **more):
    tracks.submission_settings_update(collection=collection, changes={"submissions": {"released": True} | more})
    collection.refresh_from_db()


@pytest.mark.parametrize("released", [False, True])
@pytest.mark.parametrize(("method", "path"), CLOSED_TO_PARTICIPANTS)
def test_a_participant_never_reaches_the_campaigns_setup_pool_labels_or_exports(two_teams, released, method, path):
    collection, client, _, _ = two_teams
    if released:
        _release(collection)
    response = getattr(client, method)(path.format(c=collection.id), {}, format="json")
    assert response.status_code == 403, (path, response.status_code)


@pytest.mark.parametrize("released", [False, True])
def test_a_team_lists_and_reads_only_its_own_submissions(two_teams, released):
    collection, client, ours, theirs = two_teams
    if released:
        _release(collection)
    listed = client.get(f"/api/collections/{collection.id}/submissions/").json()
    assert [s["run"] for s in listed] == ["alpha0"]
    base = f"/api/collections/{collection.id}/submissions/"
    assert client.get(f"{base}{ours.id}/").status_code == 200
    assert client.get(f"{base}{theirs.id}/").status_code == 403
    assert client.delete(f"{base}{theirs.id}/").status_code == 403
    assert client.get(f"{base}{theirs.id}/report/").status_code == 403


def test_before_the_release_a_team_has_no_report_and_no_leaderboard(two_teams):
    collection, client, ours, _ = two_teams
    report = client.get(f"/api/collections/{collection.id}/submissions/{ours.id}/report/")
    assert report.status_code == 403 and "release" in report.json()["error"]["message"]
    assert client.get(f"/api/collections/{collection.id}/results/").status_code == 403


def test_live_reports_give_a_team_its_own_report_naming_no_other_run(two_teams):
    collection, client, ours, _ = two_teams
    tracks.submission_settings_update(collection=collection, changes={"submissions": {"live_reports": True}})
    response = client.get(f"/api/collections/{collection.id}/submissions/{ours.id}/report/")
    assert response.status_code == 200
    assert "beta0" not in response.content.decode() and "run0" not in response.content.decode()
    assert client.get(f"/api/collections/{collection.id}/results/").status_code == 403


def test_after_the_release_a_team_reads_its_report_and_the_leaderboard_of_submitted_runs(two_teams):
    collection, client, ours, _ = two_teams
    _release(collection)
    assert client.get(f"/api/collections/{collection.id}/submissions/{ours.id}/report/").status_code == 200
    results = client.get(f"/api/collections/{collection.id}/results/")
    assert results.status_code == 200
    assert sorted(row["run"] for row in results.json()["runs"]) == ["alpha0", "beta0"]


def test_a_participant_of_another_track_reaches_nothing_of_this_one(two_teams):
    collection, _, ours, _ = two_teams
    _release(collection)
    other = track()
    _, stranger = team(other, "gamma")
    client = api_as(stranger)
    assert client.get(f"/api/collections/{collection.id}/submissions/").status_code == 403
    assert client.get(f"/api/collections/{collection.id}/submissions/{ours.id}/report/").status_code == 403
    assert client.get(f"/api/collections/{collection.id}/results/").status_code == 403


def test_an_assessor_and_a_researcher_submit_nothing(two_teams):
    from tests.factories import make_user
    from tests.track_campaign import submit

    collection, _, _, _ = two_teams
    for role in ("assessor", "researcher"):
        response = submit(api_as(make_user(role)), collection, run_file("x"))
        assert response.status_code == 403


def test_a_researcher_reads_every_current_runs_report_before_the_release_and_an_assessor_none(two_teams, client):
    from django.urls import reverse

    from tests.factories import make_user

    collection, _, ours, theirs = two_teams
    researcher, assessor = make_user("researcher"), make_user("assessor")
    for submission in (ours, theirs):
        url = f"/api/collections/{collection.id}/submissions/{submission.id}/report/"
        assert api_as(researcher).get(url).status_code == 200
        assert api_as(assessor).get(url).status_code == 403
    client.force_login(researcher)
    page = client.get(reverse("evaluation:report", args=[collection.id, theirs.id]))
    assert page.status_code == 200 and "beta0" in page.content.decode()
    assert client.get(reverse("evaluation:report_download", args=[collection.id, theirs.id])).status_code == 200
    leaderboard = client.get(reverse("evaluation:track_results", args=[collection.id])).content.decode()
    assert reverse("evaluation:report", args=[collection.id, ours.id]) in leaderboard
    tracks.submission_withdraw(submission=theirs, user=theirs.submitted_by)
    gone = api_as(researcher).get(f"/api/collections/{collection.id}/submissions/{theirs.id}/report/")
    assert gone.status_code == 403 and "withdrawn" in gone.json()["error"]["message"]
