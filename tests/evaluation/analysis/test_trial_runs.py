"""Trying a run: an uploaded run is scored against the current qrels exactly as trec_eval scores it, nothing is
stored or pooled, low judged@10 is flagged, and a malformed file is refused naming its line and field."""

from __future__ import annotations

import pytest
import pytrec_eval
from django.core.files.uploadedfile import SimpleUploadedFile

from evaluation import selectors as evaluation_selectors
from evaluation.models import TopicValues
from judging.models import PoolItem, Run
from tests.api_clients import role_clients
from tests.evaluation.conftest import MEASURES
from tests.factories import make_user

pytestmark = pytest.mark.django_db(transaction=True)


def _run_file(lines: list[str]) -> SimpleUploadedFile:
    return SimpleUploadedFile("mine.run", ("\n".join(lines) + "\n").encode(), content_type="text/plain")


def _mixed_run(collection) -> list[str]:
    """Judged and unjudged documents, a tie in the scores, a docno outside the collection and an unknown topic."""
    lines = []
    for topic in collection.topics.order_by("id"):
        docnos = [d.docno for d in collection.documents.order_by("id")][: 6 + int(topic.number)]
        for rank, docno in enumerate(docnos):
            lines.append(f"{topic.number} Q0 {docno} {rank} {10 - rank // 2} mine")
        lines.append(f"{topic.number} Q0 not-in-collection 99 0.5 mine")
    lines.append("999 Q0 d1 1 3.0 mine")
    return lines


def _consensus_qrels(collection) -> dict[str, dict[str, int]]:
    docnos = dict(collection.documents.values_list("id", "docno"))
    numbers = dict(collection.topics.values_list("id", "number"))
    return {
        numbers[t]: {docnos[d]: g for d, g in labels.items()}
        for t, labels in evaluation_selectors.consensus_qrels(collection=collection).items()
    }


def _trial_over_api(collection, lines: list[str]) -> dict:
    """Posts a trial run (202, a job) and follows the job to its end; returns the job as the API shows it."""
    researcher = role_clients()["researcher"]
    response = researcher.post(
        f"/api/collections/{collection.id}/trial/", {"run": _run_file(lines)}, format="multipart"
    )
    assert response.status_code == 202, response.content
    job = researcher.get(response.json()["url"])
    assert job.status_code == 200 and job.json()["state"] in ("done", "failed")
    return job.json()


def test_a_trial_run_scores_exactly_what_trec_eval_gives_and_stores_nothing(client, judged):
    collection, _, _ = judged
    lines = _mixed_run(collection)
    runs_before, values_before, pool_before = Run.objects.count(), TopicValues.objects.count(), PoolItem.objects.count()
    job = _trial_over_api(collection, lines)
    assert job["state"] == "done", job
    body = job["result"]
    scores: dict[str, dict[str, float]] = {}
    for line in lines:
        topic, _, docno, _, score, _ = line.split()
        scores.setdefault(topic, {})[docno] = float(score)
    evaluator = pytrec_eval.RelevanceEvaluator(_consensus_qrels(collection), set(MEASURES.values()))
    expected = evaluator.evaluate(scores)
    for topic, per_measure in body["per_topic"].items():
        for ours, theirs in MEASURES.items():
            assert per_measure[ours] == expected[topic][theirs], (topic, ours)
    assert set(body["per_topic"]) == set(expected)
    assert body["ignored_topics"] == ["999"] and body["unknown_documents"] == 1
    assert (Run.objects.count(), TopicValues.objects.count(), PoolItem.objects.count()) == (
        runs_before,
        values_before,
        pool_before,
    )


def test_low_judged_coverage_is_flagged_on_the_page(client, judged):
    collection, _, _ = judged
    client.force_login(make_user("researcher"))
    unjudged = [f"{t.number} Q0 fresh-{i} {i} {20 - i} new" for t in collection.topics.all() for i in range(8)]
    judged_one = [f"{t.number} Q0 d0 9 1.0 new" for t in collection.topics.all()]
    response = client.post(f"/results/{collection.id}/trial/", {"run": _run_file(unjudged + judged_one)}, follow=True)
    page = response.content.decode()
    assert response.status_code == 200
    assert 'id="trial-result"' in page and "scores are lower bounds" in page


def test_a_malformed_run_is_refused_naming_file_line_and_field(client, judged):
    collection, _, _ = judged
    lines = ["1 Q0 d1 1 2.0 mine", "1 Q0 d2 2 high mine", "1 Q0 d1 3 1.0 mine", "2 Q0 d3 1 1.0 other"]
    job = _trial_over_api(collection, lines)
    assert job["state"] == "failed"
    problems = {(p["file"], p["line"], p["field"]): p["reason"] for p in job["result"]["problems"]}
    assert set(problems) == {("mine.run", 2, "score"), ("mine.run", 3, "docno"), ("mine.run", 4, "tag")}
    assert "on line 1" in problems[("mine.run", 3, "docno")]
    client.force_login(make_user("researcher"))
    page = client.post(f"/results/{collection.id}/trial/", {"run": _run_file(lines)}, follow=True)
    assert page.status_code == 400 and "<code>mine.run:2</code>: field 'score'" in page.content.decode()


def test_an_empty_run_file_is_refused(judged):
    collection, _, _ = judged
    job = _trial_over_api(collection, [""])
    assert job["state"] == "failed" and "no run lines" in job["result"]["problems"][0]["reason"]


def test_trial_runs_are_limited_in_size_and_per_user_per_hour(judged, settings):
    collection, _, _ = judged
    researcher = role_clients()["researcher"]
    url = f"/api/collections/{collection.id}/trial/"
    settings.WORKBENCH_LIMITS = {**settings.WORKBENCH_LIMITS, "trial_run_bytes": 10, "trial_runs_per_hour": 1}
    too_big = researcher.post(url, {"run": _run_file(["1 Q0 d1 1 2.0 mine"])}, format="multipart")
    assert too_big.status_code == 400 and "a trial run may be 10" in too_big.json()["error"]["message"]
    settings.WORKBENCH_LIMITS = {**settings.WORKBENCH_LIMITS, "trial_run_bytes": 1000}
    assert researcher.post(url, {"run": _run_file(["1 Q0 d1 1 2.0 a"])}, format="multipart").status_code == 202
    again = researcher.post(url, {"run": _run_file(["1 Q0 d1 1 2.0 b"])}, format="multipart")
    assert again.status_code == 400 and "in the last hour" in again.json()["error"]["message"]
