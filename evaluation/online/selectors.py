"""Reads of the online feature: a search log's figures (the online measures, traffic, the A/B comparison) and the
online/offline comparison, from the log's Parquet store, cached by the log's version."""

from __future__ import annotations

from evaluation.cached_reads import cached_for_version, version_of
from evaluation.online.core import store as online_store
from evaluation.online.core import traffic
from evaluation.online.core.ab import arm_comparison
from evaluation.online.core.measures import OnlineSettings, online_measures, query_rate, rate_unit
from evaluation.selectors import topic_values
from judging.models import Topic

LEADERBOARD_KEYS = ("tag", "topics", "judged")

SEARCH_LOG_FIGURES_SECONDS = 3600
SEARCH_LOG_SETTING_NAMES = ("click_actions", "success_actions", "dwell_seconds", "session_gap_minutes", "arm")


def online_settings(search_log) -> OnlineSettings:
    """The log's measure settings (defaults for what it does not set)."""
    chosen = {name: search_log.settings[name] for name in SEARCH_LOG_SETTING_NAMES if name in search_log.settings}
    for name in ("click_actions", "success_actions"):
        if name in chosen:
            chosen[name] = tuple(chosen[name])
    return OnlineSettings(**chosen)


def search_log_figures(*, search_log, by: str = "day", rate: str = "day") -> dict | None:
    """Every online measure of the log (overall, per `by` bucket, per arm), the query rate per `rate` unit with its
    spikes (per a coarser unit, named in "rate_unit", when the log spans too many), and the A/B comparison when an
    arm field is set; None before the first import."""
    if not search_log.imports:
        return None
    # The page and each of its plots ask for the same figures: computed once per store, imports, settings and
    # buckets (a new import or a settings change is a new version), then read from the cache.
    version = version_of(str(search_log.store_path), search_log.imports, search_log.settings, by, rate)

    def compute() -> dict:
        settings = online_settings(search_log)
        with online_store.prepared_connection(search_log.store_path, settings) as con:
            figures = online_measures(con, settings, by=by, prepared=True)
            figures["rate_unit"] = rate_unit(con, rate)
            figures["rate"] = query_rate(con, figures["rate_unit"], spike_z=settings.spike_z)
            figures["ab"] = arm_comparison(con, control=search_log.settings.get("control")) if settings.arm else None
        return figures

    return cached_for_version("log-figures", version, compute, seconds=SEARCH_LOG_FIGURES_SECONDS)


def search_log_query_counts(*, search_log) -> list[int]:
    """Each distinct normalised query's count, most frequent first (the rank-frequency plot)."""
    if not search_log.imports:
        return []
    with online_store.connect(search_log.store_path) as con:
        return [q.count for q in traffic.logged_queries(con)]


def online_offline(*, search_log, measure: str = "AP", online_measure: str = "query_ctr") -> list[dict]:
    """For each arm tied to a run (`arm_runs`): Kendall's τ and Pearson's r, over the queries that are also topics
    (by normalised title), between the run's stored per-topic `measure` and the arm's per-query `online_measure`."""
    if not search_log.imports or not search_log.arm_runs:
        return []
    settings = online_settings(search_log)
    with online_store.prepared_connection(search_log.store_path, settings) as con:
        online = traffic.per_query_online(con, measure=online_measure)
    runs = {run.tag: run for run in search_log.collection.runs.all()}
    rows = []
    for arm, tag in sorted(search_log.arm_runs.items()):
        if tag not in runs:
            continue
        stored = topic_values(collection_id=search_log.collection_id, measures=[measure], run_ids=[runs[tag].id])
        titles = dict(Topic.objects.filter(collection_id=search_log.collection_id).values_list("id", "title"))
        offline = {
            traffic.normalised_query(titles[topic_id]): value
            for topic_id, value in stored[measure][runs[tag].id].items()
            if value is not None
        }
        rows.append(
            {
                "arm": arm,
                "run": tag,
                "measure": measure,
                "online_measure": online_measure,
                **traffic.online_offline_correlation(offline, online.get(arm, {})),
            }
        )
    return rows
