"""Consensus labels: the simple rules and Dawid-Skene on simulated assessors with known accuracies."""

import numpy as np
import pytest

from measures.consensus import consensus, majority, median_high, rounded_mean


def test_majority_breaks_ties_toward_the_higher_grade():
    result = consensus({"d1": {"a": 1, "b": 2}, "d2": {"a": 0, "b": 0, "c": 3}}, "majority")
    assert result.labels == {"d1": 2, "d2": 0}
    assert result.confidence["d2"] == pytest.approx(2 / 3)


def test_median_mean_and_primary():
    items = {"d": {"a": 0, "b": 1, "c": 3, "e": 3}}
    assert consensus(items, "median").labels == {"d": 3}  # upper median of 0, 1, 3, 3
    assert consensus(items, "mean").labels == {"d": 2}  # 7/4 = 1.75 rounds to 2
    assert consensus(items, "primary", primary="b").labels == {"d": 1}
    assert consensus({"x": {"a": 2, "c": 2, "e": 0}}, "primary", primary="b").labels == {"x": 2}  # falls back


def test_adjudicated_label_always_wins():
    result = consensus({"d": {"a": 0, "b": 0}}, "majority", adjudicated={"d": 3})
    assert result.labels == {"d": 3} and result.confidence["d"] == 1.0


def test_unknown_method_is_refused():
    with pytest.raises(ValueError, match="unknown consensus method"):
        consensus({}, "vibes")


def _simulate(accuracies, n_items=600, classes=2, seed=3):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, classes, n_items)
    items = {}
    for i in range(n_items):
        grades = {}
        for a, accuracy in enumerate(accuracies):
            if rng.random() < accuracy:
                grades[a] = int(truth[i])
            else:
                grades[a] = int(rng.choice([c for c in range(classes) if c != truth[i]]))
        items[i] = grades
    return items, truth


def test_dawid_skene_recovers_assessor_accuracies_and_beats_majority_vote():
    accuracies = [0.95, 0.9, 0.6, 0.55, 0.55]
    items, truth = _simulate(accuracies)
    ds = consensus(items, "dawid_skene")
    majority = consensus(items, "majority")
    for assessor, accuracy in enumerate(accuracies):
        assert ds.assessor_accuracy[assessor] == pytest.approx(accuracy, abs=0.05)
    ds_correct = np.mean([ds.labels[i] == truth[i] for i in items])
    majority_correct = np.mean([majority.labels[i] == truth[i] for i in items])
    assert ds_correct > majority_correct
    assert all(0.5 <= c <= 1.0 for c in ds.confidence.values())


@pytest.mark.parametrize("method", ["majority", "median", "mean", "primary"])
def test_an_item_with_one_grade_gets_that_grade_with_certainty_under_every_vote_method(method):
    items = {"a": {"x": 0}, "b": {"y": 3}, "c": {"x": 2, "y": 1, "z": 1}}
    result = consensus(items, method, primary="x")
    assert result.labels["a"] == 0 and result.labels["b"] == 3
    assert result.confidence["a"] == result.confidence["b"] == 1.0
    # the general rules agree with the one-grade answer
    assert majority([3]) == (3, 1.0) and median_high([3]) == 3 and rounded_mean([3]) == 3
    assert result.labels["c"] == {"majority": 1, "median": 1, "mean": 1, "primary": 2}[method]


def test_every_consensus_method_a_collection_can_choose_is_registered_and_no_other():
    from judging.models import ConsensusMethod
    from measures.consensus import REGISTRY

    assert set(REGISTRY) == set(ConsensusMethod.values)
    assert all((m.vote is None) != (m.whole is None) for m in REGISTRY.values())


def test_an_unknown_method_is_refused_naming_the_registered_ones():
    with pytest.raises(ValueError, match="majority, median, mean, primary, dawid_skene"):
        consensus({"a": {"x": 1}}, "plurality")


def test_a_method_is_chosen_from_the_registry_not_by_a_branch(monkeypatch):
    from measures import consensus as module

    lowest = module.ConsensusMethod("lowest", "the lowest grade", vote=lambda grades, _: (min(grades.values()), 1.0))
    monkeypatch.setitem(module.REGISTRY, "lowest", lowest)
    assert consensus({"a": {"x": 3, "y": 1}}, "lowest").labels == {"a": 1}
