"""Shared fixtures: the real-services gate (skip locally, fail in CI) and eager Celery for non-integration tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

IN_CI = os.environ.get("CI", "").lower() == "true"

# Under CI every generated test is derandomized (the same examples on every run, nothing read from or written to an
# example database): a random test must not decide whether a submission lands. A failure it finds is kept as an
# explicit case beside it (tests/api/test_id_ranges.py holds the schema fuzzing's).
hypothesis_settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
if IN_CI:
    hypothesis_settings.load_profile("ci")


def services_problems() -> list[str]:
    """Why PostgreSQL and Redis cannot be used right now (empty when both are configured and answer)."""
    from django.conf import settings

    problems = []
    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        problems.append("DATABASE_URL does not point at PostgreSQL")
    if not settings.REDIS_URL:
        problems.append("REDIS_URL is not set")
    else:
        import redis

        try:
            redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=1).ping()
        except redis.RedisError as error:
            problems.append(f"Redis at {settings.REDIS_URL} does not answer ({error})")
    return problems


@pytest.fixture(autouse=True)
def _real_services_gate(request):
    if not (request.node.get_closest_marker("services") or request.node.get_closest_marker("integration")):
        return
    problems = services_problems()
    if problems:
        message = "needs real PostgreSQL and Redis: " + "; ".join(problems) + " (bash .ci/run sets them up)"
        if IN_CI:
            pytest.fail(message + " -- CI=true, so this is a failure, not a skip")
        pytest.skip(message)


@pytest.fixture(scope="session", autouse=True)
def statement_watch():
    """The rule that watches what runs (tests/rules/statements.py), installed once on every database connection."""
    from django.apps import apps
    from django.db import connections
    from django.db.backends.signals import connection_created

    from tests.rules.statements import Ownership, StatementWatch, stamp_querysets

    stamp_querysets()
    tables = {model.__name__: model._meta.db_table for model in apps.get_models()}
    watch = StatementWatch(Ownership.from_docs(tables))
    for connection in connections.all():
        watch.install(connection)
    connection_created.connect(lambda sender, connection, **kwargs: watch.install(connection), weak=False)
    return watch


@pytest.fixture(autouse=True)
def _statements_where_they_belong(statement_watch):
    """A test fails when code it ran wrote a table outside that table's owner or read the labels outside the
    selectors and services (WORKBENCH_STATEMENT_WATCH=report lists them in a file instead, to survey)."""
    statement_watch.taken()
    yield
    found = statement_watch.taken()
    report = os.environ.get("WORKBENCH_STATEMENT_WATCH", "")
    if found and report:
        with open(report, "a") as out:
            out.writelines(f"{line}\n" for line in found)
    elif found:
        pytest.fail("statements issued where they do not belong:\n" + "\n".join(sorted(set(found))))


@pytest.fixture(autouse=True)
def _eager_celery(request):
    """Outside integration tests, tasks run in-process (the embedded mode), whatever broker is configured."""
    if request.node.get_closest_marker("integration"):
        yield
        return
    from config.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = previous


@pytest.fixture(autouse=True)
def _jobs_in_the_calling_thread(settings):
    """Jobs run where they are enqueued (eagerly, or by a worker), so a test reads their outcome when its request
    returns; tests of the embedded mode's job threads turn this back on."""
    settings.WORKBENCH_JOBS_IN_THREADS = False


@pytest.fixture(autouse=True)
def _own_search_log_root(settings, tmp_path):
    """Each test's search-log stores in its own folder (database ids start again in every test)."""
    settings.SEARCH_LOG_ROOT = tmp_path / "search-logs"


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _own_throttle_counters(settings):
    """Each test counts API requests and wrong passwords from zero (every test client shares one address), and
    caches nothing another test cached."""
    import uuid

    caches = dict(settings.CACHES)
    caches["throttle"] = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": uuid.uuid4().hex}
    # The default cache too: plots and search-log figures are cached by ids and versions, which each test's fresh
    # database numbers from the start again (a prefix of its own, rather than flushing a Redis the broker shares).
    caches["default"] = {
        **caches["default"],
        "KEY_PREFIX": uuid.uuid4().hex,
        "LOCATION": caches["default"].get("LOCATION", uuid.uuid4().hex),
    }
    settings.CACHES = caches


@pytest.fixture
def worked_files(tmp_path) -> dict[str, Path]:
    """The ten-session worked log (online/worked_log.py) as UBI queries and events files."""
    from evaluation.online.core.simulate import write_jsonl
    from tests.evaluation.online.worked_log import EVENTS, QUERIES

    return {
        "queries": write_jsonl(QUERIES, tmp_path / "queries.jsonl"),
        "events": write_jsonl(EVENTS, tmp_path / "events.jsonl"),
    }
