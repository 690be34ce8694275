"""Writes of RAG answers: a run file imported all or nothing (its answers, and its references as the run's
rankings), and the support of a cited segment judged. Each announces `signals.answers_changed` in its transaction."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from django.core.exceptions import ValidationError
from django.db import transaction

from judging import signals
from judging.imports.core.problems import limit
from judging.models import Collection, Document, Topic
from judging.rag.core.answers import ParsedAnswer, read_answers
from judging.rag.models.answers import Answer, SupportJudgment, SupportLabel
from judging.services.documents import documents_create
from judging.services.runs import run_store
from judging.services.topics import topics_create

PLACEHOLDER = {"placeholder": True}


def _missing(collection: Collection, answers: list[ParsedAnswer]) -> tuple[dict[str, str], set[str]]:
    """The topics ({number: the run's text of it}) and documents the answers name that the collection lacks."""
    numbers = {a.topic: a.query for a in answers}
    known_topics = set(Topic.objects.filter(collection=collection, number__in=numbers).values_list("number", flat=True))
    docnos = {r for a in answers for r in a.references}
    known_documents = set(
        Document.objects.filter(collection=collection, docno__in=docnos).values_list("docno", flat=True)
    )
    return {n: q for n, q in numbers.items() if n not in known_topics}, docnos - known_documents


@transaction.atomic
def answer_runs_import(
    *, collection: Collection, file: str, lines: Iterable[str], owner=None, create_missing: bool = False
) -> dict:
    """Imports a RAG run file (one or several runs; TREC RAG 2024 or 2025 lines; `lines` text lines or a binary
    stream, each at most WORKBENCH_MAX_RECORD_BYTES) all or nothing: any problem of
    any line refuses the whole file, every problem named by file, line and field. Each run's answers replace its
    earlier answers to the same topics, and its references become its ranking of each topic (in their order), so
    its document measures are computed over them. Topics and segments the collection lacks are a problem, or with
    `create_missing` made as placeholders (the run's text of the topic as its title; a segment's docno only).
    Returns {runs: {tag: answers}, answers, created_topics, created_documents}."""
    answers, problems = read_answers(lines, file, max_line_bytes=limit("record_bytes"))
    if problems:
        raise ValidationError(
            [f"{len(problems)} problem(s) in {file}; nothing was imported."] + [str(p) for p in problems]
        )
    if not answers:
        raise ValidationError([f"{file} holds no answer."])
    topics_missing, documents_missing = _missing(collection, answers)
    if (topics_missing or documents_missing) and not create_missing:
        raise ValidationError(
            [
                f"these {len(answers)} answers name {len(topics_missing)} topics and {len(documents_missing)} "
                "segments this collection doesn't have; import them first, or import again creating what is "
                "missing as placeholders.",
                *(f"topic {n}" for n in sorted(topics_missing)[:10]),
                *(f"segment {d}" for d in sorted(documents_missing)[:10]),
            ]
        )
    if topics_missing:
        topics_create(
            collection=collection,
            topics=[{"number": n, "title": q or n, "extra": PLACEHOLDER} for n, q in topics_missing.items()],
        )
    if documents_missing:
        documents_create(
            collection=collection, documents=[{"docno": d, "extra": PLACEHOLDER} for d in documents_missing]
        )
    topics = dict(
        Topic.objects.filter(collection=collection, number__in={a.topic for a in answers}).values_list("number", "id")
    )
    docnos = {r for a in answers for r in a.references}
    documents = dict(Document.objects.filter(collection=collection, docno__in=docnos).values_list("docno", "id"))
    by_run: dict[str, list[ParsedAnswer]] = defaultdict(list)
    for answer in answers:
        by_run[answer.run_id].append(answer)
    for tag, run_answers in by_run.items():
        per_topic = {
            topics[a.topic]: {docno: (float(len(a.references) - i), a.line) for i, docno in enumerate(a.references)}
            for a in run_answers
        }
        run_store(collection=collection, tag=tag, per_topic=per_topic, documents=documents, owner=owner,
                  description=f"RAG answers ({run_answers[0].format}) from {file}")  # fmt: skip
        run = collection.runs.get(tag=tag)
        Answer.objects.filter(run=run, topic_id__in=list(per_topic)).delete()
        Answer.objects.bulk_create(
            Answer(
                run=run,
                topic_id=topics[a.topic],
                references=[documents[d] for d in a.references],
                sentences=[{"text": text, "citations": list(cited)} for text, cited in a.sentences],
                words=a.words,
                origin={"file": file, "line": a.line, "format": a.format, **a.metadata},
            )
            for a in run_answers
        )
    touched = sorted({topics[a.topic] for a in answers})
    signals.answers_changed.send(sender=Answer, topic_ids=touched, collection_id=collection.pk)
    return {
        "runs": {tag: len(run_answers) for tag, run_answers in by_run.items()},
        "answers": len(answers),
        "created_topics": len(topics_missing),
        "created_documents": len(documents_missing),
    }


@transaction.atomic
def support_record(*, assessor, answer: Answer, sentence: int, document_id: int, label: str) -> SupportJudgment:
    """Records (or changes) the assessor's judgment of whether the cited segment supports the answer's sentence.
    The segment must be one the sentence cites."""
    if label not in SupportLabel.values:
        raise ValidationError({"label": f"{label!r} is not one of {', '.join(SupportLabel.values)}"})
    if not 0 <= sentence < len(answer.sentences):
        raise ValidationError({"sentence": f"the answer has no sentence {sentence}"})
    cited = [answer.references[p] for p in answer.sentences[sentence]["citations"]]
    if document_id not in cited:
        raise ValidationError({"document": "the sentence does not cite this segment"})
    judgment, _ = SupportJudgment.objects.update_or_create(
        assessor=assessor, answer=answer, sentence=sentence, document_id=document_id, defaults={"label": label}
    )
    signals.answers_changed.send(sender=Answer, topic_ids=[answer.topic_id], collection_id=None)
    return judgment
