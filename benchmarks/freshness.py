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

With --outage S, the broker is a private Redis that this script stops for S seconds a third of the way through
(and starts again, empty: every message in it is lost). It then reports the saves sent during the outage apart
(their latency must stay low: saves never wait on a broker that is down) and how long after the broker returned the
judgments made during the outage were in the metrics (the sweep re-enqueues what was lost).

With --imports N, N archive imports start as the warm-up ends (each a 110 KB zip whose run file is 99 MB of blank
lines: a worker process reads it for half a minute), and the saves sent while any of them runs are reported apart.
--queues says how the workers are laid out: "split" (default, as compose runs them: --workers processes on the
judgments, bulk and sweep queues, and one more on the jobs queue) or "one" (every worker on every queue, the layout
before the jobs queue, where the imports could take every process).
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
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Measured as deployed: DEBUG off (with it on, Django records every statement of every request and recompute), a
# key of the run's own, and plain HTTP on loopback where a deployment has its TLS proxy in front of gunicorn.
os.environ.setdefault("DEBUG", "false")
os.environ.setdefault("SECRET_KEY", __import__("secrets").token_urlsafe(50))
os.environ.setdefault("ALLOWED_HOSTS", "127.0.0.1")
os.environ.setdefault("SECURE_SSL_REDIRECT", "false")


class LoopbackCookies(http.cookiejar.DefaultCookiePolicy):
    """Sends the session's Secure cookies back over loopback HTTP, as a browser does behind the TLS proxy."""

    def return_ok_secure(self, cookie, request) -> bool:
        return True


class Session:
    """A logged-in browser for the load benchmarks: its cookies, and the CSRF token its saves send."""

    def __init__(self, base: str, username: str, password: str):
        jar = http.cookiejar.CookieJar(policy=LoopbackCookies())
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        self.base = base
        self.opener.open(f"{base}/accounts/login/").read()
        token = next(c.value for c in jar if c.name == "csrftoken")
        body = urllib.parse.urlencode({"username": username, "password": password, "csrfmiddlewaretoken": token})
        self.opener.open(f"{base}/accounts/login/", body.encode()).read()
        self.token = next(c.value for c in jar if c.name == "csrftoken")

    def get(self, path: str) -> float:
        began = time.perf_counter()
        with self.opener.open(self.base + path) as answer:
            answer.read()
        return time.perf_counter() - began

    def post(self, path: str, fields: dict) -> float:
        request = urllib.request.Request(self.base + path, urllib.parse.urlencode(fields).encode(),
                                         headers={"X-CSRFToken": self.token, "Accept": "application/json"})  # fmt: skip
        began = time.perf_counter()
        self.opener.open(request).read()
        return time.perf_counter() - began


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


def reuse(reset: bool = True):
    import django

    django.setup()
    from evaluation import services as evaluation_services
    from judging.models import Collection, Judgment, JudgmentHistory

    collection = Collection.objects.filter(name="freshness").first()
    if collection is not None and reset:  # back to no judgments, so that "stored" counts this run's alone
        Judgment.objects.filter(topic__collection=collection).delete()
        # and no history: a campaign's log only grows, but here each run's would add to the last one's, and the
        # per-save figures drifted upward run after run (the benchmark's own database: nothing else reads it)
        JudgmentHistory.objects.filter(topic__collection=collection).delete()
        evaluation_services.collection_recompute(collection_id=collection.id)
    if collection is not None:
        vacuum()
    return collection


def vacuum() -> None:
    """What autovacuum would have done by now: earlier runs' resets leave many dead rows in the value tables."""
    from django.db import connection

    with connection.cursor() as cursor:
        for table in (
            "evaluation_topicvalues",
            "evaluation_runaggregates",
            "judging_judgment",
            "judging_judgmenthistory",
            "evaluation_topicstate",
        ):
            cursor.execute(f"VACUUM ANALYZE {table}")


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Broker:
    """A private redis-server that can be stopped and started again on the same port."""

    def __init__(self, folder: Path):
        self.port, self.folder, self.process = free_port(), folder, None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        command = ["redis-server", "--port", str(self.port), "--save", "", "--appendonly", "no"]
        self.process = subprocess.Popen([*command, "--dir", str(self.folder)], stdout=subprocess.DEVNULL)
        time.sleep(0.3)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None


