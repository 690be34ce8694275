"""Run comparisons against scipy and statsmodels: paired t-test, permutation test, bootstrap CI, Holm."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from evaluation.analysis.core import significance


@pytest.mark.parametrize("seed", range(5))
def test_paired_t_test_matches_scipy(seed):
    rng = np.random.default_rng(seed)
    a = rng.random(30)
    b = a + rng.normal(0.02, 0.1, 30)
    t, p = significance.paired_t_test(a, b)
    expected = stats.ttest_rel(a, b)
    assert t == pytest.approx(expected.statistic, rel=1e-12)
    assert p == pytest.approx(expected.pvalue, rel=1e-9, abs=1e-15)


def test_topics_undefined_in_either_run_are_dropped_and_degenerate_cases_are_defined():
    a, b = [0.5, math.nan, 0.3, 0.9], [0.4, 0.2, math.nan, 0.7]
    assert significance.compare(a, b, trials=200).topics == 2
    assert significance.paired_t_test([0.1, 0.2], [0.1, 0.2]) == (0.0, 1.0)
    assert significance.paired_t_test([0.5, 0.75], [0.25, 0.5]) == (math.inf, 0.0)  # every difference 0.25
    assert all(math.isnan(v) for v in significance.paired_t_test([0.1], [0.2]))


def test_permutation_p_agrees_with_scipys_exact_permutation_test_on_a_small_sample():
    rng = np.random.default_rng(3)
    a, b = rng.random(10), rng.random(10)
    ours = significance.permutation_test(a, b, trials=20_000, seed=1)
    exact = stats.permutation_test(
        (a, b), lambda x, y: np.mean(x - y), permutation_type="samples", n_resamples=math.inf
    ).pvalue
    assert ours == pytest.approx(exact, abs=0.01)


def test_bootstrap_interval_agrees_with_scipy_percentile_bootstrap_and_holds_the_mean():
    rng = np.random.default_rng(4)
    a, b = rng.random(40), rng.random(40)
    low, high = significance.bootstrap_ci(a, b, trials=20_000, seed=2)
    reference = stats.bootstrap((a - b,), np.mean, n_resamples=20_000, method="percentile", random_state=2)
    assert low < np.mean(a - b) < high
    assert low == pytest.approx(reference.confidence_interval.low, abs=0.01)
    assert high == pytest.approx(reference.confidence_interval.high, abs=0.01)


def test_holm_matches_statsmodels_in_input_order_and_skips_undefined():
    p = [0.01, 0.04, 0.03, 0.005, 0.2]
    assert significance.holm(p) == pytest.approx(multipletests(p, method="holm")[1].tolist())
    with_nan = significance.holm([0.01, math.nan, 0.04])
    assert math.isnan(with_nan[1]) and with_nan[0] == pytest.approx(0.02) and with_nan[2] == pytest.approx(0.04)
