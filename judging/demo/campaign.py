"""The demo collection itself: its assessors, researcher, participant and admin, the pool, the simulated judgments
(with grades' descriptions), a machine judge, RAG answers with nuggets and support, and an open track with a team's
submitted run."""

from __future__ import annotations

import json
import random
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from judging import services
from judging.demo.corpus import TOPICS, demo_runs, harvest_docstrings, simulated_grade, tokens
from judging.machines import services as machine_judges
from judging.machines.core import embedding
from judging.machines.models import MachineProvider
from judging.models import Collection, Document, Topic

DEMO_NAME = "Python docstrings (demo)"


DEMO_JUDGE = "offline-judge"  # MiniLM where the embedding extra is installed, else BM25


DEMO_USERS = [
    ("admin", "admin-demo-pass", "admin"),
    ("alice", "alice-demo-pass", "assessor"),
    ("bob", "bob-demo-pass", "assessor"),
    ("rita", "rita-demo-pass", "researcher"),
    ("pat", "pat-demo-pass", "participant"),
]
DEMO_TEAM = "pat's lab"


@transaction.atomic
def demo_create(*, judged_share: float = 0.6) -> Collection:
    """Creates the demo collection, users, pool (depth 10), assignments, part of the judgments, and the embedded
    best offline machine judge's labels of the whole pool (advisory)."""
    users = {}
    from django.contrib.auth import get_user_model

    for username, password, role in DEMO_USERS:
        existing = get_user_model().objects.filter(username=username).first()
        users[username] = existing or services.user_create(username=username, password=password, role=role)
    collection = services.collection_create(
        name=DEMO_NAME,
        max_grade=3,
        relevance_threshold=2,
        assessors_per_item=2,
        description="Stdlib docstrings as a corpus; questions a Python user would ask as topics.",
        guidelines="Judge whether the documented function or module **helps answer the question**: what would a "
        "Python user asking it be glad to read? The scale's grades say how much it helps.",
        grades=[
            ("Not relevant", "it has nothing to do with the question"),
            ("Related", "on topic, but it does not answer"),
            ("Relevant", "part of the answer"),
            ("Perfect", "it is the thing to use"),
        ],
    )
    documents = harvest_docstrings()
    services.documents_create(collection=collection, documents=documents)
    services.topics_create(
        collection=collection,
        topics=[
            {
                "number": n,
                "title": t,
                "description": d,
                "narrative": "A document is relevant if it documents an API that does what the question asks.",
            }
            for n, t, d in TOPICS
        ],
    )
    runs = demo_runs(documents)
    for precedence, (tag, scores) in enumerate(runs.items(), start=1):
        services.run_create(
            collection=collection, tag=tag, scores=scores, precedence=precedence, description=f"Demo baseline: {tag}"
        )
    services.pool_build_depth(collection=collection, depth=10)
    rng = random.Random(11)
    by_id = {d.id: d for d in Document.objects.filter(collection=collection)}
    for topic in Topic.objects.filter(collection=collection).prefetch_related("pool_items"):
        items = list(topic.pool_items.all())
        for name, noise in (("alice", 0.1), ("bob", 0.25)):
            services.assignment_create(assessor=users[name], topic=topic)
            if topic.number == "1":
                continue  # leave one topic untouched so there is something to judge from the start
            for item in items[: int(len(items) * judged_share)]:
                services.judgment_record(
                    assessor=users[name],
                    topic=topic,
                    document=by_id[item.document_id],
                    grade=simulated_grade(topic.title, by_id[item.document_id], rng, noise),
                    seconds_spent=rng.uniform(4, 30),
                )
    # The best offline judge this install has labels the whole pool, so the machine-judge pages show from the first
    # command: MiniLM where the embedding extra is installed, else the BM25 baseline.
    provider = MachineProvider.EMBEDDING if embedding.available() else MachineProvider.LEXICAL
    judge = machine_judges.machine_judge_create(collection=collection, name=DEMO_JUDGE, provider=provider)
    machine_judges.machine_judge_run(judge=judge)
    _demo_answers(collection)
    _demo_track(collection, users["pat"], runs)
    # Assessors verify its labels, blind: its likeliest errors come first in their queues.
    return services.collection_settings_update(collection=collection, verification_judge=judge)


