"""A search log's columnar store: Parquet files partitioned by day, one folder an import, read by DuckDB.

Layout (hive-style, so Spark, Trino or DuckDB elsewhere read the same folder):
`<root>/import=<id>/queries/day=YYYY-MM-DD/*.parquet` and `<root>/import=<id>/events/day=.../*.parquet`.
An import is staged beside the store and appears by one folder rename, so a failed import leaves nothing and a
reader never sees half of one. Rows whose id the store already holds are skipped: importing a file twice adds
nothing. Pure: no Django.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import shutil
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import duckdb

from evaluation.online.core import records, sources
from measures.lines import Problems

Progress = Callable[[int, int], None]
KINDS = ("queries", "events")
ID = {"queries": "query_id", "events": "event_id"}
COLUMNS = {"queries": sources.QUERY_COLUMNS, "events": sources.EVENT_COLUMNS}
EMPTY = {
    "queries": "SELECT NULL::VARCHAR AS query_id, NULL::VARCHAR AS client_id, NULL::VARCHAR AS session_id, "
    "NULL::VARCHAR AS application, NULL::VARCHAR AS user_query, NULL::VARCHAR[] AS hits, "
    "NULL::VARCHAR AS attributes, NULL::TIMESTAMP AS ts WHERE false",
    "events": "SELECT NULL::VARCHAR AS event_id, NULL::VARCHAR AS query_id, NULL::VARCHAR AS session_id, "
    "NULL::VARCHAR AS client_id, NULL::VARCHAR AS action_name, NULL::VARCHAR AS object_id, NULL::INTEGER AS ordinal, "
    "NULL::DOUBLE AS dwell_seconds, NULL::TIMESTAMP AS ts WHERE false",
}


class LogImportFailed(ValueError):
    """A log file broke a rule; nothing was imported. `problems` names the file, line and field of each."""

    def __init__(self, problems: Problems):
        self.problems, self.count = problems.listed, problems.count
        noun = "problem" if self.count == 1 else "problems"
        super().__init__(f"{self.count} {noun}; nothing was imported.\n{problems.summary()}")


@dataclass(frozen=True)
class ImportSummary:
    queries: int
    events: int
    skipped_queries: int  # already in the store (or repeated in the file)
    skipped_events: int
    days: list[str]

    def as_dict(self) -> dict:
        return {
            "queries": self.queries,
            "events": self.events,
            "skipped_queries": self.skipped_queries,
            "skipped_events": self.skipped_events,
            "days": self.days,
        }


def views(con: duckdb.DuckDBPyConnection, root: Path | None) -> duckdb.DuckDBPyConnection:
    """Defines the `queries` and `events` views over a store (an empty store, or None, gives empty views)."""
    for kind in KINDS:
        files = sorted(Path(root).glob(f"import=*/{kind}/day=*/*.parquet")) if root else []
        if files:
            listed = "[" + ", ".join(sources.quoted(f) for f in files) + "]"
            source = f"SELECT {COLUMNS[kind]} FROM read_parquet({listed}, hive_partitioning=false)"
        else:
            source = EMPTY[kind]
        con.execute(f"CREATE OR REPLACE TEMP VIEW {kind} AS {source}")
    return con


def connect(root: Path | None, **options) -> duckdb.DuckDBPyConnection:
    return views(sources.connection(**options), root)


@contextlib.contextmanager
def _locked(root: Path) -> Iterator[None]:
    """One import at a time per store (two at once could both add the same id)."""
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _with_progress(con: duckdb.DuckDBPyConnection, sql: str, report: Callable[[float], None]) -> None:
    """Runs one statement, reporting DuckDB's own progress (0–1) from a watching thread."""
    finished = threading.Event()

    def watch():
        while not finished.wait(0.25):
            with contextlib.suppress(Exception):
                share = con.query_progress()
                if share >= 0:
                    report(share / 100)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        con.execute(sql)
    finally:
        finished.set()
        watcher.join()


def careful_problems(path: Path, *, log_format: str, kind: str, name: str) -> Problems:
    """The problems the careful reader finds in a file the fast reader declined."""
    problems = Problems()
    for _ in records.LOG_FORMATS[log_format].readers[kind](path, problems, name=name):
        pass
    return problems


def _header_problems(path: Path, name: str, header: tuple[str, ...]) -> Problems:
    problems = Problems()
    with open(path, "rb") as handle:
        first = handle.readline().decode("utf-8", "replace").lstrip("\ufeff").rstrip("\r\n")
    if tuple(first.split("\t")) != header:
        problems.add(name, 1, None, "expected the header line " + "\\t".join(header))
    return problems


def _holds_rows(con, target: Path) -> bool:
    return con.execute(f"SELECT count(*) FROM {sources.quoted(target)}").fetchone()[0] > 0


