"""Topics sampled from traffic, and the online/offline correlation."""

from collections import Counter

import pytest
from scipy import stats

from evaluation.online.core import store
from evaluation.online.core.measures import OnlineSettings, prepare
from evaluation.online.core.traffic import (
    LoggedQuery,
    logged_queries,
    online_offline_correlation,
    per_query_online,
    strata_of,
    traffic_sample,
)

RANKED = [
    LoggedQuery(f"q{i}", count, 1 if i % 7 == 0 else 0)
    for i, count in enumerate(sorted((int(1000 / (i + 1)) + 1 for i in range(300)), reverse=True))
]


def test_strata_cut_the_top_one_percent_and_the_next_nineteen():
    strata = Counter(strata_of(RANKED).values())
    assert strata == {"head": 3, "torso": 57, "tail": 240}


def test_pps_draws_a_single_query_in_proportion_to_its_traffic():
    few = [LoggedQuery("a", 6, 0), LoggedQuery("b", 3, 0), LoggedQuery("c", 1, 0)]
    drawn = Counter(traffic_sample(few, method="pps", size=1, seed=s).queries[0].query for s in range(6000))
    assert drawn["a"] / 6000 == pytest.approx(0.6, abs=0.03)
    assert drawn["b"] / 6000 == pytest.approx(0.3, abs=0.03)


def test_pps_second_draw_is_proportional_among_those_left():
    few = [LoggedQuery("a", 6, 0), LoggedQuery("b", 3, 0), LoggedQuery("c", 1, 0)]
    pairs = Counter(
        frozenset(q.query for q in traffic_sample(few, method="pps", size=2, seed=s).queries) for s in range(6000)
    )
    # P({a, b}) = 0.6·3/4 + 0.3·6/7 = 0.707…
    assert pairs[frozenset("ab")] / 6000 == pytest.approx(0.6 * 3 / 4 + 0.3 * 6 / 7, abs=0.03)


def test_samples_are_distinct_reproducible_by_seed_and_say_their_coverage():
    sample = traffic_sample(RANKED, method="pps", size=30, seed=4)
    assert len({q.query for q in sample.queries}) == 30
    assert sample == traffic_sample(RANKED, method="pps", size=30, seed=4)
    assert sample.coverage == pytest.approx(sum(q.count for q in sample.queries) / sum(q.count for q in RANKED))


def test_strata_sample_is_split_as_evenly_as_the_strata_allow():
    sample = traffic_sample(RANKED, method="strata", size=12, seed=1)
    assert Counter(sample.strata.values()) == {"head": 3, "torso": 5, "tail": 4}
    assert Counter(traffic_sample(RANKED, method="strata", size=9, seed=1).strata.values()) == {
        "head": 3,
        "torso": 3,
        "tail": 3,
    }


def test_zero_result_sample_takes_only_queries_that_found_nothing():
    sample = traffic_sample(RANKED, method="zero_result", size=1000, seed=2)
    assert len(sample.queries) == sum(1 for q in RANKED if q.zero_results)
    assert all(q.zero_results for q in sample.queries)


def test_an_unknown_method_or_an_empty_sample_is_refused():
    with pytest.raises(ValueError, match="sampling method"):
        traffic_sample(RANKED, method="uniform", size=3)
    with pytest.raises(ValueError, match="at least 1"):
        traffic_sample(RANKED, method="pps", size=0)


def test_correlation_matches_scipy_on_the_shared_queries():
    offline = {"a": 0.1, "b": 0.5, "c": 0.3, "d": 0.9, "only offline": 1.0}
    online = {"a": 0.2, "b": 0.4, "c": 0.45, "d": 0.8, "only online": 0.0}
    found = online_offline_correlation(offline, online)
    x, y = [0.1, 0.5, 0.3, 0.9], [0.2, 0.4, 0.45, 0.8]
    assert found["queries"] == 4
    assert found["kendall_tau"] == pytest.approx(stats.kendalltau(x, y).statistic)
    assert found["pearson"] == pytest.approx(stats.pearsonr(x, y).statistic)
    assert online_offline_correlation({"a": 1, "b": 1, "c": 1}, {"a": 1, "b": 2, "c": 3})["pearson"] is None


def test_logged_queries_and_per_query_online_read_the_store(worked_store):
    with store.connect(worked_store) as con:
        ranked = logged_queries(con)
        prepare(con, OnlineSettings(arm="application"))
        ctr = per_query_online(con, measure="query_ctr")
        success = per_query_online(con, measure="session_success_rate")
    counts = [q.count for q in ranked]
    assert counts == sorted(counts, reverse=True) and sum(counts) > 0
    assert set(ctr) == set(success)
    assert all(0 <= v <= 1 for by_query in ctr.values() for v in by_query.values())
