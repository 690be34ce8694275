"""A/B comparisons of online measures with the session as the unit.

Every measure is a ratio R = ΣYᵢ/ΣXᵢ of per-session sums (`measures.RATIO_REGISTRY`: clicked queries over queries, 1 −
clicked over 1, ...). Its variance comes from the delta method over sessions (Deng, Knoblich and Lu, "Applying
the Delta Method in Metric Analytics", KDD 2018): Var(R) ≈ (σ²_Y − 2R·σ_XY + R²·σ²_X) / (n·μ²_X), with plug-in
(ddof 0) moments, so that for a per-session proportion it is the Wald variance p(1−p)/n. Clicks within a session
are correlated; treating the session, not the click, as the unit is what keeps the interval honest.

Every measure here is a rate in [0, 1], and so is its interval: Wilson's score interval with the delta method's
effective sample size n* = R(1−R)/Var(R) (for a per-session proportion n* is the number of sessions, and the
interval is exactly Wilson's; Korn and Graubard's use of the design effect). The difference of an arm from the
control gets Newcombe's hybrid score interval built from the two Wilson intervals (within [−1, 1]) and a two-sided
z-test with variance Var_A + Var_B; with no variation in either arm the p-value is undefined, never 0. An arm with
fewer than MIN_SESSIONS sessions is flagged as too small to compare. Pure: no Django.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from evaluation.online.core.measures import RATIO_REGISTRY, ratios

METHOD = (
    "Session as the unit: each measure's variance by the delta method over per-session sums; Wilson intervals with "
    "that effective sample size, Newcombe's interval for differences, two-sided z-tests."
)
# Below this many sessions in an arm, an interval is wide and a test's normal approximation unreliable.
MIN_SESSIONS = 30


def ratio_estimate(numerators: np.ndarray, denominators: np.ndarray) -> tuple[float | None, float | None]:
    """(R, Var(R)) by the delta method; (None, None) when there is no denominator."""
    n = len(numerators)
    total = float(denominators.sum())
    if n == 0 or total == 0:
        return None, None
    ratio = float(numerators.sum()) / total
    mean_x = total / n
    y = numerators - numerators.mean()
    x = denominators - denominators.mean()
    variance = float((y @ y - 2 * ratio * (y @ x) + ratio * ratio * (x @ x)) / n) / (n * mean_x * mean_x)
    return ratio, max(variance, 0.0)


def _sums(con, measure: str) -> dict:
    numerator, denominator = ratios()[measure]
    rows = con.execute(f"SELECT arm, {numerator}, {denominator} FROM sa ORDER BY arm").fetchnumpy()
    arms = {}
    names = np.array(["(none)" if a is None else str(a) for a in rows["arm"].tolist()], dtype=object)
    ys, xs = (np.asarray(rows[column], dtype=float) for column in list(rows)[1:3])
    for arm in sorted(set(names.tolist())):
        chosen = names == arm
        arms[arm] = (ys[chosen], xs[chosen])
    return arms


def arm_comparison(con, *, control: str | None = None, confidence: float = 0.95) -> dict:
    """Each arm's measures with intervals, and each arm's difference from `control` (default: the first arm by
    name). Needs `measures.prepare` to have run on `con` with an arm setting."""
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    table: dict = {}
    chosen_control = control
    for measure in RATIO_REGISTRY:
        arms = _sums(con, measure)
        if chosen_control is None and arms:
            chosen_control = sorted(arms)[0]
        estimates = {arm: ratio_estimate(*sums) for arm, sums in arms.items()}
        base, base_variance = estimates.get(chosen_control, (None, None))
        intervals = {
            arm: wilson_interval(value, variance, int((arms[arm][1] > 0).sum()), z)
            for arm, (value, variance) in estimates.items()
        }
        for arm, (value, variance) in estimates.items():
            sessions = len(arms[arm][0])
            low, high = intervals[arm]
            row = {"value": value, "low": low, "high": high, "sessions": sessions, "too_small": sessions < MIN_SESSIONS}
            if arm != chosen_control:
                row.update(
                    _difference(
                        (value, variance, intervals[arm]), (base, base_variance, intervals.get(chosen_control)), z
                    )
                )
                row["too_small"] = row["too_small"] or len(arms.get(chosen_control, ((),))[0]) < MIN_SESSIONS
            table.setdefault(arm, {})[measure] = row
    return {"control": chosen_control, "confidence": confidence, "method": METHOD, "arms": table}


def wilson_interval(value, variance, counted: int, z: float) -> tuple[float | None, float | None]:
    """Wilson's score interval for a rate `value` with the delta method's `variance`: the effective sample size is
    value(1−value)/variance, or `counted` (the units with a denominator) when that is undefined (a rate of 0 or 1,
    no variation). Always within [0, 1]; (None, None) without a value."""
    if value is None:
        return None, None
    n = value * (1 - value) / variance if variance and 0 < value < 1 else float(counted)
    if n <= 0:
        return None, None
    z2 = z * z
    centre = (value + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(max(value * (1 - value), 0.0) / n + z2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def _difference(arm, control, z) -> dict:
    (value, variance, (low, high)), (base, base_variance, base_interval) = arm, control
    if value is None or base is None or low is None or base_interval is None or base_interval[0] is None:
        return {"difference": None, "difference_low": None, "difference_high": None, "p_value": None}
    base_low, base_high = base_interval
    difference = value - base
    spread = math.sqrt(variance + base_variance)
    p_value = 2 * (1 - NormalDist().cdf(abs(difference) / spread)) if spread else None
    return {
        "difference": difference,
        "difference_low": difference - math.sqrt((value - low) ** 2 + (base_high - base) ** 2),
        "difference_high": difference + math.sqrt((high - value) ** 2 + (base - base_low) ** 2),
        "p_value": p_value,
    }
