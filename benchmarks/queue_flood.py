"""A judgment's freshness while a bulk import floods the recompute queue, and how many messages the broker holds.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/workbench_flood .venv/bin/python benchmarks/queue_flood.py \
        [--topics 20000] [--seconds 60] [--workers 1]

Builds two collections in its own PostgreSQL database: "bulk" (--topics topics, no judgments) and "judged" (one
topic, 20 runs, depth 100). Starts a private Redis, Celery workers (solo pool, the first with beat, so the periodic
sweep runs as deployed) and then, in this process, imports a run of two documents per topic into "bulk": every
topic turns dirty at once. While the workers drain that, an assessor's judgment on "judged" is saved once a second
(through the one write service), and for each the time until its topic's stored generation includes it is
measured. The broker's queue lengths are sampled every 0.25 s. Reported: the judgments' freshness (p50, p95, max;
target: within 2 s), the most messages the broker held and per dirty topic (target: a few), and how long the
whole import took to become fresh (if it did within --seconds).

Peer: none; the figures to compare are the same benchmark run on an earlier checkout (run this file from here with
--code PATH, a worktree of that commit: workers and the import then run that code).
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def build(topics: int):
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from judging import services
    from judging.models import Collection

    Collection.objects.filter(name__in=["bulk", "judged"]).delete()
    bulk = services.collection_create(name="bulk", max_grade=1, relevance_threshold=1)
    services.topics_create(collection=bulk, topics=[{"number": str(t), "title": f"t{t}"} for t in range(topics)])
    services.documents_create(collection=bulk, documents=({"docno": f"d{d}"} for d in range(2 * topics)))
    judged = services.collection_create(name="judged", max_grade=3, relevance_threshold=1)
    services.topics_create(collection=judged, topics=[{"number": "1", "title": "judged"}])
    services.documents_create(collection=judged, documents=({"docno": f"j{d}"} for d in range(300)))
    rng = np.random.default_rng(0)
    for r in range(20):
        picked = rng.choice(300, 100, replace=False)
        services.run_create(
            collection=judged, tag=f"r{r}", scores={"1": {f"j{d}": float(-i) for i, d in enumerate(picked)}}
        )
    services.pool_build_depth(collection=judged, depth=100)
    from django.contrib.auth import get_user_model

    get_user_model().objects.filter(username="flood-assessor").delete()
    assessor = services.user_create(username="flood-assessor", password="flood-pass-123", role="assessor")
    services.assignment_create(assessor=assessor, topic=judged.topics.get())
    from evaluation import services as evaluation_services

    evaluation_services.collection_recompute(collection_id=judged.id)
    return bulk, judged, assessor


def queue_lengths(client) -> int:
    """Messages waiting in every queue the broker holds (Celery's default and this app's three)."""
    keys = [k for k in client.keys("*") if not k.startswith((b"_kombu", b"unacked"))]
    return sum(client.llen(k) for k in keys if client.type(k) == b"list")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--topics", type=int, default=20000)
    parser.add_argument("--seconds", type=float, default=60.0, help="how long judgments are sent during the import")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--code", type=Path, default=HERE, help="the checkout whose code runs (default: this one)")
    args = parser.parse_args()
    if "postgres" not in os.environ.get("DATABASE_URL", ""):
        sys.exit("set DATABASE_URL to a PostgreSQL database of the benchmark's own; see the docstring")
    code = args.code.resolve()
    folder = Path(tempfile.mkdtemp(prefix="flood-broker-"))
    port = free_port()
    redis_server = subprocess.Popen(
        ["redis-server", "--port", str(port), "--save", "", "--appendonly", "no", "--dir", str(folder)],
        stdout=subprocess.DEVNULL,
    )
    time.sleep(0.3)
    broker = f"redis://127.0.0.1:{port}/0"
    env = dict(os.environ, REDIS_URL=broker, DEBUG="false", WORKBENCH_CELERY_LOG_LEVEL="WARNING")
    env.setdefault("SECRET_KEY", __import__("secrets").token_urlsafe(50))
    os.environ.update(REDIS_URL=broker, DEBUG="false", SECRET_KEY=env["SECRET_KEY"])
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    sys.path.insert(0, str(code))
    os.chdir(code)
    import django

    django.setup()
    import redis

    client = redis.Redis.from_url(broker)
    started = time.perf_counter()
    bulk, judged, assessor = build(args.topics)
    print(f"built: {args.topics} topics to flood, 1 judged topic x 20 runs, in {time.perf_counter() - started:.0f} s")
    workers = [
        subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo", "--loglevel", "warning",
             "-n", f"flood{n}@%h", *(["--beat", "-s", str(folder / "beat")] if n == 0 else [])],
            cwd=code, env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        for n in range(args.workers)
    ]  # fmt: skip
    try:
        run(args, client, bulk, judged, assessor)
    finally:
        for worker in workers:
            os.killpg(worker.pid, 15)
        for worker in workers:
            worker.wait(timeout=30)
        redis_server.terminate()


def run(args, client, bulk, judged, assessor) -> None:
    from django.db import connection

    from evaluation.models import TopicState
    from judging import services

    time.sleep(5)  # the workers connect and warm up
    depth, stop = [], threading.Event()

    def sample():
        while not stop.is_set():
            depth.append((time.perf_counter(), queue_lengths(client)))
            time.sleep(0.25)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    began = time.perf_counter()
    topics = list(bulk.topics.values_list("number", flat=True))
    services.run_create(
        collection=bulk, tag="flood", scores={t: {f"d{2 * int(t)}": 2.0, f"d{2 * int(t) + 1}": 1.0} for t in topics}
    )
    print(f"imported a run over {len(topics)} topics in {time.perf_counter() - began:.1f} s; judging meanwhile")
    topic = judged.topics.get()
    items = list(topic.pool_items.select_related("document").order_by("id"))
    freshness, grade = [], 0
    deadline = began + args.seconds
    for item in items:
        if time.perf_counter() > deadline:
            break
        grade = (grade + 1) % 4
        sent = time.perf_counter()
        services.judgment_record(assessor=assessor, topic=topic, document=item.document, grade=grade)
        generation = TopicState.objects.get(topic=topic).generation
        while time.perf_counter() < deadline + 30:
            state = TopicState.objects.get(topic=topic)
            if state.computed_generation >= generation:
                freshness.append(time.perf_counter() - sent)
                break
            time.sleep(0.02)
        else:
            freshness.append(float("inf"))
        time.sleep(max(0.0, 1.0 - (time.perf_counter() - sent)))
    dirty_left = TopicState.objects.filter(topic__collection=bulk, dirty=True).count()
    drained_at = None
    while time.perf_counter() < began + args.seconds * 3:
        if not TopicState.objects.filter(topic__collection=bulk).exclude(computed_generation=models_F()).exists():
            drained_at = time.perf_counter() - began
            break
        time.sleep(1)
    stop.set()
    sampler.join()
    connection.close()
    values = np.asarray(freshness)
    p50, p95, most = np.percentile(values, 50), np.percentile(values, 95), max((n for _, n in depth), default=0)
    drained = f"{drained_at:.0f} s" if drained_at else f"not within {args.seconds * 3:.0f} s"
    print(f"judgments saved during the import: {len(values)}")
    print(f"  freshness of a judgment: p50 {p50:.2f} s  p95 {p95:.2f} s  max {values.max():.2f} s  (target: 2 s)")
    print(f"  broker's queues at most: {most} messages, {most / args.topics:.3f} per dirty topic")
    print(f"  topics of the import still dirty when the judging stopped: {dirty_left}")
    print(f"  the whole import fresh after: {drained}")


def models_F():
    from django.db.models import F

    return F("generation")


if __name__ == "__main__":
    main()
