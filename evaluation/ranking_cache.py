"""A worker's memory of each topic's prepared rankings, so a judgment's recompute loads only the topic's judgments.

Runs are immutable once imported: a run is replaced by deleting its rankings and inserting new rows, and deleting a
run deletes its rows. So a topic's rankings are named by (how many rows, the largest row id), which any replacement
or deletion changes, read before the rankings themselves (a recompute reads it with the topic's judgments; a run
imported in between is then loaded under the older name and loaded again next time, never kept under the newer
one). Nothing is shared between workers: each process keeps its own, a restart starts empty, and a worker that never
saw a topic loads it. The collection-wide agreement combines the topics' run sets rather than reading every ranking.

Memory is bounded by WORKBENCH_RANKING_CACHE_MB per worker process (default 256), least recently used first out.
A topic of 100 runs x depth 1000 holds its document ids and, for labelling, each ranked document's index into the
topic's distinct documents (`RunSet.distinct_cells`, built with the load): 1.2 MB; 50 such topics took 59 MB,
measured.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np
from django.conf import settings

from judging import selectors as judging_selectors
from measures import PreparedRun, RunSet

_lock = threading.Lock()
_entries: OrderedDict[int, tuple[tuple[int, int], RunSet]] = OrderedDict()
_sizes: dict[int, int] = {}  # bytes held per topic, measured when the entry is stored or used
# The last collection's combined run set, under its topics' names: the jobs worker computes the same collection's
# agreement every few seconds, and combining (with the derived arrays the engine builds on it) took a third of it.
_combined: list = [None, None]  # [((topic, name), ...), RunSet]


def budget_bytes() -> int:
    return int(float(getattr(settings, "WORKBENCH_RANKING_CACHE_MB", 256)) * 2**20)


def topic_runs(*, topic_id: int, name: tuple[int, int] | None = None) -> RunSet:
    """Every run's ranking of the topic as a RunSet keyed by run id (as text), from memory when the topic's
    rankings have not changed since they were loaded. `name`: the rankings' name (`topic_rankings_name`) when the
    caller has just read it."""
    name = name or judging_selectors.topic_rankings_name(topic_id=topic_id)
    with _lock:
        entry = _entries.get(topic_id)
        if entry is not None and entry[0] == name:
            _entries.move_to_end(topic_id)
            _sizes[topic_id] = _nbytes(entry[1])  # the entry grows when the engine first reads its derived arrays
            _evict()
            return entry[1]
    runs = _prepared(topic_id, judging_selectors.topic_rankings(topic_id=topic_id))
    with _lock:
        _entries[topic_id] = (name, runs)
        _entries.move_to_end(topic_id)
        _sizes[topic_id] = _nbytes(runs)
        _evict()
    return runs


def _prepared(topic_id: int, rankings: dict) -> RunSet:
    runs = RunSet(
        [PreparedRun.from_rankings(str(run_id), {topic_id: docs}) for run_id, docs in rankings.items()], reused=True
    )
    runs.distinct_cells  # noqa: B018 - built here, with the load, not on the first judgment's recompute
    return runs


def collection_runs(*, topic_ids: list[int]) -> RunSet:
    """Every run's rankings of these topics as one RunSet (runs in ascending id order): the topics held in memory
    are not read again; the others are read and kept only where they fit beside what is held (a collection larger
    than the budget would otherwise push out the topics the recomputes use). The jobs queue's worker, which
    computes the collection-wide agreement every few seconds while assessors judge and no topic's recompute, so
    keeps them all: it read every ranking of the collection each time (0.6 s of its 0.7 s at 50 x 100 x 1000)."""
    names = judging_selectors.topics_rankings_names(topic_ids=topic_ids)
    key = tuple((topic_id, names[topic_id]) for topic_id in topic_ids)
    parts, missing = [], []
    with _lock:
        if _combined[0] == key:
            return _combined[1]
        for topic_id in topic_ids:
            entry = _entries.get(topic_id)
            if entry is not None and entry[0] == names[topic_id]:
                parts.append(entry[1])
            else:
                missing.append(topic_id)
    for topic_id, per_run in judging_selectors.topics_rankings(topic_ids=missing).items() if missing else ():
        runs = _prepared(topic_id, per_run)
        parts.append(runs)
        with _lock:
            size = _nbytes(runs)
            if sum(_sizes.values()) + size <= budget_bytes():
                _entries[topic_id], _sizes[topic_id] = (names[topic_id], runs), size
    tags = sorted({tag for part in parts for tag in part.tags}, key=int)
    combined = RunSet.combined(parts, tags)
    with _lock:
        # Kept where it fits in the budget beside the topics held, with the derived arrays the engine builds on it
        # (about as much again); the topics' recomputes come first (`_evict` lets it go first).
        fits = sum(_sizes.values()) + 2 * _nbytes(combined) <= budget_bytes()
        _combined[:] = [key, combined] if fits else [None, None]
    return combined


def forget() -> None:
    """Empties this process's memory (tests; an operator's reset)."""
    with _lock:
        _entries.clear()
        _sizes.clear()
        _combined[:] = [None, None]


def held_bytes() -> int:
    with _lock:
        combined = _nbytes(_combined[1]) if _combined[1] is not None else 0
        return sum(_nbytes(runs) for _, runs in _entries.values()) + combined


def _evict() -> None:
    limit = budget_bytes()
    total = sum(_sizes.values())
    if _combined[1] is not None and total + 2 * _nbytes(_combined[1]) > limit:
        _combined[:] = [None, None]
    while total > limit and len(_entries) > 1:
        topic, _ = _entries.popitem(last=False)
        total -= _sizes.pop(topic)
    if total > limit and _entries:  # one topic larger than the whole budget is not kept either
        _entries.clear()
        _sizes.clear()


def _nbytes(runs: RunSet) -> int:
    arrays = [v for value in vars(runs).values() for v in (value if isinstance(value, tuple) else (value,))]
    return sum(a.nbytes for a in arrays if isinstance(a, np.ndarray))
