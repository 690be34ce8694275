"""The layers, as import-linter checks them in CI (the contracts in pyproject.toml; docs/architecture.md draws them):
kept by the project, and broken by each kind of forbidden import injected into a copy of it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.rules.project import ROOT, inject, project_copy

LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=root,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )


@pytest.fixture
def broken(tmp_path):
    """A copy of the project and its contracts, to break one module."""
    root = project_copy(tmp_path)
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    return root


def test_the_project_keeps_its_layers():
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "BROKEN" not in result.stdout


@pytest.mark.parametrize(
    ("module", "forbidden", "contract"),
    [
        ("judging/selectors/queue.py", "from judging.machines import selectors as machines", "Judging: the wiring"),
        ("judging/services/topics.py", "from evaluation import selectors", "Evaluation reads judging"),
        ("measures/engine.py", "from judging import models", "Evaluation reads judging"),
        ("judging/quality/selectors.py", "from judging.rag.selectors import nuggets", "features import only"),
        ("evaluation/services/staleness.py", "from evaluation.online import services", "Evaluation: the wiring"),
        ("judging/machines/selectors.py", "from judging.views import assessor", "Judging: the wiring"),
    ],
    ids=[
        "core imports a feature",
        "judging imports evaluation",
        "the engine imports an app",
        "a feature imports one it did not declare",
        "evaluation's core imports a feature",
        "a feature imports a page",
    ],
)
def test_a_forbidden_import_breaks_a_contract(broken, module, forbidden, contract):
    inject(broken, module, forbidden)
    result = lint_imports(broken)
    assert result.returncode != 0
    broken_lines = [line for line in result.stdout.splitlines() if line.endswith("BROKEN") or "BROKEN (" in line]
    assert any(contract in line for line in broken_lines), result.stdout
