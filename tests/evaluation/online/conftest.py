"""Fixtures for the online-evaluation tests: the worked log imported into a store (its files: ../conftest.py)."""

from pathlib import Path

import pytest

from evaluation.online.core import store


@pytest.fixture
def worked_store(tmp_path, worked_files) -> Path:
    root = tmp_path / "store"
    store.import_log(root, files=worked_files, log_format="ubi")
    return root
