"""Topics sampled from real traffic, and how offline measures of runs follow the online ones. Pure: no Django.

Sampling methods (each with a seed, over distinct normalised query strings and their counts):
- `pps`: probability proportional to size without replacement, by Efraimidis–Spirakis keys u^(1/count): the same
  distribution as drawing one query at a time in proportion to its traffic among those not drawn yet.
- `strata`: head (top 1% of distinct queries by count), torso (next 19%) and tail (the rest), as `top_queries`
  cuts them; the sample is split as evenly as the strata allow and drawn uniformly within each, so rare queries
  are represented as well as frequent ones.
- `zero_result`: queries that found nothing at least once, drawn in proportion to their zero-result count.
The coverage of a sample is the share of all logged queries whose string is in it.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from evaluation.online.core.click_models import NORMALISED
from measures.correlation import kendall_tau

METHODS = ("pps", "strata", "zero_result")
HEAD_SHARE, TORSO_SHARE = 0.01, 0.20


@dataclass(frozen=True)
class LoggedQuery:
    query: str  # normalised
    count: int
    zero_results: int


@dataclass(frozen=True)
class TrafficSample:
    method: str
    seed: int
    queries: list[LoggedQuery]
    strata: dict[str, str]  # query → head | torso | tail
    coverage: float | None  # share of logged queries covered; None for an empty log

    def as_dict(self) -> dict:
        return {
            "method": self.method,
            "seed": self.seed,
            "coverage": self.coverage,
            "queries": [
                {"query": q.query, "count": q.count, "zero_results": q.zero_results, "stratum": self.strata[q.query]}
                for q in self.queries
            ],
        }


def logged_queries(con) -> list[LoggedQuery]:
    """Distinct normalised query strings of a log store's `queries` view, most frequent first (ties by string)."""
    rows = con.execute(f"""
        SELECT {NORMALISED.format("user_query")} AS query, count(*),
            count(*) FILTER (WHERE len(hits) = 0)
        FROM queries GROUP BY 1 HAVING query <> '' ORDER BY 2 DESC, 1
    """).fetchall()
    return [LoggedQuery(q, int(n), int(z)) for q, n, z in rows]


def normalised_query(text: str) -> str:
    """A query string as the log's measures normalise it: NFC, trimmed, whitespace collapsed, lower-case."""
    return " ".join(unicodedata.normalize("NFC", text).split()).lower()


def strata_of(ranked: Sequence[LoggedQuery]) -> dict[str, str]:
    head = math.ceil(len(ranked) * HEAD_SHARE) if ranked else 0
    torso = math.ceil(len(ranked) * TORSO_SHARE) if ranked else 0
    return {q.query: "head" if i < head else "torso" if i < torso else "tail" for i, q in enumerate(ranked)}


def _weighted_without_replacement(rng, weights: np.ndarray, size: int) -> np.ndarray:
    keys = np.log(rng.random(len(weights))) / weights  # log(u^(1/w)): the largest keys are the sample
    return np.argsort(-keys, kind="stable")[:size]


def traffic_sample(ranked: Sequence[LoggedQuery], *, method: str, size: int, seed: int = 0) -> TrafficSample:
    """`size` distinct queries of `ranked` (from `logged_queries`) by `method`; fewer when fewer qualify."""
    if method not in METHODS:
        raise ValueError(f"unknown sampling method {method!r}; expected one of {', '.join(METHODS)}")
    if size < 1:
        raise ValueError("the sample size must be at least 1")
    rng = np.random.default_rng(seed)
    strata = strata_of(ranked)
    if method == "pps":
        chosen = _weighted_without_replacement(rng, np.array([q.count for q in ranked], float), size)
        picked = [ranked[i] for i in chosen]
    elif method == "zero_result":
        candidates = [q for q in ranked if q.zero_results > 0]
        chosen = _weighted_without_replacement(rng, np.array([q.zero_results for q in candidates], float), size)
        picked = [candidates[i] for i in chosen]
    else:
        groups = {name: [q for q in ranked if strata[q.query] == name] for name in ("head", "torso", "tail")}
        picked = []
        wanted, left = dict.fromkeys(groups, 0), min(size, len(ranked))
        while left:  # deal one place at a time to each stratum that still has queries: as even as they allow
            for name, members in groups.items():
                if left and wanted[name] < len(members):
                    wanted[name] += 1
                    left -= 1
        for name, members in groups.items():
            picked += [members[i] for i in sorted(rng.choice(len(members), wanted[name], replace=False))]
    total = sum(q.count for q in ranked)
    coverage = sum(q.count for q in picked) / total if total else None
    return TrafficSample(method, seed, picked, {q.query: strata[q.query] for q in picked}, coverage)


def online_offline_correlation(offline: Mapping[str, float], online: Mapping[str, float]) -> dict:
    """Kendall's τ-b and Pearson's r between a run's offline per-topic values and its arm's online per-query values,
    over the queries both have (keyed by normalised query). None where fewer than 3 queries are shared or either
    side is constant."""
    shared = sorted(set(offline) & set(online))
    result = {"queries": len(shared), "kendall_tau": None, "pearson": None}
    if len(shared) < 3:
        return result
    a = np.array([offline[q] for q in shared], float)
    b = np.array([online[q] for q in shared], float)
    if np.ptp(a) == 0 or np.ptp(b) == 0:
        return result
    result["kendall_tau"] = float(kendall_tau(a, b))
    result["pearson"] = float(np.corrcoef(a, b)[0, 1])
    return result


def per_query_online(con, *, measure: str) -> dict[str | None, dict[str, float]]:
    """Per arm, per normalised query: the query CTR ('query_ctr': share of its queries with a click) or the success
    rate ('session_success_rate': share of its queries whose session succeeded), from the prepared `qa`/`sa`."""
    if measure == "query_ctr":
        value = "avg((clicks > 0)::DOUBLE)"
        source = "qa"
    elif measure == "session_success_rate":
        value = "avg(sa.succeeded::DOUBLE)"
        source = "qa JOIN sa USING (session)"
    else:
        raise ValueError(f"online measure {measure!r}: expected query_ctr or session_success_rate")
    found: dict[str | None, dict[str, float]] = {}
    for arm, query, figure in con.execute(
        f"SELECT qa.arm, qa.normalised, {value} FROM {source} GROUP BY ALL ORDER BY ALL"
    ).fetchall():
        found.setdefault(arm, {})[query] = float(figure)
    return found
