"""Trying a run: an uploaded run is scored against the current qrels exactly as trec_eval scores it, nothing is
stored or pooled, low judged@10 is flagged, and a malformed file is refused naming its line and field."""

from __future__ import annotations

import pytest
import pytrec_eval
from django.core.files.uploadedfile import SimpleUploadedFile

from evaluation import analysis
from evaluation.models import TopicValue
from judging.models import PoolItem, Run

from ..api_clients import role_clients
from ..factories import make_user
from .conftest import MEASURES

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
        for t, labels in analysis.consensus_qrels(collection=collection).items()
    }


def test_a_trial_run_scores_exactly_what_trec_eval_gives_and_stores_nothing(client, judged):
    collection, _, _ = judged
    lines = _mixed_run(collection)
    runs_before, values_before, pool_before = Run.objects.count(), TopicValue.objects.count(), PoolItem.objects.count()
    response = role_clients()["researcher"].post(
        f"/api/collections/{collection.id}/trial/", {"run": _run_file(lines)}, format="multipart"
    )
    assert response.status_code == 200, response.content
    body = response.json()
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
    assert (Run.objects.count(), TopicValue.objects.count(), PoolItem.objects.count()) == (
        runs_before,
        values_before,
        pool_before,
    )


def test_low_judged_coverage_is_flagged_on_the_page(client, judged):
    collection, _, _ = judged
    client.force_login(make_user("researcher"))
    unjudged = [f"{t.number} Q0 fresh-{i} {i} {20 - i} new" for t in collection.topics.all() for i in range(8)]
    judged_one = [f"{t.number} Q0 d0 9 1.0 new" for t in collection.topics.all()]
    response = client.post(f"/results/{collection.id}/trial/", {"run": _run_file(unjudged + judged_one)})
    page = response.content.decode()
    assert response.status_code == 200
    assert 'id="trial-result"' in page and "scores are lower bounds" in page


def test_a_malformed_run_is_refused_naming_file_line_and_field(client, judged):
    collection, _, _ = judged
    lines = ["1 Q0 d1 1 2.0 mine", "1 Q0 d2 2 high mine", "1 Q0 d1 3 1.0 mine", "2 Q0 d3 1 1.0 other"]
    response = role_clients()["researcher"].post(
        f"/api/collections/{collection.id}/trial/", {"run": _run_file(lines)}, format="multipart"
    )
    assert response.status_code == 400
    message = response.json()["error"]["message"]
    assert "mine.run:2: field 'score'" in message
    assert "mine.run:3: field 'docno'" in message and "on line 1" in message
    assert "mine.run:4: field 'tag'" in message
    client.force_login(make_user("researcher"))
    page = client.post(f"/results/{collection.id}/trial/", {"run": _run_file(lines)})
    assert page.status_code == 400 and "mine.run:2: field &#x27;score&#x27;" in page.content.decode()


def test_an_empty_run_file_is_refused(judged):
    collection, _, _ = judged
    response = role_clients()["researcher"].post(
        f"/api/collections/{collection.id}/trial/", {"run": _run_file([""])}, format="multipart"
    )
    assert response.status_code == 400
    assert "no run lines" in response.json()["error"]["message"]
