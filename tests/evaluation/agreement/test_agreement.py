"""Agreement statistics against scikit-learn, statsmodels and krippendorff, and published worked examples."""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss

from measures import agreement

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 observers, 12 units, missing data.
KRIPPENDORFF_EXAMPLE = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]
# The classic Fleiss' kappa example (10 subjects, 14 raters, 5 categories; Wikipedia), kappa = 0.210.
FLEISS_TABLE = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]


def items_from_matrix(matrix):
    """Observers x units (None = missing) to a list of {observer: grade} items."""
    return [{o: row[u] for o, row in enumerate(matrix) if row[u] is not None} for u in range(len(matrix[0]))]


def items_from_table(table):
    items = []
    for counts in table:
        grades = [category for category, n in enumerate(counts) for _ in range(n)]
        items.append(dict(enumerate(grades)))
    return items


def generated_items(seed, n_items=200, assessors=4, missing=0.25, scale=4):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, scale, n_items)
    matrix = []
    for _ in range(assessors):
        noisy = np.clip(truth + rng.integers(-1, 2, n_items) * (rng.random(n_items) < 0.4), 0, scale - 1)
        row = [int(g) if rng.random() > missing else None for g in noisy]
        matrix.append(row)
    return matrix


def test_krippendorff_published_example_nominal_and_interval():
    items = items_from_matrix(KRIPPENDORFF_EXAMPLE)
    assert agreement.krippendorff_alpha(items, "nominal") == pytest.approx(0.743, abs=5e-4)
    assert agreement.krippendorff_alpha(items, "interval") == pytest.approx(0.849, abs=5e-4)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_krippendorff_alpha_matches_the_krippendorff_package_with_missing_data(seed, level):
    matrix = generated_items(seed)
    if level == "ratio":
        matrix = [[None if g is None else g + 1 for g in row] for row in matrix]  # ratio needs a true zero apart
    data = np.array([[np.nan if g is None else g for g in row] for row in matrix], dtype=float)
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
    assert agreement.krippendorff_alpha(items_from_matrix(matrix), level) == pytest.approx(expected, abs=1e-9)


def test_fleiss_published_example():
    assert agreement.fleiss_kappa(items_from_table(FLEISS_TABLE)) == pytest.approx(0.20993, abs=5e-5)
    assert agreement.fleiss_kappa(items_from_table(FLEISS_TABLE)) == pytest.approx(
        statsmodels_fleiss(np.array(FLEISS_TABLE)), abs=1e-12
    )


@pytest.mark.parametrize("seed", range(6))
def test_fleiss_kappa_matches_statsmodels_with_a_constant_number_of_assessors(seed):
    matrix = generated_items(seed, missing=0.0, assessors=5)
    items = items_from_matrix(matrix)
    table = np.zeros((len(items), 4))
    for row, item in enumerate(items):
        for grade in item.values():
            table[row, grade] += 1
    assert agreement.fleiss_kappa(items, categories=range(4)) == pytest.approx(statsmodels_fleiss(table), abs=1e-12)


def test_fleiss_kappa_with_varying_assessors_uses_each_items_own_count():
    items = [{"a": 1, "b": 1}, {"a": 0, "b": 0, "c": 0}, {"a": 1, "b": 0, "c": 1}, {"a": 0}]
    # P_i: 1, 1, 1/3 (item 4 is unpairable); P_bar = 7/9; pooled p = (4/8, 4/8) -> P_e = 0.5
    assert agreement.fleiss_kappa(items) == pytest.approx((7 / 9 - 0.5) / 0.5)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_cohen_kappa_matches_scikit_learn_on_the_full_scale(seed, weights):
    matrix = generated_items(seed, assessors=2, missing=0.2, scale=6)
    items = items_from_matrix(matrix)
    both = [(i[0], i[1]) for i in items if 0 in i and 1 in i]
    expected = cohen_kappa_score([a for a, _ in both], [b for _, b in both], labels=list(range(6)), weights=weights)
    assert agreement.cohen_kappa(items, weights, categories=range(6)) == pytest.approx(expected, abs=1e-12)


def test_weighted_kappa_counts_an_unused_grade_when_the_full_scale_is_given():
    items = [{"a": 0, "b": 1}, {"a": 1, "b": 1}, {"a": 5, "b": 4}, {"a": 4, "b": 4}, {"a": 0, "b": 0}]
    observed_only = agreement.cohen_kappa(items, "linear")
    full_scale = agreement.cohen_kappa(items, "linear", categories=range(6))
    assert full_scale != pytest.approx(observed_only)
    a, b = zip(*[(i["a"], i["b"]) for i in items], strict=True)
    assert full_scale == pytest.approx(cohen_kappa_score(a, b, labels=list(range(6)), weights="linear"))


