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
(c) with `--postgres URL` (default: the local server when it answers): the same queries and events loaded into
    PostgreSQL tables (COPY from CSV, as fast as PostgreSQL loads), and the same per-day and per-arm figures in SQL
    there, beside ours: the comparison behind the README's choice of Parquet + DuckDB for logs.
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

from evaluation.online.core import ab, sources, store
from evaluation.online.core.measures import OnlineSettings, online_measures


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
    return (
        pd.read_json(files["queries"], lines=True, engine="pyarrow"),
        pd.read_json(files["events"], lines=True, engine="pyarrow"),
    )


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
        per = q.groupby(group).agg(
            queries=("clicks", "size"),
            ctr=("clicks", lambda c: (c > 0).mean()),
            clicks=("clicks", "sum"),
            impressions=("hits_n", "sum"),
            zero=("hits_n", lambda h: (h == 0).mean()),
            mrr=("rr", "mean"),
        )
        sessions = s.groupby("day" if key == "day" else "arm").agg(
            abandonment=("clicked", lambda c: (c == 0).mean()), success=("success", "mean")
        )
        out[key] = per.join(sessions)
    return out


PG_TABLES = """
DROP TABLE IF EXISTS bench_queries, bench_events;
CREATE UNLOGGED TABLE bench_queries (query_id text, session_id text, application text, hits_n int, ts timestamp);
CREATE UNLOGGED TABLE bench_events (event_id text, query_id text, session_id text, ordinal int, dwell double precision,
                                    ts timestamp);
"""
PG_MEASURES = """
CREATE TEMP TABLE ev AS
WITH moments AS (
    SELECT session_id, ts, NULL::text AS event_id FROM bench_queries
    UNION ALL SELECT session_id, ts, event_id FROM bench_events),
nexts AS (
    SELECT event_id, min(ts) OVER (PARTITION BY session_id ORDER BY ts
        RANGE BETWEEN '1 microsecond' FOLLOWING AND UNBOUNDED FOLLOWING) AS next_ts FROM moments)
SELECT e.query_id, e.session_id, e.ordinal, e.ts,
    coalesce(e.dwell, extract(epoch FROM n.next_ts - e.ts), 0) AS dwell
FROM bench_events e JOIN nexts n USING (event_id);
CREATE TEMP TABLE qa AS
SELECT q.query_id, q.session_id, q.application AS arm, q.hits_n, q.ts, count(ev.query_id) AS clicks,
    (array_agg(ev.ordinal ORDER BY ev.ts, ev.ordinal) FILTER (WHERE ev.query_id IS NOT NULL))[1] AS first_position
FROM bench_queries q LEFT JOIN ev USING (query_id) GROUP BY q.query_id, q.session_id, q.application, q.hits_n, q.ts;
CREATE TEMP TABLE sa AS
SELECT session_id, min(arm) AS arm, min(ts) AS start, max(clicks) > 0 AS clicked,
    session_id IN (SELECT session_id FROM ev WHERE dwell >= 30) AS success
FROM qa GROUP BY session_id;
"""
PG_FIGURES = """
SELECT {group}, count(*), avg((clicks > 0)::int), sum(clicks)::float / nullif(sum(hits_n), 0),
    avg((hits_n = 0)::int), avg(1.0 / first_position) FROM qa GROUP BY 1 ORDER BY 1;
SELECT {session_group}, avg((NOT clicked)::int), avg(success::int) FROM sa GROUP BY 1 ORDER BY 1;
"""


def postgres_load(url: str, root: Path, folder: Path) -> None:
    import psycopg

    con = sources.connection()
    parts = {
        kind: "[" + ", ".join(sources.quoted(f) for f in sorted(root.glob(f"import=*/{kind}/day=*/*.parquet"))) + "]"
        for kind in ("queries", "events")
    }
    csv = {"queries": folder / "q.csv", "events": folder / "e.csv"}
    con.execute(
        f"COPY (SELECT query_id, session_id, application, len(hits), ts FROM read_parquet({parts['queries']}))"
        f" TO {sources.quoted(csv['queries'])} (HEADER false)"
    )
    con.execute(
        f"COPY (SELECT event_id, query_id, session_id, ordinal, dwell_seconds, ts FROM read_parquet("
        f"{parts['events']})) TO {sources.quoted(csv['events'])} (HEADER false)"
    )
    with psycopg.connect(url, autocommit=True) as pg:
        pg.execute(PG_TABLES)
        for kind, table in (("queries", "bench_queries"), ("events", "bench_events")):
            with pg.cursor().copy(f"COPY {table} FROM STDIN (FORMAT csv)") as copy, open(csv[kind], "rb") as handle:
                while block := handle.read(1 << 20):
                    copy.write(block)
        pg.execute("ANALYZE bench_queries; ANALYZE bench_events")


def postgres_measures(url: str) -> None:
    import psycopg

    with psycopg.connect(url) as pg:
        pg.execute("SET work_mem = '256MB'")
        pg.execute(PG_MEASURES)
        for group, session_group in (("date_trunc('day', ts)", "date_trunc('day', start)"), ("arm", "arm")):
            for statement in PG_FIGURES.format(group=group, session_group=session_group).split(";")[:2]:
                pg.execute(statement).fetchall()
        pg.rollback()


def postgres_url(given: str | None) -> str | None:
    if given:
        return given
    try:
        import psycopg

        url = "postgresql://postgres@127.0.0.1:5432/postgres"
        psycopg.connect(url, connect_timeout=2).close()
        return url
    except Exception:
        return None


def timed(work):
    start = time.perf_counter()
    result = work()
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000_000)
    parser.add_argument("--keep", help="a folder to keep the generated files and store in")
    parser.add_argument("--postgres", help="a PostgreSQL URL for (c) (default: the local server if it answers)")
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
        print(
            f"(a) import: ours {ours:.1f} s ({summary.queries:,} queries, {summary.events:,} events, "
            f"{len(summary.days)} days) | pandas read_json {peer:.1f} s | ratio {peer / ours:.2f}x"
        )
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
        print(
            f"(b) every measure per day and per arm + A/B: ours {first:.1f} s preparing, {again:.2f} s prepared "
            f"| pandas {peer:.1f} s | ratio {peer / again:.1f}x (prepared), {peer / first:.2f}x (preparing)"
        )
        url = postgres_url(args.postgres)
        if url is None:
            print("(c) PostgreSQL: skipped (no server answered; pass --postgres URL)")
            return
        try:
            load, _ = timed(lambda: postgres_load(url, root, folder))
            pg_first, _ = timed(lambda: postgres_measures(url))
        finally:
            import psycopg

            with psycopg.connect(url, autocommit=True) as pg:
                pg.execute("DROP TABLE IF EXISTS bench_queries, bench_events")
        print(
            f"(c) PostgreSQL: load (Parquet → CSV → COPY) {load:.1f} s vs our import {ours:.1f} s | the same "
            f"figures per day and per arm: PostgreSQL {pg_first:.1f} s vs ours {first:.1f} s preparing, "
            f"{again:.2f} s prepared | ratio {pg_first / first:.2f}x (preparing), {pg_first / again:.1f}x (prepared)"
        )
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
