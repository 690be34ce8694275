"""Collections, runs and pools as the services build them."""

from __future__ import annotations

import numpy as np
import pytest
from django.core.exceptions import ValidationError

from judging import services
from judging.models import PoolItem, Ranking
from tests.factories import make_collection

pytestmark = pytest.mark.django_db


def test_scale_gets_one_labelled_grade_per_value():
    collection = services.collection_create(name="graded", max_grade=3, relevance_threshold=2)
    assert list(collection.grades.values_list("value", flat=True)) == [0, 1, 2, 3]


@pytest.mark.parametrize(
    ("max_grade", "threshold", "field"), [(6, 1, "max_grade"), (0, 1, "max_grade"), (2, 3, "relevance_threshold")]
)
def test_invalid_scales_are_refused(max_grade, threshold, field):
    with pytest.raises(ValidationError) as error:
        services.collection_create(name="x", max_grade=max_grade, relevance_threshold=threshold)
    assert field in error.value.message_dict


def test_run_rankings_are_stored_in_trec_eval_order_one_row_per_topic():
    collection = make_collection(runs=0, documents=12)
    run = services.run_create(collection=collection, tag="ties", scores={"1": {"d1": 1.0, "d2": 1.0, "d10": 2.0}})
    ranking = Ranking.objects.get(run=run)
    docnos = dict(collection.documents.values_list("id", "docno"))
    assert [docnos[i] for i in ranking.documents()] == ["d10", "d2", "d1"]
    assert np.array_equal(ranking.score_array(), [2.0, 1.0, 1.0])


def test_run_naming_unknown_documents_is_refused_and_saves_nothing():
    collection = make_collection(runs=0)
    with pytest.raises(ValidationError, match="not in the collection"):
        services.run_create(collection=collection, tag="bad", scores={"1": {"d1": 1.0, "nope": 0.5}})
    assert not collection.runs.exists()


def test_depth_pool_is_the_union_of_top_k_and_is_incremental():
    collection = make_collection(runs=2, depth=4, topics=1, documents=10)
    first = PoolItem.objects.filter(topic__collection=collection).count()
    assert first == 5  # run0 takes d1..d4 and run1 d2..d5 for topic 1
    assert services.pool_build_depth(collection=collection, depth=4) == 0
    item = PoolItem.objects.get(topic__collection=collection, document__docno="d2")
    assert item.best_rank == 1 and item.contributing_runs == ["run0", "run1"]
