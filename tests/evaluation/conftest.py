"""Fixtures of the evaluation tests: the judged collection of the results tests, and the worked search log."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..judged_collection import MEASURES, make_judged_collection

__all__ = ["MEASURES", "judged", "worked_files"]


@pytest.fixture
def judged():
    return make_judged_collection()


@pytest.fixture
def worked_files(tmp_path) -> dict[str, Path]:
    """The ten-session worked log (online/worked_log.py) as UBI queries and events files."""
    from evaluation.online.simulate import write_jsonl

    from .online.worked_log import EVENTS, QUERIES

    return {"queries": write_jsonl(QUERIES, tmp_path / "queries.jsonl"),
            "events": write_jsonl(EVENTS, tmp_path / "events.jsonl")}
