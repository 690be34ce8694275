"""Implicit judgments from clicks: how attractive each (query, document) is, by a named click model. Pure: no Django.

Both models read the same counts: for each normalised query string, document and rank, how many times the document
was shown there (`n`, an impression: a hit of a query's `query_response_hit_ids`) and how many of those were
clicked (`c`: a click event of that query on that object, matched by id, else by position). Ranks beyond
`max_rank` are left out (few impressions, and a user rarely sees them).

- **COEC**, clicks over expected clicks (Zhang and Jones 2007; OpenSearch's implicit judgments): a pair's clicks
  divided by the clicks an average result would get at the ranks it was shown, Σ_r n_r·CTR(r), CTR(r) being the
  click-through of rank r over the whole log. 1 is average; above is more attractive than its ranks explain.
- **PBM**, the position-based model (Craswell et al. 2008; Chuklin, Markov and de Rijke 2015, §4.3): a click
  happens when the user examines rank r (probability γ_r) and the document attracts them (α_qd), independently.
  Fitted by expectation-maximisation from α = 0.5, γ = 0.5; γ_1 is then scaled to 1 (the model only determines
  the products α·γ; "the first result is always examined" fixes the scale), α clipped to [0, 1].

A pair with fewer than `min_impressions` impressions gets no judgment. A score becomes a grade on a 0..max scale by
equal-width bins over [0, 1] for PBM's α and over [0, 2] for COEC (twice the expected clicks or more is the top
grade): grade = min(max, ⌊score / top · (max + 1)⌋).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

MODELS = ("coec", "pbm")
SCORE_TOP = {"coec": 2.0, "pbm": 1.0}
NORMALISED = "lower(regexp_replace(trim(nfc_normalize({})), '\\s+', ' ', 'g'))"


@dataclass(frozen=True)
class ImpressionCounts:
    """Impressions and clicks per (pair, rank); `pairs[i]` is (normalised query, document id) of `pair[i]`."""

    pairs: list[tuple[str, str]]
    pair: np.ndarray  # int index into pairs, one row per (pair, rank)
    rank: np.ndarray  # 1-based
    n: np.ndarray  # impressions
    c: np.ndarray  # clicks


@dataclass(frozen=True)
class ImplicitJudgment:
    query: str  # normalised query string
    document: str
    score: float
    impressions: int
    clicks: int
    grade: int


def impression_counts(con, *, click_actions=("click",), max_rank: int = 20) -> ImpressionCounts:
    """Counts over the `queries` and `events` views of a log store (see `store.connect`)."""
    actions = ", ".join("'" + a.replace("'", "''") + "'" for a in click_actions)
    rows = con.execute(f"""
        WITH shown AS (
            SELECT query_id, {NORMALISED.format("user_query")} AS query, unnest(hits) AS document,
                generate_subscripts(hits, 1) AS rank
            FROM queries WHERE len(hits) > 0),
        clicked AS (
            SELECT DISTINCT e.query_id, coalesce(e.object_id, q.hits[e.ordinal]) AS document
            FROM events e JOIN queries q USING (query_id)
            WHERE e.action_name IN ({actions}))
        SELECT query, document, rank, count(*) AS n, count(c.query_id) AS c
        FROM shown s LEFT JOIN clicked c USING (query_id, document)
        WHERE rank <= {int(max_rank)}
        GROUP BY ALL ORDER BY query, document, rank
    """).fetchall()
    index: dict[tuple[str, str], int] = {}
    pair = np.fromiter((index.setdefault((q, d), len(index)) for q, d, *_ in rows), dtype=np.int64, count=len(rows))
    column = lambda i: np.array([row[i] for row in rows], dtype=np.int64)  # noqa: E731
    return ImpressionCounts(list(index), pair, column(2), column(3), column(4))


def coec(counts: ImpressionCounts) -> np.ndarray:
    """COEC per pair (NaN where no clicks were expected: a rank nobody clicked at)."""
    ranks = counts.rank.max(initial=0) + 1
    shown = np.bincount(counts.rank, weights=counts.n, minlength=ranks)
    clicked = np.bincount(counts.rank, weights=counts.c, minlength=ranks)
    ctr = np.divide(clicked, shown, out=np.zeros(ranks), where=shown > 0)
    expected = np.bincount(counts.pair, weights=counts.n * ctr[counts.rank], minlength=len(counts.pairs))
    clicks = np.bincount(counts.pair, weights=counts.c, minlength=len(counts.pairs))
    return np.divide(clicks, expected, out=np.full(len(counts.pairs), np.nan), where=expected > 0)


def pbm(counts: ImpressionCounts, *, iterations: int = 1000, tolerance: float = 1e-7) -> tuple[np.ndarray, np.ndarray]:
    """(α per pair, γ per rank, index 0 unused) of the position-based model, by EM on the grouped counts.

    E-step for an impression without a click: P(examined | no click) = γ(1−α)/(1−γα) and P(attracted | no click)
    = (1−γ)α/(1−γα); with a click both are 1. M-step: each parameter is the mean of its posteriors."""
    pairs, ranks = len(counts.pairs), counts.rank.max(initial=0) + 1
    n, c = counts.n.astype(float), counts.c.astype(float)
    pair_n = np.bincount(counts.pair, weights=n, minlength=pairs)
    rank_n = np.bincount(counts.rank, weights=n, minlength=ranks)
    alpha, gamma = np.full(pairs, 0.5), np.full(ranks, 0.5)
    for _ in range(iterations):
        a, g = alpha[counts.pair], gamma[counts.rank]
        unclicked = np.maximum(1 - a * g, 1e-12)
        attracted = c + (n - c) * (1 - g) * a / unclicked
        examined = c + (n - c) * g * (1 - a) / unclicked
        new_alpha = np.divide(
            np.bincount(counts.pair, weights=attracted, minlength=pairs), pair_n, out=np.zeros(pairs), where=pair_n > 0
        )
        new_gamma = np.divide(
            np.bincount(counts.rank, weights=examined, minlength=ranks), rank_n, out=np.zeros(ranks), where=rank_n > 0
        )
        change = max(np.abs(new_alpha - alpha).max(initial=0), np.abs(new_gamma - gamma).max(initial=0))
        alpha, gamma = new_alpha, new_gamma
        if change < tolerance:
            break
    if ranks > 1 and gamma[1] > 0:
        alpha, gamma = np.clip(alpha * gamma[1], 0, 1), gamma / gamma[1]
    return alpha, gamma


def grade(score: float, *, model: str, max_grade: int) -> int:
    if math.isnan(score):
        return 0
    return min(max_grade, math.floor(max(score, 0.0) / SCORE_TOP[model] * (max_grade + 1)))


def implicit_judgments(
    counts: ImpressionCounts, *, model: str, min_impressions: int = 10, max_grade: int = 3
) -> list[ImplicitJudgment]:
    """One judgment per pair shown at least `min_impressions` times, by `model` ('coec' or 'pbm')."""
    if model not in MODELS:
        raise ValueError(f"unknown click model {model!r}; expected one of {', '.join(MODELS)}")
    if min_impressions < 1:
        raise ValueError("min_impressions must be at least 1")
    scores = coec(counts) if model == "coec" else pbm(counts)[0]
    impressions = np.bincount(counts.pair, weights=counts.n, minlength=len(counts.pairs)).astype(int)
    clicks = np.bincount(counts.pair, weights=counts.c, minlength=len(counts.pairs)).astype(int)
    return [
        ImplicitJudgment(
            query,
            document,
            float(scores[i]),
            int(impressions[i]),
            int(clicks[i]),
            grade(float(scores[i]), model=model, max_grade=max_grade),
        )
        for i, (query, document) in enumerate(counts.pairs)
        if impressions[i] >= min_impressions
    ]
