"""Fixtures for the online-evaluation tests: logs written to files and imported into a store."""

from pathlib import Path

import pytest

from evaluation.online import store
from evaluation.online.simulate import write_jsonl

from .worked_log import EVENTS, QUERIES


@pytest.fixture
def worked_files(tmp_path) -> dict[str, Path]:
    return {"queries": write_jsonl(QUERIES, tmp_path / "queries.jsonl"),
            "events": write_jsonl(EVENTS, tmp_path / "events.jsonl")}


@pytest.fixture
def worked_store(tmp_path, worked_files) -> Path:
    root = tmp_path / "store"
    store.import_log(root, files=worked_files, log_format="ubi")
    return root
