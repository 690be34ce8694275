"""Write settings for the recompute's derived results."""

from __future__ import annotations

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
