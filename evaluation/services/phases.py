"""Where a recompute's time goes: wall time per named phase, for the freshness benchmark's split and the log."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator


class Phases:
    """Adds up wall time per phase name; a recompute run without one passes `NO_PHASES`, which costs nothing."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextlib.contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        began = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - began


class _NoPhases(Phases):
    @contextlib.contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        yield


NO_PHASES = _NoPhases()
