"""A/B statistics against statsmodels, and every measure against pandas computing the same definitions on
generated logs."""

from datetime import datetime

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats import proportion

from evaluation.online.core import ab, store
from evaluation.online.core.measures import OnlineSettings, online_measures
from evaluation.online.core.simulate import SimulatedTopic, simulated_log, write_jsonl


def test_a_per_session_proportion_has_wilsons_interval_newcombes_difference_and_the_wald_test(worked_store):
    con = store.connect(worked_store)
    online_measures(con, OnlineSettings(arm="application"))
    comparison = ab.arm_comparison(con)
    assert comparison["control"] == "A"
    a, b = comparison["arms"]["A"]["session_abandonment_rate"], comparison["arms"]["B"]["session_abandonment_rate"]
    low, high = proportion.proportion_confint(3, 6, alpha=0.05, method="wilson")
    assert (a["low"], a["high"]) == pytest.approx((low, high))
    reference = proportion.test_proportions_2indep(1, 4, 3, 6, method="wald", compare="diff", correction=False)
    assert b["difference"] == pytest.approx(1 / 4 - 3 / 6)
    assert b["p_value"] == pytest.approx(reference.pvalue)
    newcombe = proportion.confint_proportions_2indep(1, 4, 3, 6, method="newcomb", compare="diff")
    assert (b["difference_low"], b["difference_high"]) == pytest.approx(newcombe)
    assert a["too_small"] and b["too_small"]  # 6 and 4 sessions say little


@pytest.mark.parametrize(("count", "n"), [(0, 2), (2, 2), (1, 3), (0, 1), (5, 5), (1, 40)])
def test_a_rates_interval_stays_within_0_and_1_on_tiny_arms(count, n):
    x = np.ones(n)
    y = np.array([1.0] * count + [0.0] * (n - count))
    value, variance = ab.ratio_estimate(y, x)
    low, high = ab.wilson_interval(value, variance, n, 1.959963984540054)
    assert 0.0 <= low <= value <= high <= 1.0
    assert (low, high) == pytest.approx(proportion.proportion_confint(count, n, alpha=0.05, method="wilson"))


def test_two_arms_without_variation_have_no_p_value_rather_than_p_0():
    z = 1.959963984540054
    arm = (1.0, 0.0, ab.wilson_interval(1.0, 0.0, 3, z))
    control = (0.0, 0.0, ab.wilson_interval(0.0, 0.0, 2, z))
    result = ab._difference(arm, control, z)
    assert result["p_value"] is None and -1.0 <= result["difference_low"] <= result["difference_high"] <= 1.0


def test_p_values_are_printed_never_as_0():
    from evaluation.online.views import p_value_text

    assert [p_value_text(p) for p in (0.0, 1e-12, 0.0004, 0.04321, None)] == [
        "< 0.001",
        "< 0.001",
        "< 0.001",
        "0.043",
        "undefined",
    ]


def test_the_delta_method_variance_of_a_ratio_matches_a_bootstrap():
    rng = np.random.default_rng(1)
    x = rng.integers(1, 6, 4000).astype(float)
    y = rng.binomial(x.astype(int), 0.3).astype(float)
    ratio, variance = ab.ratio_estimate(y, x)
    draws = rng.integers(0, len(x), (2000, len(x)))
    bootstrap = (y[draws].sum(1) / x[draws].sum(1)).var()
    assert ratio == pytest.approx(y.sum() / x.sum())
    assert variance == pytest.approx(bootstrap, rel=0.15)


def generated_log(tmp_path, seed):
    rng = np.random.default_rng(seed)
    topics = []
    for t in range(12):
        docs = [f"t{t}d{i}" for i in range(15)]
        grades = {d: int(rng.integers(0, 3)) for d in docs}
        topics.append(
            SimulatedTopic(
                query=f"Topic {t}" if t % 3 else f"  TOPIC   {t} ",
                weight=float(rng.uniform(0.2, 3)),
                rankings={"A": docs[:10], "B": list(reversed(docs))[:10]},
                grades=grades,
            )
        )
    queries, events = simulated_log(topics, sessions=400, start=datetime(2026, 11, 1), days=5, seed=seed)
    for event in events[::7]:  # some clicks without dwell or position: next-moment dwell, position from the hits
        event["event_attributes"].pop("dwell_seconds")
    for event in events[::11]:
        event["event_attributes"].pop("position", None)
    for query in queries[::13]:
        query.pop("session_id")
    return (
        queries,
        events,
        {"queries": write_jsonl(queries, tmp_path / "q.jsonl"), "events": write_jsonl(events, tmp_path / "e.jsonl")},
    )


