"""Statements for the recompute's derived results: rows written and read without building model instances.

A topic's store runs on every judgment. Through the ORM, each of its dozen statements cost more in Python (model
instances, query compilation) than in the database; these helpers build one statement from the model's own field
definitions, so columns, placeholders and conversions stay the model's. Writes are built as (sql, params) and sent
together by `run_together`: on PostgreSQL one query string, one round trip, where a round trip on loopback costs
more than most of these statements take in the database.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import connection


def commit_without_waiting_for_disk() -> None:
    """Lets the current transaction's COMMIT return before its WAL reaches the disk (PostgreSQL; a no-op elsewhere).

    Only for derived results: a crash can lose the last fraction of a second of commits, whole transactions never
    halves, and a lost result leaves its topic stale (the state row is in the same transaction), so the sweep
    computes it again. Judgments never use this. It saves an fsync, most of a topic's store on a slow disk.
    """
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL synchronous_commit TO OFF")


Statement = tuple[str, list]


def run_together(statements: Sequence[Statement]) -> list[tuple]:
    """Runs the statements in order, in the current transaction, and returns the last one's rows (if it returns
    any). On PostgreSQL they travel as one query string; elsewhere one by one."""
    statements = [statement for statement in statements if statement]
    if not statements:
        return []
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
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
    return ("SET LOCAL synchronous_commit TO OFF", []) if connection.vendor == "postgresql" else None


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
    if connection.vendor == "postgresql":
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
    """One UPDATE statement per row, given as (primary key, *values aligned with fields), for `run_together`.
    Django's bulk_update builds a CASE expression per field per row, which for the few wide rows of a topic's store
    took longer than the database did."""
    columns = [model._meta.get_field(name) for name in fields]
    assignments = ", ".join(f"{connection.ops.quote_name(f.column)} = {_placeholder(f)}" for f in columns)
    key = connection.ops.quote_name(model._meta.pk.column)
    sql = f"UPDATE {connection.ops.quote_name(model._meta.db_table)} SET {assignments} WHERE {key} = %s"
    return [
        (sql, [f.get_db_prep_save(value, connection) for f, value in zip(columns, values, strict=True)] + [pk])
        for pk, *values in rows
    ]


def _placeholder(field) -> str:
    return field.get_placeholder(None, None, connection) if hasattr(field, "get_placeholder") else "%s"