def test_undefined_statistics_return_none():
    assert agreement.cohen_kappa([{"a": 1, "b": 1}, {"a": 1, "b": 1}]) is None  # no variance: 0/0
    assert agreement.fleiss_kappa([{"a": 1}, {"a": 0}]) is None  # nothing pairable
    assert agreement.krippendorff_alpha([{"a": 2, "b": 2}]) is None
    assert agreement.percent_agreement([{"a": 1}]) is None
    assert agreement.overlap([{"a": 0, "b": 0}]) is None  # empty union


def test_percent_agreement_pairwise_all_agree_and_tolerance():
    items = [{"a": 1, "b": 1, "c": 2}, {"a": 0, "b": 0}]
    assert agreement.percent_agreement(items) == pytest.approx((1 / 3 + 1) / 2)
    assert agreement.percent_agreement(items, definition="all_agree") == 0.5
    assert agreement.percent_agreement(items, tolerance=1) == 1.0


def test_overlap_is_intersection_over_union_of_relevant_sets_averaged_over_pairs():
    items = [{"a": 1, "b": 1}, {"a": 1, "b": 0}, {"a": 0, "b": 1}, {"a": 1, "b": 1}, {"a": 0, "b": 0}]
    assert agreement.overlap(items) == pytest.approx(2 / 4)


def test_fleiss_kappa_per_item_proportions_average_each_items_shares():
    items = [{"a": 1, "b": 1}, {"a": 0, "b": 0, "c": 0}, {"a": 1, "b": 0, "c": 1}, {"a": 0}]
    # shares per graded item: (0, 1), (1, 0), (1/3, 2/3), (1, 0) -> p = (7/12, 5/12); P_e = 74/144
    chance = (7 / 12) ** 2 + (5 / 12) ** 2
    assert agreement.fleiss_kappa(items, proportions="per_item") == pytest.approx((7 / 9 - chance) / (1 - chance))


@pytest.mark.parametrize("seed", range(3))
def test_both_fleiss_forms_are_fleiss_formula_with_a_constant_number_of_assessors(seed):
    items = items_from_matrix(generated_items(seed, missing=0.0, assessors=4))
    pooled = agreement.fleiss_kappa(items, categories=range(4))
    assert agreement.fleiss_kappa(items, categories=range(4), proportions="per_item") == pytest.approx(
        pooled, abs=1e-12
    )


def test_overlap_of_all_assessors_is_the_intersection_over_the_union_of_every_relevant_set():
    items = [
        {"a": 1, "b": 1, "c": 1},
        {"a": 1, "b": 1, "c": 0},
        {"a": 0, "b": 0, "c": 1},
        {"a": 0, "b": 0, "c": 0},
        {"a": 1, "b": 1},  # not judged by everyone: left out of the all-assessor overlap
    ]
    assert agreement.overlap(items, definition="all") == pytest.approx(1 / 3)
    # pairwise: a-b 3/3, a-c 1/3, b-c 1/3
    assert agreement.overlap(items) == pytest.approx((1 + 1 / 3 + 1 / 3) / 3)
    two = [{"a": 1, "b": 1}, {"a": 1, "b": 0}, {"a": 0, "b": 1}]
    assert agreement.overlap(two, definition="all") == agreement.overlap(two)


@pytest.mark.parametrize("seed", range(3))
def test_labels_of_any_hashable_kind_match_the_reference_libraries(seed):
    """Strings exported from another annotation tool; `categories` gives their order for weighted statistics."""
    names = ["bad", "fair", "good", "perfect"]
    matrix = generated_items(seed, missing=0.0, assessors=2)
    items = [{a: names[g] for a, g in item.items()} for item in items_from_matrix(matrix)]
    first = [item[0] for item in items]
    second = [item[1] for item in items]
    assert agreement.cohen_kappa(items, categories=names) == pytest.approx(
        cohen_kappa_score(first, second, labels=names), abs=1e-12
    )
    assert agreement.cohen_kappa(items, "quadratic", categories=names) == pytest.approx(
        cohen_kappa_score(first, second, labels=names, weights="quadratic"), abs=1e-12
    )
    numeric = items_from_matrix(matrix)
    assert agreement.fleiss_kappa(items, categories=names) == pytest.approx(
        agreement.fleiss_kappa(numeric, categories=range(4)), abs=1e-12
    )
    reliability = [[names.index(v) for v in first], [names.index(v) for v in second]]
    assert agreement.krippendorff_alpha(items, "ordinal", categories=names) == pytest.approx(
        krippendorff.alpha(reliability_data=reliability, level_of_measurement="ordinal"), abs=1e-9
    )
    assert agreement.krippendorff_alpha(items) == pytest.approx(agreement.krippendorff_alpha(numeric), abs=1e-12)


