"""Upserting many rows of plain values at once, the recompute's hot write."""

from __future__ import annotations

from collections.abc import Sequence

import psycopg
from django.db import connection


def rows_upsert(model, columns: Sequence[str], rows: Sequence[tuple], *, conflict: Sequence[str]) -> None:
    """Inserts `rows` (tuples of database-ready values in `columns` order, attnames like "run_id"), updating the
    other columns of rows that already exist on the `conflict` columns.

    On PostgreSQL this is one INSERT ... SELECT FROM unnest(one array per column): Django's bulk_create builds and
    adapts one placeholder per field per row, which for the thousand rows of a topic's recompute cost more time
    than the database spent. The arrays travel in binary, through a server-binding psycopg cursor on the same
    connection and transaction (Django's own cursor binds on the client, where psycopg writes a list of a thousand
    floats as text element by element: that cost a topic's store more than the statement did). Elsewhere (SQLite)
    it is bulk_create with update_conflicts.
    """
    if not rows:
        return
    fields = [model._meta.get_field(column) for column in columns]
    if connection.vendor != "postgresql":
        model.objects.bulk_create(
            [model(**dict(zip(columns, row, strict=True))) for row in rows],
            update_conflicts=True,
            unique_fields=[model._meta.get_field(c).name for c in conflict],
            update_fields=[f.name for f in fields if f.attname not in conflict],
        )
        return
    names = [f.column for f in fields]
    casts = ", ".join(f"%b::{f.db_type(connection)}[]" for f in fields)
    updates = ", ".join(f"{n} = EXCLUDED.{n}" for n in names if n not in conflict)
    sql = (
        f"INSERT INTO {model._meta.db_table} ({', '.join(names)}) SELECT * FROM unnest({casts}) "
        f"ON CONFLICT ({', '.join(conflict)}) DO UPDATE SET {updates}"
    )
    connection.ensure_connection()
    with psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(sql, [list(column) for column in zip(*rows, strict=True)])


def commit_without_waiting_for_disk() -> None:
    """Lets the current transaction's COMMIT return before its WAL reaches the disk (PostgreSQL; a no-op elsewhere).

    Only for derived results: a crash can lose the last fraction of a second of commits, whole transactions never
    halves, and a lost result leaves its topic stale (the state row is in the same transaction), so the sweep
    computes it again. Judgments never use this. It saves an fsync, most of a topic's store on a slow disk.
    """
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL synchronous_commit TO OFF")
