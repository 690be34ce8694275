"""The suite runs in parallel (pytest-xdist); each worker keeps to its own Redis database, as to its own test
database, so one worker's Celery messages and cached values never reach another's."""

from __future__ import annotations

import os

import pytest
from django.conf import settings

from tests.plugins.xdist_workers import RUN_REDIS_URL, worker_redis_url


@pytest.mark.parametrize(
    ("url", "worker", "expected"),
    [
        ("redis://127.0.0.1:6379/0", "gw0", "redis://127.0.0.1:6379/1"),
        ("redis://127.0.0.1:6379/0", "gw1", "redis://127.0.0.1:6379/2"),
        ("redis://127.0.0.1:6379", "gw0", "redis://127.0.0.1:6379/1"),
        ("redis://:pw@cache:6380/3", "gw2", "redis://:pw@cache:6380/6"),
        ("redis://127.0.0.1:6379/15", "gw0", "redis://127.0.0.1:6379/0"),
    ],
)
def test_each_worker_is_given_a_redis_database_of_its_own(url, worker, expected):
    assert worker_redis_url(url, worker) == expected


def test_two_workers_never_share_a_redis_database():
    urls = {worker_redis_url("redis://127.0.0.1:6379/0", f"gw{n}") for n in range(4)}
    assert len(urls) == 4


@pytest.mark.skipif(not os.environ.get(RUN_REDIS_URL), reason="runs only in a pytest-xdist worker given a REDIS_URL")
def test_this_worker_runs_on_the_redis_database_derived_for_it():
    assert worker_redis_url(os.environ[RUN_REDIS_URL], os.environ["PYTEST_XDIST_WORKER"]) == settings.REDIS_URL
    assert settings.CACHES["default"]["LOCATION"] == settings.REDIS_URL
    assert os.environ[RUN_REDIS_URL] != settings.CELERY_BROKER_URL
