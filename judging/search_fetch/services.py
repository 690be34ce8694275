"""Writes of search endpoints and their snapshots: an endpoint's settings (checked before they are saved), and a
fetch of a query set as a Job whose result is a snapshot: a run like any other (it enters pooling, judging, the
leaderboard and agreement unchanged) with its recipe and its holes. Documents the collection does not have yet are
added from the hits' display fields (title and text), so they can be judged."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from config.core import outbound
from config.core.secrets import header_secrets, masked_everywhere
from judging.jobs import kinds as job_kinds
from judging.jobs import runner as jobs
from judging.jobs.models import Job
from judging.models import Collection, Document, Topic
from judging.search_fetch.configs import SETTINGS, auth_headers, checked, endpoint_of, policy_of, values_for
from judging.search_fetch.core.fetch import Fetcher
from judging.search_fetch.models import SearchEndpoint, SearchSnapshot
from judging.services.documents import documents_create
from judging.services.pools import pool_build
from judging.services.runs import run_create
from judging.services.topics import topics_create

FETCH_TASK = "judging.tasks.search_fetch"
FETCH_JOB = job_kinds.JobKind(
    FETCH_TASK, "Search snapshot", "judging/jobs/_search_result.html", cancellable=True, in_order=True
)


def _unknown(settings: dict) -> None:
    unknown = sorted(set(settings) - set(SETTINGS))
    if unknown:
        raise ValidationError({unknown[0]: "not a setting of a search endpoint"})


@transaction.atomic
def search_endpoint_create(*, collection: Collection, name: str, **settings) -> SearchEndpoint:
    """A new endpoint of `collection`; ValidationError names the first setting that could not run."""
    _unknown(settings)
    name = name.strip()
    if not name:
        raise ValidationError({"name": "give the endpoint a name"})
    if SearchEndpoint.objects.filter(collection=collection, name__iexact=name).exists():
        raise ValidationError({"name": f"this collection already has an endpoint named {name!r}"})
    endpoint = SearchEndpoint(collection=collection, name=name, **settings)
    checked(endpoint)
    endpoint.save()
    return endpoint


@transaction.atomic
def search_endpoint_update(*, endpoint: SearchEndpoint, **changes) -> SearchEndpoint:
    """Changes an endpoint's settings (its snapshots keep the settings they were fetched with)."""
    _unknown(changes)
    endpoint = SearchEndpoint.objects.select_for_update().get(pk=endpoint.pk)
    for name, value in changes.items():
        setattr(endpoint, name, value)
    checked(endpoint)
    endpoint.save()
    return endpoint


@transaction.atomic
def search_endpoint_delete(*, endpoint: SearchEndpoint) -> None:
    """Deletes the endpoint and its snapshots' recipes; their runs stay (they are runs, with their judgments)."""
    SearchSnapshot.objects.filter(endpoint=endpoint).delete()
    endpoint.delete()


def _query_topics(collection: Collection, numbers: Sequence[str] | None, typed: Sequence[str] | None) -> list[Topic]:
    """The query set: typed-in queries (topics made for those the collection lacks, by title), the topics numbered,
    or every topic of the collection."""
    if typed:
        texts = list(dict.fromkeys(t.strip() for t in typed if t.strip()))
        have = {t.title: t for t in Topic.objects.filter(collection=collection, title__in=texts)}
        taken = set(Topic.objects.filter(collection=collection).values_list("number", flat=True))
        new, number = [], 1
        for text in texts:
            if text in have:
                continue
            while str(number) in taken:
                number += 1
            taken.add(str(number))
            new.append({"number": str(number), "title": text})
        if new:
            topics_create(collection=collection, topics=new)
        return list(Topic.objects.filter(collection=collection, title__in=texts).order_by("id"))
    topics = Topic.objects.filter(collection=collection).order_by("id")
    if numbers:
        topics = topics.filter(number__in=numbers)
        missing = sorted(set(numbers) - set(topics.values_list("number", flat=True)))
        if missing:
            raise ValidationError({"topics": f"no such topics in the collection: {', '.join(missing[:10])}"})
    return list(topics)


def snapshot_fetch_start(
    *, endpoint: SearchEndpoint, topics: Sequence[str] | None = None, typed: Sequence[str] | None = None,
    variables: dict | None = None, created_by=None,
):  # fmt: skip
    """Starts a fetch of the query set as a Job (the page's and the API's one way in)."""
    if variables is not None and not isinstance(variables, dict):
        raise ValidationError({"variables": "give {name: value}"})
    with transaction.atomic():
        chosen = _query_topics(endpoint.collection, topics, typed)
        if not chosen:
            raise ValidationError({"topics": "the query set is empty"})
        return jobs.job_start(
            kind=f"search snapshot of {endpoint.name}",
            task=FETCH_TASK,
            arguments={
                "endpoint_id": endpoint.id,
                "topic_ids": [t.id for t in chosen],
                "variables": variables or {},
                "created_by": getattr(created_by, "id", None),
            },
            collection=endpoint.collection,
            created_by=created_by,
        )


