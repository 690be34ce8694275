"""Submitting runs to a track over the API: the receipt, every check of the file with a bad file of each kind (line
and field named, nothing saved), the window, replacing and withdrawing, and the limit per team."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest
from django.utils import timezone

from judging.models import Document, Run
from judging.tracks.models import Submission
from tests.track_campaign import api_as, run_file, submit, team, track

pytestmark = pytest.mark.django_db


@pytest.fixture
def entered():
    collection = track(runs_per_team=2, depth=5)
    alpha, member = team(collection, "alpha")
    return collection, alpha, api_as(member)


def test_a_valid_run_is_stored_with_a_receipt_naming_its_tag_hash_and_team(entered):
    collection, _, client = entered
    text = run_file("alpha-bm25")
    response = submit(client, collection, text, description="BM25", model_family="none", priority=1)
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["run"] == "alpha-bm25" and body["team"] == "alpha"
    assert body["sha256"] == hashlib.sha256(text.encode()).hexdigest()
    assert timezone.datetime.fromisoformat(body["received_at"]) <= timezone.now()
    run = Run.objects.get(collection=collection, tag="alpha-bm25")
    assert run.rankings.count() == 3 and run.precedence == 1 and run.description == "BM25"


BAD_FILES = [
    ("5 columns", "1 Q0 d1 1 2.0\n", 1, None, "expected 6 columns"),
    ("score", "1 Q0 d1 1 2.0 t\n1 Q0 d2 2 high t\n", 2, "score", "expected a number"),
    ("rank", "1 Q0 d1 one 2.0 t\n", 1, "rank", "whole number"),
    ("two tags", "1 Q0 d1 1 2.0 t\n1 Q0 d2 2 1.0 u\n", 2, "tag", "a file is one run"),
    ("unknown topic", "1 Q0 d1 1 2.0 t\n9 Q0 d1 1 2.0 t\n", 2, "topic", "topic '9' is not one of the track's"),
    ("docno twice", "1 Q0 d1 1 2.0 t\n1 Q0 d1 2 1.0 t\n", 2, "docno", "already ranked for topic '1' on line 1"),
    ("unknown docno", "1 Q0 d1 1 2.0 t\n1 Q0 zz 2 1.0 t\n", 2, "docno", "document 'zz' is not in the collection"),
    ("too deep", "".join(f"1 Q0 d{i} {i + 1} 1.0 t\n" for i in range(6)), 6, "rank", "more than 5 documents"),
]


@pytest.mark.parametrize(("kind", "text", "line", "field", "reason"), BAD_FILES, ids=[k for k, *_ in BAD_FILES])
def test_a_bad_file_is_refused_naming_its_line_and_field_and_saves_nothing(entered, kind, text, line, field, reason):
    collection, _, client = entered
    complete = text + "".join(f"{t} Q0 d3 1 1.0 t\n" for t in ("2", "3"))  # every topic, so only the fault is named
    response = submit(client, collection, complete)
    assert response.status_code == 400, response.content
    problems = response.json()["problems"]
    assert {"line": line, "field": field} == {k: problems[0][k] for k in ("line", "field")}, problems
    assert reason in problems[0]["reason"]
    assert not Submission.objects.exists() and not Run.objects.filter(collection=collection).exists()


def test_a_run_missing_a_topic_is_refused_as_a_whole_naming_the_topic(entered):
    collection, _, client = entered
    response = submit(client, collection, run_file("t", topics=("1", "3")))
    assert response.status_code == 400
    [problem] = response.json()["problems"]
    assert problem["line"] is None and "1 of the track's 3 topics: 2" in problem["reason"]


def test_an_empty_file_is_refused(entered):
    collection, _, client = entered
    response = submit(client, collection, "# a comment only\n")
    assert response.status_code == 400 and "no run lines" in response.json()["problems"][0]["reason"]


def test_the_questionnaire_is_checked_before_the_file(entered):
    collection, _, client = entered
    response = submit(client, collection, run_file("t"), priority=3)  # two runs per team: priorities 1..2
    assert response.status_code == 400
    assert response.json()["problems"] == [
        {"line": None, "field": "priority", "reason": "a whole number from 1 to 2 (1 is pooled first)"}
    ]


def test_documents_the_collection_lacks_become_placeholders_when_the_organizer_says_so():
    collection = track(missing_documents="placeholders")
    _, member = team(collection, "alpha")
    text = run_file("t") + "1 Q0 new-doc 9 0.1 t\n"
    response = submit(api_as(member), collection, text)
    assert response.status_code == 201, response.content
    assert response.json()["placeholders"] == 1
    assert Document.objects.get(collection=collection, docno="new-doc").extra == {"placeholder": True}


def test_the_same_tag_from_the_same_team_replaces_the_run_with_a_new_receipt(entered):
    collection, _, client = entered
    first = submit(client, collection, run_file("t"), priority=1).json()
    response = submit(client, collection, run_file("t", shift=3), priority=2, description="better")
    assert response.status_code == 200, response.content
    second = response.json()
    assert second["id"] != first["id"] and second["sha256"] != first["sha256"]
    run = Run.objects.get(collection=collection, tag="t")
    assert (run.precedence, run.description) == (2, "better")
    listed = client.get(f"/api/collections/{collection.id}/submissions/").json()
    assert [s["id"] for s in listed] == [second["id"]]
    assert Submission.objects.get(pk=first["id"]).state == "replaced"


def test_a_tag_another_team_holds_is_a_conflict(entered):
    collection, _, client = entered
    assert submit(client, collection, run_file("shared")).status_code == 201
    _, other = team(collection, "beta")
    response = submit(api_as(other), collection, run_file("shared"))
    assert response.status_code == 409 and "another team's" in response.json()["error"]["message"]


def test_a_tag_of_a_run_the_organizer_imported_is_a_conflict():
    collection = track(runs=1)  # run0, imported by the admin
    _, member = team(collection, "alpha")
    assert submit(api_as(member), collection, run_file("run0")).status_code == 409


def test_after_the_close_every_upload_is_refused_with_the_close_time_in_utc(entered):
    collection, _, client = entered
    closed = timezone.now().replace(microsecond=0) - timedelta(minutes=5)
    settings = collection.submission_settings
    settings.opens, settings.closes = closed - timedelta(days=1), closed
    settings.save()
    response = submit(client, collection, run_file("t"))
    assert response.status_code == 403
    assert response.json()["error"]["message"] == f"submissions closed at {closed:%Y-%m-%d %H:%M} UTC"


def test_before_the_opening_an_upload_is_refused():
    soon = timezone.now() + timedelta(hours=2)
    collection = track(opens=soon.isoformat(), closes=(soon + timedelta(days=1)).isoformat())
    _, member = team(collection, "alpha")
    response = submit(api_as(member), collection, run_file("t"))
    assert response.status_code == 403 and "submissions open at" in response.json()["error"]["message"]


def test_the_limit_per_team_holds_and_refused_uploads_do_not_count(entered):
    collection, _, client = entered
    assert submit(client, collection, "bad\n").status_code == 400
    assert submit(client, collection, run_file("a")).status_code == 201
    assert submit(client, collection, run_file("b")).status_code == 201
    response = submit(client, collection, run_file("c"))
    assert response.status_code == 403 and "2 of 2 runs" in response.json()["error"]["message"]
    assert submit(client, collection, run_file("a", shift=1)).status_code == 200  # a replacement takes no slot


def test_a_withdrawn_run_frees_its_slot_and_leaves_the_collection(entered):
    collection, _, client = entered
    first = submit(client, collection, run_file("a")).json()
    submit(client, collection, run_file("b"))
    response = client.delete(f"/api/collections/{collection.id}/submissions/{first['id']}/")
    assert response.status_code == 204
    assert not Run.objects.filter(collection=collection, tag="a").exists()
    assert submit(client, collection, run_file("c")).status_code == 201


def test_no_withdrawal_after_the_close(entered):
    collection, _, client = entered
    first = submit(client, collection, run_file("a")).json()
    settings = collection.submission_settings
    settings.closes = timezone.now() - timedelta(seconds=1)
    settings.save()
    response = client.delete(f"/api/collections/{collection.id}/submissions/{first['id']}/")
    assert response.status_code == 403 and "closed at" in response.json()["error"]["message"]
    assert Run.objects.filter(collection=collection, tag="a").exists()


def test_a_collection_without_submissions_takes_none():
    from judging.tracks import services
    from tests.factories import make_collection, make_user

    collection = make_collection()
    member = make_user("participant")
    with pytest.raises(services.SubmissionRefused, match="takes no submissions"):
        services.submission_receive(collection=collection, user=member, upload=None,
                                    questionnaire=services.Questionnaire("automatic", 1))  # fmt: skip


def test_the_settings_are_merged_through_the_collections_api():
    from tests.factories import make_collection, make_user

    collection = make_collection()
    admin = api_as(make_user("admin"))
    url = f"/api/collections/{collection.id}/"
    assert admin.get(url).json()["submissions"] is None
    body = {"submissions": {"opens": "2026-12-01T09:00:00Z", "closes": "2026-12-15T23:59:00+00:00", "depth": 100}}
    assert admin.patch(url, body, format="json").status_code == 200
    admin.patch(url, {"submissions": {"runs_per_team": 5}}, format="json")
    shown = admin.get(url).json()["submissions"]
    assert (shown["depth"], shown["runs_per_team"], shown["closes"]) == (100, 5, "2026-12-15T23:59:00+00:00")
    refused = admin.patch(url, {"submissions": {"closes": "2026-11-01T00:00:00Z"}}, format="json")
    assert refused.status_code == 400 and "after opens" in refused.json()["error"]["message"]
