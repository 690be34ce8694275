"""The pure modules stay pure: importing them loads no Django, so they run in any script, notebook or worker.

Purity is read from the location, not from a list: everything under `measures/`, every `core/` folder and every
`core.py`, and the command lines that run on files (`__main__` of a package whose work is all pure)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Command lines over files only: importing them must not need a database either.
PURE_COMMAND_LINES = [
    "evaluation.cli",
    "evaluation.agreement.__main__",
    "evaluation.online.__main__",
    "judging.ordering.__main__",
    "judging.machines.__main__",
    "judging.search_fetch.__main__",
]


def is_pure_location(relative: str) -> bool:
    parts = relative.split("/")
    return parts[0] == "measures" or "core" in parts[:-1] or parts[-1] == "core.py"


def pure_modules() -> list[str]:
    found = []
    for package in ("config", "judging", "evaluation", "measures"):
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if is_pure_location(relative):
                module = relative.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
                found.append(module)
    return found


def test_purity_is_known_by_location():
    assert is_pure_location("judging/machines/core/client.py")
    assert is_pure_location("judging/quality/core.py")
    assert is_pure_location("measures/engine.py")
    assert not is_pure_location("judging/machines/services.py")
    assert not is_pure_location("judging/corebits.py")
    modules = pure_modules()
    assert "judging.machines.core.client" in modules and "config.core.outbound" in modules
    assert len(modules) > 60


def _django_loaded_by(modules: list[str]) -> subprocess.CompletedProcess:
    check = (
        "import importlib, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        "loaded = sorted(m for m in sys.modules if m == 'django' or m.startswith('django.'))\n"
        "print(loaded[:5]); sys.exit(1 if loaded else 0)\n"
    )
    return subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, timeout=60, cwd=ROOT)


def test_pure_modules_import_without_django():
    done = _django_loaded_by(pure_modules() + PURE_COMMAND_LINES)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_check_fails_on_a_module_that_loads_django():
    done = _django_loaded_by(["measures", "judging.machines.selectors"])
    assert done.returncode != 0


def django_imports(source: str) -> list[int]:
    """Lines of a module that import Django anywhere, a function's body included (an import deferred into a
    function loads Django only when it runs, so importing the module cannot tell)."""

    def imports_django(node) -> bool:
        if isinstance(node, ast.Import):
            return any(alias.name.split(".")[0] == "django" for alias in node.names)
        return isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] == "django"

    return [node.lineno for node in ast.walk(ast.parse(source)) if imports_django(node)]


def test_no_pure_module_imports_django_even_inside_a_function():
    offenders = {}
    for module in pure_modules():
        path = ROOT / (module.replace(".", "/") + ".py")
        path = path if path.exists() else ROOT / module.replace(".", "/") / "__init__.py"
        lines = django_imports(path.read_text())
        if lines:
            offenders[module] = lines
    assert offenders == {}


def test_the_rule_catches_an_import_of_django_deferred_into_a_function():
    source = "import os\n\ndef f():\n    from django.conf import settings\n    return settings\n"
    assert django_imports(source) == [4]
    assert django_imports("def g():\n    import django.db\n") == [2]
    assert django_imports("from .django import x\n") == []  # a sibling module of that name is not Django
