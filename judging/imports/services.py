"""Import services: each parses a file completely, then writes everything in one transaction, or nothing.

Every problem is reported by file, line and field; with problems, nothing is written (ImportFailed lists the first
hundred) unless `skip_invalid`, which writes the valid records and reports the rest as skipped. Importing the same
file twice changes nothing the second time. The web page, the API and the management commands all call these.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction

from judging import selectors
from judging.core.identifiers import identifier, identifier_problem
from judging.imports.core import archives
from judging.imports.core.documents import parse_documents
from judging.imports.core.fast_runs import FastRun, fast_run
from judging.imports.core.problems import LISTED_PROBLEMS, ImportFailed, Problem, Problems, Progress, limit
from judging.imports.core.topics import parse_topics
from judging.imports.core.trec_lines import parse_qrels, parse_run
from judging.jobs import kinds as job_kinds
from judging.jobs import runner as jobs
from judging.jobs import uploads
from judging.jobs.runner import JobRefused
from judging.jobs.uploads import upload_local_copy, upload_size_limit
from judging.models import Collection, Document, Topic
from judging.services.documents import documents_upsert
from judging.services.judgments import judgments_record_bulk
from judging.services.runs import run_store
from judging.services.topics import topics_upsert
from judging.services.users import imported_assessors
from judging.sources.models import SourceKind, SourceRole
from judging.sources.services import label_source_made
from measures.lines import MAX_LINE_BYTES

DOCUMENT_BATCH = 2000
IMPORTED_ASSESSOR = "imported"
# Usernames of assessors who come from qrels files: a prefix no account made through a form can have (':' is not a
# username character), so a file's "admin" column never writes under the live admin account.
IMPORTED_NAMESPACE = "qrels:"


@dataclass
class ImportReport:
    kind: str
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    skipped: list[Problem] = field(default_factory=list)
    skipped_count: int = 0
    warnings: list[Problem] = field(default_factory=list)  # imported, but worth a look (the first hundred)
    warning_count: int = 0
    passed_over: int = 0  # records a pool-only import did not keep (no pool wants them)
    filled: int = 0  # of the updated: documents without text (placeholders) given theirs

    def add(self, counts: tuple[int, int, int]) -> None:
        """Adds a write service's (created, updated, unchanged)."""
        self.created, self.updated, self.unchanged = (a + b for a, b in zip(self.as_counts(), counts, strict=True))

    def as_counts(self) -> tuple[int, int, int]:
        return self.created, self.updated, self.unchanged

    def warn(self, problem: Problem) -> None:
        self.warning_count += 1
        if len(self.warnings) < LISTED_PROBLEMS:
            self.warnings.append(problem)

    def as_dict(self) -> dict:
        return {
            "kind": self.kind,
            "created": self.created,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "skipped_count": self.skipped_count,
            "skipped": [p.as_dict() for p in self.skipped],
            "warning_count": self.warning_count,
            "warnings": [p.as_dict() for p in self.warnings],
            "passed_over": self.passed_over,
            "filled": self.filled,
        }

    def __str__(self) -> str:
        skipped = f", skipped {self.skipped_count} invalid" if self.skipped_count else ""
        skipped += f", passed over {self.passed_over:,} no pool wants" if self.passed_over else ""
        skipped += f", {self.filled:,} of the updated given their text" if self.filled else ""
        warned = f"; {self.warning_count} warning(s), e.g. {self.warnings[0]}" if self.warnings else ""
        return (
            f"{self.kind}: {self.created} created, {self.updated} updated, {self.unchanged} unchanged{skipped}{warned}"
        )


PLACEHOLDER = {"placeholder": True}  # a topic or document made from a file naming it: its text comes later


