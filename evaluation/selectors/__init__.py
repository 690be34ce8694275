"""Reads of the stored results: `values` (the measures, their values and the leaderboard), `consensus` (the labels
the results are computed from), `freshness` (what is stale, the results' version, the status page)."""

from evaluation.selectors.consensus import ConsensusInputs, consensus_inputs, consensus_labels, consensus_qrels
from evaluation.selectors.freshness import (
    collection_agreement_fresh,
    collection_freshness,
    collection_status,
    results_version,
    status_rows,
    status_topics,
)
from evaluation.selectors.values import (
    COVERAGE_MEASURE,
    EVALUATION_SETTINGS,
    LEADERBOARD_KEYS,
    STATISTIC_LABELS,
    VALUE_SETTINGS,
    chosen_measure,
    chosen_run,
    collection_agreement,
    collection_agreement_labelled,
    engine_options,
    leaderboard,
    run_aggregates,
    runs_judged_at_10,
    settings_key,
    stored_measures,
    topic_values,
)

__all__ = [
    "COVERAGE_MEASURE",
    "EVALUATION_SETTINGS",
    "LEADERBOARD_KEYS",
    "STATISTIC_LABELS",
    "VALUE_SETTINGS",
    "ConsensusInputs",
    "chosen_measure",
    "chosen_run",
    "collection_agreement",
    "collection_agreement_fresh",
    "collection_agreement_labelled",
    "collection_freshness",
    "collection_status",
    "consensus_inputs",
    "consensus_labels",
    "consensus_qrels",
    "engine_options",
    "leaderboard",
    "results_version",
    "run_aggregates",
    "runs_judged_at_10",
    "settings_key",
    "status_rows",
    "status_topics",
    "stored_measures",
    "topic_values",
]
