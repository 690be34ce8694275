"""Every kind of long work is registered once, explicitly, in its app's ready(): the job page and the API read the
registry, and no module registers a kind as a side effect of being imported."""

from __future__ import annotations

import ast
from pathlib import Path

from judging.jobs import kinds

ROOT = Path(__file__).resolve().parents[3]
TASKS = {
    "judging.tasks.import_file",
    "judging.tasks.build_pool",
    "judging.tasks.machine_judge_run",
    "judging.tasks.machine_judge_probe",
    "judging.tasks.search_fetch",
    "judging.tasks.import_dataset",
    "judging.tasks.nuggets_propose",
    "judging.tasks.nuggets_assign",
    "judging.tasks.support_judge",
    "evaluation.tasks.recompute_collection",
    "evaluation.tasks.trial_run",
    "evaluation.tasks.import_search_log",
}


def test_every_kind_of_job_is_registered_when_django_starts():
    assert set(kinds.REGISTRY) == TASKS


def registrations_outside_ready() -> list[str]:
    found = []
    for package in ("judging", "evaluation"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if path.name == "apps.py" or path.name == "kinds.py":
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                called = ast.unparse(node.func) if isinstance(node, ast.Call) else ""
                if called.split(".")[-1] == "register" and "kinds" in called:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_no_module_registers_a_kind_when_imported():
    assert registrations_outside_ready() == []
