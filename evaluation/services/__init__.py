"""Writes of the evaluation app: staleness, recomputing topics and collection-wide agreement, storing results.

The data flow (docs/recompute.md): a judgment write calls `topics_changed` inside its transaction;
the topic's flag flips to dirty and, only on that flip, a recompute is enqueued after commit. The task takes the
topic's lock, clears the flag, computes from the stored judgments and rankings with the pure engines, and upserts
results stamped with the generation it read; it repeats while the topic is dirty again. A periodic sweep re-enqueues
whatever was left stale.
"""

from evaluation.selectors import EVALUATION_SETTINGS
from evaluation.services.recompute import (
    collection_agreement_recompute,
    collection_recompute,
    collection_recompute_job_work,
    collection_recompute_start,
    topic_recompute,
    topics_recompute,
)
from evaluation.services.staleness import collection_changed, stale_topics_sweep, topics_changed
from evaluation.services.totals import run_totals_recount, runs_aggregate

__all__ = [
    "EVALUATION_SETTINGS",
    "collection_agreement_recompute",
    "collection_changed",
    "collection_recompute",
    "collection_recompute_job_work",
    "collection_recompute_start",
    "run_totals_recount",
    "runs_aggregate",
    "stale_topics_sweep",
    "topic_recompute",
    "topics_changed",
    "topics_recompute",
]
