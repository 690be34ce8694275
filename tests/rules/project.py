"""The project's source as the rule tests read it: from the checkout, or from a copy a test has broken on purpose."""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("config", "judging", "evaluation", "measures")


def source_files(root: Path = ROOT):
    """(relative path, path) of every project module, migrations left out."""
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path.relative_to(root).as_posix(), path


def project_copy(target: Path) -> Path:
    """A copy of the project's packages, README and architecture notes under `target`, to break one module and run
    a rule on it."""
    for package in PACKAGES:
        shutil.copytree(ROOT / package, target / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "README.md", target / "README.md")
    (target / "docs").mkdir(exist_ok=True)
    shutil.copy(ROOT / "docs" / "architecture.md", target / "docs" / "architecture.md")
    return target


def inject(root: Path, relative: str, code: str) -> None:
    """Appends `code` to one module of a copy: the violation a rule test must catch."""
    path = root / relative
    path.write_text(path.read_text() + "\n\n" + code)
