"""The rule that watches what runs: every statement the database is sent, whatever the Python spelling that sent it.

Installed once for the whole suite (`tests/conftest.py`), on every connection as it is made (Django's
`execute_wrapper`), it attributes each statement to the project module that issued it: the innermost frame of the
project's packages, the one SQL layer (`config/sql.py`) and model classes looked through, since they run on behalf
of their caller. Then:

- an INSERT, UPDATE or DELETE of a project table must come from a module the ownership table grants that table's
  model (docs/architecture.md, "Which module writes each entity"); a DELETE cascading from another row is judged as a
  write of the row the delete began from (so a topic's service deleting a topic may take its judgments with it, but
  not delete them by hand);
- a read of the judgments table must come from a selector or a service (where "whose labels count" is decided),
  except the deletion collector's look at what a delete takes with it.

A test's own statements (arranging data) and migrations are the operators' and pass. Violations are collected, not
raised, so a caller that catches errors cannot hide one; each test fails at its end if it issued any.
"""

from __future__ import annotations

import re
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ("config.", "judging.", "evaluation.", "measures.")
LOOKED_THROUGH = ("config.sql", __name__)  # run statements for their caller, who is judged instead
LABELS_TABLE = "judging_judgment"
# The apps' own tables; Django's (sessions, the user's last login) are written by Django on the project's behalf.
APP_TABLES = ("judging_", "evaluation_")
BUILT_BY = "_workbench_built_by"
WRITE = re.compile(r'^\s*(?:WITH\b.*?\)\s*)?(INSERT\s+INTO|UPDATE|DELETE\s+FROM|COPY)\s+"?(\w+)"?', re.I | re.S)
READS_LABELS = re.compile(rf'\b(?:FROM|JOIN)\s+"?{LABELS_TABLE}"?(?:\s|$|,|\))', re.I)


@dataclass
class Ownership:
    """Which project modules may write each table, read from the ownership table of docs/architecture.md."""

    writers: dict[str, set[str]] = field(default_factory=dict)  # table -> modules ("judging.services.topics")

    @classmethod
    def from_docs(cls, models: dict[str, str], root: Path = ROOT) -> Ownership:
        """`models` maps each model's name to its table."""
        from tests.rules.test_write_locations import ownership_table

        writers: dict[str, set[str]] = {}
        for names, modules in ownership_table(root):
            for name in names:
                if name in models and models[name].startswith(APP_TABLES):
                    writers.setdefault(models[name], set()).update(
                        m.removesuffix(".py").replace("/", ".") for m in modules
                    )
        return cls(writers)


def issuer(frame) -> str | None:
    """The project module that issued a statement: the innermost project frame, SQL layer and models looked
    through. None when no project code is on the stack (Django's own writes: sessions, last login)."""
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if _judged(name):
            return name
        frame = frame.f_back
    return None


def _judged(module: str) -> bool:
    """Whether statements made in this module are its own (not the SQL layer's or a model's, run for a caller)."""
    inside = module.startswith(PROJECT) or module.startswith("tests.")
    return inside and not (module in LOOKED_THROUGH or "models" in module.split("."))


def reader(frame) -> str | None:
    """The project module a read is counted against. A queryset is counted against the module that built it (a
    selector's queryset, paginated or rendered by a page, is the selector's read), and so is a query Django runs while
    evaluating it (a prefetch); any other statement against its issuer."""
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if name == "django.db.models.query":
            built_by = getattr(frame.f_locals.get("self"), BUILT_BY, None)
            if built_by is not None:
                return built_by
        elif _judged(name):
            return name
        frame = frame.f_back
    return None


def stamp_querysets() -> None:
    """Every queryset made from now on remembers which module built it (a clone, the module of the one it was cloned
    from)."""
    from django.db.models import query

    if getattr(query.QuerySet, "_built_by_stamped", False):
        return
    made, cloned = query.QuerySet.__init__, query.QuerySet._clone

    def __init__(self, *args, **kwargs):
        made(self, *args, **kwargs)
        setattr(self, BUILT_BY, reader(sys._getframe(1)))

    def _clone(self):
        clone = cloned(self)
        setattr(clone, BUILT_BY, getattr(self, BUILT_BY, None))
        return clone

    query.QuerySet.__init__, query.QuerySet._clone = __init__, _clone
    query.QuerySet._built_by_stamped = True


def delete_origin_table(frame) -> str | None:
    """For a statement inside Django's deletion collector: the table of the row or queryset the delete began from."""
    while frame is not None:
        if frame.f_code.co_name == "delete" and frame.f_globals.get("__name__") == "django.db.models.deletion":
            origin = getattr(frame.f_locals.get("self"), "origin", None)
            model = getattr(origin, "model", None) or type(origin)
            return getattr(getattr(model, "_meta", None), "db_table", None)
        frame = frame.f_back
    return None


def _inside_deletion(frame) -> bool:
    """Whether Django's deletion collector runs this statement: it reads what a delete would take with it (the admin
    lists it before asking), which counts no label for any figure."""
    while frame is not None:
        if frame.f_globals.get("__name__") == "django.db.models.deletion":
            return True
        frame = frame.f_back
    return False


def _is_owner(module: str, owners: set[str]) -> bool:
    return any(module == owner or module.startswith(owner + ".") for owner in owners)


def _exempt(module: str | None) -> bool:
    return module is None or module.startswith("tests.") or ".migrations." in module


def _may_read_labels(module: str) -> bool:
    parts = module.split(".")
    return any(part in {"selectors", "services"} for part in parts)


def violation(sql: str, frame, ownership: Ownership) -> str | None:
    """What is wrong with this statement, sent from this stack; None when nothing is."""
    module = issuer(frame)
    if _exempt(module):
        return None
    write = WRITE.match(sql)
    if write:
        table = write.group(2)
        if write.group(1).upper().startswith("DELETE") or write.group(1).upper() == "UPDATE":
            table = delete_origin_table(frame) or table
        owners = ownership.writers.get(table)
        if owners is not None and not _is_owner(module, owners):
            return f"{module} wrote {table}, which only {', '.join(sorted(owners))} may write"
        return None
    if READS_LABELS.search(sql) and not _inside_deletion(frame):
        module = reader(frame)
        if not (_exempt(module) or _may_read_labels(module)):
            return f"{module} read {LABELS_TABLE}, which only selectors and services may read"
    return None


class StatementWatch:
    """The installed check: one per test session, its violations emptied by each test."""

    def __init__(self, ownership: Ownership) -> None:
        self.ownership = ownership
        self.found: list[str] = []
        self._lock = threading.Lock()

    def __call__(self, execute, sql, params, many, context):
        problem = violation(sql if isinstance(sql, str) else str(sql), sys._getframe(1), self.ownership)
        if problem:
            with self._lock:
                self.found.append(f"{problem}: {' '.join(str(sql).split())[:160]}")
        return execute(sql, params, many, context)

    def install(self, connection) -> None:
        if self not in connection.execute_wrappers:
            connection.execute_wrappers.append(self)

    def taken(self) -> list[str]:
        with self._lock:
            found, self.found = self.found, []
        return found
