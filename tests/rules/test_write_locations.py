"""Every write lives where the README says it does: ORM writes and hand-written INSERT/UPDATE/DELETE statements
appear only in services (`*/services/`), the job runner and uploads, and the README's table of which module writes
each entity names exactly the modules that do."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("config", "judging", "evaluation", "measures")
# Methods that write whatever they are called on (a model instance or a queryset).
WRITES = {"save", "delete", "bulk_create", "bulk_update", "get_or_create", "update_or_create"}
# Methods that write when called on a manager or queryset (dicts and sets have an `update` of their own).
QUERYSET_WRITES = {"create", "update"}
QUERYSET = re.compile(r"\bobjects\b|\.(filter|exclude|all|select_for_update)\(|_set$")
SQL_WRITE = re.compile(r"^\s*(INSERT\s+INTO|UPDATE\s+\S+(\s+AS\s+\S+)?\s+SET|DELETE\s+FROM)\b", re.IGNORECASE)
# Outside services only these write: the job runner and the upload store (README, "Which module writes each entity").
ALLOWED_ELSEWHERE = {"judging/jobs/runner.py", "judging/jobs/uploads.py", "config/sql.py"}
# Every hand-written statement and every switch on the database's vendor: the one SQL layer, and the list field's
# own conversions (a Django field says how it is stored per vendor).
SQL_LAYER = {"config/sql.py", "evaluation/fields.py"}


def _is_allowed(relative: str) -> bool:
    return "/services/" in f"/{relative}" or relative.endswith("/services.py") or relative in ALLOWED_ELSEWHERE


def _text(node) -> str | None:
    """A string literal's text; an f-string's with `{}` for each value formatted in."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(part.value if isinstance(part, ast.Constant) else "{}" for part in node.values)
    return None


def writes_in(source: str) -> list[tuple[int, str]]:
    """(line, what) for each ORM write call and each literal SQL write statement in a module's source."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            method, receiver = node.func.attr, ast.unparse(node.func.value)
            listing_only = any(k.arg == "commit" and ast.unparse(k.value) == "False" for k in node.keywords)
            if (method in WRITES and not listing_only) or (method in QUERYSET_WRITES and QUERYSET.search(receiver)):
                found.append((node.lineno, f"{receiver}.{method}()"))
        text = _text(node)
        if text is not None and SQL_WRITE.match(text):
            found.append((node.lineno, text.split()[0].upper() + " statement"))
    return list(dict.fromkeys(found))  # an f-string's text and its first literal part are one statement


def modules_that_write() -> dict[str, list[tuple[int, str]]]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            writes = writes_in(path.read_text())
            if writes:
                found[path.relative_to(ROOT).as_posix()] = writes
    return found


def test_no_write_outside_services_the_job_runner_and_uploads():
    outside = {module: writes for module, writes in modules_that_write().items() if not _is_allowed(module)}
    assert outside == {}


def raw_sql_in(source: str) -> list[tuple[int, str]]:
    """(line, what) for each database cursor's execute and each look at the database's vendor (DuckDB's
    connections, `con`, are files' readers, not the database)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "execute":
            receiver = ast.unparse(node.func.value)
            if "cursor" in receiver:
                found.append((node.lineno, f"{receiver}.execute()"))
        if isinstance(node, ast.Attribute) and node.attr == "vendor" and ast.unparse(node.value).endswith("connection"):
            found.append((node.lineno, "connection.vendor"))
    return sorted(found)


def test_hand_written_sql_and_the_vendor_switch_live_in_the_one_sql_layer():
    outside = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            module = path.relative_to(ROOT).as_posix()
            if "migrations" in path.parts or module in SQL_LAYER:
                continue
            found = raw_sql_in(path.read_text())
            if found:
                outside[module] = found
    assert outside == {}
    assert raw_sql_in("with connection.cursor() as cursor:\n    cursor.execute('SELECT 1')\nconnection.vendor\n") == [
        (2, "cursor.execute()"),
        (3, "connection.vendor"),
    ]


def test_the_check_catches_an_orm_write_and_a_raw_statement_in_a_view():
    view = (
        "def judge(request, topic):\n"
        "    Judgment.objects.filter(topic=topic).update(grade=1)\n"
        "    judgment.save()\n"
        "    counts.update(seen)\n"
        "    cursor.execute(f'DELETE FROM {table} WHERE id = %s', [1])\n"
    )
    assert writes_in(view) == [
        (2, "Judgment.objects.filter(topic=topic).update()"),
        (3, "judgment.save()"),
        (5, "DELETE statement"),
    ]
    assert not _is_allowed("judging/views/assessor.py") and _is_allowed("judging/services/judgments.py")


def _readme_writers() -> set[str]:
    readme = (ROOT / "README.md").read_text()
    table = readme.split("### Which module writes each entity", 1)[1].split("\n\n", 2)[1]
    rows = [line for line in table.splitlines() if line.startswith("|") and not line.startswith("|---")][1:]
    return {path for row in rows for path in re.findall(r"`([\w/]+\.py)`", row.split("|")[2])}


def test_the_readme_table_names_exactly_the_modules_that_write():
    writers = set(modules_that_write())
    services_packages = {m for m in writers if "/services/" in m or m.endswith("/services.py")}
    assert writers - services_packages == ALLOWED_ELSEWHERE
    assert _readme_writers() == writers
