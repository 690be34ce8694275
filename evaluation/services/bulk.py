"""Write settings for the recompute's derived results."""

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


def rows_update(objects: Sequence, fields: Sequence[str]) -> None:
    """Writes `fields` of each object back to its row: one UPDATE statement run for every row at once (psycopg
    pipelines executemany). Django's bulk_update builds a CASE expression per field per row, which for the dozen
    wide rows of a topic's store took longer than the database did."""
    if not objects:
        return
    model = type(objects[0])
    columns = [model._meta.get_field(name) for name in fields]
    assignments = ", ".join(f"{connection.ops.quote_name(f.column)} = {_placeholder(f)}" for f in columns)
    sql = f"UPDATE {connection.ops.quote_name(model._meta.db_table)} SET {assignments} WHERE id = %s"
    rows = [[f.get_db_prep_save(getattr(obj, f.attname), connection) for f in columns] + [obj.pk] for obj in objects]
    with connection.cursor() as cursor:
        cursor.executemany(sql, rows)


def _placeholder(field) -> str:
    return field.get_placeholder(None, None, connection) if hasattr(field, "get_placeholder") else "%s"