def test_text_labels_refuse_interval_distances_and_unknown_categories():
    items = [{"a": "rel", "b": "non"}, {"a": "rel", "b": "rel"}]
    with pytest.raises(ValueError, match="numeric grades"):
        agreement.krippendorff_alpha(items, "interval")
    with pytest.raises(ValueError, match="not among the categories"):
        agreement.cohen_kappa(items, categories=["non"])


def test_gwet_ac1_two_raters_binary_hand_worked():
    # 10 items: both 1 on 6, both 0 on 2, disagree on 2 -> p_a = 0.8; pi_1 = (7 + 7) / 20 = 0.7 -> p_e = 0.42
    items = [{"a": 1, "b": 1}] * 6 + [{"a": 0, "b": 0}] * 2 + [{"a": 1, "b": 0}, {"a": 0, "b": 1}]
    assert agreement.gwet_ac1(items) == pytest.approx((0.8 - 0.42) / (1 - 0.42))


def test_confusion_matrix_between_two_assessors():
    items = [{"a": 0, "b": 0}, {"a": 1, "b": 2}, {"a": 2, "b": 2}, {"a": 1}]
    assert agreement.confusion_matrix(items, categories=[0, 1, 2]).tolist() == [[1, 0, 0], [0, 0, 1], [0, 0, 1]]


def test_report_holds_graded_and_binary_views_with_parameters():
    report = agreement.agreement_report(items_from_matrix(KRIPPENDORFF_EXAMPLE), categories=range(6), threshold=3)
    assert report["parameters"]["threshold"] == 3
    assert not math.isnan(report["binary"]["fleiss_kappa"])
    assert "krippendorff_alpha_ordinal" in report["graded"]


def sparse_items(seed, items=300, assessors=4, scale=4, missing=0.3):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, scale, items)
    grades = np.clip(truth + rng.integers(-1, 2, (assessors, items)) * (rng.random((assessors, items)) < 0.4), 0, 3)
    present = rng.random((assessors, items)) >= missing
    return [{a: int(grades[a, i]) for a in range(assessors) if present[a, i]} for i in range(items)]


@pytest.mark.parametrize("seed", range(3))
def test_pairwise_kappa_and_confusion_match_sklearn_on_the_items_both_judged(seed):
    items = sparse_items(seed)
    report = agreement.agreement_report(items, categories=range(4), threshold=2)
    for key, value in report["pairwise"]["cohen_kappa_quadratic"].items():
        a, b = (int(x) for x in key.split("|"))
        both = [item for item in items if a in item and b in item]
        expected = cohen_kappa_score([i[a] for i in both], [i[b] for i in both], weights="quadratic", labels=range(4))
        assert value == pytest.approx(expected, abs=1e-12)
        confusion = np.array(report["pairwise"]["confusion"][key])
        assert confusion.sum() == len(both) and confusion[1, 2] == sum(i[a] == 1 and i[b] == 2 for i in both)


def test_each_assessor_against_the_consensus_uses_the_items_they_judged():
    items = [{"a": 1, "b": 0}, {"a": 1}, {"b": 2}, {"a": 0, "b": 0}]
    reference = [1, 0, 2, None]  # the last item has no consensus label
    report = agreement.agreement_report(items, categories=range(3), threshold=1, reference=reference)
    against = report["against_consensus"]
    assert against["a"]["items"] == 2 and against["a"]["percent_agreement"] == 0.5
    assert against["b"]["items"] == 2 and against["b"]["percent_agreement"] == 0.5
    expected = cohen_kappa_score([1, 1], [1, 0], labels=range(3))
    assert against["a"]["cohen_kappa"] == pytest.approx(expected)
    assert np.array(against["b"]["confusion"]).sum() == 2


def test_percent_agreement_with_tolerance_matches_a_direct_count():
    items = sparse_items(7, missing=0.5)
    for tolerance in (0, 1, 2):
        shares = []
        for item in items:
            grades = list(item.values())
            pairs = [(x, y) for i, x in enumerate(grades) for y in grades[i + 1 :]]
            if pairs:
                shares.append(sum(abs(x - y) <= tolerance for x, y in pairs) / len(pairs))
        assert agreement.percent_agreement(items, tolerance=tolerance) == pytest.approx(np.mean(shares), abs=1e-12)


def test_a_grade_outside_the_given_categories_is_a_clear_error():
    with pytest.raises(ValueError, match=r"grades \[7\] are not among the categories"):
        agreement.fleiss_kappa([{"a": 1, "b": 7}], categories=range(4))