class _Unknown:
    """Topics and documents a run or qrels file names that the collection does not have. Without `create`, each
    line naming one is a problem, and one line heads them all saying how many lines, topics and documents; with
    `create`, each gets a provisional id (negative) while the file is read, and `made` creates them as placeholders
    (the number or docno, `extra` {"placeholder": true}; a later import of their text replaces both) in the import's
    transaction, returning the real ids."""

    def __init__(self, collection: Collection, topics: dict[str, int], documents: dict[str, int], *, create: bool):
        self.collection, self.topics, self.documents, self.create = collection, topics, documents, create
        self.new_topics: dict[str, int] = {}
        self.new_documents: dict[str, int] = {}
        self.missing_topics: set[str] = set()
        self.missing_documents: set[str] = set()
        self.lines = 0

    def _id(self, known: dict[str, int], new: dict[str, int], key: str) -> int | None:
        found = known.get(key) or new.get(key)
        if found is None and self.create:
            found = new[key] = -(len(new) + 1)
        return found

    def topic_id(self, number: str) -> int | None:
        """The topic's id, provisional for a new one; None when it is missing and may not be created."""
        return self._id(self.topics, self.new_topics, number)

    def document_id(self, docno: str) -> int | None:
        return self._id(self.documents, self.new_documents, docno)

    def check(self, problems: Problems, file: str, line) -> tuple[int | None, int | None]:
        """The line's topic and document ids (provisional for new ones); without `create`, a problem for what is
        missing."""
        topic_id = self._id(self.topics, self.new_topics, line.topic)
        document_id = self._id(self.documents, self.new_documents, line.docno)
        if topic_id is None or document_id is None:
            self.lines += 1
            if topic_id is None:
                self.missing_topics.add(line.topic)
                problems.add(file, line.line, "qid", f"topic {line.topic!r} is not in the collection")
            else:
                problems.add(file, line.line, "docno", f"document {line.docno!r} is not in the collection")
            if document_id is None:
                self.missing_documents.add(line.docno)
        return topic_id, document_id

    def summarise(self, problems: Problems, report: ImportReport, files: str, *, skip_invalid: bool) -> None:
        """One line ahead of the many: how many lines name how many topics and documents the collection lacks (a
        warning of the report instead when the invalid lines are skipped: it is no line of its own)."""
        if not self.lines:
            return
        counts = [(len(self.missing_topics), "topic"), (len(self.missing_documents), "document")]
        named = " and ".join(f"{n:,} {noun}{'s' if n != 1 else ''}" for n, noun in counts if n)
        lines = "this line names" if self.lines == 1 else f"these {self.lines:,} lines name"
        advice = ("import its topics and documents first, or import again creating what is missing as placeholders "
                  "(the number or docno; their text from a later import)")  # fmt: skip
        reason = f"{lines} {named} this collection doesn't have: {advice}"
        if skip_invalid:
            report.warn(Problem(files, 0, None, reason))
        else:
            problems.lead(files, 0, None, reason)

    def made(self) -> dict[int, int]:
        """Creates the placeholders (the caller's transaction); {provisional topic id: topic id}. The documents'
        ids are added to the `documents` map the importer was given."""
        from judging.services.documents import documents_create
        from judging.services.topics import topics_create

        if self.new_topics:
            topics_create(collection=self.collection, topics=[
                {"number": n, "title": n, "extra": PLACEHOLDER} for n in self.new_topics])  # fmt: skip
        if self.new_documents:
            documents_create(collection=self.collection, documents=[
                {"docno": d, "extra": PLACEHOLDER} for d in self.new_documents])  # fmt: skip
        numbers = Topic.objects.filter(collection=self.collection, number__in=self.new_topics)
        topics = dict(numbers.values_list("number", "id"))
        documents = Document.objects.filter(collection=self.collection, docno__in=self.new_documents)
        self.documents.update(documents.values_list("docno", "id"))
        return {provisional: topics[number] for number, provisional in self.new_topics.items()}

    def document_ids(self) -> dict[int, int]:
        """{provisional document id: document id}, once `made`."""
        return {provisional: self.documents[docno] for docno, provisional in self.new_documents.items()}


def _made_warning(unknown: _Unknown) -> Problem | None:
    topics, documents = len(unknown.new_topics), len(unknown.new_documents)
    if not topics and not documents:
        return None
    plural = {1: ""}
    made = f"made {topics:,} topic{plural.get(topics, 's')} and {documents:,} document{plural.get(documents, 's')}"
    return Problem("", 0, None, f"{made} as placeholders: import their text when you have it")


def _settle(problems: Problems, report: ImportReport, skip_invalid: bool) -> None:
    """Raises ImportFailed when there were problems and skipping was not asked for; else records what was skipped."""
    if problems and not skip_invalid:
        raise ImportFailed(problems)
    report.skipped, report.skipped_count = problems.listed, problems.count


