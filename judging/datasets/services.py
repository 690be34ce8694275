"""Importing a standard collection by its ir_datasets id: its topics (title, description and narrative where it
has them), its qrels as an imported source named after the dataset, and its documents (none, only those the pools
need, or all), through the same importers and checks as uploaded files, all in one transaction. Offline unless
the operator allows downloads (settings.WORKBENCH_DATASETS_DOWNLOAD)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from types import SimpleNamespace

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction

from judging.datasets import core
from judging.imports.core.problems import ImportFailed
from judging.imports.services import documents_import, qrels_import, topics_import
from judging.jobs import kinds as job_kinds
from judging.jobs import runner as jobs
from judging.models import Collection, Document
from judging.services.collections import collection_settings_update
from judging.services.documents import documents_upsert

DOCUMENT_CHOICES = ("none", "pooled", "all")
DATASET_TASK = "judging.tasks.import_dataset"
DATASET_JOB = job_kinds.JobKind(
    DATASET_TASK, "Standard collection import", "judging/jobs/_dataset_result.html", in_order=True
)


def _source_name(ident: str) -> str:
    return ("irds-" + ident.replace("/", "-"))[:60]


def _write_jsonl(path: Path, rows) -> int:
    count = 0
    with open(path, "w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
            count += 1
    return count


def _parts(documents: str) -> list[str]:
    return ["queries", "qrels"] + (["docs"] if documents != "none" else [])


def dataset_check(*, dataset: str, documents: str = "none", allow_download=None) -> str:
    """The bare id of a dataset whose parts an import would read are all here (or may be downloaded); else a
    ValidationError on `ir_datasets_id` naming every missing file at once, with the address ir_datasets knows for
    each, or what is wrong with a file. What a new standard collection asks before it is made: a collection whose
    files are missing was created, empty."""
    try:
        ident = core.dataset_id(dataset)
    except ValueError as error:
        raise ValidationError({"ir_datasets_id": str(error)}) from error
    if settings.WORKBENCH_DATASETS_DOWNLOAD if allow_download is None else allow_download:
        return ident
    try:
        with core.offline(False):
            missing = core.missing_files(core.load(ident), _parts(documents))
    except core.DatasetUnavailable as unavailable:
        raise ValidationError({"ir_datasets_id": str(unavailable)}) from unavailable
    if missing:
        raise ValidationError({"ir_datasets_id": core.missing_message(missing)})
    return ident


def dataset_import(*, collection: Collection, dataset: str, documents: str = "none", allow_download=None,
                   progress=None) -> dict:  # fmt: skip
    """Imports the dataset's parts into `collection` (see the module); {"dataset", "topics", "qrels", "documents"}
    with each part's report. ValidationError names `dataset` for an id that cannot be read here (an unknown one, or
    a missing file, saying which and where to put it)."""
    if documents not in DOCUMENT_CHOICES:
        raise ValidationError({"documents": f"choose one of {', '.join(DOCUMENT_CHOICES)}"})
    try:
        ident = core.dataset_id(dataset)
    except ValueError as error:
        raise ValidationError({"dataset": str(error)}) from error
    allowed = settings.WORKBENCH_DATASETS_DOWNLOAD if allow_download is None else allow_download
    result = {"dataset": ident}
    try:
        dataset_check(dataset=ident, documents=documents, allow_download=allowed)
    except ValidationError as refused:
        raise ValidationError({"dataset": refused.message_dict["ir_datasets_id"]}) from refused
    try:
        with core.offline(allowed), tempfile.TemporaryDirectory() as folder, transaction.atomic():
            loaded = core.load(ident)
            if loaded.has_queries():
                path = Path(folder) / "topics.jsonl"
                _write_jsonl(path, core.topics(loaded))
                result["topics"] = topics_import(collection=collection, path=path, name=f"{ident} topics").as_dict()
            if loaded.has_qrels():
                path = Path(folder) / "qrels"
                with open(path, "w", encoding="utf-8") as out:  # a negative grade (judged, unusable) counts as 0
                    out.writelines(f"{t} 0 {d} {max(g, 0)}\n" for t, d, g in core.qrels(loaded))
                report = qrels_import(collection=collection, path=path, name=f"{ident} qrels",
                                      assessor=_source_name(ident), create_missing=True)  # fmt: skip
                result["qrels"] = report.as_dict()
            if documents != "none" and loaded.has_docs():
                path = Path(folder) / "documents.jsonl"
                _write_jsonl(path, core.documents(loaded))
                report = documents_import(collection=collection, path=path, name=f"{ident} documents",
                                          pooled_only=documents == "pooled", progress=progress)  # fmt: skip
                result["documents"] = report.as_dict()
    except core.DatasetUnavailable as unavailable:
        raise ValidationError({"dataset": str(unavailable)}) from unavailable
    if not collection.ir_datasets_id:  # its documents' text can now come from the dataset's store
        collection_settings_update(collection=collection, ir_datasets_id=ident)
    return result


def document_text_fetch(*, document: Document) -> str | None:
    """Fills the text of a document that has none (a placeholder, or pooled before its text was imported) from its
    collection's ir_datasets document store, offline unless the operator allows downloads; returns why it could not
    (None: it has its text, or its collection names no dataset). Called when an assessor opens the document, so a
    pool can be built, and judged, before any text is imported."""
    collection = document.collection
    if document.body or document.title or not collection.ir_datasets_id:
        return None
    try:
        with core.offline(settings.WORKBENCH_DATASETS_DOWNLOAD):
            found = core.stored_document(core.load(collection.ir_datasets_id), document.docno)
    except core.DatasetUnavailable as unavailable:
        return str(unavailable)
    if found is None:
        return f"{document.docno} is not in the document store of {collection.ir_datasets_id}"
    extra = {k: v for k, v in (document.extra or {}).items() if k != "placeholder"}
    record = SimpleNamespace(**found, url=document.url, extra=extra)
    documents_upsert(collection=collection, records=[record])
    document.refresh_from_db()
    return None


def dataset_import_start(*, collection: Collection, dataset: str, documents: str = "none", created_by=None):
    """Starts the import as a Job (the page's and the API's way in); the id's spelling is checked at once."""
    try:
        ident = core.dataset_id(dataset)
    except ValueError as error:
        raise ValidationError({"dataset": str(error)}) from error
    if documents not in DOCUMENT_CHOICES:
        raise ValidationError({"documents": f"choose one of {', '.join(DOCUMENT_CHOICES)}"})
    return jobs.job_start(kind=f"import {ident}", task=DATASET_TASK, arguments={"dataset": ident,
                          "documents": documents}, collection=collection, created_by=created_by)  # fmt: skip


def dataset_import_job_work(job, progress) -> dict:
    try:
        return dataset_import(collection=job.collection, dataset=job.arguments["dataset"],
                              documents=job.arguments.get("documents", "none"), progress=progress)  # fmt: skip
    except ValidationError as refused:
        field, reasons = next(iter(refused.message_dict.items()))
        raise jobs.JobRefused(f"{field}: {reasons[0]}") from refused
    except ImportFailed as failure:
        result = {"count": failure.count, "problems": [p.as_dict() for p in failure.problems]}
        raise jobs.JobRefused(str(failure).splitlines()[0], result) from failure
