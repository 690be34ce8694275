"""The online measures on a ten-session log worked out by hand (worked_log.py says why each value is what it is)."""

from fractions import Fraction

import pytest

from evaluation.online.core import store
from evaluation.online.core.measures import OnlineSettings, online_measures, query_rate


def measures(root, **settings):
    return online_measures(store.connect(root), OnlineSettings(**settings), by="day")


def test_overall_measures_match_the_hand_worked_log(worked_store):
    overall = measures(worked_store)["overall"]
    assert overall["queries"] == 14
    assert overall["sessions"] == 10  # S1–S7, S10, and client c8's two gap sessions
    assert overall["query_ctr"] == pytest.approx(7 / 14)
    assert overall["result_ctr"] == pytest.approx(8 / 25)
    assert overall["zero_result_rate"] == pytest.approx(2 / 14)
    assert overall["session_abandonment_rate"] == pytest.approx(4 / 10)
    assert overall["session_success_rate"] == pytest.approx(4 / 10)
    rr = Fraction(1, 2) + 1 + 1 + Fraction(1, 2) + 1 + 1 + Fraction(1, 3)
    assert overall["mrr_first_click"] == pytest.approx(float(rr / 7))
    assert overall["ctr_at"] == pytest.approx({1: 4 / 12, 2: 2 / 8, 3: 2 / 4, 4: 0.0})


def test_success_actions_count_as_successes_without_a_click(worked_store):
    assert measures(worked_store, success_actions=("copy",))["overall"]["session_success_rate"] == pytest.approx(0.5)


def test_a_longer_dwell_threshold_turns_the_shorter_successes_off(worked_store):
    # dwells of the successes: 50 (S1), 45 (S5), 31 (S8), 80 (S10)
    assert measures(worked_store, dwell_seconds=46)["overall"]["session_success_rate"] == pytest.approx(2 / 10)


def test_a_longer_session_gap_joins_the_clients_two_sessions(worked_store):
    figures = measures(worked_store, session_gap_minutes=45)["overall"]
    assert figures["sessions"] == 9
    assert figures["session_abandonment_rate"] == pytest.approx(3 / 9)


def test_measures_per_day_put_queries_on_their_day_and_sessions_on_their_first_day(worked_store):
    by = measures(worked_store)["by"]
    assert set(by) == {"2026-11-01", "2026-11-02"}
    assert by["2026-11-01"]["queries"] == 7 and by["2026-11-01"]["sessions"] == 6
    assert by["2026-11-01"]["query_ctr"] == pytest.approx(3 / 7)
    assert by["2026-11-01"]["session_abandonment_rate"] == pytest.approx(3 / 6)
    assert by["2026-11-02"]["query_ctr"] == pytest.approx(4 / 7)
    assert by["2026-11-02"]["session_abandonment_rate"] == pytest.approx(1 / 4)


def test_measures_per_arm_follow_the_sessions_arm(worked_store):
    arms = measures(worked_store, arm="application")["arms"]
    assert set(arms) == {"A", "B"}
    assert arms["A"]["sessions"] == 6 and arms["B"]["sessions"] == 4
    assert arms["A"]["query_ctr"] == pytest.approx(4 / 9)
    assert arms["B"]["query_ctr"] == pytest.approx(3 / 5)
    assert arms["A"]["session_abandonment_rate"] == pytest.approx(3 / 6)
    assert arms["B"]["session_abandonment_rate"] == pytest.approx(1 / 4)
    assert arms["A"]["session_success_rate"] == pytest.approx(2 / 6)
    assert arms["B"]["session_success_rate"] == pytest.approx(2 / 4)


def test_top_queries_are_normalised_and_ordered_by_count_then_text(worked_store):
    overall = measures(worked_store)["overall"]
    assert overall["top_queries"] == [
        ["cheap flights", 3],
        ["news", 3],
        ["weather", 3],
        ["café", 2],
        ["hotels", 2],
        ["maps", 1],
    ]
    assert overall["distinct_queries"] == 6
    assert overall["head_share"] == pytest.approx(3 / 14)  # the top 1% of 6 distinct queries, rounded up: one
    assert overall["torso_share"] == pytest.approx(3 / 14)
    assert overall["tail_share"] == pytest.approx(8 / 14)


def test_an_empty_log_has_undefined_ratios(tmp_path):
    figures = online_measures(store.connect(None), OnlineSettings())["overall"]
    assert figures["queries"] == 0 and figures["query_ctr"] is None and figures["ctr_at"] == {}