def topics_import(
    *,
    collection: Collection,
    path: str | Path,
    format: str | None = None,
    name: str | None = None,
    skip_invalid: bool = False,
    progress: Progress | None = None,
) -> ImportReport:
    """Imports topics (TREC, TSV or JSONL, guessed from the content when `format` is None); existing numbers are
    updated in place, so their judgments and results stay attached."""
    problems, report = Problems(), ImportReport("topics")
    records = list(parse_topics(path, problems, format=format, name=name, progress=progress))
    _settle(problems, report, skip_invalid)
    report.add(topics_upsert(collection=collection, records=records))
    return report


def documents_import(
    *,
    collection: Collection,
    path: str | Path,
    format: str | None = None,
    name: str | None = None,
    skip_invalid: bool = False,
    progress: Progress | None = None,
    pooled_only: bool = False,
    top_k: int | None = None,
) -> ImportReport:
    """Imports documents (JSONL, TREC SGML or TSV; gzip too), streamed in batches inside one transaction; a problem
    anywhere rolls the whole file back. Existing docnos are updated when their content differs (a placeholder gets
    its text). With `pooled_only`, only the documents the collection's pools hold (and, with `top_k`, those some
    run ranks in a topic's top k) are kept, the rest passed over and counted: a corpus of millions read as a
    stream, in the memory of one batch and the set of docnos wanted. A passed-over JSON line whose docno comes
    first, plain, is not parsed (its docno is all that is read), so what no pool wants is not checked either."""
    problems, report = Problems(), ImportReport("documents")
    wanted = selectors.docnos_wanted(collection=collection, top_k=top_k) if pooled_only else None

    def count_filled(count: int) -> None:
        report.filled += count

    with transaction.atomic():
        batch = []
        keep = wanted.__contains__ if wanted is not None else None
        for record in parse_documents(path, problems, format=format, name=name, progress=progress, keep=keep):
            if problems and not skip_invalid:
                continue  # keep reading, to list the problems, but stop writing: the transaction will roll back
            if record.passed_over:
                report.passed_over += 1
                continue
            if not record.body.strip() and not record.title.strip():
                report.warn(Problem(name or str(path), record.line, "text", f"document {record.docno!r} has no text"))
            batch.append(record)
            if len(batch) == DOCUMENT_BATCH:
                report.add(documents_upsert(collection=collection, records=batch, filled=count_filled))
                batch = []
        if batch and not (problems and not skip_invalid):
            report.add(documents_upsert(collection=collection, records=batch, filled=count_filled))
        _settle(problems, report, skip_invalid)
    return report


def _offset_progress(progress: Progress | None, before: int, total: int) -> Progress | None:
    if progress is None:
        return None
    return lambda done, _size: progress(before + done, total)


