"""Qrels exports: the consensus (what every stored metric was computed from), one assessor's labels, or every
assessor's, optionally binarised and for a topic subset; as TREC qrels, JSONL or CSV with provenance columns.

Rows stream topic by topic (one topic's judgments in memory at a time), in a deterministic order: topics in
collection order, then docno, then assessor.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from evaluation import selectors
from evaluation.files import export_name, provenance, spreadsheet_text
from evaluation.machines.selectors import holes_filled_qrels
from evaluation.preferences.selectors import BRADLEY_TERRY, bradley_terry_qrels
from judging import selectors as judging_selectors
from judging.machines import selectors as machine_selectors
from judging.machines.models import MachineJudge
from judging.models import Collection, Document, Topic
from judging.quality.models import QualityCheck
from judging.sources import selectors as sources

SOURCES = ("consensus", "assessor", "all", "filled", "preferences")
FORMATS = {"trec": "txt", "jsonl": "jsonl", "csv": "csv"}
CSV_FIELDS = [
    "topic", "docno", "grade", "assessor", "time", "seconds", "note", "check", "confidence", "assessors", "source",
    "origin",
]  # fmt: skip


# A label row as the export reads it; the loop below unpacks it in this order (a check's answer is shaped alike).
LABEL_FIELDS = (
    "document_id",
    "document__docno",
    "assessor_id",
    "grade",
    "updated_at",
    "seconds_spent",
    "note",
    "origin",
)


def _cell(value):
    """A CSV cell: a dict (a label's origin) as JSON, text made safe for spreadsheets, numbers as they are."""
    if value is None:
        return ""
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True)
    return spreadsheet_text(value) if isinstance(value, str) else value


@dataclass(frozen=True)
class QrelsRow:
    topic: str
    docno: str
    grade: int
    assessor: str = ""
    time: str = ""
    seconds: float | None = None
    note: str = ""
    check: str = ""  # "gold": a label of a gold item (mixed into the queue or not); "repeat": a second label
    confidence: float | None = None
    assessors: int | None = None
    source: str = ""  # the label's source kind: person, machine, imported, clicks
    origin: dict | None = None  # an import's file and line; a machine's judge, model, prompt, tokens; clicks' log


def qrels_rows(
    *,
    collection: Collection,
    source: str = "consensus",
    assessor: str | None = None,
    topics: Iterable[str] | None = None,
    binarise_at: int | None = None,
    reveal_assessors: bool = True,
) -> Iterator[QrelsRow]:
    """The rows of a qrels export. `source`: "consensus" (one label per item, as evaluated; with its confidence),
    "assessor" (the one named by `assessor`, a username or pseudonym), "all" (every assessor's label) or "filled"
    (the consensus with the pool's holes filled by the machine judge named by `assessor`; its rows name it).
    `binarise_at`: grades at or above it become 1, the others 0. Judgments without a grade are never exported.
    Assessors' labels come with their answers to the collection's quality checks: `check` is "gold" on a label of a
    gold item (an assessor's, not a gold assessor's), "repeat" on a repeated item's second label; the TREC format
    leaves repeats out (trec_eval reads one label per line and assessor)."""
    if source not in SOURCES:
        raise ValueError(f"unknown source {source!r}; one of {', '.join(SOURCES)}")
    if source == "filled":
        yield from _filled_rows(collection, assessor, topics, binarise_at)
        return
    if source == "preferences":
        yield from _preference_rows(collection, topics, binarise_at)
        return
    names = (
        {}
        if source == "consensus"
        else judging_selectors.assessor_names(collection=collection, reveal=reveal_assessors)
    )
    wanted_assessor = None
    if source == "assessor":
        wanted_assessor = next((pk for pk, name in names.items() if name == assessor), None)
        if wanted_assessor is None:
            raise ValueError(f"no assessor {assessor!r} judged in this collection")
    topic_rows = Topic.objects.filter(collection=collection).order_by("id")
    if topics is not None:
        topic_rows = topic_rows.filter(number__in=list(topics))

    def grade_of(grade: int) -> int:
        return grade if binarise_at is None else int(grade >= binarise_at)

    gold = {} if source == "consensus" else judging_selectors.collection_gold(collection=collection)
    references = set() if source == "consensus" else sources.gold_accounts(collection=collection)
    kinds: dict[int, str] = {}  # each labelling account's source kind, read once per account
    for topic_id, number in topic_rows.values_list("id", "number"):
        judgments = sources.every_label(collection=collection, topic_ids=[topic_id]).filter(grade__isnull=False)
        if wanted_assessor is not None:
            judgments = judgments.filter(assessor_id=wanted_assessor)
        rows = list(judgments.order_by("document__docno", "assessor_id").values_list(*LABEL_FIELDS))
        if source == "consensus":
            yield from _consensus_rows(collection, topic_id, number, rows, grade_of)
            continue
        rows = [(*row, "") for row in rows]
        rows += _check_rows(topic_id, wanted_assessor)
        rows.sort(key=lambda row: (row[1], row[2], row[8] == "repeat"))
        replies = machine_selectors.reply_provenance(topic_id=topic_id)
        for document_id, docno, assessor_id, grade, updated, seconds, note, origin, kind in rows:
            graded_gold = kind == "" and (topic_id, document_id) in gold and assessor_id not in references
            check = "repeat" if kind == "repeat" else "gold" if kind == "gold" or graded_gold else ""
            who = names[assessor_id]
            if assessor_id not in kinds:
                kinds.update(sources.source_kinds(collection=collection, account_ids=[assessor_id]))
            provenance_ = replies.get((assessor_id, document_id)) or origin or None
            yield QrelsRow(
                number, docno, grade_of(grade), who, updated.isoformat(), seconds, note, check,
                source=kinds[assessor_id], origin=provenance_,
            )  # fmt: skip