class CpuUse:
    """CPU time spent by each part of the deployment over a window, from /proc (Linux): the figure that says where
    a judgment's cost goes independently of how the shared cores were contended while it was measured."""

    TICK = os.sysconf("SC_CLK_TCK")

    def __init__(self, parts: dict[str, list[int]]):
        self.parts = parts  # {name: a process id}, the process's descendants included
        self.start = self._read()

    @staticmethod
    def _process(pid: int) -> float:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            return 0.0
        return (int(fields[11]) + int(fields[12])) / CpuUse.TICK  # utime, stime

    @staticmethod
    def _descendants(pid: int) -> list[int]:
        found, todo = [], [pid]
        while todo:
            current = todo.pop()
            found.append(current)
            for task in Path(f"/proc/{current}/task").glob("*/children") if Path(f"/proc/{current}").exists() else ():
                todo.extend(int(child) for child in task.read_text().split())
        return found

    @classmethod
    def tree(cls, pid: int) -> float:
        """Seconds of CPU a process and its descendants have used."""
        return sum(map(cls._process, cls._descendants(pid)))

    def _read(self) -> dict[str, float]:
        # user nice system idle iowait irq softirq steal guest guest_nice; guest time is counted in user already
        ticks = [int(field) for field in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
        machine = (sum(ticks[:3]) + sum(ticks[5:7])) / self.TICK
        steal = ticks[7] / self.TICK if len(ticks) > 7 else 0.0  # a virtual machine's host ran something else
        use = {name: self.tree(pid) for name, pid in self.parts.items()}
        # This client's own process only: its descendants are the servers, counted above.
        return {
            **use,
            "this client": time.process_time(),
            "machine": machine,
            "steal": steal,
            "wall": time.perf_counter(),
        }

    def report(self, judgments: int) -> str:
        end = self._read()
        spent = {name: end[name] - self.start[name] for name in end}
        names = [*self.parts, "this client"]
        rest = spent["machine"] - sum(spent[name] for name in names)
        share = spent["machine"] / spent["wall"] / os.cpu_count()
        stolen = spent["steal"] / spent["wall"] / os.cpu_count()
        each = ", ".join(f"{name} {spent[name] / judgments * 1000:.1f}" for name in names)
        rest = f"the rest of the machine (PostgreSQL, Redis) {rest / judgments * 1000:.1f}"
        return f"  CPU per judgment (ms): {each}, {rest}; the cores {share:.0%} busy, {stolen:.0%} taken by the host"


class WalWritten:
    """PostgreSQL's write-ahead log written from now until `report`: its bytes (`pg_current_wal_lsn` differences)
    and, from `pg_stat_wal`, its records and full-page images, per judgment. The log is the cluster's: the
    benchmark's database is the only one busy while it runs."""

    QUERY = "SELECT pg_current_wal_lsn()::text, wal_records, wal_fpi FROM pg_stat_wal"

    def __init__(self, db):
        self.db = db
        self.start = db.fetch(self.QUERY, [])[0]

    def report(self, judgments: int) -> str:
        end = self.db.fetch(self.QUERY, [])[0]
        ((written,),) = self.db.fetch("SELECT pg_wal_lsn_diff(%s, %s)", [end[0], self.start[0]])
        records, images = end[1] - self.start[1], end[2] - self.start[2]
        return (f"  WAL per judgment: {float(written) / judgments / 1024:.1f} KB ({records / judgments:.0f} records, "
                f"{images / judgments:.1f} full-page images), {float(written) / 2**20:.1f} MB in all"
                + self.by_table(end[0], judgments))  # fmt: skip

    def by_table(self, end: str, judgments: int) -> str:
        """The same log by the table (or index) its records touch, largest first, from pg_walinspect where the
        server has it (a record touching several relations counts for the first)."""
        from django.db import connection

        try:
            with connection.cursor() as cursor:
                cursor.execute("CREATE EXTENSION IF NOT EXISTS pg_walinspect")
        except Exception as error:  # a server without the contrib module: the total stands alone
            return f"\n  (no breakdown by table: {str(error).splitlines()[0]})"
        try:
            rows = self.db.fetch(
                "SELECT coalesce(c.relname, w.resource_manager), sum(w.record_length)::bigint FROM ("
                "  SELECT resource_manager, record_length,"
                "         substring(block_ref from 'rel \\d+/\\d+/(\\d+)')::oid AS node"
                "  FROM pg_get_wal_records_info(%s, %s)) w"
                " LEFT JOIN pg_class c ON c.relfilenode = w.node"
                " GROUP BY 1 ORDER BY 2 DESC LIMIT 8",
                [self.start[0], end],
            )
        except Exception as error:  # a long run: checkpoints have recycled the window's first segments
            return f"\n  (no breakdown by table: {str(error).splitlines()[0]})"
        parts = ", ".join(f"{name} {float(size) / judgments / 1024:.1f}" for name, size in rows)
        return f"\n  WAL per judgment by table (KB): {parts}"


def quantiles(label, values):
    return f"  {label:<32}" + "  ".join(f"p{q} {percentile(values, q):6.1f} ms" for q in (50, 95, 99))


def percentile(values, q):
    return float(np.percentile(np.asarray(values), q)) * 1000 if values else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="10 topics x 20 runs x depth 200, 10 seconds")
    parser.add_argument("--rate", type=float, default=20.0, help="judgments per second")
    parser.add_argument("--seconds", type=float, default=None, help="of load after the warm-up (30; --quick: 10)")
    parser.add_argument("--reuse", action="store_true", help="keep the collection an earlier run built")
    parser.add_argument("--workers", type=int, default=1, help="Celery worker processes (topics run in parallel)")
    parser.add_argument("--web-workers", type=int, default=3, help="gunicorn worker processes (compose runs 3)")
    parser.add_argument("--outage", type=float, default=0.0, help="stop the broker this many seconds mid-run")
    parser.add_argument("--imports", type=int, default=0, help="archive imports started as the warm-up ends")
    parser.add_argument("--queues", choices=("split", "one"), default="split", help="the workers' queues")
    parser.add_argument(
        "--warmup",
        type=float,
        default=3.0,
        help="seconds of the same load sent first and left out of the figures (fresh processes' first requests "
        "open their connections, workers load every topic's rankings once); reported apart. The warm-up also "
        "lasts until the collection-wide agreement has been computed once, and 2 s more: the jobs worker's first "
        "reads every ranking of the collection, a one-off per worker process that is reported apart",
    )
    parser.add_argument(
        "--worker-nice", type=int, default=0, help="run the workers at this nice level (metrics yield to saves)"
    )
    parser.add_argument(
        "--timeline", default="/tmp/freshness-timeline.csv", help="where the per-second timeline is written (CSV)"
    )
    parser.add_argument(
        "--jobs-nice", type=int, default=0, help="run the jobs worker (collection-wide agreement) at this nice level"
    )
    parser.add_argument("--split", type=int, default=100, help="recomputes timed phase by phase after the run")
    parser.add_argument("--split-only", action="store_true", help="skip the load run: only the split and the peer")
    parser.add_argument(
        "--judged",
        type=float,
        default=0.25,
        help="share of each topic's pool judged (the same items every time) before the split is timed",
    )
    parser.add_argument(
        "--grades",
        choices=("campaign", "uniform"),
        default="campaign",
        help="the split's new judgments: graded as the seeded ones (about one in five relevant), or 0-3 uniformly "
        "(three in four relevant: nearly every run's values change, the store's worst case)",
    )
    args = parser.parse_args()
    shape = (10, 20, 200) if args.quick else (50, 100, 1000)
    seconds = args.seconds or (10.0 if args.quick else 30.0)
    if "postgres" not in os.environ.get("DATABASE_URL", "") or not os.environ.get("REDIS_URL"):
        sys.exit("set DATABASE_URL (PostgreSQL) and REDIS_URL; see the docstring")
    start = time.perf_counter()
    collection = reuse(reset=not args.split_only) if args.reuse else None
    collection = collection or build(*shape)
    print(f"built {shape[0]} topics x {shape[1]} runs x depth {shape[2]} in {time.perf_counter() - start:.0f} s")
    if not args.split_only:
        from django.core.management import call_command

        call_command("collectstatic", interactive=False, verbosity=0)  # pages need the manifest, DEBUG being off
        load(collection, args, seconds)
    if args.split:
        seed_judgments(collection, args.judged)
        split(collection, args.split, args.grades)
    peer(collection)


