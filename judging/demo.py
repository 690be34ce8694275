"""The demo collection: Python's own docstrings as documents, questions a Python user asks as topics, and four
genuinely different retrieval methods (BM25, TF-IDF cosine, title-only BM25, random) as runs. No network needed."""

from __future__ import annotations

import importlib
import inspect
import itertools
import json
import math
import random
import re
from collections import Counter

import numpy as np
from django.db import transaction

from judging import services
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
]
MODULES = [
    "json",
    "csv",
    "os",
    "os.path",
    "re",
    "datetime",
    "collections",
    "itertools",
    "functools",
    "pathlib",
    "random",
    "statistics",
    "math",
    "string",
    "textwrap",
    "shutil",
    "tempfile",
    "glob",
    "heapq",
    "bisect",
    "logging",
    "argparse",
    "subprocess",
    "threading",
    "queue",
    "urllib.parse",
    "hashlib",
    "base64",
    "gzip",
    "zipfile",
    "tarfile",
    "sqlite3",
    "copy",
    "pprint",
    "difflib",
    "fnmatch",
    "time",
    "calendar",
    "uuid",
    "decimal",
    "fractions",
    "secrets",
    "enum",
    "dataclasses",
    "typing",
    "contextlib",
    "operator",
    "struct",
]
TOPICS = [
    ("1", "parse json string into python object", "How do I turn a JSON document held in a string into Python data?"),
    ("2", "read csv file rows", "How do I read the rows of a CSV file?"),
    ("3", "regular expression search match", "How do I find a pattern in text with a regular expression?"),
    ("4", "current date and time", "How do I get the current date and time, and format it?"),
    ("5", "count occurrences of items", "How do I count how often each element occurs?"),
    ("6", "temporary file directory", "How do I create a temporary file or directory that is cleaned up?"),
    ("7", "run external command subprocess output", "How do I run another program and capture its output?"),
    ("8", "compress decompress gzip zip archive", "How do I compress files or read a zip archive?"),
    ("9", "random sample shuffle choice", "How do I pick random elements or shuffle a list?"),
    ("10", "hash digest sha256 md5", "How do I compute a cryptographic hash of some bytes?"),
]
TOKEN = re.compile(r"[a-z][a-z0-9]+")


def tokens(text: str) -> list[str]:
    return TOKEN.findall(text.lower())


def harvest_docstrings(limit: int = 400) -> list[dict]:
    """Module, class and function docstrings of selected stdlib modules: real, varied text shipped with Python,
    taken a document from each module in turn, so every module is in the corpus (cut in module order, `os` alone
    filled it before `hashlib`, and topic 10 had no relevant document)."""
    per_module, seen = [], set()
    for name in MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        candidates = [(name, module)] + [
            (f"{name}.{attr}", obj)
            for attr, obj in sorted(vars(module).items())
            if not attr.startswith("_") and (inspect.isfunction(obj) or inspect.isclass(obj) or inspect.isbuiltin(obj))
        ]
        found = []
        for qualified, obj in candidates:
            doc = inspect.getdoc(obj) or ""
            if len(doc) < 80 or qualified in seen:
                continue
            seen.add(qualified)
            found.append({"docno": qualified, "title": qualified, "body": doc[:4000]})
        per_module.append(found)
    interleaved = [doc for round_ in itertools.zip_longest(*per_module) for doc in round_ if doc is not None]
    return interleaved[:limit]