def _check_rows(topic_id: int, assessor_id: int | None) -> list[tuple]:
    """The assessors' answers to the topic's quality checks, shaped as judgment rows with their kind last."""
    answers = QualityCheck.objects.filter(topic_id=topic_id, grade__isnull=False, answered_at__isnull=False)
    if assessor_id is not None:
        answers = answers.filter(assessor_id=assessor_id)
    rows = answers.values_list(
        "document_id", "document__docno", "assessor_id", "grade", "answered_at", "seconds_spent", "note", "kind"
    )
    return [(*row[:7], {}, row[7]) for row in rows]  # a check's answer: a person's, typed


def _filled_rows(collection, judge_name, topics, binarise_at) -> Iterator[QrelsRow]:
    judge = MachineJudge.objects.filter(collection=collection, name=judge_name).first()
    if judge is None:
        raise ValueError(f"no machine judge {judge_name!r} in this collection")
    consensus = selectors.consensus_qrels(collection=collection)
    filled = holes_filled_qrels(judge=judge)
    topic_rows = Topic.objects.filter(collection=collection).order_by("id")
    if topics is not None:
        topic_rows = topic_rows.filter(number__in=list(topics))
    for topic_id, number in topic_rows.values_list("id", "number"):
        labels = filled.get(topic_id, {})
        docnos = dict(Document.objects.filter(pk__in=list(labels)).values_list("pk", "docno"))
        for document_id in sorted(labels, key=lambda d: docnos[d]):
            grade = labels[document_id] if binarise_at is None else int(labels[document_id] >= binarise_at)
            machine = document_id not in consensus.get(topic_id, {})
            yield QrelsRow(number, docnos[document_id], grade, assessor=f"machine:{judge.name}" if machine else "")


def _preference_rows(collection, topics, binarise_at) -> Iterator[QrelsRow]:
    qrels = bradley_terry_qrels(collection=collection)
    wanted = set(topics) if topics is not None else None
    order = Topic.objects.filter(collection=collection).order_by("id").values_list("number", flat=True)
    for number in order:
        if number not in qrels or (wanted is not None and number not in wanted):
            continue
        for docno in sorted(qrels[number]):
            grade = qrels[number][docno]
            yield QrelsRow(number, docno, grade if binarise_at is None else int(grade >= binarise_at))


