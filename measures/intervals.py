"""Confidence intervals for proportions, pure: Wilson's score interval (Wilson 1927), which stays inside [0, 1] and
behaves with few items or a rate near 0 or 1, where the normal approximation does not."""

from __future__ import annotations

import math

Z95 = 1.959963984540054


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float | None, float | None]:
    """Wilson's score interval for `successes` out of `n` (None, None without items)."""
    if n <= 0:
        return None, None
    p, z2 = successes / n, z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for a chi-square variable with `df` degrees of freedom: the regularised upper incomplete gamma
    Q(df/2, x/2), by its series below a + 1 and its continued fraction above (Numerical Recipes 6.2); tested against
    scipy. scipy itself is not a run-time dependency for this one function."""
    if df <= 0:
        raise ValueError("degrees of freedom must be positive")
    if x <= 0:
        return 1.0
    a, half = df / 2.0, x / 2.0
    log_front = a * math.log(half) - half - math.lgamma(a)
    if half < a + 1.0:  # the series of P, then Q = 1 - P
        term = total = 1.0 / a
        denominator = a
        for _ in range(1000):
            denominator += 1.0
            term *= half / denominator
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    tiny = 1e-300  # Lentz's method for the continued fraction of Q
    b = half + 1.0 - a
    c, d = 1.0 / tiny, 1.0 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        step = d * c
        h *= step
        if abs(step - 1.0) < 1e-15:
            break
    return min(1.0, math.exp(log_front) * h)