def load(collection, args, seconds) -> None:
    """Posts judgments over HTTP at the given rate to gunicorn, with Celery workers recomputing, and reports the
    save latency and the freshness."""
    from benchmarks.timeline import Timeline
    from config import sql as db
    from evaluation.models import CollectionState, TopicState
    from judging.models import Judgment, PoolItem

    # The client's reads, in SQL: through the ORM they cost this process (which shares the cores) more than the
    # database took to answer them.
    table = TopicState._meta.db_table
    STATES = f"SELECT topic_id, computed_generation FROM {table} WHERE topic_id = ANY(%s)"
    GENERATION = f"SELECT generation FROM {table} WHERE topic_id = %s"
    AGREEMENT = f"SELECT computed_at FROM {CollectionState._meta.db_table} WHERE collection_id = %s"
    SETTLE = 2.0
    # The senders and the watcher share one interpreter: a sender whose answer has arrived waits for the GIL, by
    # default up to 5 ms, which the client would count as the server's.
    sys.setswitchinterval(0.0002)
    env = dict(os.environ, WORKBENCH_CELERY_LOG_LEVEL="WARNING")
    broker = None
    if args.outage:
        import tempfile

        broker = Broker(Path(tempfile.mkdtemp(prefix="bench-broker-")))
        broker.start()
        env["REDIS_URL"] = broker.url
    # The first worker also runs beat, so the periodic sweep re-enqueues what an outage lost.
    split = args.queues == "split"
    layout = [["-Q", "judgments,bulk,sweep"] if split else []] * args.workers + ([["-Q", "jobs"]] if split else [])

    def niceness(queues):
        level = args.jobs_nice if queues == ["-Q", "jobs"] else args.worker_nice
        return ["nice", "-n", str(level)] if level else []

    workers = [
        subprocess.Popen(
            [*niceness(queues),
             sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo", "--loglevel", "warning",
             "--without-gossip", "--without-mingle", "--without-heartbeat",
             *queues, "-n", f"bench{n}@%h", *(["--beat", "-s", f"/tmp/bench-beat-{os.getpid()}"] if n == 0 else [])],
            cwd=ROOT,
            env=env,
            start_new_session=True,
        )
        for n, queues in enumerate(layout)
    ]  # fmt: skip
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "config.wsgi",
            "-w",
            str(args.web_workers),
            "-b",
            "127.0.0.1:8765",
            "--log-level",
            "warning",
            "--access-logfile",
            str(ACCESS_LOG),
            "--access-logformat",
            "%(m)s %(U)s %(s)s %(M)s",
        ],
        cwd=ROOT,
        env=env,
        start_new_session=True,
    )
    try:
        time.sleep(4)
        if server.poll() is not None:  # the port was taken: the load would go to whatever answers there
            sys.exit("gunicorn did not start (is 127.0.0.1:8765 taken?)")
        base = "http://127.0.0.1:8765"
        session = Session(base, "bench-assessor", "bench-pass-123")
        opener, token = session.opener, session.token
        items = list(PoolItem.objects.filter(topic__collection=collection).values_list("topic_id", "document_id"))
        random.Random(1).shuffle(items)
        pending: list[tuple[int, int, float]] = []
        fresh_at: list[tuple[float, float]] = []  # (sent, in the metrics)
        saves: list[tuple[float, float]] = []  # (sent, latency)
        lock, done, warmed = threading.Lock(), threading.Event(), threading.Event()
        window = [float("inf")]  # when the warm-up ended: the measured window's start
        ((agreement_before,),) = db.fetch(AGREEMENT, [collection.pk])

        def watch():
            # Until told to stop (everything fresh, or the deadline passed), then one last look: what is still
            # pending is reported as never fresh rather than waited for.
            while True:
                finished = done.is_set()
                with lock:
                    waiting = list(pending)
                if waiting:
                    states = dict(db.fetch(STATES, [sorted({t for t, _, _ in waiting})]))
                    now = time.perf_counter()
                    with lock:
                        for entry in waiting:
                            if states.get(entry[0], 0) >= entry[1]:
                                fresh_at.append((entry[2], now))
                                pending.remove(entry)
                if finished:
                    return
                time.sleep(0.01)

        watcher = threading.Thread(target=watch, daemon=True)  # a failed run must not hang on it
        watcher.start()
        posted = 0
        began = time.perf_counter()
        outage = [float("inf"), float("inf")]  # while the broker is down
        if broker is not None:

            def stop_broker():
                warmed.wait()
                outage[:] = [window[0] + seconds / 3, window[0] + seconds / 3 + args.outage]
                time.sleep(max(0.0, outage[0] - time.perf_counter()))
                broker.stop()
                time.sleep(max(0.0, outage[1] - time.perf_counter()))
                broker.start()

            threading.Thread(target=stop_broker, daemon=True).start()
        importing = [float("inf"), float("inf")]  # while any import runs
        if args.imports:
            threading.Thread(target=imports_beside, args=(collection, args, warmed, importing), daemon=True).start()

        agreement_seen = [float("inf")]

        def warm() -> bool:
            """Whether the warm-up is over: its seconds have passed, the collection-wide agreement has been computed
            once since the load began, and SETTLE seconds more: that read of every ranking (60 MB here, against
            PostgreSQL's default 128 MB of shared buffers) pushes out pages that the saves and recomputes then read
            back, for about a second."""
            now = time.perf_counter()
            waited = now - began - args.warmup
            if waited < 0:
                return False
            if waited > 60:
                return True  # never stored: the figures then include that first read
            if agreement_seen[0] == float("inf"):
                ((computed_at,),) = db.fetch(AGREEMENT, [collection.pk])
                if computed_at is not None and (agreement_before is None or computed_at > agreement_before):
                    agreement_seen[0] = now
            return now - agreement_seen[0] >= SETTLE

        def post(topic_id: int, document_id: int, grade: int) -> None:
            body = urllib.parse.urlencode({"grade": grade, "seconds_total": 1}).encode()
            request = urllib.request.Request(
                f"{base}/judging/judge/{topic_id}/{document_id}/",
                body,
                headers={"X-CSRFToken": token, "Accept": "application/json"},  # as the judging page posts
            )
            sent = time.perf_counter()
            opener.open(request).read()
            latency = time.perf_counter() - sent
            ((generation,),) = db.fetch(GENERATION, [topic_id])
            with lock:
                saves.append((sent, latency, request.selector))
                pending.append((topic_id, generation, sent))

        # Several assessors at once: each save is sent when due, whether or not the earlier ones have returned.
        cpu, measured_from = None, 0
        with ThreadPoolExecutor(max_workers=8) as assessors:
            sending = []
            while time.perf_counter() - window[0] < seconds and posted < len(items):
                if cpu is None and posted % 10 == 0 and warm():
                    parts = {"web": server.pid, **{f"worker {n}": w.pid for n, w in enumerate(workers)}}
                    cpu, measured_from, window[0] = CpuUse(parts), posted, time.perf_counter()
                    wal = WalWritten(db)
                    timeline = Timeline(parts, cpu.tree).start()
                    warmed.set()
                topic_id, document_id = items[posted]
                time.sleep(max(0.0, began + posted / args.rate - time.perf_counter()))
                sending.append(assessors.submit(post, topic_id, document_id, random.randint(0, 3)))
                posted += 1
        for save in sending:
            save.result()  # a failed save fails the benchmark
        use = cpu.report(posted - measured_from) if cpu is not None else ""
        deadline = time.perf_counter() + 90
        while pending and time.perf_counter() < deadline:
            time.sleep(0.05)
        written = wal.report(posted - measured_from) if cpu is not None else ""  # every save's recompute in
        if cpu is not None:
            timeline.stop()
        while args.imports and importing[1] == float("inf") and time.perf_counter() < deadline + 120:
            time.sleep(0.1)  # the imports' window ends when they do
        done.set()
        watcher.join()
        stored = Judgment.objects.filter(topic__collection=collection).count()
        elapsed = time.perf_counter() - began
        nice = f" at nice {args.worker_nice}" if args.worker_nice else ""
        nice += f" (jobs worker at nice {args.jobs_nice})" if args.jobs_nice else ""
        print(
            f"posted {posted} judgments at {args.rate:.0f}/s to {args.workers} worker(s){nice} over {elapsed:.0f} s; ",
            end="",
        )
        print(f"stored {stored}; ", end="")
        print(f"never fresh: {len(pending)}")

        def during(sent):
            return outage[0] <= sent < outage[1]

        def counted(sent):
            return sent >= window[0] and not during(sent) and not importing[0] <= sent < importing[1]

        early = [lat for sent, lat, _ in saves if sent < began + args.warmup]
        first_agreement = [lat for sent, lat, _ in saves if began + args.warmup <= sent < window[0]]
        print(f"  warm-up, first {args.warmup:.0f} s, left out: {len(early)} saves, slowest {max(early) * 1000:.0f} ms")
        print(
            f"  then until the first collection-wide agreement was stored and {SETTLE:.0f} s more, "
            f"{window[0] - began - args.warmup:.1f} s "
            f"more, left out: {len(first_agreement)} saves, slowest {max(first_agreement, default=0) * 1000:.0f} ms"
        )
        print(quantiles("save latency (HTTP round trip)", [lat for sent, lat, _ in saves if counted(sent)]))
        print(
            quantiles(
                "save latency (inside the server)", server_latencies({p for sent, _, p in saves if counted(sent)})
            )
        )
        slowest = sorted(((lat, sent - began) for sent, lat, _ in saves if counted(sent)), reverse=True)
        when = ", ".join(f"{at:.1f} s ({lat * 1000:.0f} ms)" for lat, at in slowest[: max(1, len(slowest) // 100)])
        print(f"  the slowest 1% of those saves, sent at: {when}")
        print(quantiles("freshness (save -> metrics)", [f - sent for sent, f in fresh_at if counted(sent)]))
        print(use)
        print(written)
        if cpu is not None:
            print(timeline.report(saves, fresh_at, began, counted, Path(args.timeline)))
        if args.imports:
            beside = [f - sent for sent, f in fresh_at if importing[0] <= sent < importing[1]]
            print(f"{args.imports} imports ran for {importing[1] - importing[0]:.0f} s ({args.queues} queues)", end="")
            print(f": {len(beside)} saves sent meanwhile")
            print(quantiles("freshness beside the imports", beside), f" max {max(beside, default=0) * 1000:.0f} ms")
        if broker is not None:
            down = [lat for sent, lat, _ in saves if during(sent)]
            print(f"broker down for {args.outage:.0f} s: {len(down)} saves sent meanwhile")
            print(quantiles("save latency, broker down", down))
            late = [f - outage[1] for sent, f in fresh_at if during(sent)]
            print(quantiles("fresh after the broker returned", late), f" max {max(late, default=0) * 1000:.0f} ms")
    finally:
        for process in (*workers, server):
            os.killpg(process.pid, 15)
            process.wait(timeout=30)
        if broker is not None:
            broker.stop()


def imports_beside(collection, args, warmed, importing) -> None:
    """Starts the archive imports when the warm-up ends and notes when the first started and the last ended."""
    import io
    import zipfile

    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.db import connection

    from judging.imports import services as imports
    from judging.jobs.models import Job, JobState

    warmed.wait()
    blank = io.BytesIO()
    with zipfile.ZipFile(blank, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("blank.run", b"\n" * 99_000_000)
    started = [
        imports.import_start(
            collection=collection, kind="runs", file=SimpleUploadedFile(f"blank{n}.zip", blank.getvalue())
        ).pk
        for n in range(args.imports)
    ]
    importing[0] = time.perf_counter()
    while Job.objects.filter(pk__in=started, state__in=[JobState.QUEUED, JobState.RUNNING]).exists():
        time.sleep(0.1)
    importing[1] = time.perf_counter()
    connection.close()


CAMPAIGN_GRADES = (80, 10, 6, 4)  # weights of grades 0-3 among judged pool documents: about one in five relevant


def seed_judgments(collection, share: float) -> None:
    """Resets the qrels to the same state before every split: `share` of each topic's pool judged with the same
    grades (about one in five relevant), so that splits of different runs and commits time the same work."""
    from django.contrib.auth import get_user_model

    from evaluation import services as evaluation_services
    from evaluation.services import staleness
    from judging import services
    from judging.models import Judgment, PoolItem

    staleness._enqueue = lambda *args, **kwargs: False  # no workers: this process recomputes
    assessor = get_user_model().objects.get(username="bench-assessor")
    Judgment.objects.filter(topic__collection=collection).delete()
    rng = random.Random(3)
    items = PoolItem.objects.filter(topic__collection=collection).order_by("id").values_list("topic_id", "document_id")
    labels = {
        (assessor, topic_id, document_id): rng.choices((0, 1, 2, 3), weights=CAMPAIGN_GRADES)[0]
        for topic_id, document_id in items
        if rng.random() < share
    }
    began = time.perf_counter()
    services.judgments_record_bulk(labels=labels)
    evaluation_services.collection_recompute(collection_id=collection.id)
    vacuum()
    print(f"qrels reset to {len(labels)} judgments ({share:.0%} of the pools) in {time.perf_counter() - began:.1f} s")


ACCESS_LOG = Path(f"/tmp/freshness-access-{os.getpid()}.log")


def server_latencies(paths: set[str]) -> list[float]:
    """The time inside gunicorn (its access log, in ms) of the saves to these paths (each save has its own): the
    save as the server saw it, without the load generator's own waiting (its sender threads share one interpreter
    with the watcher)."""
    if not ACCESS_LOG.exists():
        return []
    lines = [line.split() for line in ACCESS_LOG.read_text().splitlines()]
    return [float(fields[3]) / 1000 for fields in lines if fields[0] == "POST" and fields[1] in paths]


PHASES = ("load judgments", "consensus", "load rankings", "measures", "agreement", "store")
STORE_PHASES = ("store: read", "store: totals", "store: write")  # parts of "store"


def split(collection, count: int, grades: str = "campaign") -> None:
    """Times `count` recomputes in this process, each right after one new judgment of a random pooled item: the
    end-to-end figure (lock, claim, load, compute, store) and where it goes, per phase. No workers run meanwhile,
    so the figures are the recompute's own, without the load generator or the web server on the same cores."""
    from django.contrib.auth import get_user_model

    from evaluation import services as evaluation_services
    from evaluation.services import staleness
    from evaluation.services.phases import Phases
    from judging import services
    from judging.models import Judgment, PoolItem

    staleness._enqueue = lambda *args, **kwargs: False  # the workers are gone; this process recomputes itself
    assessor = get_user_model().objects.get(username="bench-assessor")
    judged = set(Judgment.objects.filter(assessor=assessor).values_list("topic_id", "document_id"))
    items = [
        item
        for item in PoolItem.objects.filter(topic__collection=collection).select_related("topic", "document")
        if (item.topic_id, item.document_id) not in judged
    ]
    rng = random.Random(2)
    rng.shuffle(items)

    def grade(rng) -> int:
        return rng.randint(0, 3) if grades == "uniform" else rng.choices((0, 1, 2, 3), weights=CAMPAIGN_GRADES)[0]

    from evaluation import ranking_cache
    from judging.models import Topic

    ranking_cache.forget()
    began = time.perf_counter()
    topic_ids = list(Topic.objects.filter(collection=collection).values_list("id", flat=True))
    for topic_id in topic_ids:  # as a worker that has seen every topic once
        ranking_cache.topic_runs(topic_id=topic_id)
    took = time.perf_counter() - began
    print(
        f"prepared rankings of {len(topic_ids)} topics loaded in {took:.1f} s; "
        f"held in memory: {ranking_cache.held_bytes() / 2**20:.0f} MB"
    )
    totals, per_phase = [], {name: [] for name in (*PHASES, *STORE_PHASES)}
    for item in items[:count]:
        services.judgment_record(assessor=assessor, topic=item.topic, document=item.document, grade=grade(rng))
        phases = Phases()
        began = time.perf_counter()
        evaluation_services.topic_recompute(topic_id=item.topic_id, phases=phases)
        totals.append(time.perf_counter() - began)
        for name in per_phase:
            per_phase[name].append(phases.seconds.get(name, 0.0))
    print(
        f"recompute of one topic after one judgment ({grades} grades), in process, {len(totals)} times "
        f"(prepared rankings then held: {ranking_cache.held_bytes() / 2**20:.0f} MB):"
    )
    print(quantiles("end to end", totals))
    for name in PHASES:
        print(quantiles(f"  {name}", per_phase[name]))
        if name == "store":
            for part in STORE_PHASES:
                print(quantiles(f"    {part}", per_phase[part]))
    other = [total - sum(per_phase[name][i] for name in PHASES) for i, total in enumerate(totals)]
    print(quantiles("  lock, claim, commit", other))


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
