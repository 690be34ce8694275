"""Every write lives where docs/architecture.md says it does: ORM writes and hand-written INSERT/UPDATE/DELETE
statements appear only in services (`services.py` or `services/`), the job runner and uploads; each writer writes
only the models the ownership table gives it; and every database cursor, raw query and look at the vendor is in the
one SQL layer. Each rule is also run on a copy of the project broken on purpose, and must fail there."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.rules.project import ROOT, inject, project_copy, source_files
from tests.rules.writes import model_names, writes_in

# Outside services only these write: the job runner and the upload store (docs/architecture.md, "Which module writes
# each entity").
ALLOWED_ELSEWHERE = {"judging/jobs/runner.py", "judging/jobs/uploads.py", "config/sql.py"}
# Every hand-written statement and every switch on the database's vendor: the one SQL layer, and the list field's
# own conversions (a Django field says how it is stored per vendor).
SQL_LAYER = {"config/sql.py", "evaluation/fields.py"}


def is_service(relative: str) -> bool:
    return "/services/" in f"/{relative}" or relative.endswith("/services.py")


def modules_that_write(root: Path = ROOT) -> dict[str, list[tuple[int, str, str | None]]]:
    models = model_names(root)
    found = {}
    for relative, path in source_files(root):
        writes = writes_in(path.read_text(), models)
        if writes:
            found[relative] = writes
    return found


def writes_outside_services(root: Path = ROOT) -> dict[str, list]:
    return {
        module: [(line, what) for line, what, _ in writes]
        for module, writes in modules_that_write(root).items()
        if not (is_service(module) or module in ALLOWED_ELSEWHERE)
    }


def raw_sql_in(source: str) -> list[tuple[int, str]]:
    """(line, what) for each database cursor taken (whatever it is then called), each raw query (`.raw()`,
    `.extra()`, `RawSQL`) and each look at the database's vendor. DuckDB's connections, `con.execute`, read files,
    not the database, and take no cursor."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            called = ast.unparse(node.func)
            if isinstance(node.func, ast.Attribute) and node.func.attr in {"cursor", "raw", "extra"}:
                found.append((node.lineno, f"{called}()"))
            elif called.split(".")[-1] == "RawSQL":
                found.append((node.lineno, "RawSQL()"))
        if isinstance(node, ast.Attribute) and node.attr == "vendor" and ast.unparse(node.value).endswith("connection"):
            found.append((node.lineno, "connection.vendor"))
    return sorted(found)


def raw_sql_outside_the_sql_layer(root: Path = ROOT) -> dict[str, list]:
    outside = {}
    for relative, path in source_files(root):
        found = [] if relative in SQL_LAYER else raw_sql_in(path.read_text())
        if found:
            outside[relative] = found
    return outside


def ownership_table(root: Path = ROOT) -> list[tuple[set[str], set[str]]]:
    """(models, modules) of each row of the ownership table of who writes what."""
    doc = (root / "docs" / "architecture.md").read_text()
    table = doc.split("### Which module writes each entity", 1)[1].split("\n\n", 2)[1]
    rows = [line for line in table.splitlines() if line.startswith("|") and not line.startswith("|---")][1:]
    parsed = []
    for row in rows:
        cells = row.split("|")
        parsed.append((set(re.findall(r"`(\w+)`", cells[2])), set(re.findall(r"`([\w/]+\.py)`", cells[3]))))
    return parsed


def writes_not_granted(root: Path = ROOT) -> dict[str, list]:
    """Each module's writes of a model the ownership table does not give it."""
    granted: dict[str, set[str]] = {}
    for models, modules in ownership_table(root):
        for module in modules:
            granted.setdefault(module, set()).update(models)
    return {
        module: foreign
        for module, writes in modules_that_write(root).items()
        if (
            foreign := sorted(
                {(line, entity) for line, _, entity in writes if entity and entity not in granted.get(module, set())}
            )
        )
    }


def test_no_write_outside_services_the_job_runner_and_uploads():
    assert writes_outside_services() == {}


def test_cursors_raw_queries_and_the_vendor_switch_live_in_the_one_sql_layer():
    assert raw_sql_outside_the_sql_layer() == {}


def test_each_module_writes_only_the_models_the_ownership_table_gives_it():
    assert writes_not_granted() == {}


def test_the_ownership_table_names_exactly_the_modules_that_write_and_every_model():
    writers = set(modules_that_write())
    assert {m for m in writers if not is_service(m)} == ALLOWED_ELSEWHERE
    table = ownership_table()
    assert set().union(*(modules for _, modules in table)) == writers
    written = {entity for writes in modules_that_write().values() for _, _, entity in writes if entity}
    assert written <= set().union(*(models for models, _ in table)) <= model_names(ROOT)


def test_writes_are_seen_through_variables_annotations_and_names():
    models = {"Judgment", "PoolItem", "Job"}
    source = (
        "def view(request, topic, judgment: Judgment, job):\n"
        "    rows = Judgment.objects.filter(topic=topic)\n"
        "    rows.update(grade=1)\n"
        "    judgment.save()\n"
        "    counts.update(seen)\n"
        "    for item in PoolItem.objects.all():\n"
        "        item.delete()\n"
        "    locked_job.save()\n"
        "    cursor.execute(f'DELETE FROM {table} WHERE id = %s', [1])\n"
    )
    assert writes_in(source, models) == [
        (3, "rows.update()", "Judgment"),
        (4, "judgment.save()", "Judgment"),
        (7, "item.delete()", "PoolItem"),
        (8, "locked_job.save()", "Job"),
        (9, "DELETE statement", None),
    ]


def test_a_cursor_is_caught_whatever_it_is_called():
    source = "db = connection.cursor()\ndb.execute('SELECT 1')\nJudgment.objects.raw('SELECT 1')\nconnection.vendor\n"
    assert raw_sql_in(source) == [(1, "connection.cursor()"), (3, "Judgment.objects.raw()"), (4, "connection.vendor")]


@pytest.fixture(scope="module")
def broken(tmp_path_factory):
    """A fresh copy of the project for each violation: `broken(module, code)` returns its root."""

    def make(relative: str, code: str) -> Path:
        root = project_copy(tmp_path_factory.mktemp("project"))
        inject(root, relative, code)
        return root

    return make


def test_the_rules_fail_on_an_orm_write_through_a_variable_in_a_view(broken):
    root = broken(
        "judging/views/assessor.py",
        "def v(request):\n    rows = Judgment.objects.filter(pk=1)\n    rows.update(grade=2)\n",
    )
    assert list(writes_outside_services(root)) == ["judging/views/assessor.py"]


def test_the_rules_fail_on_a_cursor_under_another_name(broken):
    root = broken("judging/views/assessor.py", "def v():\n    db = connection.cursor()\n    db.execute('SELECT 1')\n")
    assert list(raw_sql_outside_the_sql_layer(root)) == ["judging/views/assessor.py"]


def test_the_rules_fail_on_a_service_writing_a_model_that_is_not_its_own(broken):
    root = broken("judging/preferences/services.py", "def f(judgment):\n    judgment.save()\n")
    assert [(module, [entity for _, entity in found]) for module, found in writes_not_granted(root).items()] == [
        ("judging/preferences/services.py", ["Judgment"])
    ]
