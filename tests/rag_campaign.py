"""A small RAG campaign for the tests: two topics, two runs' answers, nuggets, two assessors."""

from __future__ import annotations

from dataclasses import dataclass

from judging import services
from judging.rag.models.answers import Answer
from judging.rag.services.answers import answer_runs_import
from judging.rag.services.nuggets import nugget_create
from tests.factories import make_collection, make_user
from tests.rag_files import rag24


@dataclass
class RagCampaign:
    collection: object
    alice: object
    bob: object
    nuggets: dict  # {(topic number, index): Nugget}

    def answer(self, run: str, topic: str) -> Answer:
        return Answer.objects.get(run__collection=self.collection, run__tag=run, topic__number=topic)


def rag_campaign() -> RagCampaign:
    collection = make_collection(topics=2, documents=6, runs=0, max_grade=1)
    lines = [
        rag24("rag-a", "1", ["d1", "d2"], [("Paris is the capital.", [0]), ("It is large.", [1, 0])]),
        rag24("rag-a", "2", ["d3"], [("Rome is old.", [0])]),
        rag24("rag-b", "1", ["d2"], [("Lyon is a city.", [0])]),
        rag24("rag-b", "2", ["d4", "d3"], [("Rome is the capital of Italy.", [0, 1])]),
    ]
    answer_runs_import(collection=collection, file="runs.jsonl", lines=lines)
    nuggets = {}
    for topic in collection.topics.all():
        for index, (text, importance) in enumerate([("capital", "vital"), ("size", "okay"), ("history", "vital")]):
            nuggets[topic.number, index] = nugget_create(
                topic=topic, text=f"{text} {topic.number}", importance=importance
            )
    alice, bob = make_user("assessor"), make_user("assessor")
    for topic in collection.topics.all():
        services.assignment_create(assessor=alice, topic=topic)
        services.assignment_create(assessor=bob, topic=topic)
    return RagCampaign(collection, alice, bob, nuggets)
