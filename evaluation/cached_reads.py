"""Reads computed on demand and kept in the cache for as long as what they were computed from stands: the key
carries a version (the collection's results version, or a digest of whatever else the read depends on), and a
version of None (something is stale) means the value is computed and not kept. Every cached read goes through
`cached_for_version`.

A cache that is down (Redis unreachable or timing out) costs time, never the page; any other error (a value that
cannot be pickled, a bug in `compute`) is a programming error and surfaces."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from typing import TypeVar

from django.core.cache import cache
from redis.exceptions import RedisError

CACHE_SECONDS = 24 * 3600
# What a cache that is down raises: redis-py's errors, and the socket's own.
CACHE_DOWN = (RedisError, OSError)
T = TypeVar("T")
log = logging.getLogger(__name__)


def version_of(*parts) -> str:
    """A version made of what a read depends on (store paths, settings, parameters), as one short digest."""
    return hashlib.sha256(json.dumps(parts, default=str, sort_keys=True).encode()).hexdigest()


def cached_for_version(key: str, version: str | None, compute: Callable[[], T], *, seconds: int = CACHE_SECONDS) -> T:
    """`compute()`'s value, from the cache under (key, version) when it is there, else computed and kept there for
    `seconds`; with a version of None, computed and not kept."""
    if version is None:
        return compute()
    versioned = f"{key}:{version}"
    try:
        found = cache.get(versioned)
    except CACHE_DOWN as error:
        log.warning("cache unreachable, reading %s without it: %s", key, type(error).__name__)
        found = None
    if found is not None:
        return found
    value = compute()
    try:
        cache.set(versioned, value, seconds)
    except CACHE_DOWN as error:
        log.warning("cache unreachable, %s not kept: %s", key, type(error).__name__)
    return value