def _demo_track(collection: Collection, participant, runs: dict) -> None:
    """The collection open for submissions for a month, with live reports; pat's team has submitted two runs (each
    a fusion of two baselines, by reciprocal rank), so the track's pages and a report show from the first command."""
    from django.core.files.base import ContentFile

    from judging.tracks import services as tracks

    opens = timezone.now().replace(second=0, microsecond=0)
    settings = {"opens": opens.isoformat(), "closes": (opens + timedelta(days=30)).isoformat(), "runs_per_team": 3,
                "depth": 100, "live_reports": True}  # fmt: skip
    tracks.submission_settings_update(collection=collection, changes={"submissions": settings})
    tracks.team_create(collection=collection, name=DEMO_TEAM, members=[participant.username])
    fusions = [
        ("pat-fusion", ("bm25", "tfidf"), "BM25 and TF-IDF fused by reciprocal rank (k = 60)."),
        ("pat-titles", ("bm25", "title-only"), "BM25 and title-only BM25 fused by reciprocal rank (k = 60)."),
    ]
    for priority, (tag, fused_runs, description) in enumerate(fusions, start=1):
        lines = []
        for number in runs["bm25"]:
            fused: dict[str, float] = {}
            for name in fused_runs:
                ranked = sorted(runs[name][number].items(), key=lambda item: -item[1])
                for rank, (docno, _) in enumerate(ranked, start=1):
                    fused[docno] = fused.get(docno, 0.0) + 1.0 / (60 + rank)
            best = sorted(fused.items(), key=lambda item: (-item[1], item[0]))[:50]
            lines += [f"{number} Q0 {docno} {rank} {score:.6f} {tag}" for rank, (docno, score) in enumerate(best, 1)]
        upload = ContentFile(("\n".join(lines) + "\n").encode(), name=f"{tag}.txt")
        questionnaire = tracks.Questionnaire("automatic", priority, description)
        tracks.submission_receive(collection=collection, user=participant, upload=upload, questionnaire=questionnaire)


def _first_words(document: Document, count: int) -> str:
    return " ".join(f"{document.title} {document.body}".split()[:count])


def _demo_answers(collection: Collection) -> None:
    """Two RAG runs answering every topic from a baseline's top three documents (a sentence quoting each, citing
    it), nuggets for every topic written from its top documents, and the two simulated assessors' nugget
    assignments and support judgments of every answer but topic 1's (left to judge): the RAG leaderboard scores
    and agreement show from the first command, with something left to do."""
    from django.contrib.auth import get_user_model

    from judging.rag.models.answers import Answer
    from judging.rag.services.answers import answer_runs_import, support_record
    from judging.rag.services.assignments import assignment_record
    from judging.rag.services.nuggets import nugget_create

    documents = {d.id: d for d in Document.objects.filter(collection=collection)}
    lines = []
    for number, run in enumerate(collection.runs.order_by("precedence")[:2], start=1):
        for ranking in run.rankings.select_related("topic").order_by("topic_id"):
            top = [documents[d] for d in ranking.documents()[:3]]
            answer = [{"text": f"{_first_words(d, 12)}.", "citations": [i]} for i, d in enumerate(top)]
            lines.append(json.dumps({"run_id": f"rag-{number}", "topic_id": ranking.topic.number,
                                     "topic": ranking.topic.title, "references": [d.docno for d in top],
                                     "response_length": 0, "answer": answer}))  # fmt: skip
    answer_runs_import(collection=collection, file="demo-rag.jsonl", lines=lines)
    nuggets = {}
    for ranking in collection.runs.order_by("precedence")[0].rankings.select_related("topic"):
        # Facts from the documents BM25 ranks 1, 3, 5 and 7: some in the answers, some not.
        picked = [documents[d] for d in ranking.documents()[:7:2]]
        nuggets[ranking.topic_id] = [
            nugget_create(topic=ranking.topic, text=" ".join(d.body.split()[:8]), importance="okay" if i else "vital")
            for i, d in enumerate(picked)
        ]
    rng = random.Random(7)
    people = get_user_model().objects.filter(username__in=["alice", "bob"]).order_by("username")
    for answer in Answer.objects.filter(run__collection=collection).exclude(topic__number="1").select_related("topic"):
        said = set(tokens(" ".join(sentence["text"] for sentence in answer.sentences)))
        for person, noise in zip(people, (0.1, 0.25), strict=True):
            for nugget in nuggets.get(answer.topic_id, []):
                held = len(set(tokens(nugget.text)) & said) / max(len(set(tokens(nugget.text))), 1)
                label = "support" if held >= 0.8 else "partial_support" if held >= 0.4 else "not_support"
                if rng.random() < noise:
                    label = rng.choice(["support", "partial_support", "not_support"])
                assignment_record(assessor=person, answer=answer, nugget=nugget, label=label)
            for position, sentence in enumerate(answer.sentences):
                for cited in sentence["citations"]:
                    label = "full" if rng.random() >= noise else rng.choice(["partial", "none"])
                    support_record(assessor=person, answer=answer, sentence=position,
                                   document_id=answer.references[cited], label=label)  # fmt: skip