def _consensus_rows(collection, topic_id, number, rows, grade_of) -> Iterator[QrelsRow]:
    by_document: dict[int, dict[int, int]] = {}
    docnos: dict[int, str] = {}
    for document_id, docno, assessor_id, grade, *_ in rows:
        by_document.setdefault(document_id, {})[assessor_id] = grade
        docnos[document_id] = docno
    adjudicated = judging_selectors.topic_adjudications(topic_id=topic_id)
    unjudged = [d for d in adjudicated if d not in docnos]
    if unjudged:  # adjudicated without a judgment: their docnos in one query
        docnos.update(Document.objects.filter(pk__in=unjudged).values_list("pk", "docno"))
    result = selectors.consensus_labels(collection=collection, inputs={topic_id: (by_document, adjudicated)})[topic_id]
    for document_id in sorted(result.labels, key=lambda d: docnos[d]):
        yield QrelsRow(
            number,
            docnos[document_id],
            grade_of(result.labels[document_id]),
            confidence=result.confidence.get(document_id),
            assessors=len(by_document.get(document_id, {})),
        )


def _sources_summary(collection: Collection) -> dict[str, dict[str, int]]:
    """{role: {kind: labels}}: how many labels of each source kind each role holds (no names: a pseudonymous export
    stays so), the header's answer to "which of these labels would change if we dropped the machine?"."""
    summary: dict[str, dict[str, int]] = {}
    for row in sources.collection_sources(collection=collection):
        kinds = summary.setdefault(row.role, {})
        kinds[row.kind] = kinds.get(row.kind, 0) + row.labels
    return summary


def qrels_lines(rows: Iterable[QrelsRow], fmt: str) -> Iterator[str]:
    """Serialises rows: "trec" (`topic 0 docno grade`, or the assessor in place of the 0 when exporting every
    assessor's labels: trec_eval ignores that column), "jsonl" or "csv" (with a header row)."""
    if fmt == "trec":
        for row in rows:
            if row.check == "repeat":
                continue
            who = row.assessor if row.assessor and not row.assessor.startswith("machine:") else 0
            yield f"{row.topic} {who} {row.docno} {row.grade}\n"
    elif fmt == "jsonl":
        for row in rows:
            record = {k: v for k, v in row.__dict__.items() if v not in ("", None)}
            yield json.dumps(record, ensure_ascii=False) + "\n"
    elif fmt == "csv":
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=CSV_FIELDS, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: _cell(v) for k, v in row.__dict__.items()})
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
        yield buffer.getvalue()
    else:
        raise ValueError(f"unknown format {fmt!r}; one of {', '.join(FORMATS)}")


def qrels_export(
    *,
    collection: Collection,
    fmt: str = "trec",
    source: str = "consensus",
    assessor: str | None = None,
    topics: list[str] | None = None,
    binarise_at: int | None = None,
    reveal_assessors: bool = True,
):
    """(file name, provenance, lines) of a qrels export; ValueError for an unknown format, source or assessor."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; one of {', '.join(FORMATS)}")
    if binarise_at is not None and not 1 <= binarise_at <= collection.max_grade:
        raise ValueError(f"binarise_at must be a grade between 1 and {collection.max_grade}")
    rows = qrels_rows(
        collection=collection,
        source=source,
        assessor=assessor,
        topics=topics,
        binarise_at=binarise_at,
        reveal_assessors=reveal_assessors,
    )
    first = next(rows, None)  # raises ValueError (unknown assessor) before any response starts

    def chained():
        if first is not None:
            yield first
            yield from rows

    details = {"kind": "qrels", "source": source, "format": fmt, "binarised_at": binarise_at, "topics": topics}
    if source in ("assessor", "filled"):
        details["assessor" if source == "assessor" else "machine_judge"] = assessor
    if source == "preferences":
        details["method"] = BRADLEY_TERRY
    if source == "filled":
        judge = MachineJudge.objects.filter(collection=collection, name=assessor).first()
        details["machine_judge_version"] = judge.version if judge else None
        details["method"] = "consensus labels; the machine judge's label for each pooled item without one"
    meta = provenance(collection, **details, label_sources=_sources_summary(collection))
    label = "qrels" if source == "consensus" else f"qrels-{source}" + (f"-{assessor}" if assessor else "")
    return export_name(collection, label, meta["qrels_version"], FORMATS[fmt]), meta, qrels_lines(chained(), fmt)
