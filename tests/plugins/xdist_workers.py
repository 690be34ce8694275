"""Each pytest-xdist worker its own Redis database, as pytest-django gives it its own test database.

Loaded with `-p` (pyproject.toml), so it runs before pytest-django reads the settings. Two workers on one Redis
database would take each other's Celery messages (the integration tests run a real worker on the shared queues) and
read each other's cached values under the same keys (both test databases number their rows from 1)."""

from __future__ import annotations

import os
from urllib.parse import urlsplit, urlunsplit

import pytest

REDIS_DATABASES = 16  # Redis's default number of databases
RUN_REDIS_URL = "WORKBENCH_TEST_RUN_REDIS_URL"  # the URL the run was given, before a worker's was derived from it


def worker_redis_url(url: str, worker: str) -> str:
    """`url` moved to the database after its own by the worker's number plus one (gw0 on /0 gets /1), wrapping
    within Redis's default 16."""
    parts = urlsplit(url)
    base = int(parts.path.strip("/") or 0)
    number = int(worker.removeprefix("gw"))
    return urlunsplit(parts._replace(path=f"/{(base + 1 + number) % REDIS_DATABASES}"))


@pytest.hookimpl(wrapper=True)
def pytest_load_initial_conftests(early_config, parser, args):
    # A wrapper runs before every plain implementation of the hook, pytest-django's (which loads the settings) too.
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker and os.environ.get("REDIS_URL"):
        os.environ[RUN_REDIS_URL] = os.environ["REDIS_URL"]
        for name in ("REDIS_URL", "CELERY_BROKER_URL"):  # the broker is REDIS_URL's unless named apart
            if os.environ.get(name, "").startswith(("redis://", "rediss://")):
                os.environ[name] = worker_redis_url(os.environ[name], worker)
    return (yield)
