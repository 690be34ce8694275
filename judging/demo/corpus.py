"""The demo's documents, topics and runs, made offline from the docstrings of Python's own modules: nothing is
downloaded, and the runs rank them with a small BM25 index so that their scores differ the way real runs' do."""

from __future__ import annotations

import importlib
import inspect
import itertools
import math
import random
import re
from collections import Counter

import numpy as np

from judging.models import Document

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


def simulated_grade(topic_title: str, document: Document, rng: random.Random, noise: float) -> int:
    """A plausible grade from term overlap, with assessor-specific noise, so the demo has metrics and agreement."""
    terms = set(tokens(topic_title))
    name_hits = len(terms & set(tokens(document.docno.replace(".", " "))))
    body_hits = len(terms & set(tokens(document.body)))
    grade = min(3, 2 * name_hits + (1 if body_hits >= 2 else 0) + (1 if body_hits >= 3 else 0))
    if rng.random() < noise:
        grade = max(0, min(3, grade + rng.choice([-1, 1])))
    return grade
