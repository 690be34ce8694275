"""A counter store outage under load (Redis down): the API fails open, and the log says so once with its traceback,
then one line a minute with the count, then once when the store is back: one traceback per request filled it."""

from __future__ import annotations

import logging

import pytest
from django.core.cache import caches

from config import throttling
from tests.factories import make_user

pytestmark = pytest.mark.django_db


class BrokenStore:
    def __getattr__(self, name):
        def fail(*args, **kwargs):
            raise ConnectionError("Redis is down")

        return fail


def test_an_outage_is_logged_once_then_rate_limited_then_its_end(client, monkeypatch, caplog):
    now = [1000.0]
    outage = throttling.OutageLog("API throttling skipped", every=60, clock=lambda: now[0])
    monkeypatch.setattr(throttling, "THROTTLE_OUTAGE", outage)
    working = caches["throttle"]
    monkeypatch.setattr(throttling, "caches", {"throttle": BrokenStore()})
    client.force_login(make_user("researcher"))
    with caplog.at_level(logging.WARNING, logger="config.throttling"):
        for _ in range(200):
            assert client.get("/api/collections/").status_code == 200  # fails open
        now[0] += 61
        assert client.get("/api/collections/").status_code == 200
        monkeypatch.setattr(throttling, "caches", {"throttle": working})
        assert client.get("/api/collections/").status_code == 200
    lines = [r for r in caplog.records if r.name == "config.throttling"]
    assert len(lines) == 3
    assert lines[0].exc_info and "cannot be reached" in lines[0].getMessage()
    assert not lines[1].exc_info and "200 requests since the last line" in lines[1].getMessage()
    assert "answers again after 61 s" in lines[2].getMessage()
