"""A Celery worker keeps its database connection from one task to the next, as a web worker does between
requests, and drops it when Django would: broken, or older than CONN_MAX_AGE."""

from __future__ import annotations

import time

import pytest
from celery import signals
from celery.fixups.django import DjangoWorkerFixup
from django.db import connection

from config.celery import app

# Outside a test transaction, as a worker's tasks run; on PostgreSQL, whose connections are kept (SQLite's are not).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services]


def _tasks(count: int) -> None:
    """What a worker does around each task: Celery's Django fixup, then the app's own handlers."""
    fixup, task = DjangoWorkerFixup(app), app.tasks["evaluation.tasks.recompute_topic"]
    for _ in range(count):
        fixup.on_task_prerun(sender=task)
        signals.task_prerun.send(sender=task, task_id="t", task=task, args=(), kwargs={})
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        fixup.on_task_postrun(sender=task)
        signals.task_postrun.send(sender=task, task_id="t", task=task, args=(), kwargs={}, retval=None, state="")


def test_consecutive_tasks_run_on_one_database_connection():
    connection.ensure_connection()
    first = connection.connection

    _tasks(3)

    assert connection.connection is first


def test_a_connection_past_its_age_is_replaced_before_the_next_task():
    connection.ensure_connection()
    first = connection.connection
    connection.close_at = time.monotonic() - 1  # CONN_MAX_AGE has passed

    _tasks(1)

    assert connection.connection is not first
