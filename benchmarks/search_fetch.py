"""Fetching a query set from a live engine: throughput against a local Elasticsearch-speaking server that answers
each request after `--latency` seconds, at concurrency 1, 8 and 32, beside a bare httpx client sending the same
requests from the same number of threads (the peer: no address rules, no paging logic, no recipe); and the app's
own cost per query with no latency, one at a time.

    .venv/bin/python benchmarks/search_fetch.py [--queries 256] [--latency 0.05] [--depth 10]

Targets: at least 0.9 x concurrency / latency queries a second (one page a query at the default depth), and at most
5 ms of the app's own cost per query.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from config.core import outbound  # noqa: E402
from judging.search_fetch.core.engines import ENGINES, Endpoint  # noqa: E402
from judging.search_fetch.core.fetch import Fetcher, Policy  # noqa: E402
from tests.search_servers import search_server  # noqa: E402

WORDS = ["red", "apples", "green", "pears", "wine", "grapes"]


def _queries(count: int) -> list[tuple[str, dict]]:
    return [(str(i), {"query": f"{WORDS[i % 6]} {WORDS[(i * 7) % 6]}"}) for i in range(count)]


def ours(server, queries, concurrency: int, depth: int) -> float:
    endpoint = Endpoint(engine="elasticsearch", url=server.url, index="docs")
    policy = Policy(depth=depth, page_size=depth, concurrency=concurrency, retries=0)
    with outbound.outbound_client(connections=concurrency) as client:
        started = time.perf_counter()
        results = Fetcher(client, endpoint, policy).fetch(queries)
        seconds = time.perf_counter() - started
    assert not any(r.failure for r in results), [r.failure for r in results if r.failure][:3]
    return len(queries) / seconds


def peer(server, queries, concurrency: int, depth: int) -> float:
    endpoint = Endpoint(engine="elasticsearch", url=server.url, index="docs")
    requests = [ENGINES["elasticsearch"].request(endpoint, values, 0, depth) for _, values in queries]
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    with httpx.Client(limits=limits, trust_env=False) as client, ThreadPoolExecutor(concurrency) as pool:
        started = time.perf_counter()
        list(pool.map(lambda r: client.post(r.url, json=r.json).json(), requests))
        return len(queries) / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=256)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--depth", type=int, default=10)
    args = parser.parse_args()
    queries = _queries(args.queries)
    with search_server() as server:
        server.delay = 0.0
        for _ in range(2):  # warm both paths
            ours(server, queries[:16], 1, args.depth), peer(server, queries[:16], 1, args.depth)
        started = time.perf_counter()
        ours(server, queries, 1, args.depth)
        own_ms = (time.perf_counter() - started) / len(queries) * 1000
        started = time.perf_counter()
        peer(server, queries, 1, args.depth)
        peer_ms = (time.perf_counter() - started) / len(queries) * 1000
        print(f"own cost per query, no latency, one at a time (server included): ours {own_ms:.2f} ms, bare httpx "
              f"{peer_ms:.2f} ms, ratio {own_ms / peer_ms:.2f} (target: at most 5 ms)")  # fmt: skip
        server.delay = args.latency
        print(f"{args.queries} queries, depth {args.depth}, server latency {args.latency * 1000:.0f} ms")
        for concurrency in (1, 8, 32):
            ideal = concurrency / args.latency
            rate, bare = ours(server, queries, concurrency, args.depth), peer(server, queries, concurrency, args.depth)
            verdict = "meets" if rate >= 0.9 * ideal else "BELOW"
            print(f"  concurrency {concurrency:2d}: ours {rate:7.1f} q/s, bare httpx {bare:7.1f} q/s (ratio "
                  f"{rate / bare:.2f}), ideal {ideal:6.1f}: {rate / ideal:.2f} ({verdict} the 0.9 target)")  # fmt: skip


if __name__ == "__main__":
    main()