class _Index:
    def __init__(self, texts: list[str]):
        self.docs = [Counter(tokens(t)) for t in texts]
        self.lengths = np.array([sum(d.values()) for d in self.docs], dtype=float)
        self.df = Counter(term for d in self.docs for term in d)
        self.n = len(texts)

    def idf(self, term: str) -> float:
        df = self.df.get(term, 0)
        return math.log(1 + (self.n - df + 0.5) / (df + 0.5))

    def bm25(self, query: str, k1: float = 1.2, b: float = 0.75) -> np.ndarray:
        avg = self.lengths.mean() or 1.0
        scores = np.zeros(self.n)
        for term in set(tokens(query)):
            tf = np.array([d.get(term, 0) for d in self.docs], dtype=float)
            scores += self.idf(term) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * self.lengths / avg))
        return scores

    def tfidf_cosine(self, query: str) -> np.ndarray:
        q = Counter(tokens(query))
        scores = np.zeros(self.n)
        for i, doc in enumerate(self.docs):
            dot = sum(q[t] * doc[t] * self.idf(t) ** 2 for t in q if t in doc)
            norm = math.sqrt(sum((c * self.idf(t)) ** 2 for t, c in doc.items())) or 1.0
            scores[i] = dot / norm
        return scores


def _top(scores: np.ndarray, docnos: list[str], depth: int) -> dict[str, float]:
    order = np.argsort(-scores, kind="stable")[:depth]
    return {docnos[i]: round(float(scores[i]), 4) for i in order}


def demo_runs(documents: list[dict], depth: int = 50) -> dict[str, dict[str, dict[str, float]]]:
    docnos = [d["docno"] for d in documents]
    body = _Index([d["title"] + " " + d["body"] for d in documents])
    titles = _Index([d["title"].replace(".", " ").replace("_", " ") for d in documents])
    rng = np.random.default_rng(7)
    runs = {"bm25": {}, "tfidf": {}, "title-only": {}, "random": {}}
    for number, title, description in TOPICS:
        query = f"{title} {description}"
        runs["bm25"][number] = _top(body.bm25(query), docnos, depth)
        runs["tfidf"][number] = _top(body.tfidf_cosine(query), docnos, depth)
        runs["title-only"][number] = _top(titles.bm25(title), docnos, depth)
        runs["random"][number] = _top(rng.random(len(docnos)), docnos, depth)
    return runs


def _simulated_grade(topic_title: str, document: Document, rng: random.Random, noise: float) -> int:
    """A plausible grade from term overlap, with assessor-specific noise, so the demo has metrics and agreement."""
    terms = set(tokens(topic_title))
    name_hits = len(terms & set(tokens(document.docno.replace(".", " "))))
    body_hits = len(terms & set(tokens(document.body)))
    grade = min(3, 2 * name_hits + (1 if body_hits >= 2 else 0) + (1 if body_hits >= 3 else 0))
    if rng.random() < noise:
        grade = max(0, min(3, grade + rng.choice([-1, 1])))
    return grade


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
    for precedence, (tag, scores) in enumerate(demo_runs(documents).items(), start=1):
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
                    grade=_simulated_grade(topic.title, by_id[item.document_id], rng, noise),
                    seconds_spent=rng.uniform(4, 30),
                )
    # The best offline judge this install has labels the whole pool, so the machine-judge pages show from the first
    # command: MiniLM where the embedding extra is installed, else the BM25 baseline.
    provider = MachineProvider.EMBEDDING if embedding.available() else MachineProvider.LEXICAL
    judge = machine_judges.machine_judge_create(collection=collection, name=DEMO_JUDGE, provider=provider)
    machine_judges.machine_judge_run(judge=judge)
    _demo_answers(collection)
    # Assessors verify its labels, blind: its likeliest errors come first in their queues.
    return services.collection_settings_update(collection=collection, verification_judge=judge)


def _first_words(document: Document, count: int) -> str:
    return " ".join(f"{document.title} {document.body}".split()[:count])


def _demo_answers(collection: Collection) -> None:
    """Two RAG runs answering every topic from a baseline's top three documents (a sentence quoting each, citing
    it), nuggets for every topic written from its top documents, and the two simulated assessors' nugget
    assignments and support judgments of every answer but topic 1's (left to judge): the RAG leaderboard scores
    and agreement show from the first command, with something left to do."""
    from django.contrib.auth import get_user_model

    from judging.answers.models import Answer
    from judging.answers.services import answer_runs_import, support_record
    from judging.nuggets.services.assignments import assignment_record
    from judging.nuggets.services.nuggets import nugget_create

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
