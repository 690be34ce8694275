"""Reads computed on demand and kept in the cache for as long as what they were computed from stands: the key
carries a version (the collection's results version, plus whatever else the read depends on), and a version of
None (something is stale) means the value is computed and not kept. A cache that is down costs time, never the
page."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TypeVar

from django.core.cache import cache

CACHE_SECONDS = 24 * 3600
T = TypeVar("T")


def cached_for_version(key: str, version: str | None, compute: Callable[[], T]) -> T:
    if version is None:
        return compute()
    versioned = f"{key}:{version}"
    with contextlib.suppress(Exception):
        found = cache.get(versioned)
        if found is not None:
            return found
    value = compute()
    with contextlib.suppress(Exception):
        cache.set(versioned, value, CACHE_SECONDS)
    return value
