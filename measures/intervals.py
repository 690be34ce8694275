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
