"""System-ranking agreement: would the leaderboard change under another assessor's labels?"""

import numpy as np
import pytest

from measures import PreparedRun
from measures.correlation import tau_ap
from measures.ranking_agreement import assessor_qrels, system_ranking_agreement

# Topic 1; documents 10, 11, 12. Run "x" finds 10 first, "y" finds 11 first, "z" finds 12 first.
RUNS = [
    PreparedRun.from_rankings("x", {1: [10, 11, 12]}),
    PreparedRun.from_rankings("y", {1: [11, 12, 10]}),
    PreparedRun.from_rankings("z", {1: [12, 10, 11]}),
]


def test_assessor_qrels_substitute_their_own_grades_over_the_consensus():
    judgments = {1: {10: {"a": 1, "b": 0}, 11: {"b": 1}}}
    consensus = {1: {10: 1, 11: 1, 12: 0}}
    assert assessor_qrels(judgments, consensus, "b") == {1: {10: 0, 11: 1, 12: 0}}
    assert assessor_qrels(judgments, consensus, "a") == consensus


def test_an_assessor_who_agrees_with_the_consensus_ranks_the_runs_identically():
    judgments = {1: {10: {"a": 1, "b": 0}, 11: {"a": 0, "b": 1}, 12: {"a": 0, "b": 0}}}
    consensus = {1: {10: 1, 11: 0, 12: 0}}
    report = system_ranking_agreement(judgments, consensus, RUNS, measure="RR")
    assert report["scores"]["consensus"] == {"x": 1.0, "y": pytest.approx(1 / 3), "z": 0.5}
    assert report["against_consensus"]["a"] == {"kendall_tau": 1.0, "tau_ap": 1.0}
    # Under b's labels only 11 is relevant: y first (1), x second (1/2), z last (1/3): every pair reversed but one.
    assert report["scores"]["b"] == {"x": 0.5, "y": 1.0, "z": pytest.approx(1 / 3)}
    assert report["against_consensus"]["b"]["kendall_tau"] == pytest.approx(-1 / 3)
    assert report["pairwise"]["a|b"]["kendall_tau"] == pytest.approx(-1 / 3)


def test_one_run_gives_no_correlation_rather_than_a_made_up_one():
    report = system_ranking_agreement({1: {10: {"a": 1}}}, {1: {10: 1}}, RUNS[:1])
    assert report["against_consensus"]["a"] == {"kendall_tau": None, "tau_ap": None}


def _tau_ap_as_defined(reference, candidate) -> float:
    """Yilmaz et al.'s sum written out position by position, for the vectorised form to equal to the last bit."""
    reference, candidate = np.asarray(reference, dtype=np.float64), np.asarray(candidate, dtype=np.float64)
    n = len(reference)
    if n < 2:
        return float("nan")
    ref = reference[np.lexsort((-reference, -candidate))]
    total = 0.0
    for i in range(1, n):
        above = ref[:i]
        total += ((above > ref[i]).sum() + 0.5 * (above == ref[i]).sum()) / i
    return 2.0 * total / (n - 1) - 1.0


def test_tau_ap_equals_its_definition_bit_for_bit_with_ties_on_both_sides():
    rng = np.random.default_rng(7)
    for trial in range(500):
        n = int(rng.integers(0, 40))
        reference = rng.integers(0, 4, n) / 3 if trial % 2 else rng.random(n)
        candidate = rng.integers(0, 4, n) / 3 if trial % 3 else rng.random(n)
        expected, found = _tau_ap_as_defined(reference, candidate), tau_ap(reference, candidate)
        assert found == expected or (np.isnan(found) and np.isnan(expected))
    assert tau_ap([3, 2, 1], [3, 2, 1]) == 1.0 and tau_ap([3, 2, 1], [1, 2, 3]) == -1.0
