"""The prediction-powered mean equals the reference, ppi-python, number for number (point, λ, interval), the
people-only interval equals its classical one, and the edge cases give no interval with a reason."""

from __future__ import annotations

import numpy as np
import pytest

from measures.prediction_powered import (
    classical_mean,
    holm,
    more_people_items,
    ppi_mean,
    tuned_lambda,
    z_value,
)

ppi_py = pytest.importorskip("ppi_py", reason="ppi-python, the reference, is in the test extra")


def _sample(seed: int, n: int, big_n: int, bias: float, noise: float):
    rng = np.random.default_rng(seed)
    truth = rng.random(n + big_n)
    machine = np.clip(truth + bias + rng.normal(0, noise, n + big_n), 0, 1)
    return truth[:n], machine[:n], machine[n:]


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("level", [0.9, 0.95])
def test_the_estimate_its_lambda_and_interval_are_ppi_pythons(seed, level):
    n, big_n = [(2, 3), (5, 40), (30, 170), (40, 160)][seed % 4]
    people, machine, others = _sample(seed, n, big_n, bias=[0.0, 0.2, -0.1][seed % 3], noise=[0.05, 0.3][seed % 2])
    ours = ppi_mean(people, machine, others, level)
    low, high = ppi_py.ppi_mean_ci(people, machine, others, alpha=1 - level)
    assert ours.low == pytest.approx(float(low[0]), rel=1e-12, abs=1e-14)
    assert ours.high == pytest.approx(float(high[0]), rel=1e-12, abs=1e-14)
    assert ours.estimate == pytest.approx(float(np.squeeze(ppi_py.ppi_mean_pointestimate(people, machine, others))),
                                          rel=1e-12, abs=1e-14)  # fmt: skip
    assert 0 <= ours.lam <= 1
    for fixed in (0.0, 0.5, 1.0):
        low, high = ppi_py.ppi_mean_ci(people, machine, others, alpha=1 - level, lam=fixed)
        pinned = ppi_mean(people, machine, others, level, lam=fixed)
        assert (pinned.low, pinned.high) == pytest.approx((float(low[0]), float(high[0])), rel=1e-12, abs=1e-14)


def test_lambda_zero_is_the_people_only_interval_and_that_is_ppi_pythons_classical_one():
    people, machine, others = _sample(3, 25, 100, bias=0.3, noise=0.4)
    classical = classical_mean(people, 0.95)
    low, high = ppi_py.classical_mean_ci(people, alpha=0.05)
    assert (classical.low, classical.high) == pytest.approx((float(low), float(high)), rel=1e-12)
    pinned = ppi_mean(people, machine, others, 0.95, lam=0.0)
    assert (pinned.estimate, pinned.low, pinned.high) == pytest.approx(
        (classical.estimate, classical.low, classical.high)
    )


def test_a_useless_machine_is_trusted_less_than_a_good_one():
    people, good, good_others = _sample(5, 30, 170, bias=0.0, noise=0.02)
    rng = np.random.default_rng(9)
    assert tuned_lambda(people, good, good_others) > 0.9
    assert tuned_lambda(people, rng.random(30), rng.random(170)) < 0.3


def test_no_interval_without_enough_people_items_others_or_machine_variation():
    assert "at least 2" in ppi_mean([0.5], [0.4], [0.1, 0.2], 0.95).reason
    assert "every item" in ppi_mean([0.5, 0.6], [0.4, 0.5], [], 0.95).reason
    flat = ppi_mean([0.5, 0.6, 0.1], [0.3, 0.3, 0.3], [0.3, 0.3], 0.95)
    assert flat.low is None and "same value" in flat.reason
    assert classical_mean([0.4], 0.95).low is None


def test_the_level_gives_the_normal_quantile():
    assert z_value(0.95) == pytest.approx(1.959963984540054, rel=1e-14)
    with pytest.raises(ValueError):
        z_value(1.0)


def test_holm_adjusts_step_down_as_statsmodels_and_keeps_the_unknown():
    multipletests = pytest.importorskip("statsmodels.stats.multitest").multipletests
    p_values = [0.01, 0.04, 0.03, 0.2, 0.0005, 0.9]
    assert holm(p_values) == pytest.approx(list(multipletests(p_values, method="holm")[1]), rel=1e-12)
    assert holm([0.01, None, 0.04, 0.03]) == [pytest.approx(0.03), None, pytest.approx(0.06), pytest.approx(0.06)]


def test_more_people_items_follows_the_square_root_law():
    assert more_people_items(20, 0.1, 0.05) == 60  # 20 * (0.1 / 0.05)^2 - 20
    assert more_people_items(20, 0.049, 0.05) == 1  # already nearly there: at least one more
    assert more_people_items(20, 0.1, 0.0) is None