def snapshot_fetch(
    *, endpoint: SearchEndpoint, topic_ids: Sequence[int], variables: dict | None = None, created_by_id=None,
    progress: Callable | None = None, cancelled: Callable[[], bool] | None = None,
) -> SearchSnapshot:  # fmt: skip
    """Fetches the query set and keeps it as a snapshot (see the module). Every query failing is a refusal: no
    run is made of nothing."""
    variables = {**endpoint.variables, **(variables or {})}
    topics = list(Topic.objects.filter(pk__in=topic_ids).order_by("id"))
    progress = progress or (lambda done, total, detail=None: None)
    progress(0, len(topics))
    client = outbound.outbound_client(connections=endpoint.concurrency, ca_bundle=endpoint.ca_bundle or None)
    with contextlib.closing(client):
        fetcher = Fetcher(client, endpoint_of(endpoint), policy_of(endpoint), headers=auth_headers(endpoint))
        done = [0]

        def ended(result) -> None:
            done[0] += 1
            if cancelled is not None and cancelled():
                fetcher.abort.set()
            progress(done[0], len(topics), {"fetched": done[0]})

        version = fetcher.engine_version()
        results = fetcher.fetch([(t.number, values_for(t, variables)) for t in topics], on_result=ended)
    if fetcher.abort.is_set():
        raise jobs.JobCancelled({"fetched": done[0]})
    secrets = header_secrets(auth_headers(endpoint))
    if all(r.failure for r in results):
        reasons = sorted({masked_everywhere(r.failure, secrets) for r in results})
        raise ValidationError({"endpoint": f"every query failed: {'; '.join(reasons[:3])}"})
    requests = masked_everywhere(fetcher.requests_made, secrets)
    version = masked_everywhere(version, secrets)
    return _snapshot_record(endpoint, topics, results, variables, created_by_id, requests, version, secrets)


@transaction.atomic
def _snapshot_record(endpoint, topics, results, variables, created_by_id, requests, version, secrets):
    """Stores the snapshot: every string of it from the engine (its version, requests, failures, the documents'
    text) with the endpoint's credential masked in any form the engine echoed it (`masked_everywhere`)."""
    collection = endpoint.collection
    fetched = [r for r in results if not r.failure]
    wanted = {hit.docid: hit for r in fetched for hit in r.hits}
    have = set(Document.objects.filter(collection=collection, docno__in=wanted).values_list("docno", flat=True))
    documents_create(collection=collection, documents=[
        {"docno": docid, "title": masked_everywhere(hit.fields.get("title", "")[:500], secrets),
         "body": masked_everywhere(hit.fields.get("body", ""), secrets)}
        for docid, hit in wanted.items() if docid not in have
    ])  # fmt: skip
    count = SearchSnapshot.objects.filter(endpoint=endpoint).count() + 1
    tag = f"{endpoint.name}-s{count}"
    while collection.runs.filter(tag=tag).exists():
        count += 1
        tag = f"{endpoint.name}-s{count}"
    scores = {r.topic: {hit.docid: float(len(r.hits) - rank) for rank, hit in enumerate(r.hits)} for r in fetched}
    run = run_create(collection=collection, tag=tag, scores=scores,
                     description=f"snapshot {count} of {endpoint.name}, {time.strftime('%Y-%m-%d %H:%M')}")  # fmt: skip
    settings = {name: getattr(endpoint, name) for name in SETTINGS}  # the secret's name, never its value
    recipe = {r.topic: {"requests": r.requests, "scores": [hit.score for hit in r.hits], "seconds": round(r.seconds, 4)}
              for r in results}  # fmt: skip
    recipe |= {"_requests": requests, "_engine_version": version}
    failed = [{"topic": r.topic, "reason": r.failure} for r in results if r.failure]
    return SearchSnapshot.objects.create(
        endpoint=endpoint, run=run, settings=settings, variables=variables,
        recipe=masked_everywhere(recipe, secrets), queries=len(results), failed=masked_everywhere(failed, secrets),
        created_by_id=created_by_id,
    )  # fmt: skip


def snapshot_fetch_job_work(job, progress) -> dict:
    endpoint = SearchEndpoint.objects.select_related("collection").filter(pk=job.arguments["endpoint_id"]).first()
    if endpoint is None:
        raise jobs.JobRefused("the endpoint was deleted")
    try:
        snapshot = snapshot_fetch(
            endpoint=endpoint, topic_ids=job.arguments["topic_ids"], variables=job.arguments.get("variables"),
            created_by_id=job.arguments.get("created_by"), progress=progress,
            cancelled=lambda: jobs.job_cancel_requested(job.id),
        )  # fmt: skip
    except ValidationError as refused:
        field, reasons = next(iter(refused.message_dict.items()))
        raise jobs.JobRefused(f"{field}: {reasons[0]}") from refused
    return {"snapshot": snapshot.id, "run": snapshot.run.tag, "queries": snapshot.queries,
            "failed": snapshot.failed, "complete": snapshot.complete}  # fmt: skip


def snapshot_pool_new(*, snapshot: SearchSnapshot, k: int = 10) -> int:
    """Offers the snapshot's top-k documents to the judging queue (TREC depth-k pooling of its run: what is pooled
    already keeps its place, what someone judged is not queued again); returns how many items were added."""
    return pool_build(collection=snapshot.endpoint.collection, strategy="depth", depth=k, runs=[snapshot.run]).added


def snapshot_fetches_due(*, now=None) -> list[int]:
    """Starts a fetch of every scheduled endpoint whose last snapshot (or started fetch) is older than its schedule;
    returns the jobs started. The beat calls it every few minutes; a fetch already queued or running is left be."""
    now = now or timezone.now()
    started = []
    for endpoint in SearchEndpoint.objects.filter(schedule_hours__isnull=False).select_related("collection"):
        jobs_of = Job.objects.filter(task=FETCH_TASK, arguments__endpoint_id=endpoint.id)
        if jobs_of.filter(state__in=["queued", "running"]).exists():
            continue
        last = jobs_of.order_by("-created_at").values_list("created_at", flat=True).first()
        if last is None or (now - last).total_seconds() >= endpoint.schedule_hours * 3600:
            started.append(snapshot_fetch_start(endpoint=endpoint).id)
    return started
