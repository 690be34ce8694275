"""The recompute pipeline under stress and failure, on real PostgreSQL and Redis with real Celery workers:
bursts coalesce, one worker per topic, a worker killed mid-task, a broker outage."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from celery.contrib.testing.worker import start_worker
from django.conf import settings
from django.db import connection

from config.celery import app
from evaluation import services as evaluation_services
from evaluation.models import TopicState, TopicValues
from evaluation.services import recompute
from judging import services
from tests.evaluation.test_recompute_pipeline import from_scratch, stored
from tests.factories import make_collection, make_user
from tests.integration.test_worker_recompute import fresh, wait_until

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]


def assessors_on(topic, count):
    people = [make_user() for _ in range(count)]
    for person in people:
        services.assignment_create(assessor=person, topic=topic)
    return people


def test_a_burst_of_500_judgments_on_a_topic_coalesces_into_few_recomputes(monkeypatch):
    app.control.purge()
    enqueued = []
    enqueue = evaluation_services.staleness._enqueue
    monkeypatch.setattr(
        evaluation_services.staleness,
        "_enqueue",
        lambda name, key, **options: (
            enqueued.append(key) if name == "recompute_topic" else None,
            enqueue(name, key, **options),
        )[1],
    )
    # A burst means judgments arriving faster than a recompute takes; on a fast machine a tiny topic computes in
    # a few milliseconds, so each recompute is held to 50 ms to keep the burst a burst (the worker is a thread here).
    compute = recompute._topic
    monkeypatch.setattr(
        recompute,
        "_topic",
        lambda topic_id, generation, phases: (time.sleep(0.05), compute(topic_id, generation, phases))[1],
    )
    collection = make_collection(max_grade=3, topics=1, documents=120, runs=5, depth=100)
    topic = collection.topics.get()
    people = assessors_on(topic, 5)
    items = list(topic.pool_items.order_by("-priority", "id")[:100])
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=20):
        for n in range(500):
            person, item = people[n % 5], items[n // 5]
            services.judgment_record(assessor=person, topic=topic, document=item.document, grade=(n * 7) % 4)
        assert wait_until(lambda: fresh(topic.id), timeout=60)
    state = TopicState.objects.get(topic=topic)
    assert state.generation == 500 + 5  # every judgment counted (the five runs' imports too)
    # One message per clean -> dirty flip, never one per judgment; each message at most one recompute (a change
    # landing mid-compute is picked up by the loop of the task already running, not by another task).
    assert len(enqueued) < 250, f"{len(enqueued)} messages for 500 judgments"
    assert 1 <= state.recompute_count <= len(enqueued)
    assert stored(collection) == pytest.approx(from_scratch(collection)[0], abs=1e-12)


@pytest.mark.services
def test_two_workers_never_compute_the_same_topic_at_once(monkeypatch):
    collection = make_collection(topics=1, documents=8, runs=3, depth=6)
    topic = collection.topics.get()
    person = assessors_on(topic, 1)[0]
    item = topic.pool_items.first()
    app.conf.task_always_eager = False  # the threads below are the workers
    monkeypatch.setattr(evaluation_services.staleness, "_enqueue", lambda *args, **options: None)
    services.judgment_record(assessor=person, topic=topic, document=item.document, grade=1)
    active, most, guard = [0], [0], threading.Lock()
    compute = recompute._topic

    def slow_compute(topic_id, generation, phases):
        with guard:
            active[0] += 1
            most[0] = max(most[0], active[0])
        time.sleep(0.3)
        more = compute(topic_id, generation, phases)  # whether the store saw the topic re-dirtied meanwhile
        with guard:
            active[0] -= 1
        return more

    monkeypatch.setattr(recompute, "_topic", slow_compute)

    def worker():
        try:
            evaluation_services.topic_recompute(topic_id=topic.id)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for thread in threads:
        thread.start()
    time.sleep(0.1)
    services.judgment_record(assessor=person, topic=topic, document=item.document, grade=0)  # re-dirty mid-compute
    threads.append(threading.Thread(target=worker))
    threads[-1].start()
    for thread in threads:
        thread.join(timeout=30)
    assert most[0] == 1
    assert TopicState.objects.get(topic=topic).fresh
    assert stored(collection) == pytest.approx(from_scratch(collection)[0], abs=1e-12)


def worker_process(env_extra, log):
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{settings.DATABASES['default']['NAME']}",
        **env_extra,
    }
    command = [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo", "--beat"]
    command += ["--include", "tests.integration.worker_hooks", "--loglevel", "warning", "-s", str(log) + ".beat"]
    # A session of its own, so the worker and its embedded beat process are killed together, as in a container.
    return subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True
    )


def stop(process):
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def test_a_worker_killed_mid_task_is_replaced_and_the_topic_converges(tmp_path):
    app.control.purge()
    collection = make_collection(max_grade=3, topics=1, documents=10, runs=3, depth=8)
    topic = collection.topics.get()
    people = assessors_on(topic, 2)
    hold = tmp_path / "holding"
    first = worker_process({"WORKBENCH_TEST_HOLD_FILE": str(hold)}, tmp_path / "first.log")
    try:
        for person in people:
            for item in topic.pool_items.all()[:4]:
                services.judgment_record(assessor=person, topic=topic, document=item.document, grade=2)
        assert wait_until(hold.exists, timeout=60), (tmp_path / "first.log").read_text()
        os.killpg(first.pid, signal.SIGKILL)  # mid-task: the topic is claimed, nothing is stored
        first.wait(timeout=10)
    finally:
        stop(first)
    assert not TopicState.objects.get(topic=topic).fresh
    second = worker_process({}, tmp_path / "second.log")
    try:
        assert wait_until(lambda: fresh(topic.id), timeout=60), (tmp_path / "second.log").read_text()
    finally:
        stop(second)
    assert stored(collection) == pytest.approx(from_scratch(collection)[0], abs=1e-12)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_with_the_broker_down_judgments_save_and_the_sweep_catches_up_when_it_returns(tmp_path, monkeypatch):
    port = free_port()
    broker = f"redis://127.0.0.1:{port}/0"
    redis = ["redis-server", "--port", str(port), "--save", "", "--appendonly", "no", "--dir", str(tmp_path)]
    monkeypatch.setattr(app.conf, "broker_url", broker)
    forget_broker_connections()
    collection = make_collection(max_grade=3, topics=1, documents=10, runs=3, depth=8)
    topic = collection.topics.get()
    person = assessors_on(topic, 1)[0]
    # Redis is down: every judgment is still saved, and the topic waits, dirty.
    for item in topic.pool_items.all()[:5]:
        services.judgment_record(assessor=person, topic=topic, document=item.document, grade=3)
    assert person.judgments.count() == 5 and TopicState.objects.get(topic=topic).dirty
    server = subprocess.Popen(redis, stdout=subprocess.DEVNULL)
    try:
        assert wait_until(lambda: _answers(port), timeout=10)
        with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
            assert not fresh(topic.id)
            evaluation_services.stale_topics_sweep(older_than=evaluation_services.staleness.SWEEP_AFTER * 0)
            assert wait_until(lambda: fresh(topic.id), timeout=30)
    finally:
        server.terminate()
        server.wait(timeout=10)
        monkeypatch.undo()
        forget_broker_connections()
    assert TopicValues.objects.filter(topic=topic).exists()
    assert stored(collection) == pytest.approx(from_scratch(collection)[0], abs=1e-12)


def forget_broker_connections():
    """Drops the app's pooled broker connections and producers, so the next ones follow conf.broker_url."""
    app._pool = None
    app.amqp._producer_pool = None


def _answers(port):
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0
