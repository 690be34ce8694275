"""Hand-worked examples of the measures with their exact values (the project's measure definitions), plus measures
trec_eval lacks."""

from __future__ import annotations

import math

import numpy as np
import pytest

from measures import (
    TrecReader,
    evaluate,
    kendall_tau,
    minimum_average_precision,
    precision_recall_points,
    spearman_rho,
    tau_ap,
)


def _single(relevant_ranks, n=8, labels=None):
    """One topic, documents d1..dn ranked in order; labels by rank (default 1 at relevant_ranks, else 0)."""
    collection = TrecReader()
    labels = labels or [1 if r in relevant_ranks else 0 for r in range(1, n + 1)]
    qrels = collection.qrels({"t": {f"d{r}": labels[r - 1] for r in range(1, n + 1)}})
    run = collection.run("r", {"t": {f"d{r}": float(n - r) for r in range(1, n + 1)}})
    return qrels, run


def value(qrels, run, name, **options):
    return evaluate(qrels, [run], [name], **options).aggregate("r", name)


def test_example_a_recall_at_each_cutoff():
    qrels, run = _single({2, 4, 5, 7})
    assert [value(qrels, run, f"R@{k}") for k in range(1, 9)] == [0, 0.25, 0.25, 0.5, 0.75, 0.75, 1, 1]


def test_example_b_map_and_mrr_over_three_topics():
    collection = TrecReader()
    relevant = {"1": {2, 4, 5, 7}, "2": {1, 4, 5, 7}, "3": {5, 8}}
    qrels = collection.qrels({t: {f"d{r}": int(r in rel) for r in range(1, 9)} for t, rel in relevant.items()})
    run = collection.run("r", {t: {f"d{r}": float(8 - r) for r in range(1, 9)} for t in relevant})
    result = evaluate(qrels, [run], ["AP", "RR"])
    ap = [result.value("r", collection.topics.get(t), "AP") for t in relevant]
    assert ap == pytest.approx([0.5428571428571429, 0.6678571428571429, 0.225], abs=1e-15)
    assert result.aggregate("r", "AP") == pytest.approx(0.47857142857142865, abs=1e-15)
    assert result.aggregate("r", "RR") == pytest.approx(0.5666666666666667, abs=1e-15)


def test_rr_and_ap_at_k_look_no_deeper_than_k():
    qrels, run = _single({3, 5})
    assert [value(qrels, run, f"RR@{k}") for k in (1, 2, 3, 8)] == [0.0, 0.0, 1 / 3, 1 / 3]
    assert [value(qrels, run, f"AP@{k}") for k in (2, 3, 4, 5)] == [0.0, (1 / 3) / 2, (1 / 3) / 2, (1 / 3 + 2 / 5) / 2]


def test_example_c_precision_ap_rprec_bpref_11pt():
    qrels, run = _single({1, 2, 4, 6, 7, 8}, n=10)
    expected = {
        "P@10": 0.6,
        "AP": 0.8134920634920634,
        "Rprec": 0.6666666666666666,
        "Bpref": 0.7083333333333334,
        "RR": 1.0,
    }
    for name, number in expected.items():
        assert value(qrels, run, name) == pytest.approx(number, abs=1e-12), name
    # R = 6. Interpolated precision at the k-th relevant document (ranks 1, 2, 4, 6, 7, 8): 1, 1, .75, .75, .75, .75.
    # 9.0.x asks recall r for floor(6r + 0.9) relevant: 0,1,2,2,3,3,4,5,5,6,6 -> four 1s and seven .75s.
    assert value(qrels, run, "11pt_avg", trec_eval=9) == pytest.approx(9.25 / 11, abs=1e-15)
    # 10.0 asks for lround(6r): 0,1,1,2,2,3,4,4,5,5,6 -> five 1s (recall .4 needs only 2 relevant) and six .75s.
    assert value(qrels, run, "11pt_avg", trec_eval=10) == pytest.approx(9.5 / 11, abs=1e-15)
    assert value(qrels, run, "IPrec@0.4", trec_eval=9) == 0.75
    assert value(qrels, run, "IPrec@0.4") == 1.0  # 10.0 by default


def test_recall_levels_round_as_lround_in_10_and_add_point_nine_in_9():
    from measures.ranked import relevant_needed

    counts = np.array([6, 7, 10, 1])
    assert relevant_needed(0.6, counts, 10).tolist() == [4, 4, 6, 1]  # 3.6, 4.2, 6.0, 0.6
    assert relevant_needed(0.6, counts, 9).tolist() == [4, 5, 6, 1]  # floor(4.5), floor(5.1), floor(6.9), floor(1.5)
    assert relevant_needed(0.5, np.array([1, 3, 5]), 10).tolist() == [1, 2, 3]  # halves away from zero
    assert relevant_needed(0.49999999999999994, np.array([1]), 10).tolist() == [0]  # x + 0.5 would round to 1


def test_example_d_graded_gains():
    qrels, run = _single(set(), n=5, labels=[3, 2, 3, 0, 1])
    assert value(qrels, run, "CG@5") == 9
    assert value(qrels, run, "DCG@5") == pytest.approx(6.148712314377457, abs=1e-12)
    assert value(qrels, run, "nDCG") == pytest.approx(0.9723642841729143, abs=1e-12)
    assert value(qrels, run, "nDCG@5") == pytest.approx(0.9723642841729143, abs=1e-12)
    assert value(qrels, run, "nDCG(dcg='exp-log2')@5") == pytest.approx(0.9574784666412695, abs=1e-12)
    assert value(qrels, run, "DCG(dcg='exp-log2')@5") == pytest.approx(12.779642067948915, abs=1e-12)
    assert value(qrels, run, "nDCG(dcg='jk')@5") == pytest.approx(0.9435195022595148, abs=1e-12)
    assert value(qrels, run, "DCG(dcg='jk')@5") == pytest.approx(7.323465818787765, abs=1e-12)
    assert value(qrels, run, "AP") == pytest.approx(0.95, abs=1e-12)
    assert value(qrels, run, "P@5") == pytest.approx(0.8, abs=1e-12)
    assert value(qrels, run, "ERR@5") == pytest.approx(0.9214680989583334, abs=1e-12)  # g_max = 3 from the qrels
    assert value(qrels, run, "ERR@5", max_grade=5) == pytest.approx(0.31045373280843097, abs=1e-12)
    assert value(qrels, run, "ERR(gmax=5)@5") == pytest.approx(0.31045373280843097, abs=1e-12)
    assert value(qrels, run, "RBP(p=0.8)") == pytest.approx(0.56992, abs=1e-12)


