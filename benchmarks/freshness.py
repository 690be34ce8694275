"""Freshness under load: how long after an assessor's judgment is saved do the topic's stored metrics include it?

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/workbench_bench REDIS_URL=redis://127.0.0.1:6379/3 \
        .venv/bin/python benchmarks/freshness.py [--quick]

Builds a 50 topics x 100 runs x depth 1000 collection in its own PostgreSQL database, starts Celery workers
(separate processes, solo pool; --workers, default 1) and the app under gunicorn, then posts judgments over HTTP at
20 per second (--rate), as an assessor's browser does. For each one it reports the save latency (the HTTP round
trip) and the freshness: from the moment the save was sent until the topic's stored generation reaches the one the
save created. Finally it checks that every judgment is stored exactly once. Peer: none does live recompute; the
figure to compare is pytrec_eval's time to re-evaluate one topic for all runs from scratch, measured here on the
same data.
"""

from __future__ import annotations

import argparse
import http.cookiejar
import os
import random
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


def build(topics: int, runs: int, depth: int):
    import django

    django.setup()
    from django.core.management import call_command

    from judging import services

    call_command("migrate", verbosity=0)
    from judging.models import Collection

    Collection.objects.filter(name="freshness").delete()
    collection = services.collection_create(name="freshness", max_grade=3, relevance_threshold=1)
    services.topics_create(
        collection=collection, topics=[{"number": str(t), "title": f"topic {t}"} for t in range(topics)]
    )
    per_topic = depth * 3
    services.documents_create(
        collection=collection,
        documents=({"docno": f"t{t}d{d}"} for t in range(topics) for d in range(per_topic)),
        batch_size=5000,
    )
    rng = np.random.default_rng(0)
    for r in range(runs):
        scores = {
            str(t): {
                f"t{t}d{d}": float(s)
                for d, s in zip(rng.choice(per_topic, depth, replace=False), rng.random(depth), strict=True)
            }
            for t in range(topics)
        }
        services.run_create(collection=collection, tag=f"run{r}", scores=scores)
    services.pool_build_depth(collection=collection, depth=20)
    from django.contrib.auth import get_user_model

    get_user_model().objects.filter(username="bench-assessor").delete()
    assessor = services.user_create(username="bench-assessor", password="bench-pass-123", role="assessor")
    for topic in collection.topics.all():
        services.assignment_create(assessor=assessor, topic=topic)
    from evaluation import services as evaluation_services

    evaluation_services.collection_recompute(collection_id=collection.id)
    return collection


def reuse():
    import django

    django.setup()
    from evaluation import services as evaluation_services
    from judging.models import Collection, Judgment

    collection = Collection.objects.filter(name="freshness").first()
    if collection is not None:  # back to no judgments, so that "stored" counts this run's alone
        Judgment.objects.filter(topic__collection=collection).delete()
        evaluation_services.collection_recompute(collection_id=collection.id)
    return collection


def quantiles(label, values):
    return f"  {label:<32}" + "  ".join(f"p{q} {percentile(values, q):6.1f} ms" for q in (50, 95, 99))