def runs_import(
    *,
    collection: Collection,
    paths: Sequence[str | Path],
    names: Sequence[str] | None = None,
    skip_invalid: bool = False,
    progress: Progress | None = None,
    owner=None,
    precedence: int = 1,
    model_family: str = "",
    create_missing: bool = False,
) -> ImportReport:
    """Imports TREC run files (one run per tag; a file may hold several). Every topic and docno must be in the
    collection (or, with `create_missing`, is made as a placeholder), and a docno may appear once per topic.
    Rankings are stored in trec_eval order. Re-importing a run with the same rankings changes nothing; different
    rankings replace the old ones, and the topics are recomputed."""
    problems, report = Problems(), ImportReport("runs")
    names = list(names) if names is not None else [str(p) for p in paths]
    topics = dict(Topic.objects.filter(collection=collection).values_list("number", "id"))
    documents = dict(Document.objects.filter(collection=collection).values_list("docno", "id"))
    unknown = _Unknown(collection, topics, documents, create=create_missing)
    runs: dict[str, dict[int, dict[str, tuple[float, int]]]] = {}
    ready: dict[str, FastRun] = {}  # runs the fast path read
    tag_file: dict[str, str] = {}
    sizes = [Path(p).stat().st_size for p in paths]
    # The fast reader's own cap must not let longer lines through than the careful reader's limit.
    fast_allowed, most = limit("line_bytes") >= MAX_LINE_BYTES, min(limit("line_bytes"), MAX_LINE_BYTES)
    for index, (path, file) in enumerate(zip(paths, names, strict=True)):
        tracker = _offset_progress(progress, sum(sizes[:index]), sum(sizes))
        fast = (
            fast_run(
                path,
                topic_id=unknown.topic_id,
                document_id=unknown.document_id,
                taken_tags=tag_file,
                max_line_bytes=most,
            )
            if fast_allowed
            else None
        )
        if fast is not None:  # a plain file with nothing to refuse: one run, checked value by value
            tag_file[fast.tag], ready[fast.tag] = file, fast
            if tracker is not None:
                tracker(sizes[index], sizes[index])
            continue
        for line in parse_run(path, problems, name=file, progress=tracker):
            if tag_file.setdefault(line.tag, file) != file:
                problems.add(file, line.line, "tag", f"run {line.tag!r} is also in {tag_file[line.tag]}")
                continue
            topic_id, document_id = unknown.check(problems, file, line)
            if topic_id is None or document_id is None:
                continue
            ranked = runs.setdefault(line.tag, {}).setdefault(topic_id, {})
            if line.docno in ranked:
                first = ranked[line.docno][1]
                problems.add(
                    file,
                    line.line,
                    "docno",
                    f"document {line.docno!r} already ranked for topic {line.topic!r} on line {first}",
                )
                continue
            ranked[line.docno] = (line.score, line.line)
    unknown.summarise(problems, report, ", ".join(dict.fromkeys(names)), skip_invalid=skip_invalid)
    _settle(problems, report, skip_invalid)
    with transaction.atomic():
        made, made_documents = {}, {}
        if create_missing:
            made = unknown.made()
            made_documents = unknown.document_ids()
            runs = {tag: {made.get(t, t): ranked for t, ranked in per_topic.items()} for tag, per_topic in runs.items()}
            if warning := _made_warning(unknown):
                report.warn(warning)
        stored = [{"per_topic": per_topic} for per_topic in runs.values()]
        stored += [{"rankings": fast.rankings(made, made_documents)} for fast in ready.values()]
        for tag, given in zip([*runs, *ready], stored, strict=True):
            outcome, _ = run_store(
                collection=collection,
                tag=tag,
                documents=documents,
                owner=owner,
                precedence=precedence,
                model_family=model_family,
                **given,
            )
            setattr(report, outcome, getattr(report, outcome) + 1)
    return report


def qrels_import(
    *,
    collection: Collection,
    path: str | Path,
    name: str | None = None,
    assessor: str | None = None,
    assessor_map: Mapping | None = None,
    role: str = SourceRole.COUNTED,
    skip_invalid: bool = False,
    progress: Progress | None = None,
    imported_by=None,
    create_missing: bool = False,
) -> ImportReport:
    """Imports TREC qrels as judgments, to seed a campaign or compare with it (topics and documents the collection
    lacks are problems, or with `create_missing` placeholders). A fifth column names the assessor;
    lines without one are `assessor`'s (default 'imported'): the source the labels belong to. Named assessors live
    in their own namespace (`qrels:NAME`, users who cannot log in) unless `assessor_map` maps a name to a live
    account explicitly. Each imported account is a label source of kind "imported" with `role` (counted, advisory
    or gold) on first use; a role chosen since stays. Grades must be on the collection's scale. Changed topics are
    recomputed."""
    if role not in SourceRole.values:
        raise ValidationError({"role": f"choose one of {', '.join(SourceRole.values)}"})
    problems, report = Problems(), ImportReport("qrels")
    file = name or str(path)
    topics = dict(Topic.objects.filter(collection=collection).values_list("number", "id"))
    documents = dict(Document.objects.filter(collection=collection).values_list("docno", "id"))
    default_assessor = assessor or IMPORTED_ASSESSOR
    grades: dict[tuple[str, int, int], tuple[int, int]] = {}
    unknown = _Unknown(collection, topics, documents, create=create_missing)
    for line in parse_qrels(path, problems, name=file, progress=progress):
        topic_id, document_id = unknown.check(problems, file, line)
        if topic_id is None or document_id is None:
            continue
        if not 0 <= line.grade <= collection.max_grade:
            problems.add(
                file, line.line, "grade", f"{line.grade} is outside the collection's scale 0..{collection.max_grade}"
            )
        else:
            key = (line.assessor or default_assessor, topic_id, document_id)
            if key in grades:
                problems.add(
                    file, line.line, "docno", f"judged again by the same assessor (first on line {grades[key][1]})"
                )
            else:
                grades[key] = (line.grade, line.line)
    unknown.summarise(problems, report, file, skip_invalid=skip_invalid)
    _settle(problems, report, skip_invalid)
    with transaction.atomic():
        if create_missing:
            made_topics = unknown.made()
            made_documents = unknown.document_ids()
            grades = {(name, made_topics.get(t, t), made_documents.get(d, d)): value
                      for (name, t, d), value in grades.items()}  # fmt: skip
            if warning := _made_warning(unknown):
                report.warn(warning)
        users = imported_assessors(
            names={key[0] for key in grades}, mapped=dict(assessor_map or {}), namespace=IMPORTED_NAMESPACE
        )
        mapped = {getattr(user, "pk", user) for user in (assessor_map or {}).values()}
        for user in users.values():
            if user.pk not in mapped:  # a file's own account; a live account mapped in keeps what it is
                label_source_made(
                    collection=collection, account=user, kind=SourceKind.IMPORTED, role=role, changed_by=imported_by,
                    reason=f"imported from {file}",
                )  # fmt: skip
        labels = {
            (users[name], topic_id, document_id): grade for (name, topic_id, document_id), (grade, _) in grades.items()
        }
        origins = {
            (users[name], topic_id, document_id): {"file": file, "line": line}
            for (name, topic_id, document_id), (_, line) in grades.items()
        }
        counts = judgments_record_bulk(
            labels=labels, changed_by=imported_by, note=f"imported from {file}", origins=origins
        )
        report.created, report.updated, report.unchanged = counts
    return report


