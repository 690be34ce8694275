"""One worker at a time per topic (or collection): a non-blocking lock that dies with its holder.

On PostgreSQL this is a session advisory lock, which the server releases when the holding connection closes, so a
worker killed mid-task never leaves a topic locked. Elsewhere (the embedded SQLite default runs in one process) a
process-local lock does the same job.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

from django.db import connection

TOPIC, COLLECTION = 1, 2  # lock namespaces (the first key of PostgreSQL's two-key advisory locks)

_local_guard = threading.Lock()
_local_locks: dict[tuple[int, int], threading.Lock] = {}


@contextlib.contextmanager
def exclusive(namespace: int, key: int) -> Iterator[bool]:
    """Yields True while this process holds the lock for (namespace, key), or False at once if another does."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [namespace, key])
            acquired = cursor.fetchone()[0]
        try:
            yield acquired
        finally:
            if acquired:
                with contextlib.suppress(Exception), connection.cursor() as cursor:  # a dead connection freed it
                    cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [namespace, key])
        return
    with _local_guard:
        lock = _local_locks.setdefault((namespace, key), threading.Lock())
    acquired = lock.acquire(blocking=False)
    try:
        yield acquired
    finally:
        if acquired:
            lock.release()
