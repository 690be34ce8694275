"""Whose labels count? A run's measure averaged over the assessors' own label sets (trec_eval's *_avgjg) beside
its consensus value, worked by hand; advisory assessors are left out; the leaderboard loads it."""

from __future__ import annotations

import pytest

from evaluation import services as evaluation_services
from evaluation.agreement import assessor_groups
from judging import services
from judging.models import PoolItem, Run, Topic
from tests.factories import make_collection, make_user

pytestmark = pytest.mark.django_db


def test_each_run_averaged_over_the_assessors_labels_beside_the_consensus(client):
    collection = make_collection(max_grade=1, topics=1, documents=10, runs=1, depth=5, measures=["P@5", "AP"])
    topic = Topic.objects.get(collection=collection)
    ann, bob, machine = make_user("assessor"), make_user("assessor"), make_user("assessor")
    for person in (ann, bob, machine):
        services.assignment_create(assessor=person, topic=topic)
    ranked = [item.document for item in PoolItem.objects.filter(topic=topic).order_by("best_rank", "id")]
    for rank, document in enumerate(ranked):
        services.judgment_record(assessor=ann, topic=topic, document=document, grade=int(rank < 2))
        services.judgment_record(assessor=bob, topic=topic, document=document, grade=0)
        services.judgment_record(assessor=machine, topic=topic, document=document, grade=1)
    services.collection_settings_update(collection=collection, advisory_assessors=[machine.pk])
    evaluation_services.collection_recompute(collection_id=collection.id)
    collection.refresh_from_db()
    [row] = assessor_groups.averaged_over_assessors(collection=collection, measure="P@5")
    # ann: the first two of five relevant, P@5 = 0.4; bob: none, 0. Averaged: 0.2. The consensus (majority, a tie
    # to the higher grade) is ann's labels: 0.4. The machine (advisory) counts in neither.
    assert row["run"] == Run.objects.get(collection=collection).tag and row["topics"] == 1
    assert row["averaged"] == pytest.approx(0.2) and row["consensus"] == pytest.approx(0.4)
    assert row["difference"] == pytest.approx(-0.2)
    client.force_login(make_user("researcher"))
    assert 'hx-get="/results/' in client.get(f"/results/{collection.id}/").content.decode()
    partial = client.get(f"/results/{collection.id}/assessor-groups/?measure=AP").content.decode()
    assert 'id="assessor-groups-table" data-measure="AP"' in partial
