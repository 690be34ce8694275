"""Samples and confidence (#48, item 4): a judge asked k times per pair labels by the votes' majority and keeps every
vote; the vote share is served with the label, moves a wavering label up the verification queue, and calibration
against people's labels (reliability bins, ECE, Brier) equals scikit-learn's on the same labels."""

from __future__ import annotations

import numpy as np
import pytest
from django.core.exceptions import ValidationError
from sklearn.calibration import calibration_curve
from sklearn.metrics import brier_score_loss

from evaluation.machines.core import calibration
from judging import services
from judging.machines import services as machine_judges
from judging.machines.core.cache import ReplyCache
from judging.machines.core.client import ChatClient, ServerConfig
from judging.machines.core.judge import TopicText, judge_pairs, majority
from judging.machines.core.prompts import UMBRELA
from judging.machines.core.verification import verification_scores
from judging.machines.models import MachineReply
from judging.models import PoolItem
from tests.chat_server import chat_server
from tests.factories import make_collection, make_user


def test_the_majority_is_the_most_frequent_grade_and_a_tie_the_lower_middle_one():
    assert majority([2, 2, 3]) == 2
    assert majority([1, 3]) == 1  # never 2, which no sample gave
    assert majority([0, 1, 2]) == 1
    assert majority([3]) == 3


def test_each_pair_is_asked_k_times_and_labelled_by_its_votes_majority():
    qrels = {(str(t), str(d)): (t + d) % 4 for t in range(2) for d in range(4)}
    pairs = sorted(qrels)
    topics = {t: TopicText(f"topic {t}") for t, _ in pairs}
    documents = {d: f"doc {d} words" for _, d in pairs}
    with chat_server(qrels, noise=0.4, seed=3) as server:
        client = ChatClient(ServerConfig(base_url=server.base_url, model="m", retries=0, temperature=0.7))
        run = judge_pairs(pairs, topics=topics, documents=documents, template=UMBRELA, client=client,
                          cache=ReplyCache(None), samples=5)  # fmt: skip
        assert server.requests == 5 * len(pairs)
    assert len(run.labels) == len(pairs)
    for label in run.labels:
        assert len(label["votes"]) == 5 and label["grade"] == majority(label["votes"])
    assert any(len(set(label["votes"])) > 1 for label in run.labels)  # the noisy server wavered somewhere


def test_samples_need_one_pair_a_call():
    with pytest.raises(ValueError, match="samples"):
        judge_pairs([], topics={}, documents={}, template=UMBRELA, client=None, cache=ReplyCache(None),
                    samples=3, batch="topic")  # fmt: skip


def test_calibration_equals_scikit_learns_bins_and_brier_score():
    rng = np.random.default_rng(7)
    confidence = rng.random(400)
    relevant = rng.random(400) < confidence * 0.8
    ours = calibration(confidence, relevant)
    observed, predicted = calibration_curve(relevant, confidence, n_bins=10, strategy="uniform")
    assert [b["observed"] for b in ours["bins"]] == pytest.approx(list(observed))
    assert [b["confidence"] for b in ours["bins"]] == pytest.approx(list(predicted))
    assert ours["brier"] == pytest.approx(brier_score_loss(relevant, confidence))
    counts = np.histogram(confidence, bins=np.linspace(0, 1, 11))[0]
    expected_ece = sum(n / 400 * abs(o - p) for n, o, p in zip(counts[counts > 0], observed, predicted, strict=True))
    assert ours["ece"] == pytest.approx(expected_ece)


def test_calibration_of_a_hand_worked_case():
    # Two items at confidence 1.0 (one relevant) and two at 0.0 (none): ECE = 2/4 * |0.5 - 1| + 2/4 * |0 - 0| = 0.25.
    found = calibration([1.0, 1.0, 0.0, 0.0], [True, False, False, False])
    assert found["ece"] == pytest.approx(0.25) and found["brier"] == pytest.approx(0.25)
    assert calibration([], [])["ece"] is None


def test_a_wavering_label_comes_up_for_verification_before_a_sure_one():
    pool, machine = [1, 2], {1: 3, 2: 3}
    scores = verification_scores(pool, machine, [], {}, threshold=2, votes={1: [3, 3, 3], 2: [3, 0, 3]})
    assert scores[2] > scores[1]


@pytest.mark.django_db
def test_a_sampling_judge_keeps_its_votes_serves_their_share_and_shows_its_calibration(client):
    collection = make_collection(max_grade=3, threshold=2, topics=2, documents=8, runs=2, depth=5)
    person = make_user("assessor")
    items = list(PoolItem.objects.filter(topic__collection=collection).select_related("topic", "document"))
    qrels = {(i.topic.number, i.document.docno[1:]): (3 if i.document.docno in ("d1", "d2") else 0) for i in items}
    services.judgments_record_bulk(labels={(person, i.topic_id, i.document_id): qrels[(i.topic.number,
                                    i.document.docno[1:])] for i in items})  # fmt: skip
    with chat_server(qrels, noise=0.3, seed=1) as server:
        with pytest.raises(ValidationError) as refused:
            machine_judges.machine_judge_create(
                collection=collection, name="x", base_url=server.base_url, model="m", samples=3, batch="topic"
            )
        assert "samples" in refused.value.message_dict
        judge = machine_judges.machine_judge_create(
            collection=collection, name="k3", base_url=server.base_url, model="m", samples=3
        )
        result = machine_judges.machine_judge_run(judge=judge)
        assert server.requests == 3 * len(items)
    assert result["labelled"] == len(items)
    assert all(len(r.votes) == 3 and r.grade == majority(r.votes) for r in MachineReply.objects.filter(judge=judge))
    client.force_login(make_user("admin"))
    served = client.get(f"/api/machine-judges/{judge.id}/labels/").json()
    rows = served["results"] if isinstance(served, dict) else served
    assert all(row["vote_share"] == round(row["votes"].count(row["grade"]) / 3, 4) for row in rows)
    page = client.get(f"/results/{collection.id}/machines/").content.decode()
    assert 'data-figure="ece"' in page and "share of its 3 votes" in page
