"""Prediction-powered inference for a mean (PPI++: Angelopoulos, Duchi & Zrnic 2023), pure.

A mean over N items is estimated from a machine's values on all of them, corrected by the machine's errors measured
on a random sample of n items people labelled: estimate = mean(λ·machine on the N − n others) + mean(people − λ·machine
on the n), with λ tuned to make the interval narrowest and clipped to [0, 1] (λ = 0 is the people-only mean, λ = 1
plain PPI). The interval is the normal two-sided one. These are `ppi_py.ppi_mean_ci` and `ppi_mean_pointestimate`
with `lam=None` on 1-D arrays, number for number (tested against ppi-python), and `classical_mean_ci` for the
people-only interval; the tests and `benchmarks/estimate.py` hold both to their coverage.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

MIN_PEOPLE = 2


@dataclass(frozen=True)
class Interval:
    """An estimate with its interval; `reason` says why there is no interval (then low and high are None)."""

    estimate: float | None
    low: float | None = None
    high: float | None = None
    lam: float | None = None
    reason: str = ""
    standard_error: float | None = None

    @property
    def half_width(self) -> float | None:
        return None if self.low is None or self.high is None else (self.high - self.low) / 2

    def excludes_zero(self) -> bool:
        return self.low is not None and self.high is not None and (self.low > 0 or self.high < 0)

    def p_value(self) -> float | None:
        """The two-sided normal p-value of "the mean is 0" behind this interval (Holm's adjustment reads it)."""
        if self.standard_error is None or self.estimate is None:
            return None
        if self.standard_error <= 0:
            return 0.0 if self.estimate != 0 else 1.0
        return 2 * (1 - NormalDist().cdf(abs(self.estimate) / self.standard_error))


def z_value(level: float) -> float:
    """The normal quantile of a two-sided interval at `level` (1.959963984540054 at 0.95)."""
    if not 0 < level < 1:
        raise ValueError(f"the level must be between 0 and 1, not {level}")
    return NormalDist().inv_cdf(1 - (1 - level) / 2)


def _interval(estimate: float, standard_error: float, level: float, lam: float | None) -> Interval:
    half = z_value(level) * standard_error
    return Interval(estimate, estimate - half, estimate + half, lam, standard_error=standard_error)


def classical_mean(people: Sequence[float], level: float) -> Interval:
    """The people-only mean and its normal interval (`ppi_py.classical_mean_ci`: the standard deviation with n)."""
    y = np.asarray(people, dtype=np.float64)
    if len(y) < MIN_PEOPLE:
        return Interval(float(y.mean()) if len(y) else None, reason=_few(len(y)))
    return _interval(float(y.mean()), float(y.std()) / math.sqrt(len(y)), level, 0.0)


def tuned_lambda(people: Sequence[float], machine: Sequence[float], machine_others: Sequence[float]) -> float:
    """PPI++'s power-tuning λ for a mean, clipped to [0, 1] (`ppi_py.ppi._calc_lam_glm` with clip=True)."""
    y, yhat, others = (np.asarray(a, dtype=np.float64) for a in (people, machine, machine_others))
    n, big_n = len(y), len(others)
    point = others.mean() + (y - yhat).mean()
    gradient, gradient_hat = y - point, yhat - point
    covariance = 2 / n * float(np.sum((gradient - gradient.mean()) * (gradient_hat - gradient_hat.mean())))
    variance = float(np.var(np.concatenate([gradient_hat, others - point]), ddof=1))
    return float(np.clip(covariance / (2 * (1 + n / big_n) * variance), 0, 1))


def ppi_mean(
    people: Sequence[float],
    machine: Sequence[float],
    machine_others: Sequence[float],
    level: float,
    lam: float | None = None,
) -> Interval:
    """The prediction-powered mean and its interval: `people` and `machine` are the two values of each of the n
    people-labelled items (in the same order), `machine_others` the machine's on the N − n others. `lam` None tunes
    it. No interval (and the reason) with fewer than 2 people items, no other item, or machine values all equal."""
    y, yhat, others = (np.asarray(a, dtype=np.float64) for a in (people, machine, machine_others))
    if len(y) != len(yhat):
        raise ValueError(f"{len(y)} people values but {len(yhat)} machine values on the same items")
    if len(y) < MIN_PEOPLE:
        return Interval(None, reason=_few(len(y)))
    if not len(others):
        return Interval(None, reason="people labelled every item: the exact mean needs no machine")
    if lam is None:
        if np.all(np.concatenate([yhat, others]) == yhat[0]):
            return Interval(None, reason="the machine gives every item the same value: nothing to correct")
        lam = tuned_lambda(y, yhat, others)
    estimate = float((lam * others).mean() + (y - lam * yhat).mean())
    imputed = float((lam * others).std()) / math.sqrt(len(others))
    rectifier = float((y - lam * yhat).std()) / math.sqrt(len(y))
    return _interval(estimate, math.sqrt(imputed**2 + rectifier**2), level, float(lam))


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjustment (None stays None): the adjusted p-values, monotone, at most 1."""
    known = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    adjusted: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, index) in enumerate(known):
        running = max(running, min(1.0, (len(known) - rank) * p))
        adjusted[index] = running
    return adjusted


def more_people_items(n: int, half_width: float | None, difference: float | None) -> int | None:
    """How many more people-labelled items an interval of half-width h around a difference d needs to exclude 0,
    the half-width shrinking as 1/√n: max(1, ⌈n·(h/|d|)² − n⌉); None when d is 0 or unknown."""
    if half_width is None or difference is None or difference == 0:
        return None
    return max(1, math.ceil(n * (half_width / abs(difference)) ** 2 - n))


def _few(n: int) -> str:
    return f"people labelled {n} item{'s' if n != 1 else ''}: an interval needs at least {MIN_PEOPLE}"
