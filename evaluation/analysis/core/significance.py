"""Comparing runs over topics, pure (numpy only): paired t-test, paired randomisation (permutation) test, bootstrap
confidence interval of the mean difference, and Holm's correction across many comparisons.

Inputs are per-topic values of two runs on the same topics, in the same order; topics where either is undefined
(NaN) are dropped first. Randomised procedures take a seed, so a page shows the same p-value on every load.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PairedComparison:
    topics: int
    mean_difference: float
    t_statistic: float
    t_p_value: float
    permutation_p_value: float
    ci_low: float
    ci_high: float


def _paired(a, b) -> np.ndarray:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"the two runs need values for the same topics ({a.shape} vs {b.shape})")
    keep = ~(np.isnan(a) | np.isnan(b))
    return a[keep] - b[keep]


# Student's t tail computed here rather than pulling scipy (a test-only dependency) into the app for one function.
def _student_t_sf(t: float, df: int) -> float:
    """Upper tail of Student's t via the regularised incomplete beta (continued fraction, Numerical Recipes 6.4)."""
    x = df / (df + t * t)
    return 0.5 * _betainc(df / 2.0, 0.5, x)


def _betainc(a: float, b: float, x: float) -> float:
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x > (a + 1.0) / (a + b + 2.0):
        return 1.0 - _betainc(b, a, 1.0 - x)
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > 1e-300 else 1e-300)
    h = d
    for m in range(1, 500):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > 1e-300 else 1e-300)
            c = 1.0 + numerator / c
            c = c if abs(c) > 1e-300 else 1e-300
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return front * h / a


def paired_t_test(a, b) -> tuple[float, float]:
    """(t, two-sided p) of the paired t-test on a - b; (nan, nan) with fewer than 2 topics, (0 or ±inf, 1 or 0)
    when every difference is the same."""
    d = _paired(a, b)
    n = d.size
    if n < 2:
        return math.nan, math.nan
    sd = d.std(ddof=1)
    if sd == 0:
        mean = d.mean()
        return (0.0, 1.0) if mean == 0 else (math.copysign(math.inf, mean), 0.0)
    t = float(d.mean() / (sd / math.sqrt(n)))
    return t, min(1.0, 2.0 * _student_t_sf(abs(t), n - 1))


def permutation_test(a, b, *, trials: int = 10_000, seed: int = 0) -> float:
    """Two-sided p of the paired randomisation test: the share of random sign flips of the per-topic differences
    whose mean is at least as far from 0 as the observed one (the observed assignment counted, so p > 0)."""
    d = _paired(a, b)
    if d.size == 0:
        return math.nan
    observed = abs(d.mean())
    signs = np.random.default_rng(seed).choice((-1.0, 1.0), size=(trials, d.size))
    means = np.abs((signs * d).mean(axis=1))
    return float((1 + np.count_nonzero(means >= observed - 1e-12)) / (trials + 1))


def bootstrap_ci(a, b, *, confidence: float = 0.95, trials: int = 10_000, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap confidence interval of the mean per-topic difference a - b (topics resampled)."""
    d = _paired(a, b)
    if d.size == 0:
        return math.nan, math.nan
    rng = np.random.default_rng(seed)
    means = d[rng.integers(0, d.size, size=(trials, d.size))].mean(axis=1)
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail])
    return float(low), float(high)


MIN_TOPICS = 2  # a test or an interval over one topic's difference says nothing (a zero-width interval)


def compare(a, b, *, trials: int = 10_000, seed: int = 0) -> PairedComparison:
    """The paired comparison of a and b; with fewer than MIN_TOPICS paired topics every test and the interval are
    NaN (undefined, shown as "—"), the mean difference alone defined."""
    d = _paired(a, b)
    if d.size < MIN_TOPICS:
        mean = float(d.mean()) if d.size else math.nan
        return PairedComparison(int(d.size), mean, math.nan, math.nan, math.nan, math.nan, math.nan)
    t, p = paired_t_test(a, b)
    low, high = bootstrap_ci(a, b, trials=trials, seed=seed)
    return PairedComparison(
        topics=int(d.size),
        mean_difference=float(d.mean()),
        t_statistic=t,
        t_p_value=p,
        permutation_p_value=permutation_test(a, b, trials=trials, seed=seed),
        ci_low=low,
        ci_high=high,
    )


def holm(p_values) -> list[float]:
    """Holm–Bonferroni adjusted p-values, in the input order (NaN stays NaN and does not count)."""
    p = np.asarray(p_values, dtype=np.float64)
    valid = np.flatnonzero(~np.isnan(p))
    adjusted = np.full(p.shape, math.nan)
    order = valid[np.argsort(p[valid], kind="stable")]
    m, running = len(order), 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[index]))
        adjusted[index] = running
    return adjusted.tolist()