@dataclass(frozen=True)
class ImportKind:
    """What a kind of import takes beyond the file, as its registry entry says it (no `kind ==` elsewhere): the
    labels' source and role (qrels), the runs' model family, placeholders for ids the collection lacks (runs, qrels),
    the pooled-only filter (documents), and whether its files are read as one set (a run import is one ranking
    store for all its files)."""

    name: str
    labels: bool = False
    model_family: bool = False
    create_missing: bool = False
    pooled_only: bool = False
    one_set: bool = False


IMPORTS = {
    kind.name: kind
    for kind in (
        ImportKind("topics"),
        ImportKind("documents", pooled_only=True),
        ImportKind("runs", model_family=True, create_missing=True, one_set=True),
        ImportKind("qrels", labels=True, create_missing=True),
    )
}
IMPORT_KINDS = tuple(IMPORTS)
IMPORT_TASK = "judging.tasks.import_file"
# What the job page shows of this work; registered in the app's ready().
IMPORT_JOB = job_kinds.JobKind(
    IMPORT_TASK, "Import", "judging/jobs/_import_result.html", corrected_file_url=job_kinds.import_page, in_order=True
)


def import_start(
    *,
    collection: Collection,
    kind: str,
    file=None,
    files=None,
    skip_invalid: bool = False,
    created_by=None,
    source: str = "",
    role: str = SourceRole.COUNTED,
    model_family: str = "",
    create_missing: bool = False,
    pooled_only: bool = False,
    top_k: int | None = None,
):
    """Stores the uploaded file(s) and starts their import as one Job (the page's and the API's one way in): several
    files, or a .zip or .tar.gz, are imported together, all or nothing, with one report. Qrels name the `source`
    their labels belong to (default 'imported'; a fifth column names its own) and its `role`. Raises
    ValidationError on 'file' for an upload over the limit, on 'source' or 'role' for a name or role refused."""
    if kind not in IMPORTS:
        raise ValueError(f"unknown import kind {kind!r}")
    takes = IMPORTS[kind]
    if role not in SourceRole.values:
        raise ValidationError({"role": f"choose one of {', '.join(SourceRole.values)}"})
    source = identifier(source.strip()) if source else ""
    if source and (identifier_problem(source) or not re.fullmatch(r"[\w.@+-]{1,60}", source)):
        raise ValidationError({"source": "a name of 1 to 60 letters, digits and . @ + - _"})
    labels_from = {"source": source, "role": role}
    files = [f for f in (files or [file]) if f is not None]
    if not files:
        raise ValidationError({"file": "choose at least one file"})
    upload = uploads.upload_store(upload=files[0] if len(files) == 1 else _bundled(files), created_by=created_by)
    return jobs.job_start(
        kind=f"import {kind}",
        task=IMPORT_TASK,
        arguments={"kind": kind, "skip_invalid": skip_invalid}
        | (labels_from if takes.labels else {})
        | ({"model_family": model_family.strip()[:100]} if takes.model_family and model_family.strip() else {})
        | ({"create_missing": True} if create_missing and takes.create_missing else {})
        | ({"pooled_only": True, "top_k": top_k} if pooled_only and takes.pooled_only else {}),
        collection=collection,
        created_by=created_by,
        upload=upload,
    )


