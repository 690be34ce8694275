"""Online evaluation speed against pandas, measured in the same run on the same data.

    .venv/bin/python benchmarks/online.py [--events 10000000] [--keep DIR]

Generates a month of UBI logs (by default 10 million events, about 2 million queries and 500k sessions, two arms,
position-biased clicks, a dwell on most clicks), then times:
(a) import: JSON lines → our Parquet store (read, every rule checked, deduplicated, partitioned by day), beside
    pandas reading the same files (`read_json(lines=True)`, pyarrow engine, no checks);
(b) every measure for the month per day and per arm with the A/B comparison: first with the store's derived tables
    prepared (once per import and settings), then from the prepared tables, beside pandas computing the same
    per-day and per-arm figures from the store's Parquet (sessions, query CTR, result CTR, zero results,
    abandonment, success by dwell, MRR of the first click).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from evaluation.online import ab, sources, store
from evaluation.online.measures import OnlineSettings, online_measures


def generate(folder: Path, events: int) -> dict[str, Path]:
    """Queries with ten hits each; each query's clicks at positions drawn from a position-biased model."""
    con = sources.connection()
    queries = events // 5
    con.execute(f"""
        CREATE TABLE q AS SELECT 'q' || i AS query_id, 'c' || (i // 4) AS client_id, 's' || (i // 4) AS session_id,
            CASE WHEN (i // 4) % 2 = 0 THEN 'A' ELSE 'B' END AS application,
            'query ' || (hash(i) % 50000)::BIGINT // (1 + (hash(i * 7) % 40)::BIGINT) AS user_query,
            CASE WHEN hash(i * 3) % 20 = 0 THEN []::VARCHAR[]
                 ELSE list_transform(range(10), lambda x: 'd' || ((hash(i) + x) % 100000)) END
                AS query_response_hit_ids,
            strftime(TIMESTAMP '2026-10-01' + to_microseconds((i * (31 * 86400 / {queries}) * 1e6)::BIGINT),
                     '%Y-%m-%dT%H:%M:%S.%fZ') AS timestamp
        FROM range({queries}) t(i)
    """)
    con.execute("""
        CREATE TABLE e AS SELECT 'e' || row_number() OVER () AS event_id, query_id, session_id, client_id,
            application, 'click' AS action_name,
            strftime(timestamp::TIMESTAMP + to_seconds(3 + k * 7), '%Y-%m-%dT%H:%M:%S.%fZ') AS timestamp,
            {'object': {'object_id': query_response_hit_ids[p]}, 'position': {'ordinal': p},
             'dwell_seconds': CASE WHEN hash(query_id, k) % 4 = 0 THEN NULL ELSE (hash(query_id, k) % 90)::DOUBLE END}
                AS event_attributes
        FROM (SELECT *, 1 + floor(10 * pow((hash(query_id, k) % 1000)::DOUBLE / 1000, 2))::BIGINT AS p
              FROM q, range(5) r(k) WHERE len(query_response_hit_ids) > 0)
    """)
    files = {"queries": folder / "ubi_queries.jsonl", "events": folder / "ubi_events.jsonl"}
    con.execute(f"COPY q TO {sources.quoted(files['queries'])} (FORMAT json)")
    con.execute(f"COPY e TO {sources.quoted(files['events'])} (FORMAT json)")
    return files


def pandas_import(files: dict[str, Path]) -> tuple[pd.DataFrame, pd.DataFrame]:
    return (pd.read_json(files["queries"], lines=True, engine="pyarrow"),
            pd.read_json(files["events"], lines=True, engine="pyarrow"))


def pandas_measures(root: Path, dwell_seconds: float = 30.0) -> dict:
    """The per-day and per-arm figures in pandas, from the store's Parquet (sessions known by id, as generated)."""
    q = pd.read_parquet(sorted(root.glob("import=*/queries/day=*/*.parquet")))
    e = pd.read_parquet(sorted(root.glob("import=*/events/day=*/*.parquet")))
    q["hits_n"] = q["hits"].map(len)
    e = e.merge(q[["query_id", "ts", "hits_n"]].rename(columns={"ts": "q_ts"}), on="query_id")
    moments = pd.concat([q[["session_id", "ts"]], e[["session_id", "ts"]]]).drop_duplicates()
    moments = moments.sort_values(["session_id", "ts"])
    moments["next_ts"] = moments.groupby("session_id")["ts"].shift(-1)
    e = e.merge(moments, on=["session_id", "ts"], how="left")
    e["dwell"] = e["dwell_seconds"].fillna((e["next_ts"] - e["ts"]).dt.total_seconds()).fillna(0)
    clicks = e.groupby("query_id").size()
    first = e.sort_values(["ts", "ordinal"]).groupby("query_id")["ordinal"].first()
    q = q.set_index("query_id")
    q["clicks"] = clicks.reindex(q.index, fill_value=0)
    q["rr"] = 1 / first.reindex(q.index)
    q["day"] = q["ts"].dt.floor("D")
    success = e[e["dwell"] >= dwell_seconds].groupby("session_id").size()
    s = q.groupby("session_id").agg(arm=("application", "first"), start=("ts", "min"), clicked=("clicks", "max"))
    s["success"] = s.index.isin(success.index)
    s["day"] = s["start"].dt.floor("D")
    out = {}
    for key, group in (("day", "day"), ("arm", "application")):
        per = q.groupby(group).agg(queries=("clicks", "size"), ctr=("clicks", lambda c: (c > 0).mean()),
                                   clicks=("clicks", "sum"), impressions=("hits_n", "sum"),
                                   zero=("hits_n", lambda h: (h == 0).mean()), mrr=("rr", "mean"))
        sessions = s.groupby("day" if key == "day" else "arm").agg(
            abandonment=("clicked", lambda c: (c == 0).mean()), success=("success", "mean"))
        out[key] = per.join(sessions)
    return out


def timed(work):
    start = time.perf_counter()
    result = work()
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000_000)
    parser.add_argument("--keep", help="a folder to keep the generated files and store in")
    args = parser.parse_args()
    folder = Path(args.keep or tempfile.mkdtemp(prefix="online-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        seconds, files = timed(lambda: generate(folder, args.events))
        sizes = sum(f.stat().st_size for f in files.values()) / 1e9
        print(f"generated {args.events:,} events in {seconds:.1f} s ({sizes:.2f} GB of JSON lines)")
        root = folder / "store"
        shutil.rmtree(root, ignore_errors=True)
        ours, summary = timed(lambda: store.import_log(root, files=files, log_format="ubi"))
        peer, _ = timed(lambda: pandas_import(files))
        print(f"(a) import: ours {ours:.1f} s ({summary.queries:,} queries, {summary.events:,} events, "
              f"{len(summary.days)} days) | pandas read_json {peer:.1f} s | ratio {peer / ours:.2f}x")
        settings = OnlineSettings(arm="application")

        def ours_measures():
            con = store.prepared_connection(root, settings)
            figures = online_measures(con, settings, by="day", prepared=True)
            figures["comparison"] = ab.arm_comparison(con)
            return figures

        shutil.rmtree(root / "prepared", ignore_errors=True)
        first, _ = timed(ours_measures)
        again, _ = timed(ours_measures)
        peer, _ = timed(lambda: pandas_measures(root))
        print(f"(b) every measure per day and per arm + A/B: ours {first:.1f} s preparing, {again:.2f} s prepared "
              f"| pandas {peer:.1f} s | ratio {peer / again:.1f}x (prepared), {peer / first:.2f}x (preparing)")
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
