"""A machine judge measured against people: its figures equal the reference libraries' (scikit-learn's kappa,
krippendorff's alpha, statsmodels' Wilson interval) and the ranking-agreement function's tau on the same labels;
error rates by hand; holes filled only where people gave no label; the people's side of the holes-filled
leaderboard equals the stored leaderboard; advisory machine labels change no stored value; the page, the API and
the qrels export show the same."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.proportion import proportion_confint

from evaluation import ranking_cache
from evaluation import services as evaluation_services
from evaluation.machines import core as verify
from evaluation.machines import selectors as verification
from evaluation.selectors import consensus_qrels, engine_options
from judging import services
from judging.machines import services as machine_judges
from judging.models import PoolItem, Topic
from judging.sources import selectors as sources
from measures.intervals import wilson
from measures.ranking_agreement import system_ranking_agreement
from tests.api_clients import api_as
from tests.factories import make_collection, make_user, stored_aggregates

PAIRS = [(0, 0), (0, 1), (1, 1), (2, 3), (3, 3), (3, 2), (1, 0), (2, 2), (0, 0), (3, 3)]


def test_pair_agreement_equals_scikit_learn_and_krippendorff():
    report = verify.pair_agreement(PAIRS, categories=[0, 1, 2, 3], threshold=2)
    machine, people = zip(*PAIRS, strict=True)
    assert report["cohen_kappa"] == pytest.approx(cohen_kappa_score(machine, people))
    binary = cohen_kappa_score([int(m >= 2) for m in machine], [int(p >= 2) for p in people])
    assert report["binary_cohen_kappa"] == pytest.approx(binary)
    alpha = krippendorff.alpha(np.array([machine, people], dtype=float), level_of_measurement="ordinal")
    assert report["krippendorff_alpha"] == pytest.approx(alpha)
    assert report["confusion"][3] == [0, 0, 1, 2] and report["items"] == 10


def test_error_rates_per_grade_by_hand_with_wilson_intervals_as_statsmodels():
    rates = verify.error_rates(PAIRS, categories=[0, 1, 2, 3], threshold=2)
    by_grade = {row["grade"]: row for row in rates["per_grade"]}
    # The machine said 0 three times (people: 0, 1, 0), 1 twice (1, 0), 2 twice (3, 2), 3 three times (3, 2, 3).
    assert [(by_grade[g]["items"], by_grade[g]["errors"]) for g in range(4)] == [(3, 1), (2, 1), (2, 1), (3, 1)]
    low, high = proportion_confint(1, 3, method="wilson")
    assert (by_grade[0]["low"], by_grade[0]["high"]) == (pytest.approx(low), pytest.approx(high))
    assert rates["binary"]["errors"] == 0  # every error stays on its side of grade 2
    assert wilson(0, 0) == (None, None)


def test_holes_are_filled_only_where_people_gave_no_label():
    consensus = {1: {10: 2, 11: 0}}
    machine = {1: {10: 0, 12: 3, 99: 1}, 2: {20: 1}}
    pooled = {1: [10, 11, 12], 2: [20, 21]}
    assert verify.holes_filled(consensus, machine, pooled) == {1: {10: 2, 11: 0, 12: 3}, 2: {20: 1}}


def test_corrections_of_nothing_unverified_cannot_move_the_leaderboard():
    class Runs:
        tags = ["a", "b"]

    assert verify.correction_stability({}, {}, [], Runs(), categories=[0, 1], measure="AP")["share"] == 1.0


@pytest.fixture
def judged(db):
    """A collection two people judged in part, with an advisory machine judge (the BM25 baseline) over the pool."""
    collection = make_collection(max_grade=3, topics=3, documents=10, runs=3, depth=6, threshold=2)
    people = [make_user("assessor"), make_user("assessor")]
    rng = np.random.default_rng(3)
    for topic in Topic.objects.filter(collection=collection):
        for person in people:
            services.assignment_create(assessor=person, topic=topic)
        items = list(PoolItem.objects.filter(topic=topic).select_related("document"))
        for item in items[: len(items) - 2]:  # the last two of each topic stay holes
            for person in people:
                grade = int(rng.integers(0, 4))
                services.judgment_record(assessor=person, topic=topic, document=item.document, grade=grade)
    evaluation_services.collection_recompute(collection_id=collection.id)
    return collection, people


def _machine_run(collection):
    judge = machine_judges.machine_judge_create(collection=collection, name="bm25", provider="lexical")
    machine_judges.machine_judge_run(judge=judge)
    evaluation_services.collection_recompute(collection_id=collection.id)
    return judge


@pytest.mark.django_db
def test_advisory_machine_labels_change_no_stored_value(judged):
    collection, _ = judged
    before = stored_aggregates(collection)
    assert len(before) > 30
    qrels_before = consensus_qrels(collection=collection)
    judge = _machine_run(collection)
    collection.refresh_from_db()
    assert judge.account_id in sources.advisory_accounts(collection=collection)
    assert consensus_qrels(collection=collection) == qrels_before
    assert stored_aggregates(collection) == before


@pytest.mark.django_db
def test_the_judges_figures_equal_the_pure_functions_on_the_same_labels(judged):
    collection, people = judged
    judge = _machine_run(collection)
    report = verification.judge_verification(judge=judge, reveal=True, draws=20)

    consensus = consensus_qrels(collection=collection)
    machine = {}
    for (topic, document), grade in _labels_of(judge.account).items():
        machine.setdefault(topic, {})[document] = grade
    verified = [
        (g, consensus[t][d]) for t, docs in machine.items() for d, g in docs.items() if d in consensus.get(t, {})
    ]
    assert report["against_consensus"] == verify.pair_agreement(verified, categories=[0, 1, 2, 3], threshold=2)
    first = _labels_of(people[0])
    with_first = [(g, first[(t, d)]) for t, docs in machine.items() for d, g in docs.items() if (t, d) in first]
    by_name = {row["assessor"]: row for row in report["against_people"]}
    assert {k: v for k, v in by_name[people[0].username].items() if k != "assessor"} == verify.pair_agreement(
        with_first, categories=[0, 1, 2, 3], threshold=2
    )
    assert report["holes"] == report["unverified"] == 6 and report["verified"] == len(verified)

    topic_ids = list(Topic.objects.filter(collection=collection).order_by("id").values_list("id", flat=True))
    runs = ranking_cache.collection_runs(topic_ids=topic_ids)
    mine = {t: {d: {"machine": g} for d, g in docs.items()} for t, docs in machine.items()}
    expected = system_ranking_agreement(mine, consensus, runs, measure="AP", **engine_options(collection))
    scores = expected["scores"]
    assert report["ranking"] == {
        **expected["against_consensus"]["machine"],
        "kendall_at_10": verify.kendall_at_k(scores["consensus"], scores["machine"]),
    }
    assert report["ranking"]["kendall_at_10"] == report["ranking"]["kendall_tau"]  # 3 runs: the top 10 is all

    stored = stored_aggregates(collection)
    tags = dict(collection.runs.values_list("tag", "id"))
    column = report["measures"].index("AP")
    for row in report["leaderboard"]:
        assert row["people"][column] == pytest.approx(stored[(tags[row["run"]], "AP")][0])


def _labels_of(user) -> dict[tuple[int, int], int]:
    from judging.models import Judgment

    rows = Judgment.objects.filter(assessor=user, grade__isnull=False).values_list("topic_id", "document_id", "grade")
    return {(t, d): g for t, d, g in rows}


@pytest.mark.django_db
def test_the_page_the_api_and_the_holes_filled_qrels_show_the_same(judged, client):
    collection, _ = judged
    judge = _machine_run(collection)
    researcher = make_user("researcher")
    api = api_as(researcher).get(f"/api/collections/{collection.id}/machine-judges/{judge.id}/verification/")
    assert api.status_code == 200
    body = api.json()
    assert body["holes"] == 6 and body["judge"]["advisory"] is True
    client.force_login(researcher)
    page = client.get(f"/results/{collection.id}/machines/?measure=AP")
    assert page.status_code == 200
    text = page.content.decode()
    assert f"{body['against_consensus']['cohen_kappa']:.3f}" in text and 'data-measure="AP"' in text
    assert "over all 3 runs" in text and "over the ten runs" not in text  # τ@10 over the runs there are
    qrels = _text(client.get(f"/results/{collection.id}/qrels/?source=filled&assessor=bm25")).splitlines()
    people = _text(client.get(f"/results/{collection.id}/qrels/")).splitlines()
    assert len(qrels) == len(people) + 6 and set(qrels) >= set(people)


def _text(response) -> str:
    assert response.status_code == 200
    return b"".join(response.streaming_content).decode()