def pandas_measures(queries, events, dwell_seconds=30.0, gap_minutes=30.0) -> dict:
    """The same definitions, written again in pandas."""
    q = pd.DataFrame(queries)
    q["ts"] = pd.to_datetime(q["timestamp"], utc=True).dt.tz_localize(None)
    e = pd.DataFrame(events)
    e["ts"] = pd.to_datetime(e["timestamp"], utc=True).dt.tz_localize(None)
    e["object_id"] = e["event_attributes"].map(lambda a: a["object"]["object_id"])
    e["ordinal"] = e["event_attributes"].map(lambda a: a.get("position", {}).get("ordinal"))
    e["dwell"] = e["event_attributes"].map(lambda a: a.get("dwell_seconds"))
    from_events = e.groupby("query_id")["session_id"].min()
    q["known"] = q["session_id"].fillna(q["query_id"].map(from_events))
    q = q.sort_values(["ts", "query_id"])
    derived = q[q["known"].isna()].copy()
    starts = derived.groupby("client_id")["ts"].diff().dt.total_seconds().fillna(np.inf) >= gap_minutes * 60
    derived["session"] = "c:" + derived["client_id"] + "#" + starts.groupby(derived["client_id"]).cumsum().astype(str)
    q["session"] = "s:" + q["known"]
    q.loc[derived.index, "session"] = derived["session"]
    q = q.set_index("query_id")
    e["session"] = e["query_id"].map(q["session"])
    e["hits"] = e["query_id"].map(q["query_response_hit_ids"])
    e["position"] = [
        o if o == o and o is not None else (h.index(d) + 1 if d in h else None)
        for o, h, d in zip(e["ordinal"], e["hits"], e["object_id"], strict=True)
    ]
    moments = pd.concat([q[["session", "ts"]], e[["session", "ts"]]])
    by_session = {s: np.sort(g["ts"].unique()) for s, g in moments.groupby("session")}
    dwell = []
    for _, click in e.iterrows():
        times = by_session[click["session"]]
        later = times[times > click["ts"].to_datetime64()]
        fallback = (later[0] - click["ts"].to_datetime64()) / np.timedelta64(1, "s") if len(later) else 0.0
        dwell.append(click["dwell"] if click["dwell"] == click["dwell"] and click["dwell"] is not None else fallback)
    e["dwell"] = dwell
    q["hits_n"] = q["query_response_hit_ids"].map(len)
    clicks = e.groupby("query_id").size().reindex(q.index, fill_value=0)
    firsts = e.dropna(subset=["position"]).sort_values(["ts", "position"]).groupby("query_id")["position"].first()
    sessions = q.groupby("session")
    clicked_sessions = set(q[clicks > 0]["session"])
    succeeded = set(e[e["dwell"] >= dwell_seconds]["session"])
    return {
        "queries": len(q),
        "sessions": sessions.ngroups,
        "query_ctr": (clicks > 0).mean(),
        "result_ctr": clicks.sum() / q["hits_n"].sum(),
        "zero_result_rate": (q["hits_n"] == 0).mean(),
        "mrr_first_click": (1 / firsts).mean(),
        "session_abandonment_rate": 1 - len(clicked_sessions) / sessions.ngroups,
        "session_success_rate": len(succeeded) / sessions.ngroups,
    }


@pytest.mark.parametrize("seed", [3, 4])
def test_every_measure_matches_pandas_on_a_generated_log(tmp_path, seed):
    queries, events, files = generated_log(tmp_path, seed)
    store.import_log(tmp_path / "s", files=files, log_format="ubi")
    ours = online_measures(store.connect(tmp_path / "s"), OnlineSettings())["overall"]
    reference = pandas_measures(queries, events)
    for measure, value in reference.items():
        assert ours[measure] == pytest.approx(value), measure
