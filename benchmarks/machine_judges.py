"""Machine judges' throughput against a chat-completions server with a fixed latency, the app's own cost per pair,
how many machine errors the verification queue finds per human verification, and the embedded judge's agreement.

    .venv/bin/python benchmarks/machine_judges.py [--pairs 256] [--latency 0.2] [--seeds 50] [--stored 100000]

Starts the tests' chat-completions server (tests/chat_server.py) on a local port, answering every request after
`--latency` seconds, and judges `--pairs` pairs at concurrency 1, 8 and 32 through `judging.machines.core.judge_pairs`.
Target: at least 0.9 × concurrency / latency pairs a second, so the app is never the bottleneck. The app's own
cost per pair (rendering, the HTTP round trip's client side, parsing, caching, the thread pool) is measured with
no latency, one pair at a time: target at most 5 ms; then the same through the whole app (a run over a
collection's pool in a temporary SQLite database, each label recorded through `judgment_record` with its reply).
Peer: the ideal (concurrency / latency).

Verification queue: a generated collection (30 topics, 60 pooled documents each, 5 runs) and a simulated judge whose
errors concentrate near the relevance threshold (half its labels of grades 1 and 2 wrong, 5% of the others); people
verify 10% or 20% of the pool, in the queue's order or at random. Target: the ranked queue finds at least 2x the
errors per verification. Last, the demo's offline judge's kappa against the demo's consensus (MiniLM where the
embedding extra is installed) beside the embedded BM25 baseline's, the floor.

Storing answers at TREC scale (--stored N, 0 to skip): N pooled pairs judged through the Batch API against the
tests' Batch API server (tests/batch_server.py), first by the client alone (no database: render, upload, poll,
download, read), then through the app (a judge with batch_api over a collection's pool: every answer kept as a
reply with its batch and line, and recorded as a judgment with its history). Target: N = 100,000 stored in under
60 s on this machine. The database is a temporary SQLite file (the embedded mode: each batch of labels' recompute
runs inline, on commit), or with --postgres a new database on DATABASE_URL's server with REDIS_URL's broker (as
deployed: the recomputes are queued for a worker, none of which runs here; the queue is purged after).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from judging.machines.core.cache import ReplyCache  # noqa: E402
from judging.machines.core.client import ChatClient, ServerConfig  # noqa: E402
from judging.machines.core.judge import TopicText, judge_pairs  # noqa: E402
from judging.machines.core.prompts import UMBRELA  # noqa: E402
from judging.machines.core.verification import impact_weights, verification_scores  # noqa: E402
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
    parser.add_argument("--seeds", type=int, default=50)
    parser.add_argument("--stored", type=int, default=100_000, help="answers stored through the Batch API (0: skip)")
    parser.add_argument("--postgres", action="store_true", help="store into DATABASE_URL's PostgreSQL, not SQLite")
    args = parser.parse_args()
    _database(args.postgres)
    if args.stored:
        stored_at_scale(args.stored)
    verification_queue(args.seeds)
    through_the_app(args.pairs)
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


def verification_queue(seeds: int) -> None:
    """Machine errors found per human verification: the ranked queue against a random order."""
    import random

    print(f"verification queue: 30 topics x 60 pooled documents, 5 runs, {seeds} seeds")
    for share in (0.1, 0.2):
        ranked_found = random_found = verified = 0
        for seed in range(seeds):
            rng = random.Random(seed)
            for _ in range(30):
                pool = list(range(60))
                truth = {d: rng.choice([0, 0, 0, 0, 1, 1, 2, 3]) for d in pool}
                machine = {}
                for d, grade in truth.items():
                    near = grade in (1, 2)
                    if rng.random() < (0.5 if near else 0.05):
                        machine[d] = 3 - grade if near else min(3, grade + 1)
                    else:
                        machine[d] = grade
                rankings = {f"run{r}": rng.sample(pool, len(pool)) for r in range(5)}
                scores = verification_scores(pool, machine, [], impact_weights(rankings, pool), threshold=2)
                budget = int(share * len(pool))
                ranked = sorted(pool, key=lambda d: -scores[d])[:budget]
                shuffled = rng.sample(pool, budget)
                ranked_found += sum(machine[d] != truth[d] for d in ranked)
                random_found += sum(machine[d] != truth[d] for d in shuffled)
                verified += budget
        ratio = ranked_found / max(random_found, 1)
        print(f"  verifying {share:.0%}: errors found per verification, ranked {ranked_found / verified:.3f}, "
              f"random {random_found / verified:.3f}, ratio {ratio:.2f} ({'meets' if ratio >= 2 else 'BELOW'} "
              f"the 2x target)")  # fmt: skip


def _database(postgres: bool) -> None:
    """Django set up on a fresh database: a temporary SQLite file, or a new database on DATABASE_URL's server."""
    import os

    if postgres:
        from benchmarks.fresh_database import fresh_postgres

        fresh_postgres("workbench_bench_machines")
    else:
        os.environ["DATABASE_URL"] = f"sqlite:///{tempfile.mkdtemp()}/bench.sqlite3"
        os.environ.pop("REDIS_URL", None)  # embedded: the recomputes the labels cause run inline, on commit
    os.environ.setdefault("DEBUG", "true")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def stored_at_scale(count: int) -> None:
    """`count` answers through the Batch API: the client alone, then through the app into the database."""
    from django.db import connection

    from judging import services
    from judging.machines import services as machine_judges
    from judging.machines.core.batch_api import BatchApi
    from judging.machines.core.batches import BatchLimits, judge_in_batches
    from judging.machines.models import MachineReply
    from judging.machines.providers import texts
    from judging.models import Document, PoolItem, Topic
    from tests.batch_server import batch_server

    per_topic = 500
    topics = max(1, count // per_topic)
    collection = services.collection_create(name=f"stored {count}", max_grade=3, relevance_threshold=2)
    services.topics_create(collection=collection, topics=[{"number": str(t), "title": f"topic {t}"}
                                                          for t in range(topics)])  # fmt: skip
    services.documents_create(collection=collection, documents=[
        {"docno": f"d{i}", "title": f"doc {i}", "body": "a short passage about the matter " * 3}
        for i in range(per_topic)])  # fmt: skip
    scores = {str(t): {f"d{i}": float(per_topic - i // 3) for i in range(per_topic)} for t in range(topics)}  # ties
    services.run_create(collection=collection, tag="r", scores=scores)
    services.pool_build_depth(collection=collection, depth=per_topic)
    pairs = list(PoolItem.objects.filter(topic__collection=collection).values_list("topic_id", "document_id"))
    qrels = {(str(t), str(i)): (t + i) % 4 for t in range(topics) for i in range(per_topic)}
    topic_texts, document_texts = texts(Topic.objects.filter(collection=collection),
                                        Document.objects.filter(collection=collection))  # fmt: skip
    print(f"storing answers: {len(pairs):,} pooled pairs through the Batch API ({connection.vendor})")
    with batch_server(qrels) as server:
        judge = machine_judges.machine_judge_create(
            collection=collection, name="batched", base_url=server.base_url, model="m", batch_api=True,
            batch_poll_seconds=0.05,
        )  # fmt: skip
        from judging.machines.core.cache import ReplyCache
        from judging.machines.core.prompts import UMBRELA
        from judging.machines.providers import server_config

        api = BatchApi(server_config(judge))
        started = time.perf_counter()
        alone = judge_in_batches([(str(t), str(d)) for t, d in pairs], topics=topic_texts, documents=document_texts,
                                 template=UMBRELA, api=api, cache=ReplyCache(None), scale=(0, 3),
                                 limits=BatchLimits(poll_seconds=0.05))  # fmt: skip
        client_seconds = time.perf_counter() - started
        started = time.perf_counter()
        result = machine_judges.machine_judge_run(judge=judge)
        app_seconds = time.perf_counter() - started
    if connection.vendor == "postgresql":
        from config.celery import app

        app.control.purge()  # the recomputes queued for a worker none runs here
    kept = MachineReply.objects.filter(judge=judge).count()
    assert kept == len(pairs) == result["labelled"] == len(alone.labels), (kept, result["labelled"])
    stored = app_seconds - client_seconds
    verdict = "meets" if app_seconds < 60 else "BELOW"
    print(f"  the client alone: {client_seconds:6.1f} s ({len(alone.labels) / client_seconds:8.0f} answers/s)")
    print(f"  through the app:  {app_seconds:6.1f} s ({result['labelled'] / app_seconds:8.0f} answers/s), "
          f"ratio {client_seconds / app_seconds:.2f} of the client's rate; storing {stored / kept * 1000:.2f} ms an "
          f"answer beyond the client ({verdict} the target: {count:,} stored in under 60 s)")  # fmt: skip


def through_the_app(pairs: int) -> None:
    """A run through the whole app on the benchmark's database: the own cost per pair with each label recorded,
    and the embedded judge's agreement with the demo's consensus."""
    from evaluation import services as evaluation_services
    from evaluation.machines import selectors as verification
    from judging import services
    from judging.demo import DEMO_JUDGE, demo_create
    from judging.machines import services as machine_judges
    from judging.machines.models import MachineJudge
    from judging.models import PoolItem

    collection = services.collection_create(name="bench", max_grade=3, relevance_threshold=2)
    topics = max(1, pairs // 32)
    services.topics_create(
        collection=collection, topics=[{"number": str(t), "title": f"topic {t}"} for t in range(topics)]
    )
    services.documents_create(
        collection=collection, documents=[{"docno": f"d{i}", "title": f"doc {i}", "body": "words " * 200}
                                          for i in range(32)]
    )  # fmt: skip
    scores = {str(t): {f"d{i}": float(32 - i) for i in range(32)} for t in range(topics)}
    services.run_create(collection=collection, tag="r", scores=scores)
    services.pool_build_depth(collection=collection, depth=32)
    qrels = {(str(t), str(i)): (t + i) % 4 for t in range(topics) for i in range(32)}
    with chat_server(qrels) as server:
        judge = machine_judges.machine_judge_create(
            collection=collection, name="bench", base_url=server.base_url, model="m", concurrency=1
        )
        started = time.perf_counter()
        result = machine_judges.machine_judge_run(judge=judge)
        seconds = time.perf_counter() - started
    per_pair = seconds / result["labelled"] * 1000
    from django.db import connection

    print(f"through the app ({connection.vendor}, each reply kept and its label recorded, the server's time included): "
          f"{result['labelled']} pairs, {per_pair:.2f} ms a pair (target: at most 5 ms)")  # fmt: skip
    demo = demo_create()
    evaluation_services.collection_recompute(collection_id=demo.id)
    baseline = machine_judges.machine_judge_create(collection=demo, name="bm25", provider="lexical")
    machine_judges.machine_judge_run(judge=baseline)
    for judge in (MachineJudge.objects.get(collection=demo, name=DEMO_JUDGE), baseline):
        report = verification.judge_verification(judge=judge, reveal=True)
        against = report["against_consensus"]
        print(
            f"{judge.name} (provider {judge.provider}) on the demo "
            f"({PoolItem.objects.filter(topic__collection=demo).count()} pooled, {against['items']} with a "
            f"consensus label): Cohen's kappa {against['cohen_kappa']:.3f}, binarised "
            f"{against['binary_cohen_kappa']:.3f}, Krippendorff's alpha {against['krippendorff_alpha']:.3f}"
        )


if __name__ == "__main__":
    main()
