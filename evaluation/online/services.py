"""Writes of search logs: create one, import files into its store (a job from the page), and the bridges that write
into the collection — implicit judgments from clicks as the "clicks" assessor, and topics sampled from traffic.

The log's rows live in its columnar store (`evaluation.online.core.store`), not in the database: an import there is
atomic and idempotent on its own. The database keeps the log's settings and a line per import. Judgments and topics
go through the judging services, their one write path.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from django.core.exceptions import ValidationError
from django.db import transaction
from django.urls import reverse

from evaluation.online.core import click_models, store, traffic
from evaluation.online.models import SearchLog
from evaluation.online.selectors import SEARCH_LOG_SETTING_NAMES, online_settings
from judging.imports.core.topics import TopicRecord
from judging.imports.services import IMPORTED_NAMESPACE
from judging.jobs import kinds as job_kinds
from judging.jobs import runner as jobs
from judging.jobs import uploads
from judging.jobs.models import Job, Upload
from judging.models import Collection, Document, Topic
from judging.services import imported_assessors, judgments_record_bulk, topics_upsert
from judging.sources.models import SourceKind, SourceRole
from judging.sources.services import label_source_made

IMPORT_TASK = "evaluation.tasks.import_search_log"


def _log_page(job) -> str | None:
    log = job.arguments.get("search_log")
    return f"{reverse('evaluation:online', args=[job.collection_id])}?log={log}" if job.collection_id else None


# What the job page shows of this work; registered in the app's ready().
SEARCH_LOG_IMPORT_JOB = job_kinds.JobKind(
    IMPORT_TASK, "Search log import", "evaluation/jobs/_search_log_result.html", corrected_file_url=_log_page
)
CLICKS_ASSESSOR = "clicks"


def _checked_settings(settings: dict) -> dict:
    unknown = set(settings) - {*SEARCH_LOG_SETTING_NAMES, "control"}
    if unknown:
        raise ValidationError({"settings": f"unknown settings: {', '.join(sorted(unknown))}"})
    try:
        online_settings(SearchLog(settings=settings))
    except (TypeError, ValueError) as error:
        raise ValidationError({"settings": str(error)}) from error
    return settings


@transaction.atomic
def search_log_create(
    *, collection: Collection, name: str, log_format: str = "ubi", settings: dict | None = None
) -> SearchLog:
    """A new, empty log; refuses (ValidationError) a taken name, an unknown format or settings the measures refuse."""
    if log_format not in dict(SearchLog.FORMATS):
        raise ValidationError({"log_format": f"unknown format {log_format!r}"})
    if SearchLog.objects.filter(collection=collection, name=name).exists():
        raise ValidationError({"name": f"the collection already has a log named {name!r}"})
    return SearchLog.objects.create(
        collection=collection, name=name, log_format=log_format, settings=_checked_settings(settings or {})
    )


@transaction.atomic
def search_log_configure(*, search_log: SearchLog, settings: dict, arm_runs: dict | None = None) -> SearchLog:
    """Replaces the log's measure settings (and, when given, which run each arm served)."""
    search_log.settings = _checked_settings(settings)
    fields = ["settings"]
    if arm_runs is not None:
        tags = set(search_log.collection.runs.values_list("tag", flat=True))
        unknown = sorted(set(arm_runs.values()) - tags)
        if unknown:
            raise ValidationError({"arm_runs": f"no run tagged {', '.join(unknown)} in the collection"})
        search_log.arm_runs = dict(arm_runs)
        fields.append("arm_runs")
    search_log.save(update_fields=fields)
    return search_log


@transaction.atomic
def search_log_delete(*, search_log: SearchLog) -> None:
    """Deletes a log's settings and, once that commits, its columnar store (a rolled-back delete keeps both)."""
    path = search_log.store_path
    search_log.delete()
    transaction.on_commit(lambda: store.store_delete(path))


@transaction.atomic
def search_logs_delete(*, collection_id: int) -> None:
    """Deletes every log of a collection with its store (the collection is being deleted)."""
    for search_log in SearchLog.objects.filter(collection_id=collection_id):
        search_log_delete(search_log=search_log)