def import_log(
    root: Path,
    *,
    files: dict[str, Path],
    log_format: str,
    names: dict[str, str] | None = None,
    progress: Progress | None = None,
    threads: int | None = None,
) -> ImportSummary:
    """Imports a log's files (`files`: kind → path; UBI has a queries and an events file, AOL one file for both)
    into the store at `root`, atomically. Raises LogImportFailed naming every faulty line's file, line and field."""
    if log_format not in records.FORMATS:
        raise ValueError(f"unknown log format {log_format!r}; expected one of {', '.join(records.FORMATS)}")
    root = Path(root)
    names = names or {}
    log = records.LOG_FORMATS[log_format]
    inputs = {kind: Path(path) for kind, path in log.files(files).items() if kind in KINDS}
    staging = root / ".staging" / uuid.uuid4().hex
    staging.mkdir(parents=True)
    steps = len(inputs) + 1
    report = progress or (lambda done, total: None)
    try:
        con = sources.connection(threads=threads, temp_directory=str(staging / "spill"))
        for step, (kind, path) in enumerate(inputs.items()):
            name = names.get(kind) or names.get("log") or path.name
            if log.header:
                header = _header_problems(path, name, log.header)
                if header:
                    raise LogImportFailed(header)
            target = staging / f"{kind}.parquet"
            read = sources.READERS[(log_format, kind)](path)
            declined = None
            try:
                _with_progress(
                    con,
                    f"COPY ({read}) TO {sources.quoted(target)} (FORMAT parquet)",
                    lambda share, step=step: report(int((step + share) * 100), steps * 100),
                )
                faults = con.execute(f"SELECT count(*) FROM {sources.quoted(target)} WHERE fault").fetchone()[0]
            except duckdb.Error as error:
                declined, faults = error, 1
            if not faults and kind == "queries" and not _holds_rows(con, target):
                empty = Problems()
                empty.add(name, 0, None, "holds no query: the file is empty or blank")
                raise LogImportFailed(empty)
            if faults:
                problems = careful_problems(path, log_format=log_format, kind=kind, name=name)
                if not problems:  # the careful reader accepts what DuckDB could not read: say what DuckDB said
                    problems.add(name, 0, None, f"could not be read: {str(declined or 'a line was refused')[:300]}")
                raise LogImportFailed(problems)
        with _locked(root):
            views(con, root)
            out = staging / "out"
            counts = {}
            for kind in inputs:
                staged = sources.quoted(staging / f"{kind}.parquet")
                key = ID[kind]
                fresh = (
                    f"SELECT {COLUMNS[kind]}, strftime(ts, '%Y-%m-%d') AS day FROM {staged} s "
                    f"WHERE NOT EXISTS (SELECT 1 FROM {kind} k WHERE k.{key} = s.{key}) "
                    f"QUALIFY row_number() OVER (PARTITION BY {key} ORDER BY ts) = 1"
                )
                total = con.execute(f"SELECT count(*) FROM {staged}").fetchone()[0]
                (out / kind).mkdir(parents=True, exist_ok=True)
                added = con.execute(
                    f"COPY ({fresh}) TO {sources.quoted(out / kind)} (FORMAT parquet, PARTITION_BY (day), "
                    "OVERWRITE_OR_IGNORE)"
                ).fetchone()[0]
                counts[kind] = (added, total - added)
            days = sorted({d.name.removeprefix("day=") for d in out.glob("*/day=*")}) if out.exists() else []
            con.close()
            if out.exists():
                out.rename(root / f"import={staging.name}")
        report(steps * 100, steps * 100)
        return ImportSummary(
            queries=counts.get("queries", (0, 0))[0],
            events=counts.get("events", (0, 0))[0],
            skipped_queries=counts.get("queries", (0, 0))[1],
            skipped_events=counts.get("events", (0, 0))[1],
            days=days,
        )
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def imports(root: Path | None) -> list[str]:
    return sorted(d.name for d in Path(root).glob("import=*")) if root and Path(root).exists() else []


def prepared_connection(root: Path, settings, **options) -> duckdb.DuckDBPyConnection:
    """A connection whose `qa`, `sa` and `clicks` (see `measures.prepare`) are ready for `settings`: read from the
    store's cache when this set of imports was prepared with these settings before, else computed and cached.
    A month of ten million events takes tens of seconds to prepare and about a second to read every figure from."""
    from evaluation.online.core.measures import PREPARED_TABLES, prepare, prepared_key

    key = json.dumps({"settings": prepared_key(settings), "imports": imports(root)}, sort_keys=True)
    folder = Path(root) / "prepared" / hashlib.sha1(key.encode()).hexdigest()[:20]
    if not folder.exists():
        con = connect(root, **options)
        prepare(con, settings)
        staging = Path(root) / ".staging" / f"prepared-{uuid.uuid4().hex}"
        staging.mkdir(parents=True)
        try:
            for table in PREPARED_TABLES:
                con.execute(f"COPY {table} TO {sources.quoted(staging / f'{table}.parquet')} (FORMAT parquet)")
            (staging / "key.json").write_text(key)
            folder.parent.mkdir(parents=True, exist_ok=True)
            with contextlib.suppress(OSError):  # another process prepared the same meanwhile: theirs is as good
                staging.rename(folder)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return con
    con = sources.connection(**options)
    for table in PREPARED_TABLES:
        con.execute(
            f"CREATE OR REPLACE TEMP VIEW {table} AS SELECT * FROM read_parquet("
            f"{sources.quoted(folder / f'{table}.parquet')})"
        )
    return con


def store_delete(root: Path) -> None:
    shutil.rmtree(root, ignore_errors=True)
