"""A worker outlives its broker: Redis killed twice while assessors judge and the worker recomputes, and after each
return the worker is still running, every judgment is saved once and every topic is fresh. The worker runs the
command docker-compose.yml gives it (queues, flags), as a process of its own with its embedded beat (the sweep)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml
from django.conf import settings
from django.db import connection

from config.celery import app
from evaluation.models import TopicState
from judging import services
from judging.models import Judgment
from tests.evaluation.test_recompute_pipeline import from_scratch, stored
from tests.factories import make_collection, make_user
from tests.integration.test_recompute_resilience import forget_broker_connections, free_port
from tests.integration.test_worker_recompute import wait_until

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]


def compose_worker_arguments() -> list[str]:
    command = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["worker"]["command"]
    return command[command.index("worker") + 1 :]


class Redis:
    def __init__(self, folder: Path):
        self.port, self.folder, self.process = free_port(), folder, None

    def start(self) -> None:
        command = ["redis-server", "--port", str(self.port), "--save", "", "--appendonly", "no"]
        self.process = subprocess.Popen([*command, "--dir", str(self.folder)], stdout=subprocess.DEVNULL)
        assert wait_until(self.answers, timeout=10)

    def kill(self) -> None:
        self.process.kill()  # as a crash: no shutdown, every message it held is gone
        self.process.wait(timeout=10)

    def answers(self) -> bool:
        import socket

        with socket.socket() as probe:
            return probe.connect_ex(("127.0.0.1", self.port)) == 0


def test_the_worker_survives_redis_dying_twice_under_load_and_every_topic_ends_fresh(tmp_path, monkeypatch):
    redis = Redis(tmp_path)
    redis.start()
    broker = f"redis://127.0.0.1:{redis.port}/0"
    monkeypatch.setattr(app.conf, "broker_url", broker)
    forget_broker_connections()
    collection = make_collection(max_grade=3, topics=12, documents=30, runs=4, depth=20)
    people = [make_user() for _ in range(3)]
    topics = list(collection.topics.order_by("id"))
    for person in people:
        for topic in topics:
            services.assignment_create(assessor=person, topic=topic)
    log = tmp_path / "worker.log"
    env = {
        **os.environ,
        "REDIS_URL": broker,
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{settings.DATABASES['default']['NAME']}",
        "WORKBENCH_CELERY_LOG_LEVEL": "INFO",
    }
    command = [sys.executable, "-m", "celery", "-A", "config", "worker", *compose_worker_arguments()]
    command += ["--beat", "-s", str(tmp_path / "beat"), "--loglevel", "info"]
    worker = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True
    )
    saved, stop = [], threading.Event()

    def judge():
        """Three assessors at about 30 judgments a second, across every topic, through the one write path."""
        try:
            items = [(t, i.document) for t in topics for i in t.pool_items.select_related("document")]
            n = 0
            while not stop.is_set():
                topic, document = items[n % len(items)]
                person = people[n % len(people)]
                services.judgment_record(assessor=person, topic=topic, document=document, grade=n % 4)
                saved.append((person.id, topic.id, document.id))
                n += 1
                time.sleep(1 / 30)
        finally:
            connection.close()

    judging = threading.Thread(target=judge)
    try:
        assert wait_until(lambda: "ready" in log.read_text(), timeout=30), log.read_text()
        judging.start()
        for _ in range(2):
            time.sleep(4)
            redis.kill()
            time.sleep(5)
            assert worker.poll() is None, log.read_text()[-3000:]
            redis.start()
        time.sleep(3)
        stop.set()
        judging.join(timeout=30)
        assert wait_until(lambda: _all_fresh(collection), timeout=90), log.read_text()[-3000:]
        assert worker.poll() is None, log.read_text()[-3000:]
    finally:
        stop.set()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(timeout=30)
        redis.kill()
        monkeypatch.undo()
        forget_broker_connections()
    assert "Unrecoverable error" not in log.read_text()
    assert len(saved) > 300
    assert Judgment.objects.filter(topic__collection=collection).count() == len(set(saved))
    assert stored(collection) == pytest.approx(from_scratch(collection)[0], abs=1e-12)


def _all_fresh(collection) -> bool:
    return (
        not TopicState.objects.filter(topic__collection=collection)
        .exclude(dirty=False, computed_generation=models_generation())
        .exists()
    )


def models_generation():
    from django.db.models import F

    return F("generation")
