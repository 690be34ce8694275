"""A/B comparisons of online measures with the session as the unit.

Every measure is a ratio R = ΣYᵢ/ΣXᵢ of per-session sums (`measures.RATIOS`: clicked queries over queries, 1 −
clicked over 1, ...). Its variance comes from the delta method over sessions (Deng, Knoblich and Lu, "Applying
the Delta Method in Metric Analytics", KDD 2018): Var(R) ≈ (σ²_Y − 2R·σ_XY + R²·σ²_X) / (n·μ²_X), with plug-in
(ddof 0) moments, so that for a per-session proportion it is the Wald variance p(1−p)/n. Clicks within a session
are correlated; treating the session, not the click, as the unit is what keeps the interval honest. The interval is
R ± z·√Var; the difference of an arm from the control has variance Var_A + Var_B and a two-sided normal p-value.
Pure: no Django.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from .measures import RATIOS

METHOD = (
    "Session as the unit: each measure's interval and each difference's test use the delta method over per-session "
    "sums (normal approximation, 95%)."
)


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
    numerator, denominator = RATIOS[measure]
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
    for measure in RATIOS:
        arms = _sums(con, measure)
        if chosen_control is None and arms:
            chosen_control = sorted(arms)[0]
        estimates = {arm: ratio_estimate(*sums) for arm, sums in arms.items()}
        base, base_variance = estimates.get(chosen_control, (None, None))
        for arm, (value, variance) in estimates.items():
            row = {"value": value, "low": None, "high": None, "sessions": len(arms[arm][0])}
            if value is not None:
                half = z * math.sqrt(variance)
                row.update(low=value - half, high=value + half)
            if arm != chosen_control:
                row.update(_difference(value, variance, base, base_variance, z))
            table.setdefault(arm, {})[measure] = row
    return {"control": chosen_control, "confidence": confidence, "method": METHOD, "arms": table}


def _difference(value, variance, base, base_variance, z) -> dict:
    if value is None or base is None:
        return {"difference": None, "difference_low": None, "difference_high": None, "p_value": None}
    difference = value - base
    spread = math.sqrt(variance + base_variance)
    certain = 1.0 if difference == 0 else 0.0  # no variation at all
    p_value = 2 * (1 - NormalDist().cdf(abs(difference) / spread)) if spread else certain
    return {"difference": difference, "difference_low": difference - z * spread,
            "difference_high": difference + z * spread, "p_value": p_value}