CONTINGENCY_TOP5 = {
    "SetP": 0.6,
    "SetR": 0.75,
    "Fallout": 0.5,
    "Specificity": 0.5,
    "NPV": 0.666667,
    "Prevalence": 0.5,
    "Accuracy": 0.625,
    "ErrorRate": 0.375,
    "MissRate": 0.25,
    "FDR": 0.4,
    "FOR": 0.333333,
    "F": 0.666667,
    "F(beta=0.5)": 0.625,
    "F(beta=2)": 0.714286,
    "E": 0.333333,
    "MCC": 0.258199,
    "FowlkesMallows": 0.670820,
    "Informedness": 0.25,
    "Markedness": 0.266667,
    "ThreatScore": 0.5,
    "BalancedAccuracy": 0.625,
    "PrevalenceThreshold": 0.449490,
}


@pytest.mark.parametrize(("name", "expected"), CONTINGENCY_TOP5.items())
def test_example_e_contingency_measures_on_the_top_five(name, expected):
    qrels, run = _single({2, 4, 5, 7})
    assert value(qrels, run, f"{name}@5", collection_size=8) == pytest.approx(expected, abs=5e-7)


def test_example_e_top_two_gives_zero_mcc_and_an_undefined_prevalence_threshold():
    qrels, run = _single({2, 4, 5, 7})
    assert value(qrels, run, "MCC@2", collection_size=8) == 0.0
    assert math.isnan(value(qrels, run, "PrevalenceThreshold@2", collection_size=8))


def test_measures_needing_the_collection_size_are_undefined_without_it():
    qrels, run = _single({2, 4, 5, 7})
    assert math.isnan(value(qrels, run, "Fallout@5"))
    assert value(qrels, run, "Fallout(N=8)@5") == 0.5


def test_example_f_minimum_ap():
    assert minimum_average_precision([4], [4])[0] == pytest.approx(0.36547619047619045, abs=1e-15)
    qrels, run = _single({1, 2, 3, 4})
    assert value(qrels, run, "MinAP") == pytest.approx(0.36547619047619045, abs=1e-15)


def test_judged_at_k_counts_documents_present_in_the_qrels():
    collection = TrecReader()
    qrels = collection.qrels({"t": {"a": 0, "b": 1, "c": -1}})
    run = collection.run("r", {"t": {"a": 4.0, "x": 3.0, "b": 2.0, "c": 1.0}})
    assert value(qrels, run, "Judged@2") == 0.5
    assert value(qrels, run, "Judged@10") == 0.75  # of the 4 retrieved; the negative label is in the qrels


def test_rbp_residual_is_the_weight_of_unjudged_ranks_and_the_tail():
    collection = TrecReader()
    qrels = collection.qrels({"t": {"a": 1, "c": 0}})
    run = collection.run("r", {"t": {"a": 3.0, "b": 2.0, "c": 1.0}})
    p = 0.5
    assert value(qrels, run, f"RBPResidual(p={p})") == pytest.approx((1 - p) * p + p**3)


def test_topic_with_no_relevant_document_scores_zero_everywhere():
    collection = TrecReader()
    qrels = collection.qrels({"t": {"a": 0, "b": 0}})
    run = collection.run("r", {"t": {"a": 2.0, "b": 1.0}})
    for name in ["AP", "P@5", "R@5", "RR", "Rprec", "nDCG", "Bpref", "ERR@5"]:
        assert value(qrels, run, name) == 0.0, name


def test_precision_recall_points_follow_the_ranking():
    points = precision_recall_points(np.array([1, 0, 1, 0]), num_relevant=2)
    assert list(points["recall"]) == [0.5, 0.5, 1.0, 1.0]
    assert list(points["precision"]) == [1.0, 0.5, 2 / 3, 0.5]
    assert list(points["interpolated_precision"]) == [1.0, 2 / 3, 2 / 3, 0.5]


def test_system_ranking_correlations_match_scipy():
    from scipy import stats

    rng = np.random.default_rng(1)
    a, b = rng.random(12), rng.random(12)
    b[3] = b[4]  # a tie
    assert kendall_tau(a, b) == pytest.approx(stats.kendalltau(a, b).statistic, abs=1e-12)
    assert spearman_rho(a, b) == pytest.approx(stats.spearmanr(a, b).statistic, abs=1e-12)
    assert tau_ap(a, a) == pytest.approx(1.0)
    assert tau_ap(a, -a) == pytest.approx(-1.0)


def test_tau_ap_penalises_a_swap_at_the_top_more_than_at_the_bottom():
    reference = np.array([5.0, 4, 3, 2, 1])
    top_swap = np.array([4.0, 5, 3, 2, 1])
    bottom_swap = np.array([5.0, 4, 3, 1, 2])
    assert kendall_tau(reference, top_swap) == kendall_tau(reference, bottom_swap)
    assert tau_ap(reference, top_swap) < tau_ap(reference, bottom_swap)
