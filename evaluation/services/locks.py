"""One worker at a time per topic (or collection): a non-blocking lock that dies with its holder.

On PostgreSQL this is a session advisory lock, which the server releases when the holding connection closes, so a
worker killed mid-task never leaves a topic locked. Elsewhere (the embedded SQLite default runs in one process) a
process-local lock does the same job.
"""

from __future__ import annotations

import contextlib
import threading

from django.db import connection

TOPIC, COLLECTION = 1, 2  # lock namespaces (the first key of PostgreSQL's two-key advisory locks)

_local_guard = threading.Lock()
_local_locks: dict[tuple[int, int], threading.Lock] = {}


# A statement's part that takes the lock without waiting (PostgreSQL), for callers that send it with more in one
# round trip; its parameters are (namespace, key).
TRY_LOCK_SQL = "pg_try_advisory_lock(%s, %s)"
UNLOCK_SQL = "SELECT pg_advisory_unlock(%s, %s)"


def acquire(namespace: int, key: int) -> bool:
    """Takes the lock for (namespace, key) if no other holder has it; never waits."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT {TRY_LOCK_SQL}", [namespace, key])
            return bool(cursor.fetchone()[0])
    with _local_guard:
        lock = _local_locks.setdefault((namespace, key), threading.Lock())
    return lock.acquire(blocking=False)


def release(namespace: int, key: int) -> None:
    """Lets go of a lock this process holds; quietly, when the connection that held it is gone (and freed it)."""
    if connection.vendor == "postgresql":
        with contextlib.suppress(Exception), connection.cursor() as cursor:
            cursor.execute(UNLOCK_SQL, [namespace, key])
        return
    with _local_guard:
        lock = _local_locks.get((namespace, key))
    if lock is not None and lock.locked():
        lock.release()
