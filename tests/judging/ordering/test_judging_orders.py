"""Adaptive judging orders on tiny pools, worked by hand: what each strategy proposes next, and how a label moves it."""

from __future__ import annotations

import numpy as np
import pytest

from judging.ordering.core.orders import GAMMA, ORDERS, judging_order

# Two runs of three documents; the pool in best-rank order.
RANKINGS = {"A": [1, 2, 3], "B": [4, 5, 6]}
POOL = [1, 4, 2, 5, 3, 6]


def test_best_rank_proposes_the_pool_order_and_skips_what_is_labelled():
    order = judging_order("best_rank", RANKINGS, POOL)
    assert order.upcoming(3) == [1, 4, 2]
    order.observe(4, 0)
    assert order.choose() == 1
    assert order.upcoming(10) == [1, 2, 5, 3, 6]


def test_mtf_keeps_a_run_at_the_front_while_its_documents_are_relevant():
    order = judging_order("mtf", RANKINGS, POOL)
    assert order.choose() == 1  # ties: the first run
    order.observe(1, 1)
    assert order.choose() == 2  # A found a relevant document: it stays at the front
    order.observe(2, 0)
    assert order.choose() == 4  # A gave a non-relevant one: B takes over


def test_mtf_next_document_depends_on_the_label_just_given():
    relevant, not_relevant = (judging_order("mtf", RANKINGS, POOL) for _ in range(2))
    for order in (relevant, not_relevant):
        order.observe(1, 1)
        order.observe(2, 0)
        assert order.choose() == 4
    relevant.observe(4, 1)
    not_relevant.observe(4, 0)
    assert relevant.choose() == 5  # B stays at the front
    assert not_relevant.choose() == 3  # both runs at -1: A, served less recently, goes first


def test_mtf_upcoming_reads_proposed_documents_as_not_relevant():
    order = judging_order("mtf", RANKINGS, POOL)
    # 1 (A, now -1), then B (0) gives 4 (now -1), then A (served earlier) gives 2, then B...
    assert order.upcoming(6) == [1, 4, 2, 5, 3, 6]
    assert order.labels == {}


def test_a_label_judged_out_of_order_is_skipped_without_moving_any_run():
    order = judging_order("mtf", RANKINGS, POOL)
    order.observe(3, 0)  # third in A: no run had it next
    assert order.priority == [0, 0]
    assert order.upcoming(6) == [1, 4, 2, 5, 6]


def test_bandit_prefers_the_run_whose_documents_were_relevant():
    chosen_from_a = 0
    for seed in range(300):
        order = judging_order("bandit", {"A": [1, 2, 3, 7], "B": [4, 5, 6, 8]}, [1, 4, 2, 5, 3, 6, 7, 8], seed=seed)
        for document, grade in ((1, 1), (4, 0), (2, 1), (5, 0)):
            order.observe(document, grade)
        chosen_from_a += order.choose() == 3
    # A's posterior is Beta(3, 1), B's Beta(1, 3): P(X > Y) = integral of 3x^2 (1 - (1 - x)^3) over [0, 1] = 19/20.
    exact = 19 / 20
    assert abs(chosen_from_a / 300 - exact) < 4 * np.sqrt(exact * (1 - exact) / 300)


def test_bandit_order_is_the_same_on_every_reload():
    def fresh():
        order = judging_order("bandit", RANKINGS, POOL, seed=5)
        order.observe(1, 1)
        return order.upcoming(5)

    assert fresh() == fresh()


def test_non_stationary_bandit_discounts_older_evidence():
    order = judging_order("bandit_ns", {"A": [1, 2, 3, 9], "B": [4]}, [1, 4, 2, 3, 9])
    for document, grade in ((1, 1), (2, 1), (3, 0)):
        order.observe(document, grade)
    assert order.relevant[0] == pytest.approx((1 * GAMMA + 1) * GAMMA)
    assert order.nonrelevant[0] == pytest.approx(1.0)


def test_cal_learns_from_the_text_of_judged_documents():
    rankings = {"A": [1, 2, 3, 4, 5, 6], "B": [6, 5, 4, 3, 2, 1]}
    texts = {1: "apple pie", 2: "stone wall", 3: "apple tart", 4: "stone floor", 5: "granite stone", 6: "apple cake"}
    order = judging_order("cal", rankings, [1, 6, 2, 5, 3, 4], texts=texts)
    assert order.choose() == 1  # nothing learnt yet: reciprocal rank fusion, ties to the pool order
    for document, grade in ((1, 1), (2, 0), (5, 0), (6, 1)):
        order.observe(document, grade)
    assert order.choose() == 3  # the one left that reads like the relevant ones


def test_impact_prefers_documents_many_good_runs_rank_high():
    rankings = {"A": [1, 2, 3], "B": [1, 3, 2], "C": [4, 5, 6]}
    order = judging_order("impact", rankings, [1, 4, 2, 3, 5, 6])
    assert order.choose() == 1  # top of two runs
    order.observe(1, 1)
    order.observe(4, 0)  # C's top document is not relevant: C's documents sink
    assert order.upcoming(4) == [2, 3, 5, 6]


@pytest.mark.parametrize("name", ORDERS)
def test_every_order_proposes_each_pooled_document_once(name):
    rng = np.random.default_rng(3)
    rankings = {f"r{i}": rng.permutation(40)[:15].tolist() for i in range(5)}
    pool = sorted({d for r in rankings.values() for d in r})
    order = judging_order(name, rankings, pool, seed=1, texts={d: f"w{d % 3}" for d in pool})
    seen = []
    while (document := order.choose()) is not None:
        seen.append(document)
        order.observe(document, int(rng.random() < 0.3))
    assert sorted(seen) == pool


def test_an_unknown_order_is_refused_by_name():
    with pytest.raises(ValueError, match="one of best_rank, mtf"):
        judging_order("oracle", RANKINGS, POOL)


def test_whether_an_order_is_adaptive_is_its_registry_entrys_word():
    from judging.ordering.core.orders import REGISTRY, is_adaptive

    assert not is_adaptive("best_rank") and not REGISTRY["best_rank"].adaptive
    assert all(is_adaptive(name) for name in REGISTRY if name != "best_rank")
    assert not is_adaptive("no-such-order")
