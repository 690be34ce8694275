"""The judged collection fixture of the results tests."""

from __future__ import annotations

import pytest

from tests.judged_collection import MEASURES, make_judged_collection

__all__ = ["MEASURES", "judged"]


@pytest.fixture
def judged():
    return make_judged_collection()
