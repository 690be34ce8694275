"""Reads of RAG answers for the judging pages: a collection's answer runs, an assessor's answers to a topic (blind:
no run named, in an order of their own), and one answer laid out for judging with the assessor's own labels."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.db.models import Count, QuerySet

from judging.models import Collection, Document, Run, Topic
from judging.rag.models.answers import Answer, SupportJudgment
from judging.rag.models.nuggets import Nugget, NuggetAssignment
from judging.sources.selectors import answer_labels


def answer_runs(*, collection: Collection) -> list[dict]:
    """The collection's runs that have answers: tag, answers, topics, the format and file they came from."""
    runs = Run.objects.filter(collection=collection, answers__isnull=False).annotate(n=Count("answers")).order_by("tag")
    found = []
    for run in runs:
        first = run.answers.order_by("id").values_list("origin", flat=True).first() or {}
        found.append({"run": run, "answers": run.n, "format": first.get("format", ""), "file": first.get("file", "")})
    return found


def answered_topics(*, topic_ids: list[int]) -> dict[int, int]:
    """{topic id: how many answers it has} for those of these topics that have any."""
    rows = Answer.objects.filter(topic_id__in=topic_ids).values("topic_id").annotate(n=Count("id"))
    return {row["topic_id"]: row["n"] for row in rows}


def _blind_key(assessor_id: int, answer_id: int) -> bytes:
    return hashlib.sha256(f"{assessor_id}:{answer_id}".encode()).digest()


def assessor_answers(*, topic: Topic, assessor_id: int) -> list[dict]:
    """The topic's answers for one assessor, in an order of its own (no run named, as the judging page names no
    run), each with how many of the topic's nuggets and cited segments the assessor has labelled."""
    answers = list(Answer.objects.filter(topic=topic))
    answers.sort(key=lambda a: _blind_key(assessor_id, a.pk))
    nuggets = Nugget.objects.filter(topic=topic, accepted=True, removed=False).count()
    assigned = dict(
        NuggetAssignment.objects.filter(answer__topic=topic, assessor_id=assessor_id, nugget__removed=False)
        .values("answer_id")
        .annotate(n=Count("id"))
        .values_list("answer_id", "n")
    )
    supported = dict(
        SupportJudgment.objects.filter(answer__topic=topic, assessor_id=assessor_id)
        .values("answer_id")
        .annotate(n=Count("id"))
        .values_list("answer_id", "n")
    )
    return [
        {
            "answer": answer,
            "number": index,
            "assigned": assigned.get(answer.pk, 0),
            "nuggets": nuggets,
            "supported": supported.get(answer.pk, 0),
            "cited": sum(len(s["citations"]) for s in answer.sentences),
        }
        for index, answer in enumerate(answers, start=1)
    ]


@dataclass
class Citation:
    number: int  # 1-based, as shown
    document: Document
    label: str  # the assessor's support label, or ""


@dataclass
class Sentence:
    index: int
    text: str
    citations: list[Citation]


def answer_for_judging(*, answer: Answer, assessor_id: int) -> dict:
    """One answer laid out for an assessor: its sentences with their cited segments (and the assessor's support
    labels), the topic's scored nuggets with the assessor's labels, and the answer's blind number and neighbours."""
    documents = Document.objects.in_bulk(answer.references)
    support = {
        (row.sentence, row.document_id): row.label
        for row in SupportJudgment.objects.filter(answer=answer, assessor_id=assessor_id)
    }
    sentences = [
        Sentence(
            index,
            sentence["text"],
            [
                Citation(p + 1, documents[answer.references[p]], support.get((index, answer.references[p]), ""))
                for p in sentence["citations"]
                if answer.references[p] in documents
            ],
        )
        for index, sentence in enumerate(answer.sentences)
    ]
    labels = dict(
        NuggetAssignment.objects.filter(answer=answer, assessor_id=assessor_id).values_list("nugget_id", "label")
    )
    nuggets = [
        {"nugget": n, "label": labels.get(n.pk, "")}
        for n in Nugget.objects.filter(topic_id=answer.topic_id, accepted=True, removed=False).order_by(
            "position", "id"
        )
    ]
    order = [row["answer"].pk for row in assessor_answers(topic=answer.topic, assessor_id=assessor_id)]
    at = order.index(answer.pk)
    return {
        "sentences": sentences,
        "nuggets": nuggets,
        "number": at + 1,
        "of": len(order),
        "previous": order[at - 1] if at > 0 else None,
        "next": order[at + 1] if at + 1 < len(order) else None,
        "done": sum(1 for n in nuggets if n["label"]),
        "citations": sum(len(s.citations) for s in sentences),
        "citations_done": sum(1 for s in sentences for c in s.citations if c.label),
    }


def counted_support(*, collection: Collection, topic_ids=None) -> QuerySet:
    """The support judgments that count in `collection` (every source but the advisory ones)."""
    return answer_labels(SupportJudgment.objects.all(), collection, role=None, topic_ids=topic_ids)
