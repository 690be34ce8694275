"""Every versioned cached read goes through one helper: a cache that is down costs time, never the page, and a
programming error is never hidden as if the cache were down."""

from __future__ import annotations

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from evaluation import cached_reads


class _Cache:
    def __init__(self, error: Exception | None = None):
        self.error, self.kept = error, {}

    def get(self, key):
        if self.error:
            raise self.error
        return self.kept.get(key)

    def set(self, key, value, seconds):
        if self.error:
            raise self.error
        self.kept[key] = value


def test_a_value_is_computed_once_per_version(monkeypatch):
    monkeypatch.setattr(cached_reads, "cache", _Cache())
    computed = []
    for version in ("v1", "v1", "v2"):
        cached_reads.cached_for_version("figures", version, lambda: computed.append(1) or len(computed))
    assert len(computed) == 2


def test_a_stale_version_is_computed_and_never_kept(monkeypatch):
    monkeypatch.setattr(cached_reads, "cache", store := _Cache())
    assert cached_reads.cached_for_version("figures", None, lambda: 7) == 7 and store.kept == {}


def test_a_cache_that_is_down_costs_time_never_the_page(monkeypatch):
    monkeypatch.setattr(cached_reads, "cache", _Cache(RedisConnectionError("Connection refused")))
    assert cached_reads.cached_for_version("figures", "v1", lambda: 7) == 7


def test_a_programming_error_in_the_cached_value_surfaces(monkeypatch):
    monkeypatch.setattr(cached_reads, "cache", _Cache(TypeError("cannot pickle '_thread.lock' object")))
    with pytest.raises(TypeError):
        cached_reads.cached_for_version("figures", "v1", lambda: 7)


def test_no_read_caches_by_hand_outside_the_helper():
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    by_hand = []
    for package in ("judging", "evaluation"):
        for path in (root / package).rglob("*.py"):
            if path.name == "cached_reads.py" or "core" in path.parts:
                continue  # the machines' reply cache (core/) is a store of replies, not a read of results
            for node in ast.walk(ast.parse(path.read_text())):
                if (
                    isinstance(node, ast.Attribute)
                    and node.attr in {"get", "set"}
                    and ast.unparse(node.value) == "cache"
                ):
                    by_hand.append(f"{path.relative_to(root)}:{node.lineno}")
    assert by_hand == []