def test_query_rate_marks_a_robust_spike(tmp_path):
    from evaluation.online.core.simulate import write_jsonl

    per_hour = [2, 3, 4, 3, 2, 3, 4, 30, 3, 2, 4, 3]  # median 3, MAD 1 once the empty hours are in
    queries = [
        {"query_id": f"q{h}-{i}", "client_id": "c", "user_query": "x", "timestamp": f"2026-11-01T{h:02d}:00:00Z"}
        for h, n in enumerate(per_hour)
        for i in range(n)
    ] + [{"query_id": "late", "client_id": "c", "user_query": "x", "timestamp": "2026-11-01T14:00:00Z"}]
    files = {"queries": write_jsonl(queries, tmp_path / "q.jsonl"), "events": write_jsonl([], tmp_path / "e.jsonl")}
    store.import_log(tmp_path / "s", files=files, log_format="ubi")
    con = store.connect(tmp_path / "s")
    online_measures(con, OnlineSettings())
    series = query_rate(con, "hour")
    assert [row["queries"] for row in series][12:] == [0, 0, 1]  # empty hours are in the series
    assert [row["bucket"][11:13] for row in series if row["spike"]] == ["07"]
    assert series[7]["z"] == pytest.approx(0.6745 * 27)


def test_per_query_figures_are_the_query_level_measures_of_each_normalised_query(worked_store):
    with store.connect(worked_store) as con:
        per_query = online_measures(con, OnlineSettings(), by="query")["by"]
        overall = online_measures(con, OnlineSettings())["overall"]
    assert sum(v["queries"] for v in per_query.values()) == overall["queries"]
    assert dict(overall["top_queries"]) == {q: v["queries"] for q, v in per_query.items()}
    assert all("session_success_rate" not in v for v in per_query.values())
    clicked = sum(v["query_ctr"] * v["queries"] for v in per_query.values())
    assert clicked / overall["queries"] == pytest.approx(overall["query_ctr"])


def test_a_log_spanning_years_gets_a_bounded_rate_series(tmp_path):
    """Two queries ten years apart: per minute that is over five million buckets (14 s and 2.7 GB once)."""
    from evaluation.online.core.measures import MAX_RATE_BUCKETS, rate_buckets, rate_unit
    from evaluation.online.core.simulate import write_jsonl

    queries = [
        {"query_id": "a", "client_id": "c", "user_query": "x", "timestamp": "2016-01-01T00:00:00Z"},
        {"query_id": "b", "client_id": "c", "user_query": "x", "timestamp": "2026-01-01T00:00:00Z"},
    ]
    files = {"queries": write_jsonl(queries, tmp_path / "q.jsonl"), "events": write_jsonl([], tmp_path / "e.jsonl")}
    store.import_log(tmp_path / "s", files=files, log_format="ubi")
    con = store.connect(tmp_path / "s")
    online_measures(con, OnlineSettings())
    assert rate_buckets(con, "minute") > 5_000_000
    with pytest.raises(ValueError, match="coarser unit"):
        query_rate(con, "minute")
    assert rate_unit(con, "minute") == "day" and rate_unit(con, "month") == "month"
    series = query_rate(con, rate_unit(con, "minute"))
    assert len(series) == 3654 <= MAX_RATE_BUCKETS and sum(row["queries"] for row in series) == 2


def test_a_registered_online_ratio_appears_in_every_figure_the_pages_and_the_ab_table(tmp_path, worked_files):
    """A new online measure is one registry entry: the whole log, each bucket, each arm, A/B and the page's labels."""
    from evaluation.online.core import ab
    from evaluation.online.core.measures import RATIO_REGISTRY, OnlineRatio, definitions, register
    from evaluation.online.views import measure_labels

    register(OnlineRatio("clicks_per_query", "Clicks per query", "clicks / queries", "none", "query",
                         "coalesce(sum(clicks), 0)", "count(*)"))  # fmt: skip
    try:
        store.import_log(tmp_path / "s", files=worked_files, log_format="ubi")
        con = store.connect(tmp_path / "s")
        figures = online_measures(con, OnlineSettings(arm="application"), by="day")
        clicks, queries = con.execute("SELECT sum(clicks), count(*) FROM qa").fetchone()
        assert figures["overall"]["clicks_per_query"] == pytest.approx(clicks / queries)
        assert all("clicks_per_query" in values for values in figures["by"].values())
        assert all("clicks_per_query" in values for values in figures["arms"].values())
        assert "clicks_per_query" in ab.arm_comparison(con)["arms"]["A"]
        assert measure_labels()["clicks_per_query"] == "Clicks per query"
        assert definitions()["clicks_per_query"] == ("clicks / queries", "none")
    finally:
        RATIO_REGISTRY.pop("clicks_per_query")
