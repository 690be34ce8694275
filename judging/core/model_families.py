"""Model families as runs and machine judges declare them: two are one when they differ only in case, spaces, '-'
and '_'. Circularity (a judge scoring runs built on its own model) is claimed through this one test. Pure: no Django."""

from __future__ import annotations

import re


def _family(name: str) -> str:
    return re.sub(r"[\s_-]+", "-", (name or "").strip().lower())


def same_family(a: str, b: str) -> bool:
    """Whether two declared model families are one (case, spaces, '-' and '_' aside); an undeclared (empty) family
    shares nothing: circularity is claimed only where both sides said which model they use."""
    return bool(_family(a)) and _family(a) == _family(b)