def _bundled(files) -> UploadedFile:
    """Several uploaded files as one zip (kept in a temporary file), named for what it holds."""
    total = sum(f.size or 0 for f in files)
    if total > upload_size_limit():
        raise ValidationError({"file": f"the files hold {total:,} bytes; the limit is {upload_size_limit():,} bytes"})
    names = [f.name for f in files]
    if len(set(names)) < len(names):
        raise ValidationError({"file": "two of the files have the same name; rename one"})
    spooled = tempfile.SpooledTemporaryFile(max_size=8 << 20)  # noqa: SIM115 (handed to the upload store, closed by it)
    archives.bundle(((f.name, f.chunks()) for f in files), spooled)
    size = spooled.tell()
    spooled.seek(0)
    return UploadedFile(spooled, name=archives.bundle_name(len(files)), content_type="application/zip", size=size)


def import_job_work(job, progress: Progress) -> dict:
    """The work of an import Job: its upload, read from the database into a local temporary file (an archive
    opened into its files), imported with the Job's options, all files in one transaction. A refused file raises
    JobRefused with the problems of every file by file, line and field; nothing of any file is then kept."""
    if job.upload_id is None:
        raise JobRefused("The uploaded file is no longer stored; upload it again.")
    kind, name = job.arguments["kind"], job.upload.name
    takes = IMPORTS[kind]
    options = {"collection": job.collection, "skip_invalid": job.arguments.get("skip_invalid", False)}
    if takes.create_missing:
        options["create_missing"] = job.arguments.get("create_missing", False)
    if takes.pooled_only and job.arguments.get("pooled_only"):
        options |= {"pooled_only": True, "top_k": job.arguments.get("top_k")}
    with upload_local_copy(upload_id=job.upload_id) as path:
        files = [(path, name)]
        if archives.is_archive(name):
            try:
                files = archives.extract(path, name, path.parent, max_bytes=upload_size_limit())
            except archives.ArchiveRefused as refusal:
                raise JobRefused(str(refusal)) from refusal
        try:
            report = _import_files(kind, files, job, progress, options)
        except ImportFailed as failure:
            result = {"count": failure.count, "problems": [p.as_dict() for p in failure.problems]}
            raise JobRefused(str(failure).splitlines()[0], result) from failure
    return report.as_dict() | ({"files": len(files)} if len(files) > 1 else {})


@transaction.atomic
def _import_files(kind: str, files: list[tuple[Path, str]], job, progress: Progress, options: dict) -> ImportReport:
    """Imports every file, or none: the problems of all files are gathered before anything is kept."""
    if IMPORTS[kind].one_set:
        paths, names = [p for p, _ in files], [n for _, n in files]
        family = job.arguments.get("model_family", "")
        return runs_import(
            paths=paths, names=names, owner=job.created_by, progress=progress, model_family=family, **options
        )
    report, problems = ImportReport(kind=kind), Problems()
    for index, (path, name) in enumerate(files):
        share = _file_share(progress, index, len(files))
        try:
            with transaction.atomic():
                if IMPORTS[kind].labels:
                    source = {
                        "assessor": job.arguments.get("source") or None,
                        "role": job.arguments.get("role", "counted"),
                    }
                    part = qrels_import(
                        path=path, name=name, imported_by=job.created_by, progress=share, **source, **options
                    )
                else:
                    importer = {"topics": topics_import, "documents": documents_import}[kind]
                    part = importer(path=path, name=name, progress=share, **options)
        except ImportFailed as failure:
            for problem in failure.problems:
                problems.add(problem.file, problem.line, problem.field, problem.reason)
            continue
        report.add(part.as_counts())
        report.passed_over += part.passed_over
        report.skipped_count += part.skipped_count
        report.skipped += part.skipped[: LISTED_PROBLEMS - len(report.skipped)]
        for warning in part.warnings:
            report.warn(warning)
    if problems.count:
        raise ImportFailed(problems)
    return report


def _file_share(progress: Progress | None, index: int, files: int) -> Progress | None:
    """The progress of one file of several, as its share of the whole."""
    if progress is None or files == 1:
        return progress
    return lambda done, total: progress(index * total + done, files * total) if total else None
