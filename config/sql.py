"""The one SQL layer: every statement the project writes by hand, and the one switch on the database's vendor.

Through the ORM, the few statements that run on every judgment and every recompute cost more in Python (model
instances, query compilation) than in the database, and a round trip on loopback more than most of them take there.
So these are built here, from the models' own metadata (tables, columns, placeholders and conversions stay the
models'), with every value bound as a parameter (only identifiers from that metadata are formatted in), and sent
together where PostgreSQL allows one query string for several. Elsewhere (the embedded SQLite default) each has
a plain equivalent. Callers state what they need: a batch of statements, an upsert, an insert-if-absent, a claim
of a stale row, a lock, a commit that does not wait for the disk; none of them mentions a vendor.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Sequence

from django.db import connection
from django.utils import timezone

Statement = tuple[str, list]


def is_postgresql() -> bool:
    return connection.vendor == "postgresql"


def concurrent_writers() -> bool:
    """Whether a second connection may write while another's transaction is open (not SQLite, whose one writer
    makes any other wait)."""
    return connection.vendor != "sqlite"


def several_statements_cursor():
    """A cursor that takes one query string of several statements. PostgreSQL binds parameters in the server
    (settings: so that a statement run often is prepared there, planned once), and a statement bound there must be
    one statement; a string of several, sent to save round trips, is bound here instead (psycopg's client-side
    cursor, as Django's own is), which PostgreSQL's simple protocol runs in one trip. Elsewhere a plain cursor."""
    if not is_postgresql() or not connection.settings_dict["OPTIONS"].get("server_side_binding"):
        return connection.cursor()
    from django.db.backends.postgresql.base import Cursor  # Django's client-side cursor: its adapters, its types

    connection.ensure_connection()
    driver = connection.connection
    factory, driver.cursor_factory = driver.cursor_factory, Cursor
    try:
        return connection.cursor()  # Django's wrapper over it: its error translation, its query log
    finally:
        driver.cursor_factory = factory


def fetch(sql: str, params: Sequence) -> list[tuple]:
    """One statement's rows."""
    with connection.cursor() as cursor:
        cursor.execute(sql, list(params))
        return cursor.fetchall()


def fetch_each(statements: list[Statement]) -> list[list[tuple]]:
    """Each statement's rows; on PostgreSQL sent as one query string (one round trip), elsewhere one by one."""
    if not is_postgresql():
        return [fetch(sql, params) for sql, params in statements]
    results = []
    with several_statements_cursor() as cursor:
        cursor.execute("; ".join(sql for sql, _ in statements), [p for _, params in statements for p in params])
        for index in range(len(statements)):
            if index:
                cursor.nextset()
            results.append(cursor.fetchall())
    return results


def commit_without_waiting_for_disk() -> None:
    """Lets the current transaction's COMMIT return before its WAL reaches the disk (PostgreSQL; a no-op elsewhere).

    Only for derived results: a crash can lose the last fraction of a second of commits, whole transactions never
    halves, and a lost result leaves its topic stale (the state row is in the same transaction), so the sweep
    computes it again. Judgments never use this. It saves an fsync, most of a topic's store on a slow disk.
    """
    if is_postgresql():
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL synchronous_commit TO OFF")


def run_together(statements: Sequence[Statement]) -> list[tuple]:
    """Runs the statements in order, in the current transaction, and returns the last one's rows (if it returns
    any). On PostgreSQL they travel as one query string; elsewhere one by one."""
    statements = [statement for statement in statements if statement]
    if not statements:
        return []
    with several_statements_cursor() as cursor:
        if is_postgresql():
            cursor.execute("; ".join(sql for sql, _ in statements), [p for _, params in statements for p in params])
            for _ in statements[1:]:
                cursor.nextset()
        else:
            for sql, params in statements:
                cursor.execute(sql, params)
        return cursor.fetchall() if cursor.description else []


def without_waiting_for_disk() -> Statement | None:
    """The statement that lets the current transaction's COMMIT return before its WAL reaches the disk, for
    `run_together` (see `commit_without_waiting_for_disk`); None where there is no such thing."""
    return ("SET LOCAL synchronous_commit TO OFF", []) if is_postgresql() else None


def rows_select(
    model, fields: Sequence[str], where: str, params: Sequence, *, lock: bool = False, extra: Sequence[Statement] = ()
) -> list[tuple]:
    """`fields` of the rows matching `where` (SQL over the table's columns); fields with a conversion of their own
    (list columns) converted as the model reads them, others as the driver returns them. `extra`: (SQL expression,
    its parameters) returned after the fields, as the driver returns them (scalar subqueries, say, to read more in
    the same round trip). With `lock`, the rows are locked for the transaction (where the database locks rows)."""
    columns = [model._meta.get_field(name) for name in fields]
    names = ", ".join([*(connection.ops.quote_name(f.column) for f in columns), *(sql for sql, _ in extra)])
    sql = f"SELECT {names} FROM {connection.ops.quote_name(model._meta.db_table)} WHERE {where}"
    params = [*(p for _, extra_params in extra for p in extra_params), *params]
    if lock and connection.features.has_select_for_update:
        sql += " FOR UPDATE"
    converters = [getattr(f, "from_db_value", None) for f in columns] + [None] * len(extra)
    if is_postgresql():
        # Results in binary, on the same connection and transaction: printing a dozen rows of number arrays as text
        # and parsing them back cost ten times the query (a float8 travels as its eight bytes, exactly).
        import psycopg  # the PostgreSQL driver: imported only where it is the database

        connection.ensure_connection()
        # Django's connections make client-side cursors, which cannot return binary: a plain one, server binding.
        with psycopg.Cursor(connection.connection) as cursor:
            cursor.execute(sql, list(params), binary=True)
            rows = cursor.fetchall()
    else:
        with connection.cursor() as cursor:
            cursor.execute(sql, list(params))
            rows = cursor.fetchall()
    return [
        tuple(v if load is None else load(v, None, connection) for load, v in zip(converters, row, strict=True))
        for row in rows
    ]


def upsert(
    model, fields: Sequence[str], rows: Sequence[Sequence], unique: Sequence[str], *, where: str = ""
) -> Statement | None:
    """One INSERT ... ON CONFLICT statement (PostgreSQL, and SQLite since 3.24) writing `rows` (values aligned
    with `fields`), a row with the same `unique` fields updated in place. `where` names the predicate of a partial
    unique constraint on those fields. None when there are no rows."""
    if not rows:
        return None
    columns = [model._meta.get_field(name) for name in fields]
    quote = connection.ops.quote_name
    row_placeholder = "(" + ", ".join(_placeholder(f) for f in columns) + ")"
    conflict = ", ".join(quote(model._meta.get_field(name).column) for name in unique)
    updates = ", ".join(f"{quote(f.column)} = EXCLUDED.{quote(f.column)}" for f in columns if f.name not in unique)
    sql = (
        f"INSERT INTO {quote(model._meta.db_table)} ({', '.join(quote(f.column) for f in columns)}) "
        f"VALUES {', '.join([row_placeholder] * len(rows))} "
        f"ON CONFLICT ({conflict}) {f'WHERE {where} ' if where else ''}DO UPDATE SET {updates}"
    )
    return sql, [f.get_db_prep_save(value, connection) for row in rows for f, value in zip(columns, row, strict=True)]


def updates(model, fields: Sequence[str], rows: Sequence[Sequence]) -> list[Statement]:
    """The statements for `run_together` that update rows given as (primary key, *values aligned with fields): on
    PostgreSQL one UPDATE ... FROM VALUES for them all (a topic's store moves about eight rows of totals, and each
    statement of its own was parsed and planned again), elsewhere one per row. Django's bulk_update builds a CASE
    expression per field per row, which for the few wide rows of a topic's store took longer than the database."""
    columns = [model._meta.get_field(name) for name in fields]
    quote, pk = connection.ops.quote_name, model._meta.pk
    table, key = quote(model._meta.db_table), quote(pk.column)
    values = [[pk.get_db_prep_save(row[0], connection), *_prepared(columns, row[1:])] for row in rows]
    if is_postgresql() and len(rows) > 1:
        # Cast in every row, not just the first: VALUES takes a column's type from all its rows, and a NULL or a
        # number array of one row would otherwise be read as text.
        row_sql = "(" + ", ".join(f"%s::{f.db_type(connection)}" for f in [pk, *columns]) + ")"
        names = ", ".join(quote(f.column) for f in [pk, *columns])
        assignments = ", ".join(f"{quote(f.column)} = v.{quote(f.column)}" for f in columns)
        sql = (
            f"UPDATE {table} AS t SET {assignments} FROM (VALUES {', '.join([row_sql] * len(rows))}) AS v({names}) "
            f"WHERE t.{key} = v.{key}"
        )
        return [(sql, [value for row in values for value in row])]
    assignments = ", ".join(f"{quote(f.column)} = {_placeholder(f)}" for f in columns)
    sql = f"UPDATE {table} SET {assignments} WHERE {key} = %s"
    return [(sql, [*row[1:], row[0]]) for row in values]


def update_many(model, fields: Sequence[str], rows: Sequence[Sequence]) -> None:
    """Updates many rows given as (primary key, *values aligned with fields), for a bulk write (an import's batch of
    thousands): on PostgreSQL the values are COPYed into a temporary table and one UPDATE ... FROM it sets them all
    (a VALUES list of 10,000 placeholders is parsed again on the client for every batch and planned again on the
    server); elsewhere, and for a row or two, `updates`."""
    from django.db import transaction

    if not is_postgresql() or len(rows) < 3:
        run_together(updates(model, fields, rows))
        return
    columns = [model._meta.get_field(name) for name in fields]
    quote, pk = connection.ops.quote_name, model._meta.pk
    table, key = quote(model._meta.db_table), quote(pk.column)
    staging = quote(f"staging_{model._meta.db_table}")
    names = ", ".join(quote(f.column) for f in [pk, *columns])
    assignments = ", ".join(f"{quote(f.column)} = v.{quote(f.column)}" for f in columns)
    definition = ", ".join(f"{quote(f.column)} {f.db_type(connection)}" for f in [pk, *columns])
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"CREATE TEMPORARY TABLE {staging} ({definition}) ON COMMIT DROP")
        with cursor.cursor.copy(f"COPY {staging} ({names}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row([pk.get_db_prep_save(row[0], connection), *_prepared(columns, row[1:])])
        cursor.execute(f"UPDATE {table} AS t SET {assignments} FROM {staging} AS v WHERE t.{key} = v.{key}")
        cursor.execute(f"DROP TABLE {staging}")


def _prepared(columns, values) -> list:
    return [f.get_db_prep_save(value, connection) for f, value in zip(columns, values, strict=True)]


def _placeholder(field) -> str:
    return field.get_placeholder(None, None, connection) if hasattr(field, "get_placeholder") else "%s"


def insert_if_absent(instance, unique: Sequence[str]) -> bool:
    """Inserts a new model instance unless a row with the same `unique` fields exists; True, with its id set, when
    this call created it. One statement (INSERT ... ON CONFLICT DO NOTHING), where a savepoint around an insert that
    may fail took three round trips."""
    model = type(instance)
    fields = [field for field in model._meta.concrete_fields if not field.primary_key]
    values = [field.get_db_prep_save(field.pre_save(instance, True), connection) for field in fields]
    quote = connection.ops.quote_name
    conflict = ", ".join(quote(model._meta.get_field(name).column) for name in unique)
    sql = (
        f"INSERT INTO {quote(model._meta.db_table)} ({', '.join(quote(f.column) for f in fields)}) "
        f"VALUES ({', '.join(['%s'] * len(fields))}) ON CONFLICT ({conflict}) DO NOTHING "
        f"RETURNING {quote(model._meta.pk.column)}"
    )
    rows = fetch(sql, values)
    if not rows:
        return False
    instance.pk = rows[0][0]
    instance._state.adding, instance._state.db = False, connection.alias
    return True


# --- one worker at a time per row: a non-blocking lock that dies with its holder --------------------------------
# On PostgreSQL a session advisory lock, which the server releases when the holding connection closes, so a worker
# killed mid-task never leaves a topic locked. Elsewhere (the embedded SQLite default runs in one process) a
# process-local lock does the same job. Namespaces are the first of PostgreSQL's two keys.

# A statement's part that takes the lock without waiting, for callers that send it with more in one round trip; its
# parameters are (namespace, key).
TRY_LOCK_SQL = "pg_try_advisory_lock(%s, %s)"
UNLOCK_SQL = "SELECT pg_advisory_unlock(%s, %s)"

_local_guard = threading.Lock()
_local_locks: dict[tuple[int, int], threading.Lock] = {}


def acquire(namespace: int, key: int) -> bool:
    """Takes the lock for (namespace, key) if no other holder has it; never waits."""
    if is_postgresql():
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT {TRY_LOCK_SQL}", [namespace, key])
            return bool(cursor.fetchone()[0])
    with _local_guard:
        lock = _local_locks.setdefault((namespace, key), threading.Lock())
    return lock.acquire(blocking=False)


def release(namespace: int, key: int) -> None:
    """Lets go of a lock this process holds; quietly, when the connection that held it is gone (and freed it)."""
    if is_postgresql():
        with contextlib.suppress(Exception), connection.cursor() as cursor:
            cursor.execute(UNLOCK_SQL, [namespace, key])
        return
    with _local_guard:
        lock = _local_locks.get((namespace, key))
    if lock is not None and lock.locked():
        lock.release()


# --- the staleness protocol's statements: flags raised, stale rows claimed, locks released and checked ----------


def flag_stale_rows(model, keys: list[int], now, *, qrels_moved: int | None = None) -> dict[int, bool]:
    """On PostgreSQL, raises the flag and bumps the generation of the rows of `keys` that exist (and their qrels
    version by `qrels_moved`, when given), locking them in key order first, in one statement; returns {key: whether
    it was already dirty}. Elsewhere returns {} (the caller goes row by row)."""
    if not keys or not is_postgresql():
        return {}
    table, key = model._meta.db_table, model._meta.pk.column
    qrels = ", qrels_version = s.qrels_version + %s" if qrels_moved is not None else ""
    rows = fetch(
        f"UPDATE {table} AS s SET dirty = TRUE, generation = s.generation + 1, "
        f"dirty_since = CASE WHEN old.dirty THEN COALESCE(s.dirty_since, %s) ELSE %s END, "
        f"resent_at = CASE WHEN old.dirty THEN s.resent_at ELSE NULL END{qrels} "
        f"FROM (SELECT {key}, dirty FROM {table} WHERE {key} = ANY(%s) ORDER BY {key} FOR UPDATE) AS old "
        f"WHERE s.{key} = old.{key} RETURNING s.{key}, old.dirty",
        [now, now, *([qrels_moved] if qrels else []), keys],
    )
    return dict(rows)


def _has_field(model, name: str) -> bool:
    return any(field.name == name for field in model._meta.concrete_fields)


def mark_computed(model, pk: int, generation: int, now) -> Statement:
    """The statement that stamps a stale row's results as stored for `generation`, unless a newer generation's
    already are (an older computation never overwrites a newer one: it updates nothing, and the caller rolls back);
    it returns whether the row was re-dirtied meanwhile. For `run_together`, last in the store's transaction."""
    table, key = model._meta.db_table, model._meta.pk.column
    counted = ", recompute_count = recompute_count + 1" if _has_field(model, "recompute_count") else ""
    return (
        f"UPDATE {table} SET computed_generation = %s, computed_at = %s{counted} "
        f"WHERE {key} = %s AND computed_generation <= %s RETURNING dirty",
        [generation, now, pk, generation],
    )


def mark_computed_many(model, generations: dict[int, int], now) -> Statement:
    """`mark_computed` for several rows ({key: generation}) in one statement, which returns (key, whether the row was
    re-dirtied meanwhile) for each row stamped; a row a newer generation's results already stamped is left out. On
    PostgreSQL the rows are locked in key order first, as `flag_stale_rows` locks them: a store of several topics
    and a change flagging several never wait on each other in a circle."""
    table, key = model._meta.db_table, model._meta.pk.column
    counted = ", recompute_count = recompute_count + 1" if _has_field(model, "recompute_count") else ""
    pairs = [value for pk, generation in generations.items() for value in (pk, generation)]
    keys = ", ".join(["%s"] * len(generations))
    if not is_postgresql():
        chosen = f"CASE {key} " + " ".join(["WHEN %s THEN CAST(%s AS BIGINT)"] * len(generations)) + " END"
        return (
            f"UPDATE {table} SET computed_generation = {chosen}, computed_at = %s{counted} "
            f"WHERE {key} IN ({keys}) AND computed_generation <= {chosen} RETURNING {key}, dirty",
            [*pairs, now, *generations, *pairs],
        )
    chosen = f"CASE s.{key} " + " ".join(["WHEN %s THEN CAST(%s AS BIGINT)"] * len(generations)) + " END"
    return (
        f"UPDATE {table} AS s SET computed_generation = {chosen}, computed_at = %s{counted} "
        f"FROM (SELECT {key} FROM {table} WHERE {key} IN ({keys}) ORDER BY {key} FOR UPDATE) AS locked "
        f"WHERE s.{key} = locked.{key} AND s.computed_generation <= {chosen} RETURNING s.{key}, s.dirty",
        [*pairs, now, *generations, *pairs],
    )


# A row's results are stale (`StaleResultsQuerySet.stale`, in SQL): dirty, or claimed and not yet stored.
STALE_ROW = "(dirty OR computed_generation < generation)"


def _claim_sql(model) -> str:
    table, key = model._meta.db_table, model._meta.pk.column
    return (
        f"UPDATE {table} SET dirty = %s, dirty_since = NULL, claimed_at = %s "
        f"WHERE {key} = %s AND {STALE_ROW} RETURNING generation"
    )


def claim(model, pk: int) -> int | None:
    """Takes on a stale row: clears its flag (so changes from now on re-dirty it) and returns the generation to
    compute, or None when there is nothing to do. Call while holding the row's lock. One statement, its own
    transaction (one round trip)."""
    with several_statements_cursor() as cursor:
        # Sent as one query string, the two statements run as one transaction, to which SET LOCAL applies.
        if is_postgresql():  # a lost claim leaves the row dirty: computed again
            cursor.execute(f"SET LOCAL synchronous_commit TO OFF; {_claim_sql(model)}", [False, timezone.now(), pk])
            cursor.nextset()
        else:
            cursor.execute(_claim_sql(model), [False, timezone.now(), pk])
        row = cursor.fetchone()
    return None if row is None else row[0]


def lock_and_claim(namespace: int, model, pk: int) -> tuple[bool, int | None]:
    """Takes the row's lock without waiting and, when it is ours, claims the row (see `claim`): (whether the lock
    is ours, the generation to compute). On PostgreSQL one round trip: the claim is part of the statement that
    takes the lock, and runs only if it did."""
    if not is_postgresql():
        if not acquire(namespace, pk):
            return False, None
        try:
            return True, claim(model, pk)
        except BaseException:
            release(namespace, pk)
            raise
    table, key = model._meta.db_table, model._meta.pk.column
    sql = (
        f"SET LOCAL synchronous_commit TO OFF; WITH lock AS (SELECT {TRY_LOCK_SQL} AS mine), "
        f"claimed AS (UPDATE {table} SET dirty = FALSE, dirty_since = NULL, claimed_at = %s FROM lock "
        f"WHERE lock.mine AND {table}.{key} = %s AND {STALE_ROW} "
        f"RETURNING {table}.generation) "
        "SELECT mine, (SELECT generation FROM claimed) FROM lock"
    )
    with several_statements_cursor() as cursor:
        try:
            cursor.execute(sql, [namespace, pk, timezone.now(), pk])
        except BaseException:
            release(namespace, pk)  # the lock may have been taken before the claim failed
            raise
        cursor.nextset()
        mine, generation = cursor.fetchone()
    return bool(mine), generation


def release_and_check(namespace: int, model, pk: int) -> bool:
    """Lets go of the row's lock, then reads whether the row is stale again; on PostgreSQL in one round trip (two
    statements: the read's snapshot is taken after the lock is gone, so a change whose worker found the lock still
    held is seen here)."""
    check = f"SELECT dirty FROM {model._meta.db_table} WHERE {model._meta.pk.column} = %s"
    if not is_postgresql():
        release(namespace, pk)
        with connection.cursor() as cursor:
            cursor.execute(check, [pk])
            row = cursor.fetchone()
        return bool(row and row[0])
    with several_statements_cursor() as cursor:
        cursor.execute(f"{UNLOCK_SQL}; {check}", [namespace, pk, pk])
        cursor.nextset()
        row = cursor.fetchone()
    return bool(row and row[0])
