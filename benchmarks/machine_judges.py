"""Machine judges' throughput against a chat-completions server with a fixed latency, and the app's own cost per pair.

    .venv/bin/python benchmarks/machine_judges.py [--pairs 256] [--latency 0.2]

Starts the tests' chat-completions server (tests/chat_server.py) on a local port, answering every request after
`--latency` seconds, and judges `--pairs` pairs at concurrency 1, 8 and 32 through `judging.machine.judge_pairs`.
Target: at least 0.9 × concurrency / latency pairs a second, so the app is never the bottleneck. The app's own
cost per pair (rendering, the HTTP round trip's client side, parsing, caching, the thread pool) is measured with
no latency, one pair at a time: target at most 5 ms. Peer: the ideal (concurrency / latency).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from judging.machine.cache import ReplyCache  # noqa: E402
from judging.machine.client import ChatClient, ServerConfig  # noqa: E402
from judging.machine.judge import TopicText, judge_pairs  # noqa: E402
from judging.machine.prompts import UMBRELA  # noqa: E402
from tests.chat_server import chat_server  # noqa: E402


def _collection(pairs: int):
    qrels = {(str(t), f"d{t}x{d}"): (t + d) % 4 for t in range(pairs // 16 + 1) for d in range(16)}
    chosen = sorted(qrels)[:pairs]
    topics = {t: TopicText(f"topic {t}", "a question") for t, _ in chosen}
    documents = {d: f"doc {d}: " + "words of a passage " * 40 for _, d in chosen}
    return qrels, chosen, topics, documents


def _run(server, chosen, topics, documents, concurrency: int, cache_folder=None) -> tuple[float, int]:
    client = ChatClient(ServerConfig(base_url=server.base_url, model="bench", retries=0))
    started = time.perf_counter()
    run = judge_pairs(chosen, topics=topics, documents=documents, template=UMBRELA, client=client,
                      cache=ReplyCache(cache_folder), concurrency=concurrency)  # fmt: skip
    return time.perf_counter() - started, len(run.labels)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=256)
    parser.add_argument("--latency", type=float, default=0.2)
    args = parser.parse_args()
    qrels, chosen, topics, documents = _collection(args.pairs)
    print(f"{len(chosen)} pairs, server latency {args.latency * 1000:.0f} ms")
    with chat_server(qrels) as server:
        server.delay = args.latency
        for concurrency in (1, 8, 32):
            pairs = chosen if concurrency > 1 else chosen[: max(8, len(chosen) // 16)]
            seconds, labelled = _run(server, pairs, topics, documents, concurrency)
            rate, ideal = labelled / seconds, concurrency / args.latency
            verdict = "meets" if rate >= 0.9 * ideal else "BELOW"
            print(f"  concurrency {concurrency:>2}: {rate:7.1f} pairs/s   ideal {ideal:6.1f}   "
                  f"ratio {rate / ideal:4.2f} ({verdict} the 0.9 target)")  # fmt: skip
        server.delay = 0.0
        seconds, labelled = _run(server, chosen, topics, documents, 1)
        print(f"  the app's own cost per pair (no latency, one at a time, server included): "
              f"{seconds / labelled * 1000:.2f} ms (target: at most 5 ms)")  # fmt: skip
        with tempfile.TemporaryDirectory() as folder:
            _run(server, chosen, topics, documents, 8, folder)
            sent = server.requests
            seconds, labelled = _run(server, chosen, topics, documents, 8, folder)
            print(f"  a rerun from the cache: {labelled} pairs in {seconds * 1000:.0f} ms, "
                  f"{server.requests - sent} requests sent")  # fmt: skip


if __name__ == "__main__":
    main()
