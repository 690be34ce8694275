"""RAG freshness: how long after an assessor's nugget assignment is saved does the RAG leaderboard's stored score
include it, beside a document judgment's time to the document measures, both measured in the same run.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/workbench_bench REDIS_URL=redis://127.0.0.1:6379/3 \
        .venv/bin/python benchmarks/rag_freshness.py [--quick]

Builds, in its own PostgreSQL database, a collection of 50 topics with 20 RAG runs' answers (10 references and 5
sentences each, their references also the runs' rankings), 8 nuggets per topic and a depth-10 pool; starts Celery
workers (solo pool, the judgments, bulk and sweep queues; --workers) and the app under gunicorn; then posts over HTTP
at --rate saves a second, alternately a document judgment (as the judging page does) and a nugget assignment (as the
answer page does). It reports each kind's save latency and freshness (from the moment the save was sent until the
topic's stored generation reaches the one the save created), and the assignment's figures as a ratio of the
judgment's. --quick: 10 topics x 10 runs, 10 seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from freshness import ROOT, Session, percentile

NUGGETS = 8
LABELS = ("support", "partial_support", "not_support")


def build(topics: int, runs: int):
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from django.contrib.auth import get_user_model

    from evaluation import services as evaluation_services
    from judging import services
    from judging.models import Collection
    from judging.rag.services.answers import answer_runs_import
    from judging.rag.services.nuggets import nugget_create

    Collection.objects.filter(name="rag-freshness").delete()
    collection = services.collection_create(name="rag-freshness", max_grade=3, relevance_threshold=1)
    services.topics_create(
        collection=collection, topics=[{"number": str(t), "title": f"topic {t}"} for t in range(topics)]
    )
    services.documents_create(
        collection=collection, documents=({"docno": f"t{t}d{d}"} for t in range(topics) for d in range(60))
    )
    rng = random.Random(0)
    lines = []
    for r in range(runs):
        for t in range(topics):
            references = rng.sample([f"t{t}d{d}" for d in range(60)], 10)
            answer = [{"text": f"Sentence {s} of run {r} on topic {t}.", "citations": rng.sample(range(10), 2)}
                      for s in range(5)]  # fmt: skip
            lines.append(json.dumps({"run_id": f"rag{r}", "topic_id": str(t), "topic": f"topic {t}",
                                     "references": references, "response_length": 40, "answer": answer}))  # fmt: skip
    answer_runs_import(collection=collection, file="bench.jsonl", lines=lines)
    for topic in collection.topics.all():
        for n in range(NUGGETS):
            nugget_create(topic=topic, text=f"fact {n} of topic {topic.number}", importance=("vital", "okay")[n % 2])
    services.pool_build_depth(collection=collection, depth=10)
    get_user_model().objects.filter(username="bench-rag-assessor").delete()
    assessor = services.user_create(username="bench-rag-assessor", password="bench-pass-123", role="assessor")
    for topic in collection.topics.all():
        services.assignment_create(assessor=assessor, topic=topic)
    evaluation_services.collection_recompute(collection_id=collection.id)
    from evaluation.nuggets.services import answer_topics_recompute

    answer_topics_recompute(topic_ids=list(collection.topics.values_list("id", flat=True)))
    return collection


def load(collection, args, seconds: float) -> dict:
    from evaluation.models import AnswerTopicState, TopicState
    from judging.models import PoolItem
    from judging.rag.models.answers import Answer
    from judging.rag.models.nuggets import Nugget

    sys.setswitchinterval(0.0002)
    env = dict(os.environ, WORKBENCH_CELERY_LOG_LEVEL="WARNING")
    workers = [
        subprocess.Popen([sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo", "--loglevel",
                          "warning", "-Q", "judgments,bulk,sweep", "-n", f"rag{n}@%h"],
                         cwd=ROOT, env=env, start_new_session=True)
        for n in range(args.workers)
    ]  # fmt: skip
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "config.wsgi", "-w", "2", "-b", "127.0.0.1:8766", "--log-level", "warning"],
        cwd=ROOT, env=env, start_new_session=True,
    )  # fmt: skip
    figures = {"judgment": {"saves": [], "fresh": []}, "assignment": {"saves": [], "fresh": []}}
    try:
        time.sleep(4)
        if server.poll() is not None:  # the port was taken: the load would go to whatever answers there
            sys.exit("gunicorn did not start (is 127.0.0.1:8766 taken?)")
        base = "http://127.0.0.1:8766"
        session = Session(base, "bench-rag-assessor", "bench-pass-123")
        opener, token = session.opener, session.token
        items = list(PoolItem.objects.filter(topic__collection=collection).values_list("topic_id", "document_id"))
        answers = list(Answer.objects.filter(topic__collection=collection).values_list("id", "topic_id"))
        nuggets: dict[int, list[int]] = {}
        for nugget_id, topic_id in Nugget.objects.filter(topic__collection=collection).values_list("id", "topic_id"):
            nuggets.setdefault(topic_id, []).append(nugget_id)
        rng = random.Random(1)
        rng.shuffle(items)
        pending, lock, done = [], threading.Lock(), threading.Event()
        states = {"judgment": TopicState, "assignment": AnswerTopicState}

        def watch():
            while True:
                finished = done.is_set()
                with lock:
                    waiting = list(pending)
                for kind, model in states.items():
                    topics = {t for k, t, _, _ in waiting if k == kind}
                    if not topics:
                        continue
                    computed = dict(model.objects.filter(pk__in=topics).values_list("pk", "computed_generation"))
                    now = time.perf_counter()
                    with lock:
                        for entry in [e for e in waiting if e[0] == kind]:
                            if computed.get(entry[1], 0) >= entry[2]:
                                figures[kind]["fresh"].append((entry[3], now - entry[3]))
                                pending.remove(entry)
                if finished:
                    return
                time.sleep(0.01)

        def post(kind: str, url: str, fields: dict, topic_id: int) -> None:
            request = urllib.request.Request(
                url,
                urllib.parse.urlencode(fields).encode(),
                headers={"X-CSRFToken": token, "Accept": "application/json"},
            )
            sent = time.perf_counter()
            opener.open(request).read()
            latency = time.perf_counter() - sent
            generation = states[kind].objects.get(pk=topic_id).generation
            with lock:
                figures[kind]["saves"].append((sent, latency))
                pending.append((kind, topic_id, generation, sent))

        watcher = threading.Thread(target=watch)
        watcher.start()
        began, posted, sending = time.perf_counter(), 0, []
        with ThreadPoolExecutor(max_workers=8) as assessors:
            while time.perf_counter() - began < args.warmup + seconds and posted // 2 < len(items):
                time.sleep(max(0.0, began + posted / args.rate - time.perf_counter()))
                if posted % 2 == 0:
                    topic_id, document_id = items[posted // 2]
                    job = ("judgment", f"{base}/judging/judge/{topic_id}/{document_id}/",
                           {"grade": rng.randint(0, 3), "seconds_total": 1}, topic_id)  # fmt: skip
                else:
                    answer_id, topic_id = rng.choice(answers)
                    fields = {"nugget": rng.choice(nuggets[topic_id]), "label": rng.choice(LABELS)}
                    job = ("assignment", f"{base}/judging/answers/{answer_id}/assign/", fields, topic_id)
                sending.append(assessors.submit(post, *job))
                posted += 1
        for save in sending:
            save.result()
        deadline = time.perf_counter() + 60
        while pending and time.perf_counter() < deadline:
            time.sleep(0.05)
        done.set()
        watcher.join()
        figures["never_fresh"] = len(pending)
        figures["began"], figures["posted"] = began, posted
    finally:
        for process in (*workers, server):
            os.killpg(process.pid, 15)
            process.wait(timeout=30)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="10 topics x 10 runs, 10 seconds")
    parser.add_argument("--rate", type=float, default=20.0, help="saves per second, both kinds together")
    parser.add_argument("--seconds", type=float, default=None, help="of load after the warm-up (30; --quick: 10)")
    parser.add_argument("--workers", type=int, default=2, help="Celery worker processes")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds sent first and left out of the figures")
    args = parser.parse_args()
    if "postgres" not in os.environ.get("DATABASE_URL", "") or not os.environ.get("REDIS_URL"):
        sys.exit("set DATABASE_URL (PostgreSQL) and REDIS_URL; see the docstring")
    topics, runs = (10, 10) if args.quick else (50, 20)
    seconds = args.seconds or (10.0 if args.quick else 30.0)
    start = time.perf_counter()
    collection = build(topics, runs)
    print(f"built {topics} topics x {runs} RAG runs ({NUGGETS} nuggets a topic) in {time.perf_counter() - start:.0f} s")
    from django.core.management import call_command

    call_command("collectstatic", interactive=False, verbosity=0)
    figures = load(collection, args, seconds)
    counted = figures["began"] + args.warmup
    print(f"posted {figures['posted']} saves at {args.rate:.0f}/s (half each kind) to {args.workers} worker(s); "
          f"never fresh: {figures['never_fresh']}")  # fmt: skip
    rows = {}
    for kind in ("judgment", "assignment"):
        saves = [lat for sent, lat in figures[kind]["saves"] if sent >= counted]
        fresh = [lat for sent, lat in figures[kind]["fresh"] if sent >= counted]
        rows[kind] = {q: (percentile(saves, q), percentile(fresh, q)) for q in (50, 95, 99)}
        print(f"  {kind:<11} save   " + "  ".join(f"p{q} {rows[kind][q][0]:6.1f} ms" for q in (50, 95, 99)))
        print(f"  {kind:<11} fresh  " + "  ".join(f"p{q} {rows[kind][q][1]:6.1f} ms" for q in (50, 95, 99)))
    for q in (50, 95):
        ratio = rows["assignment"][q][1] / rows["judgment"][q][1]
        print(f"  assignment -> RAG leaderboard / judgment -> leaderboard, p{q} freshness: {ratio:.2f}")


if __name__ == "__main__":
    main()