def search_log_import(
    *, search_log: SearchLog, files: dict[str, Path], names: dict[str, str] | None = None, progress=None
) -> dict:
    """Imports a log's files (UBI: 'queries' and/or 'events'; AOL: 'log') into its store, then prepares the
    derived tables for its settings so the pages read them at once. Raises store.LogImportFailed (nothing imported)
    naming each faulty line's file, line and field. Returns the import's counts."""
    report = progress or (lambda done, total: None)
    summary = store.import_log(
        search_log.store_path,
        files=files,
        log_format=search_log.log_format,
        names=names,
        progress=lambda done, total: report(done * 9 // 10, total),
    )
    store.prepared_connection(search_log.store_path, online_settings(search_log)).close()
    entry = {"files": sorted((names or {k: Path(p).name for k, p in files.items()}).values()), **summary.as_dict()}
    with transaction.atomic():
        locked = SearchLog.objects.select_for_update().get(pk=search_log.pk)
        locked.imports = [*locked.imports, entry]
        locked.save(update_fields=["imports"])
    search_log.imports = locked.imports
    report(1, 1)
    return entry


def search_log_import_start(*, search_log: SearchLog, files: dict, created_by=None) -> Job:
    """Stores the uploaded files and starts their import as a Job. `files`: kind → uploaded file ('queries',
    'events' for UBI; 'log' for AOL). The first file is the Job's upload; the others' ids ride in its arguments."""
    if not files:
        raise ValidationError({"files": "choose at least one file"})
    stored = {kind: uploads.upload_store(upload=file, created_by=created_by) for kind, file in files.items()}
    first, *_ = stored
    return jobs.job_start(
        kind="import search log",
        task=IMPORT_TASK,
        arguments={
            "search_log": search_log.pk,
            "first": first,
            "uploads": {kind: upload.pk for kind, upload in stored.items()},
        },
        collection=search_log.collection,
        created_by=created_by,
        upload=stored[first],
    )


def search_log_import_job_work(job: Job, progress) -> dict:
    """The work of an import Job: local copies of its uploads, imported; a refused file raises JobRefused with its
    problems by file, line and field."""
    from contextlib import ExitStack

    search_log = SearchLog.objects.get(pk=job.arguments["search_log"])
    upload_ids = job.arguments["uploads"]
    names = dict(Upload.objects.filter(pk__in=upload_ids.values()).values_list("pk", "name"))
    with ExitStack() as stack:
        files = {kind: stack.enter_context(uploads.upload_local_copy(upload_id=pk)) for kind, pk in upload_ids.items()}
        try:
            result = search_log_import(
                search_log=search_log,
                files=files,
                names={kind: names[pk] for kind, pk in upload_ids.items()},
                progress=progress,
            )
        except store.LogImportFailed as failure:
            problems = [p.as_dict() for p in failure.problems]
            raise jobs.JobRefused(
                str(failure).splitlines()[0], {"problems": problems, "count": failure.count}
            ) from failure
    for kind, pk in upload_ids.items():
        if kind != job.arguments["first"]:  # the Job's own upload is deleted by job_run
            uploads.upload_delete(upload_id=pk)
    return result


def implicit_judgments_import(
    *, search_log: SearchLog, model: str, min_impressions: int = 10, imported_by=None
) -> dict:
    """Grades from clicks by `model` ('coec' or 'pbm', see `online.click_models`) recorded as the judgments of the
    collection's "clicks" assessor, for pairs whose query is a topic's title (normalised as the log's queries) and
    whose document is in the collection. Changed topics are recomputed, so agreement with the human assessors
    appears with the other statistics. Returns the counts, and what could not be matched."""
    collection = search_log.collection
    with store.connect(search_log.store_path) as con:
        counts = click_models.impression_counts(con, click_actions=online_settings(search_log).click_actions)
    judged = click_models.implicit_judgments(
        counts, model=model, min_impressions=min_impressions, max_grade=collection.max_grade
    )
    topics = topics_by_query(collection)
    documents = dict(Document.objects.filter(collection=collection).values_list("docno", "id"))
    matched = [j for j in judged if j.query in topics and j.document in documents]
    with transaction.atomic():
        assessor = imported_assessors(names={CLICKS_ASSESSOR}, mapped={}, namespace=IMPORTED_NAMESPACE)[CLICKS_ASSESSOR]
        labels = {(assessor, topics[j.query], documents[j.document]): j.grade for j in matched}
        origin = {"log": search_log.name, "model": model}
        created, updated, unchanged = judgments_record_bulk(
            labels=labels, changed_by=imported_by, note=f"implicit judgments ({model}) from log {search_log.name}",
            origins=dict.fromkeys(labels, origin),
        )  # fmt: skip
        # Clicks measure the people, they are not people: their labels are advisory from the start.
        label_source_made(
            collection=collection, account=assessor, kind=SourceKind.CLICKS, role=SourceRole.ADVISORY,
            changed_by=imported_by, reason=f"implicit judgments from log {search_log.name}",
        )  # fmt: skip
    return {
        "model": model,
        "min_impressions": min_impressions,
        "pairs": len(judged),
        "matched": len(matched),
        "created": created,
        "updated": updated,
        "unchanged": unchanged,
        "queries_without_topic": len({j.query for j in judged} - set(topics)),
        "documents_not_in_collection": len({j.document for j in judged} - set(documents)),
        "assessor": assessor.username,
    }


def topics_by_query(collection: Collection) -> dict[str, int]:
    """Topic id by normalised title (the first topic wins when two titles normalise alike)."""
    found: dict[str, int] = {}
    for topic_id, title in Topic.objects.filter(collection=collection).order_by("id").values_list("id", "title"):
        found.setdefault(traffic.normalised_query(title), topic_id)
    return found


def traffic_topic_number(query: str) -> str:
    return "log-" + hashlib.md5(query.encode()).hexdigest()[:10]


def traffic_topics_create(*, search_log: SearchLog, method: str, size: int, seed: int = 0) -> dict:
    """Adds a topic for each query of a sample of the log's traffic (`online.traffic.traffic_sample`) that is not
    already a topic's title. Numbers are `log-` and a hash of the query, so sampling the same query again adds
    nothing. Returns the sample (with its coverage of the traffic) and how many topics were added."""
    with store.connect(search_log.store_path) as con:
        sample = traffic.traffic_sample(traffic.logged_queries(con), method=method, size=size, seed=seed)
    collection = search_log.collection
    existing = topics_by_query(collection)
    records = [
        TopicRecord(
            0,
            traffic_topic_number(q.query),
            q.query,
            description=f"Sampled from the search log {search_log.name!r} ({method}, seed {seed}).",
            extra={
                "source": "traffic",
                "log": search_log.name,
                "method": method,
                "seed": seed,
                "count": q.count,
                "stratum": sample.strata[q.query],
            },
        )
        for q in sample.queries
        if q.query not in existing
    ]
    with transaction.atomic():
        created, _updated, _unchanged = topics_upsert(collection=collection, records=records)
    return {**sample.as_dict(), "created": created, "already_topics": len(sample.queries) - len(records)}