def percentile(values, q):
    return float(np.percentile(np.asarray(values), q)) * 1000 if values else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="10 topics x 20 runs x depth 200, 10 seconds")
    parser.add_argument("--rate", type=float, default=20.0, help="judgments per second")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--reuse", action="store_true", help="keep the collection an earlier run built")
    parser.add_argument("--workers", type=int, default=1, help="Celery worker processes (topics run in parallel)")
    args = parser.parse_args()
    shape = (10, 20, 200) if args.quick else (50, 100, 1000)
    seconds = 10.0 if args.quick else args.seconds
    if "postgres" not in os.environ.get("DATABASE_URL", "") or not os.environ.get("REDIS_URL"):
        sys.exit("set DATABASE_URL (PostgreSQL) and REDIS_URL; see the docstring")
    start = time.perf_counter()
    collection = reuse() if args.reuse else None
    collection = collection or build(*shape)
    print(f"built {shape[0]} topics x {shape[1]} runs x depth {shape[2]} in {time.perf_counter() - start:.0f} s")
    from evaluation.models import TopicState
    from judging.models import Judgment, PoolItem

    env = dict(os.environ, WORKBENCH_CELERY_LOG_LEVEL="WARNING")
    workers = [
        subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo", "--loglevel", "warning",
             "-n", f"bench{n}@%h"],
            cwd=ROOT,
            env=env,
            start_new_session=True,
        )
        for n in range(args.workers)
    ]  # fmt: skip
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "config.wsgi", "-w", "2", "-b", "127.0.0.1:8765", "--log-level", "warning"],
        cwd=ROOT,
        env=env,
        start_new_session=True,
    )
    try:
        time.sleep(4)
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        base = "http://127.0.0.1:8765"
        opener.open(f"{base}/accounts/login/").read()
        jar = next(h for h in opener.handlers if isinstance(h, urllib.request.HTTPCookieProcessor)).cookiejar
        token = next(c.value for c in jar if c.name == "csrftoken")
        login = urllib.parse.urlencode(
            {"username": "bench-assessor", "password": "bench-pass-123", "csrfmiddlewaretoken": token}
        )
        opener.open(f"{base}/accounts/login/", login.encode()).read()
        token = next(c.value for c in jar if c.name == "csrftoken")
        items = list(PoolItem.objects.filter(topic__collection=collection).values_list("topic_id", "document_id"))
        random.Random(1).shuffle(items)
        pending: list[tuple[int, int, float]] = []
        freshness: list[float] = []
        saves: list[float] = []
        lock, done = threading.Lock(), threading.Event()

        def watch():
            while not done.is_set() or pending:
                with lock:
                    waiting = list(pending)
                if waiting:
                    states = dict(
                        TopicState.objects.filter(topic_id__in={t for t, _, _ in waiting}).values_list(
                            "topic_id", "computed_generation"
                        )
                    )
                    now = time.perf_counter()
                    with lock:
                        for entry in waiting:
                            if states.get(entry[0], 0) >= entry[1]:
                                freshness.append(now - entry[2])
                                pending.remove(entry)
                time.sleep(0.01)

        watcher = threading.Thread(target=watch)
        watcher.start()
        posted = 0
        began = time.perf_counter()
        while time.perf_counter() - began < seconds and posted < len(items):
            topic_id, document_id = items[posted]
            due = began + posted / args.rate
            time.sleep(max(0.0, due - time.perf_counter()))
            body = urllib.parse.urlencode({"grade": random.randint(0, 3), "seconds_total": 1}).encode()
            request = urllib.request.Request(
                f"{base}/judging/judge/{topic_id}/{document_id}/",
                body,
                headers={"X-CSRFToken": token, "Accept": "application/json"},  # as the judging page posts
            )
            sent = time.perf_counter()
            opener.open(request).read()
            saves.append(time.perf_counter() - sent)
            generation = TopicState.objects.get(topic_id=topic_id).generation
            with lock:
                pending.append((topic_id, generation, sent))
            posted += 1
        deadline = time.perf_counter() + 60
        while pending and time.perf_counter() < deadline:
            time.sleep(0.05)
        done.set()
        watcher.join()
        stored = Judgment.objects.filter(topic__collection=collection).count()
        elapsed = time.perf_counter() - began
        print(
            f"posted {posted} judgments at {args.rate:.0f}/s to {args.workers} worker(s) over {elapsed:.0f} s; ", end=""
        )
        print(f"stored {stored}; ", end="")
        print(f"never fresh: {len(pending)}")
        print(quantiles("save latency (HTTP round trip)", saves))
        print(quantiles("freshness (save -> metrics)", freshness))
    finally:
        for process in (*workers, server):
            os.killpg(process.pid, 15)
            process.wait(timeout=30)
    peer(collection)


def peer(collection):
    """pytrec_eval re-evaluating one topic for every run from the same stored judgments and rankings."""
    try:
        import pytrec_eval
    except ImportError:
        print("  peer: pytrec_eval not installed (pip install -e '.[bench]')")
        return
    from judging import selectors

    topic = collection.topics.first()
    judged = selectors.topic_judgments(topic_id=topic.id)
    qrels = {"q": {str(d): max(grades.values()) for d, grades in judged.items()}}
    runs = [
        {"q": {str(d): float(-i) for i, d in enumerate(docs.tolist())}}
        for docs in selectors.topic_rankings(topic_id=topic.id).values()
    ]
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P", "ndcg_cut", "recip_rank", "bpref", "Rprec"})
    began = time.perf_counter()
    for run in runs:
        evaluator.evaluate(run)
    took = (time.perf_counter() - began) * 1000
    print(f"  peer: pytrec_eval re-evaluating one topic for {len(runs)} runs, in memory, nothing stored: {took:.1f} ms")


if __name__ == "__main__":
    main()
