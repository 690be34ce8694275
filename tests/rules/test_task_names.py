"""Celery tasks are known by name to the broker, the routes and the Job rows that store them: every task pins its
name, so moving a module never orphans a queued message or a stored job."""

from __future__ import annotations

import ast
from pathlib import Path

from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]


def _task_decorators(tree: ast.Module) -> set[str]:
    """The spellings that decorate a Celery task in this module: `shared_task` and `*.task`, and every name
    `shared_task` or `task` is imported under (`from celery import shared_task as job` makes `job` one)."""
    names = {"shared_task"}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "celery":
            names |= {alias.asname or alias.name for alias in node.names if alias.name in ("shared_task", "task")}
        elif isinstance(node, ast.Assign) and ast.unparse(node.value) in names:  # job = shared_task
            names |= {ast.unparse(target) for target in node.targets}
    return names


def unpinned_tasks(source: str) -> list[str]:
    """Functions decorated as Celery tasks, under any name the module gives the decorator, without a literal
    `name=`."""
    tree = ast.parse(source)
    decorators = _task_decorators(tree)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for decorator in node.decorator_list:
            call = decorator if isinstance(decorator, ast.Call) else None
            target = ast.unparse(call.func if call else decorator)
            if target not in decorators and not target.endswith((".shared_task", ".task")):
                continue
            names = [k.value for k in (call.keywords if call else []) if k.arg == "name"]
            if not (names and isinstance(names[0], ast.Constant) and isinstance(names[0].value, str)):
                found.append(node.name)
    return found


def test_every_celery_task_pins_its_name():
    sources = [p for package in ("judging", "evaluation", "config") for p in (ROOT / package).rglob("*.py")]
    unpinned = {str(p.relative_to(ROOT)): unpinned_tasks(p.read_text()) for p in sources}
    assert {module: tasks for module, tasks in unpinned.items() if tasks} == {}


def test_the_rule_catches_a_task_without_a_pinned_name():
    source = (
        "@shared_task(acks_late=True)\ndef a(): ...\n"
        "@shared_task\ndef b(): ...\n"
        "@shared_task(name='x.a')\ndef c(): ...\n"
    )
    assert unpinned_tasks(source) == ["a", "b"]


def test_the_rule_catches_a_task_decorated_through_an_alias():
    source = (
        "from celery import shared_task as job\n"
        "import celery\n"
        "background = job\n"
        "@job(acks_late=True)\ndef a(): ...\n"
        "@background\ndef b(): ...\n"
        "@celery.shared_task\ndef c(): ...\n"
        "@job(name='x.d')\ndef d(): ...\n"
    )
    assert unpinned_tasks(source) == ["a", "b", "c"]


def test_every_routed_task_name_is_a_registered_task():
    from config.celery import app

    app.loader.import_default_modules()
    assert set(settings.CELERY_TASK_ROUTES) <= set(app.tasks)
