"""A TREC-sized rehearsal on PostgreSQL with the workers running: 77 runs x 301 topics x depth 100 (as TREC RAG 2024
judged; --runs 150 as RAG 2025 took) and a 1,000,000-document corpus file.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/workbench_bench REDIS_URL=redis://127.0.0.1:6379/3 \
        .venv/bin/python benchmarks/trec_scale.py [--quick] [--runs 150]

Steps, each timed with the peak memory of this process (the web and worker processes are reported at the end):
import the 77 run files into a collection that has its topics but no documents yet ("create what is missing":
placeholders), build a depth-20 pool, import only the pooled documents from the corpus file (streamed), assign 6
assessors, then have them judge over HTTP at 2 judgments a second each for a minute (--seconds) while two workers
(and a jobs worker, for the collection-wide agreement) keep the leaderboard fresh: the judgment-to-leaderboard time
is reported as freshness.py reports it. Finally the
leaderboard, agreement and campaign pages are loaded at that size: the first load, and the median of five more
once drawn (target: under 500 ms). Scores tie as real runs' do; docnos repeat across runs; the corpus file has
comment-free JSON lines. Last, documents read on demand from an ir_datasets document store of the same corpus (the
lookup an assessor waits for when opening a placeholder). --quick: 10 runs x 30 topics x 100,000 documents, 15
seconds.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from freshness import ROOT, Session, percentile

ASSESSORS, PER_ASSESSOR_RATE, PORT = 6, 2.0, 8767
WORDS = [
    "retrieval",
    "evaluation",
    "judgment",
    "query",
    "document",
    "passage",
    "ranking",
    "relevance",
    "answer",
    "track",
    "topic",
]


def _rss_kb(pid: str = "self", field: str = "VmRSS") -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


@contextmanager
def step(name: str, figures: dict):
    """Times the block and samples this process's resident memory, keeping the peak."""
    peak, done = [_rss_kb()], threading.Event()

    def sample():
        while not done.wait(0.05):
            peak[0] = max(peak[0], _rss_kb())

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    began = time.perf_counter()
    try:
        yield
    finally:
        seconds = time.perf_counter() - began
        done.set()
        sampler.join()
        figures[name] = (seconds, max(peak[0], _rss_kb()) / 1024)
        print(f"  {name:<44} {seconds:8.2f} s   peak {figures[name][1]:7.0f} MB", flush=True)


def generate(folder: Path, runs: int, topics: int, documents: int, depth: int) -> tuple[list[Path], Path]:
    """Run files (each topic's 100 from 400 candidates shared by every run: docnos repeat across runs; scores with
    one decimal: ties) and a corpus JSONL of `documents` documents."""
    rng = np.random.default_rng(7)
    candidates = {t: rng.choice(documents, 4 * depth, replace=False) for t in range(topics)}
    paths = []
    for r in range(runs):
        lines = []
        for t in range(topics):
            chosen = rng.choice(candidates[t], depth, replace=False)
            scores = np.round(rng.random(depth) * 20, 1)
            lines += [
                f"{301 + t} Q0 msmarco_v2.1_doc_{d} {i} {s:g} run{r:02d}\n"
                for i, (d, s) in enumerate(zip(chosen, scores, strict=True))
            ]
        path = folder / f"run{r:02d}.txt"
        path.write_text("".join(lines))
        paths.append(path)
    corpus = folder / "corpus.jsonl"
    with open(corpus, "w") as out:
        for d in range(documents):
            text = " ".join(random.choices(WORDS, k=24))
            out.write(json.dumps({"docno": f"msmarco_v2.1_doc_{d}", "title": f"Document {d}", "text": text}) + "\n")
    return paths, corpus


