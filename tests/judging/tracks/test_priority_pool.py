"""The pool built from a track's submissions by priority: each team's priority-1 runs to one depth, the others to
another, the organizer's own runs and withdrawn ones left out; the preview writes nothing and counts what the build
adds."""

from __future__ import annotations

import pytest

from judging.models import PoolItem
from judging.tracks import services as tracks
from tests.factories import make_user
from tests.track_campaign import api_as, run_file, submitted, team, track

pytestmark = pytest.mark.django_db


@pytest.fixture
def submissions():
    collection = track(runs=1, runs_per_team=2, depth=8)  # run0: the organizer's, pooled already to depth 6
    PoolItem.objects.filter(topic__collection=collection).delete()
    _, a = team(collection, "alpha")
    _, b = team(collection, "beta")
    texts = {"a1": run_file("a1", depth=8), "a2": run_file("a2", depth=8, shift=4), "b1": run_file("b1", depth=8,
             shift=7)}  # fmt: skip
    submitted(collection, a, texts["a1"], priority=1)
    submitted(collection, a, texts["a2"], priority=2)
    submitted(collection, b, texts["b1"], priority=1)
    gone = submitted(collection, b, run_file("b2", depth=8, shift=9), priority=2)
    tracks.submission_withdraw(submission=gone, user=b)
    return collection, texts


def _top(text: str, depth: int) -> set[tuple[str, str]]:
    """(topic, docno) of each topic's first `depth` documents in trec_eval's order: by score, ties by docno, both
    descending (the files' scores fall pairwise, so a cut can split a tie)."""
    ranked: dict[str, list[tuple[float, str]]] = {}
    for line in text.splitlines():
        topic, _, docno, _, score, _ = line.split()
        ranked.setdefault(topic, []).append((float(score), docno))
    return {(topic, docno) for topic, docs in ranked.items() for _, docno in sorted(docs, reverse=True)[:depth]}


def _pooled(collection) -> set[tuple[str, str]]:
    items = PoolItem.objects.filter(topic__collection=collection)
    return set(items.values_list("topic__number", "document__docno"))


def test_priority_one_runs_go_deeper_than_the_others_and_the_preview_counts_the_build(
    submissions, django_capture_on_commit_callbacks
):
    collection, texts = submissions
    admin = api_as(make_user("admin"))
    url = f"/api/collections/{collection.id}/submissions/pool/"
    preview = admin.post(url, {"depths": {"1": 4, "2": 2}, "preview": True}, format="json")
    assert preview.status_code == 200 and not PoolItem.objects.filter(topic__collection=collection).exists()
    with django_capture_on_commit_callbacks(execute=True):  # the job runs as its transaction commits
        build = admin.post(url, {"depths": {"1": 4, "2": 2}}, format="json")
    assert build.status_code == 202
    expected = _top(texts["a1"], 4) | _top(texts["b1"], 4) | _top(texts["a2"], 2)
    assert _pooled(collection) == expected
    assert preview.json()["added"] == len(expected)


def test_a_priority_without_a_depth_is_not_pooled(submissions, django_capture_on_commit_callbacks):
    collection, texts = submissions
    with django_capture_on_commit_callbacks(execute=True):
        job = tracks.submissions_pool_start(collection=collection, depths={1: 4})
    job.refresh_from_db()
    assert job.state == "done", job.result
    assert _pooled(collection) == _top(texts["a1"], 4) | _top(texts["b1"], 4)
