"""Click models: hand-worked COEC and EM steps, and recovery of known attractiveness on simulated clicks."""

from datetime import datetime

import numpy as np
import pytest

from evaluation.online.core import store
from evaluation.online.core.click_models import (
    ImpressionCounts,
    coec,
    grade,
    implicit_judgments,
    impression_counts,
    pbm,
)
from evaluation.online.core.simulate import SimulatedTopic, attractiveness, simulated_log, write_jsonl
from measures.correlation import kendall_tau


def _counts(rows):
    """rows: (query, document, rank, n, c)."""
    index = {}
    pair = np.array([index.setdefault((q, d), len(index)) for q, d, *_ in rows])
    return ImpressionCounts(
        list(index),
        pair,
        np.array([r[2] for r in rows]),
        np.array([r[3] for r in rows]),
        np.array([r[4] for r in rows]),
    )


def test_coec_divides_clicks_by_the_clicks_an_average_result_gets_at_the_same_ranks():
    # Rank 1: 20 impressions, 10 clicks (CTR 0.5); rank 2: 20 impressions, 4 clicks (CTR 0.2).
    counts = _counts([("q", "a", 1, 10, 8), ("q", "b", 1, 10, 2), ("q", "a", 2, 10, 1), ("q", "b", 2, 10, 3)])
    a, b = coec(counts)
    assert a == pytest.approx(9 / (10 * 0.5 + 10 * 0.2))
    assert b == pytest.approx(5 / (10 * 0.5 + 10 * 0.2))


def test_pbm_with_a_document_always_clicked_at_rank_one_learns_full_examination_and_attraction():
    counts = _counts([("q", "a", 1, 50, 50), ("q", "a", 2, 50, 25), ("q", "b", 2, 50, 0)])
    alpha, gamma = pbm(counts)
    assert gamma[1] == pytest.approx(1.0)
    assert alpha[0] == pytest.approx(1.0, abs=1e-3)
    assert gamma[2] == pytest.approx(0.5, abs=1e-2)  # a is always attractive: half its rank-2 showings were seen
    assert alpha[1] == pytest.approx(0.0, abs=1e-2)


def test_grades_are_equal_width_bins_of_the_score():
    assert [grade(s, model="pbm", max_grade=3) for s in (0.0, 0.24, 0.25, 0.5, 0.99, 1.0)] == [0, 0, 1, 2, 3, 3]
    assert [grade(s, model="coec", max_grade=3) for s in (0.49, 0.5, 1.0, 1.5, 7.0)] == [0, 1, 2, 3, 3]
    assert grade(float("nan"), model="coec", max_grade=3) == 0


@pytest.fixture(scope="module")
def simulated(tmp_path_factory):
    """Three arms showing each topic's documents in orders linking every rank to rank 1; clicks by a PBM, γ_r = 1/r."""
    rng = np.random.default_rng(3)
    topics = []
    for t in range(6):
        docs = [f"t{t}d{i}" for i in range(8)]
        grades = {d: int(rng.integers(0, 4)) for d in docs}
        topics.append(SimulatedTopic(f"topic {t}", {"A": docs, "B": docs[3:] + docs[:3], "C": docs[::-1]}, grades))
    queries, events = simulated_log(topics, sessions=12000, start=datetime(2026, 1, 1), seed=5, eta=1.0, depth=8)
    folder = tmp_path_factory.mktemp("clicks")
    root = folder / "store"
    store.import_log(
        root,
        files={"queries": write_jsonl(queries, folder / "q.jsonl"), "events": write_jsonl(events, folder / "e.jsonl")},
        log_format="ubi",
    )
    with store.connect(root) as con:
        counts = impression_counts(con)
    truth = {(t.query, d): attractiveness(g, 3) for t in topics for d, g in t.grades.items()}
    return counts, truth


@pytest.mark.slow
def test_pbm_recovers_the_simulated_attractiveness_and_examination(simulated):
    counts, truth = simulated
    alpha, gamma = pbm(counts)
    estimated = dict(zip(counts.pairs, alpha, strict=True))
    errors = [abs(estimated[pair] - truth[pair]) for pair in truth]
    assert max(errors) < 0.08
    assert gamma[1:9] == pytest.approx([1 / r for r in range(1, 9)], abs=0.05)


@pytest.mark.slow
def test_coec_orders_documents_as_their_attractiveness(simulated):
    counts, truth = simulated
    scores = dict(zip(counts.pairs, coec(counts), strict=True))
    pairs = sorted(truth)
    assert kendall_tau([truth[p] for p in pairs], [scores[p] for p in pairs]) > 0.8


@pytest.mark.slow
def test_implicit_judgments_keep_pairs_with_enough_impressions_and_grade_them(simulated):
    counts, truth = simulated
    judged = implicit_judgments(counts, model="pbm", min_impressions=10, max_grade=3)
    assert {(j.query, j.document) for j in judged} == set(truth)
    exact = sum(j.grade == grade(truth[(j.query, j.document)], model="pbm", max_grade=3) for j in judged)
    assert exact / len(judged) > 0.7
    assert implicit_judgments(counts, model="coec", min_impressions=10**9) == []


def test_an_unknown_model_is_refused():
    with pytest.raises(ValueError, match="click model"):
        implicit_judgments(_counts([("q", "a", 1, 1, 1)]), model="dbn")


def test_impression_counts_match_clicks_by_object_or_by_position(worked_store):
    with store.connect(worked_store) as con:
        counts = impression_counts(con)
    assert counts.n.sum() > 0
    assert counts.c.sum() <= counts.n.sum()
    assert all(query == query.strip().lower() for query, _ in counts.pairs)