def _fresh(collection) -> bool:
    from evaluation.selectors import collection_freshness

    return collection_freshness(collection=collection)["fresh"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="10 runs x 30 topics x 100,000 documents, 15 s")
    parser.add_argument("--seconds", type=float, default=None, help="of judging (60; --quick: 15)")
    parser.add_argument("--runs", type=int, default=None, help="run files (77, TREC RAG 2024; 150, RAG 2025)")
    parser.add_argument("--lookups", type=int, default=300, help="placeholders opened from the document store")
    args = parser.parse_args()
    if "postgres" not in os.environ.get("DATABASE_URL", "") or not os.environ.get("REDIS_URL"):
        sys.exit("set DATABASE_URL (PostgreSQL) and REDIS_URL; see the docstring")
    runs, topics, documents = (10, 30, 100_000) if args.quick else (77, 301, 1_000_000)
    runs = args.runs or runs
    seconds = args.seconds or (15.0 if args.quick else 60.0)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("DEBUG", "false")
    os.environ.setdefault("SECRET_KEY", __import__("secrets").token_urlsafe(50))
    os.environ.setdefault("ALLOWED_HOSTS", "127.0.0.1")
    os.environ.setdefault("SECURE_SSL_REDIRECT", "false")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from judging import services
    from judging.imports.services import documents_import, runs_import
    from judging.models import Collection

    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    folder = Path(tempfile.mkdtemp(prefix="trec-scale-"))
    began = time.perf_counter()
    paths, corpus = generate(folder, runs, topics, documents, 100)
    lines = runs * topics * 100
    print(f"generated {runs} runs x {topics} topics x depth 100 ({lines:,} lines) and a {documents:,}-document "
          f"corpus ({corpus.stat().st_size / 1e6:.0f} MB) in {time.perf_counter() - began:.0f} s")  # fmt: skip
    Collection.objects.filter(name="trec-scale").delete()
    get_user_model().objects.filter(username__startswith="scale-").delete()
    collection = services.collection_create(name="trec-scale", max_grade=3, relevance_threshold=2)
    services.topics_create(
        collection=collection, topics=[{"number": str(301 + t), "title": f"topic {t}"} for t in range(topics)]
    )
    admin = services.user_create(username="scale-admin", password="scale-pass-123", role="admin")
    assessors = [services.user_create(username=f"scale-a{i}", password="scale-pass-123", role="assessor")
                 for i in range(ASSESSORS)]  # fmt: skip
    env = dict(os.environ, WORKBENCH_CELERY_LOG_LEVEL="WARNING")
    workers = [
        subprocess.Popen([sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo", "--loglevel",
                          "warning", "-Q", queues, "-n", f"scale{n}@%h"], cwd=ROOT, env=env, start_new_session=True,
                         stdout=subprocess.DEVNULL)
        for n, queues in enumerate(["judgments,bulk,sweep", "judgments,bulk,sweep", "jobs"])
    ]  # fmt: skip
    server = subprocess.Popen([sys.executable, "-m", "gunicorn", "config.wsgi", "-w", "2", "-b", f"127.0.0.1:{PORT}",
                               "--log-level", "warning"], cwd=ROOT, env=env, start_new_session=True)  # fmt: skip
    figures: dict = {}
    try:
        time.sleep(3)
        if server.poll() is not None:  # the port was taken: the load would go to whatever answers there
            sys.exit(f"gunicorn did not start (is 127.0.0.1:{PORT} taken?)")
        print("steps:")
        with step(f"import {runs} runs ({lines:,} lines; missing docs made)", figures):
            report = runs_import(collection=collection, paths=paths, create_missing=True)
        print(f"    {report}; {lines / figures[next(reversed(figures))][0]:,.0f} lines/s")
        with step("build a depth-20 pool", figures):
            pooled = services.pool_build_depth(collection=collection, depth=20)
        print(f"    {pooled:,} pooled items")
        with step(f"import the pooled documents of {documents:,}", figures):
            report = documents_import(collection=collection, path=corpus, pooled_only=True)
        print(f"    {report}")
        with step("assign 6 assessors", figures):
            made = services.assignments_balance(collection=collection, assessors=assessors)
        print(f"    {len(made)} assignments")
        with step("leaderboard fresh after the imports (workers)", figures):
            while not _fresh(collection):
                time.sleep(0.2)
        base = f"http://127.0.0.1:{PORT}"
        freshness = judge(collection, base, assessors, seconds)
        print(f"judging: {ASSESSORS} assessors at {PER_ASSESSOR_RATE:g}/s each for {seconds:.0f} s: "
              f"{freshness['posted']} judgments, never fresh: {freshness['never']}")  # fmt: skip
        for name in ("save", "fresh"):
            values = freshness[name]
            print(f"  {name:<6} " + "  ".join(f"p{q} {percentile(values, q):6.1f} ms" for q in (50, 95, 99)))
        while not _fresh(collection):
            time.sleep(0.2)
        reader = Session(base, "scale-admin", "scale-pass-123")
        print("pages at this size (first load; median of 5 more), target < 500 ms:")
        for name, path in (("leaderboard", f"/results/{collection.id}/"),
                           ("agreement", f"/results/{collection.id}/agreement/"),
                           ("campaign", f"/judging/collections/{collection.id}/")):  # fmt: skip
            first = reader.get(path)
            again = sorted(reader.get(path) for _ in range(5))
            print(f"  {name:<12} first {first * 1000:7.0f} ms   drawn {again[2] * 1000:7.0f} ms")
        on_demand(collection, corpus, folder, args.lookups, figures)
        others = [("web (gunicorn's master)", server), *((f"worker {n}", w) for n, w in enumerate(workers, start=1))]
        peaks = ", ".join(f"{label} {_rss_kb(str(p.pid), 'VmHWM') / 1024:.0f} MB" for label, p in others)
        print(f"peak memory of the other processes: {peaks}")
        del admin
    finally:
        for process in (*workers, server):
            os.killpg(process.pid, 15)
            process.wait(timeout=30)


