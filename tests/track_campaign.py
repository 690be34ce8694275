"""A track with participants for tests: a collection taking submissions, teams of fresh accounts, run files and
uploads through the API as a participant's script sends them."""

from __future__ import annotations

from datetime import timedelta

from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from judging.tracks import services as tracks
from tests.api_clients import api_as
from tests.factories import make_collection, make_user


def track(*, topics=3, documents=12, runs=0, **settings):
    """A collection open for submissions now (closing in a day), with `settings` merged in (`depth` is the track's
    limit per topic)."""
    collection = make_collection(topics=topics, documents=documents, runs=runs, depth=6)
    now = timezone.now()
    given = {"opens": (now - timedelta(hours=1)).isoformat(), "closes": (now + timedelta(days=1)).isoformat()}
    tracks.submission_settings_update(collection=collection, changes={"submissions": given | settings})
    collection.refresh_from_db()
    return collection


def team(collection, name: str):
    """(team, its one member) made through the service, as an admin makes them."""
    member = make_user("participant")
    return tracks.team_create(collection=collection, name=name, members=[member.username]), member


def run_file(tag: str, topics=("1", "2", "3"), docnos=None, depth=5, shift=0) -> str:
    """A well-formed run: `depth` documents per topic from d0..d11, ties and all, rotated by `shift`."""
    docnos = docnos or [f"d{i}" for i in range(12)]
    lines = []
    for topic in topics:
        for rank in range(depth):
            docno = docnos[(rank + shift + int(topic) if topic.isdigit() else rank + shift) % len(docnos)]
            lines.append(f"{topic} Q0 {docno} {rank + 1} {float((depth - rank) // 2)} {tag}")
    return "\n".join(lines) + "\n"


def submit(client, collection, text: str, *, name="run.txt", run_type="automatic", priority=1, **more):
    """POSTs a run file with its questionnaire as a participant's script does; the response."""
    upload = SimpleUploadedFile(name, text.encode())
    body = {"file": upload, "run_type": run_type, "priority": priority, **more}
    return client.post(f"/api/collections/{collection.id}/submissions/", body, format="multipart")


def submitted(collection, member, text: str, **questionnaire):
    """A submission made through the service (the receipt), as the API would make it."""
    given = {"run_type": "automatic", "priority": 1} | questionnaire
    upload = SimpleUploadedFile("run.txt", text.encode())
    submission, _ = tracks.submission_receive(
        collection=collection, user=member, upload=upload, questionnaire=tracks.Questionnaire(**given)
    )
    return submission


__all__ = ["api_as", "run_file", "submit", "submitted", "team", "track"]
