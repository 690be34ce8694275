"""The demo collection's search log: two weeks of simulated traffic over its topics, two arms serving two of its
runs, clicks by a position-based model driven by the demo's judgments, so the online page has values from the
start. A few questions nobody wrote a topic for find nothing, so traffic sampling and zero-result figures show."""

from __future__ import annotations

import tempfile
from datetime import datetime, time, timedelta
from pathlib import Path

from django.utils import timezone

from evaluation import selectors
from evaluation.online import services as search_logs
from evaluation.online.core.simulate import SimulatedTopic, simulated_log, write_jsonl
from evaluation.online.models import SearchLog
from judging import selectors as judging_selectors
from judging.models import Collection, Document

ARMS = ("bm25", "tfidf")
UNANSWERED = (
    "python 2 print statement",
    "install numpy on windows",
    "django orm join",
    "asyncio gather timeout",
    "f-string debugging",
    "type hints generics",
)


def demo_search_log_create(*, collection: Collection, sessions: int = 3000, days: int = 14, seed: int = 7) -> SearchLog:
    runs = {run.tag: run.id for run in collection.runs.filter(tag__in=ARMS)}
    rankings = judging_selectors.collection_rankings(collection_id=collection.id)
    docnos = dict(Document.objects.filter(collection=collection).values_list("id", "docno"))
    qrels = selectors.consensus_qrels(collection=collection)
    topics = [
        SimulatedTopic(
            query=topic.title,
            rankings={arm: [docnos[d] for d in rankings.get(runs[arm], {}).get(topic.id, [])] for arm in runs},
            grades={docnos[d]: grade for d, grade in qrels.get(topic.id, {}).items()},
            weight=1.0 / (rank + 1),
        )
        for rank, topic in enumerate(collection.topics.order_by("id"))
    ]
    topics += [SimulatedTopic(query, {arm: [] for arm in runs}, {}, weight=0.05) for query in UNANSWERED]
    start = datetime.combine(timezone.now().date() - timedelta(days=days), time())
    queries, events = simulated_log(topics, sessions=sessions, start=start, days=days, seed=seed)
    search_log = search_logs.search_log_create(
        collection=collection, name="demo traffic", settings={"arm": "application", "control": ARMS[0]}
    )
    search_logs.search_log_configure(
        search_log=search_log, settings=search_log.settings, arm_runs={arm: arm for arm in runs}
    )
    with tempfile.TemporaryDirectory(prefix="workbench-demo-log-") as folder:
        files = {
            "queries": write_jsonl(queries, Path(folder) / "ubi_queries.jsonl"),
            "events": write_jsonl(events, Path(folder) / "ubi_events.jsonl"),
        }
        search_logs.search_log_import(search_log=search_log, files=files)
    search_log.refresh_from_db()
    return search_log


def demo_pages(collection: Collection, search_log: SearchLog | None = None) -> dict[str, list[str]]:
    """Every page of a demo campaign, by the role that sees it ("admin", "researcher", "assessor", "participant"):
    what the every-page browser test and the page-load benchmark visit."""
    c = collection.id
    runs = list(collection.runs.order_by("id"))
    topic = collection.topics.order_by("id").first()
    results = [
        "/results/",
        f"/results/{c}/",
        f"/results/{c}/runs/{runs[0].id}/",
        f"/results/{c}/compare/?a={runs[0].tag}&b={runs[1].tag}",
        f"/results/{c}/curves/",
        f"/results/{c}/agreement/",
        f"/results/{c}/machines/",
        f"/results/{c}/reliability/",
        f"/results/{c}/trial/",
        f"/results/{c}/online/" + (f"?log={search_log.pk}" if search_log else ""),
        "/results/measures/",
        "/accounts/me/",
    ]
    admin = [
        "/judging/dashboard/",
        "/judging/collections/new/",
        f"/judging/collections/{c}/settings/",
        "/judging/people/",
        f"/judging/collections/{c}/",
        f"/judging/collections/{c}/import/",
        f"/judging/collections/{c}/pool/",
        f"/judging/collections/{c}/assignments/",
        f"/judging/collections/{c}/adjudication/",
        f"/judging/collections/{c}/adjudication/next/",
        f"/judging/collections/{c}/machine-judges/",
        *(f"/judging/machine-judges/{judge.id}/" for judge in collection.machine_judges.all()),
        *(f"/judging/machine-judges/{judge.id}/preview/" for judge in collection.machine_judges.all()),
    ]
    assessor = ["/judging/assignments/", f"/judging/judge/{topic.id}/", "/accounts/me/"]
    submission = collection.submissions.filter(state="current").order_by("id").first()
    track = [f"/judging/tracks/{c}/organize/", f"/results/{c}/track/"]
    participant = ["/judging/tracks/", f"/judging/tracks/{c}/", "/accounts/me/"]
    if submission is not None:
        track.append(f"/results/{c}/reports/{submission.id}/")
        participant.append(f"/results/{c}/reports/{submission.id}/")
    return {"admin": admin + track + results, "researcher": results, "assessor": assessor, "participant": participant}
