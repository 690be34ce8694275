"""A team's limit under concurrent uploads, on PostgreSQL: however the uploads interleave, a team never holds more
runs than it may, and two teams racing for one tag cannot both have it."""

from __future__ import annotations

import threading

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection

from judging.tracks import services as tracks
from judging.tracks.models import Submission
from tests.track_campaign import run_file, team, track

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def _race(uploads) -> list[str]:
    """Runs each (member, tag) upload in its own thread, all released at once; their outcomes."""
    barrier, outcomes = threading.Barrier(len(uploads)), []

    def upload(collection, member, tag):
        try:
            barrier.wait()
            tracks.submission_receive(collection=collection, user=member, upload=SimpleUploadedFile(
                "run.txt", run_file(tag).encode()), questionnaire=tracks.Questionnaire("automatic", 1))  # fmt: skip
            outcomes.append("stored")
        except tracks.SubmissionRefused as error:
            outcomes.append(error.kind)
        finally:
            connection.close()  # this thread's own connection, so the test database can be dropped

    threads = [threading.Thread(target=upload, args=(collection, m, t)) for collection, m, t in uploads]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sorted(outcomes)


def test_six_concurrent_uploads_of_one_team_store_exactly_its_two_runs():
    collection = track(runs_per_team=2)
    alpha, member = team(collection, "alpha")
    outcomes = _race([(collection, member, f"alpha{i}") for i in range(6)])
    assert outcomes == ["limit"] * 4 + ["stored"] * 2
    assert Submission.objects.filter(team=alpha, state="current").count() == 2


def test_two_teams_racing_for_one_tag_cannot_both_have_it():
    collection = track()
    _, a = team(collection, "alpha")
    _, b = team(collection, "beta")
    for round_ in range(3):
        tag = f"shared{round_}"
        assert _race([(collection, a, tag), (collection, b, tag)]) == ["stored", "taken"]
        assert Submission.objects.filter(collection=collection, tag=tag, state="current").count() == 1


def test_two_teams_naming_the_same_missing_document_at_once_both_get_their_run():
    collection = track(missing_documents="placeholders")
    _, a = team(collection, "alpha")
    _, b = team(collection, "beta")
    barrier, outcomes = threading.Barrier(2), []

    def upload(member, tag):
        try:
            barrier.wait()
            text = run_file(tag) + f"1 Q0 brand-new 9 0.1 {tag}\n"
            tracks.submission_receive(collection=collection, user=member, upload=SimpleUploadedFile(
                "run.txt", text.encode()), questionnaire=tracks.Questionnaire("automatic", 1))  # fmt: skip
            outcomes.append("stored")
        finally:
            connection.close()

    threads = [threading.Thread(target=upload, args=pair) for pair in ((a, "alpha0"), (b, "beta0"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes == ["stored", "stored"]
    assert collection.documents.filter(docno="brand-new").count() == 1