def on_demand(collection, corpus: Path, folder: Path, lookups: int, figures: dict) -> None:
    """Documents read on demand (a corpus too large to import, such as TREC RAG's 113M segments): the corpus as an
    ir_datasets dataset whose document store ir_datasets builds once (timed), then `lookups` placeholders nobody
    pooled opened as an assessor opens one (`document_text_fetch`: the store's lookup and the document's write), each
    timed (documents whose text the corpus step filled are put back to placeholders when too few are left). In this
    process: the web processes read the same store the same way."""
    import ir_datasets

    from judging.datasets.services import document_text_fetch
    from judging.models import Document
    from judging.services import collection_settings_update

    tsv = folder / "corpus.tsv"
    with open(corpus) as source, open(tsv, "w") as out:
        for line in source:
            record = json.loads(line)
            out.write(f"{record['docno']}\t{record['title']} {record['text']}\n")
    name = f"workbench-bench/corpus-{os.getpid()}"
    ir_datasets.registry.register(name, ir_datasets.create_dataset(docs_tsv=str(tsv)))
    collection = collection_settings_update(collection=collection, ir_datasets_id=name)
    documents = Document.objects.filter(collection=collection)
    waiting = list(documents.filter(body="", title="").order_by("?")[:lookups])
    if len(waiting) < lookups:  # the pool took nearly every document: some are put back to placeholders
        more = list(documents.exclude(body="").order_by("?").values_list("pk", flat=True)[: lookups - len(waiting)])
        documents.filter(pk__in=more).update(body="", title="")
        waiting += list(documents.filter(pk__in=more))
    logging.getLogger("ir_datasets").setLevel(logging.WARNING)  # it says so each time a document store opens
    with step("build the document store (ir_datasets, once)", figures):
        ir_datasets.load(name).docs_store().get("msmarco_v2.1_doc_0")
    times = []
    for document in waiting:
        began = time.perf_counter()
        problem = document_text_fetch(document=document)
        times.append(time.perf_counter() - began)
        if problem or not document.body:
            sys.exit(f"on-demand read failed for {document.docno}: {problem}")
    print(f"opening a placeholder read on demand ({len(times)} documents): "
          + "  ".join(f"p{q} {percentile(times, q):6.1f} ms" for q in (50, 95, 99)))  # fmt: skip


def judge(collection, base: str, assessors, seconds: float) -> dict:
    """Each assessor judges their own topics' pool items over HTTP at PER_ASSESSOR_RATE; the save and freshness
    latencies (seconds) as freshness.py measures them."""
    from evaluation.models import TopicState
    from judging.models import Assignment, PoolItem

    sessions = [Session(base, a.username, "scale-pass-123") for a in assessors]
    queues = []
    for assessor in assessors:
        topics = list(Assignment.objects.filter(assessor=assessor).values_list("topic_id", flat=True))
        queues.append(list(PoolItem.objects.filter(topic_id__in=topics).order_by("topic_id", "-priority")
                           .values_list("topic_id", "document_id")))  # fmt: skip
    pending, saves, fresh, lock, done = [], [], [], threading.Lock(), threading.Event()

    def watch():
        while not done.is_set() or pending:
            with lock:
                waiting = list(pending)
            if waiting:
                states = dict(TopicState.objects.filter(topic_id__in={t for t, _, _ in waiting})
                              .values_list("topic_id", "computed_generation"))  # fmt: skip
                now = time.perf_counter()
                with lock:
                    for entry in waiting:
                        if states.get(entry[0], 0) >= entry[1]:
                            fresh.append(now - entry[2])
                            pending.remove(entry)
            if done.is_set() and time.perf_counter() > deadline[0]:
                return
            time.sleep(0.01)

    def post(session, topic_id, document_id):
        sent = time.perf_counter()
        latency = session.post(f"/judging/judge/{topic_id}/{document_id}/", {"grade": random.randint(0, 3),
                                                                             "seconds_total": 5})  # fmt: skip
        generation = TopicState.objects.get(topic_id=topic_id).generation
        with lock:
            saves.append(latency)
            pending.append((topic_id, generation, sent))

    deadline = [float("inf")]
    watcher = threading.Thread(target=watch)
    watcher.start()
    began, posted, sending = time.perf_counter(), 0, []
    with ThreadPoolExecutor(max_workers=2 * ASSESSORS) as pool:
        while time.perf_counter() - began < seconds:
            for index, session in enumerate(sessions):
                if queues[index]:
                    sending.append(pool.submit(post, session, *queues[index].pop(0)))
                    posted += 1
            time.sleep(max(0.0, began + posted / (ASSESSORS * PER_ASSESSOR_RATE) - time.perf_counter()))
    for save in sending:
        save.result()
    deadline[0] = time.perf_counter() + 60
    done.set()
    watcher.join()
    return {"posted": posted, "save": saves, "fresh": fresh, "never": len(pending)}


if __name__ == "__main__":
    main()
