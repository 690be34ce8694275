"""Consensus labels are made in one place (`selectors.consensus_labels`), and every consumer sees the same labels:
the stored metrics, the collection-wide agreement's system ranking, the qrels export and `consensus_qrels`. The
edge cases live here once: a topic adjudicated but never judged, a tie, an adjudication overriding assessors."""

from __future__ import annotations

import pytest

from evaluation import selectors
from evaluation import services as evaluation_services
from evaluation.exports.qrels import qrels_rows
from evaluation.models import AgreementReport
from judging import services
from tests.factories import make_collection, make_user, stored_aggregates

pytestmark = pytest.mark.django_db


@pytest.fixture
def edge_cases():
    """Topic 1: two assessors, one tie (2 vs 0 on d1), one adjudication over them (d2). Topic 2: adjudicated only."""
    collection = make_collection(max_grade=3, topics=2, documents=8, runs=3, depth=4, agreement_measure="AP")
    t1, t2 = collection.topics.order_by("id")
    a, b, admin = make_user(), make_user(), make_user("admin")
    docs = {d.docno: d for d in collection.documents.all()}
    for person in (a, b):
        services.assignment_create(assessor=person, topic=t1)
    for person, docno, grade in [(a, "d1", 2), (b, "d1", 0), (a, "d2", 1), (b, "d2", 1), (a, "d3", 3), (b, "d3", 3)]:
        services.judgment_record(assessor=person, topic=t1, document=docs[docno], grade=grade)
    services.adjudication_record(topic=t1, document=docs["d2"], grade=3, adjudicator=admin)
    for docno, grade in [("d2", 2), ("d3", 0), ("d4", 1)]:
        services.adjudication_record(topic=t2, document=docs[docno], grade=grade, adjudicator=admin)
    evaluation_services.collection_recompute(collection_id=collection.id)
    return collection, t1, t2, docs


def test_every_topic_with_a_judgment_or_an_adjudication_has_its_consensus(edge_cases):
    collection, t1, t2, docs = edge_cases
    labels = {t: r.labels for t, r in selectors.consensus_labels(collection=collection).items()}
    ids = {d.pk: docno for docno, d in docs.items()}
    named = {t: {ids[d]: g for d, g in grades.items()} for t, grades in labels.items()}
    assert named[t1.id] == {"d1": 2, "d2": 3, "d3": 3}  # the tie goes to the higher grade; d2 adjudicated
    assert named[t2.id] == {"d2": 2, "d3": 0, "d4": 1}  # adjudicated, never judged: still in the qrels
    assert selectors.consensus_qrels(collection=collection) == labels
    assert selectors.consensus_labels(collection=collection, topic_ids=[t2.id]).keys() == {t2.id}


def test_the_export_writes_the_same_labels_with_few_queries(edge_cases, django_assert_max_num_queries):
    collection, *_ = edge_cases
    with django_assert_max_num_queries(8):
        rows = list(qrels_rows(collection=collection))
    exported = {(r.topic, r.docno): r.grade for r in rows}
    assert exported == {
        ("1", "d1"): 2, ("1", "d2"): 3, ("1", "d3"): 3, ("2", "d2"): 2, ("2", "d3"): 0, ("2", "d4"): 1,
    }  # fmt: skip


def test_the_collection_wide_system_ranking_scores_equal_the_stored_leaderboard(edge_cases):
    """It dropped the adjudicated-only topic, so its "consensus" scores were not the leaderboard's."""
    collection, *_ = edge_cases
    report = AgreementReport.objects.get(collection=collection, topic=None).report
    consensus_scores = report["system_ranking"]["scores"]["consensus"]
    stored = stored_aggregates(collection, ["AP"])
    assert consensus_scores == pytest.approx({str(run): value for (run, _), (value, _) in stored.items()})
