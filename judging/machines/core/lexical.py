"""The embedded judge, the floor every machine judge should beat: BM25 (Robertson et al.; k1 = 0.9, b = 0.4, as
Anserini's defaults) of the topic's title and description against each pooled document, divided by the best score
among the topic's pooled documents, then cut into grades at thresholds fitted on people's labels.

It runs offline, on any machine, with nothing to download. It is a baseline, named as one on every page: a lexical
score knows nothing of meaning, and its agreement with people is shown as measured.

Thresholds are fitted by matching quantiles: the cut below grade g sits where the share of scores below it equals
the share of people's labels below g. A topic's own labels never fit its thresholds (they are fitted on the other
topics' labels), so the agreement the page shows is not the judge repeating what it was told.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

K1, B = 0.9, 0.4
_WORD = re.compile(r"\w+", re.UNICODE)
_STOP = frozenset(
    ("a", "an", "and", "are", "as", "at", "be", "by", "do", "does", "for", "from", "how", "i", "in", "is", "it",
     "of", "on", "or", "that", "the", "this", "to", "what", "when", "where", "which", "who", "why", "with", "you")
)  # fmt: skip


def terms(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in _STOP]


class BM25:
    """BM25 over a fixed set of documents (the collection's pooled documents): document frequencies and lengths
    counted once, each query scored against the documents asked for."""

    def __init__(self, documents: Mapping[str, str]):
        self.bags = {docno: Counter(terms(text)) for docno, text in documents.items()}
        lengths = [sum(bag.values()) for bag in self.bags.values()]
        self.average = (sum(lengths) / len(lengths)) if lengths else 0.0
        self.frequency: Counter = Counter()
        for bag in self.bags.values():
            self.frequency.update(bag.keys())
        self.count = len(self.bags)

    def score(self, query: str, docno: str) -> float:
        bag = self.bags.get(docno)
        if not bag:
            return 0.0
        length = sum(bag.values())
        total = 0.0
        for term in set(terms(query)):
            tf = bag.get(term, 0)
            if not tf:
                continue
            df = self.frequency[term]
            idf = math.log(1 + (self.count - df + 0.5) / (df + 0.5))
            total += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / (self.average or 1)))
        return total


def normalised(scores: Mapping[str, float]) -> dict[str, float]:
    """Each score as a share of the best in its topic (0 when every score is 0)."""
    best = max(scores.values(), default=0.0)
    return {docno: (score / best if best > 0 else 0.0) for docno, score in scores.items()}


def fitted_thresholds(scores: Sequence[float], grades: Sequence[int], max_grade: int) -> list[float]:
    """Cut points t_1 <= ... <= t_max on the normalised score (grade g from t_g up), by matching quantiles with the
    people's grades. With no labels, the cuts split [0, 1] evenly."""
    if not len(grades):
        return [g / (max_grade + 1) for g in range(1, max_grade + 1)]
    ordered = np.sort(np.asarray(scores, dtype=np.float64))
    labels = np.asarray(grades)
    cuts = []
    for grade in range(1, max_grade + 1):
        below = float(np.mean(labels < grade))
        if below >= 1.0:
            cuts.append(math.inf)  # no person ever gave this grade: neither does the judge
            continue
        index = min(math.floor(below * len(ordered)), len(ordered) - 1)
        cuts.append(float(ordered[index]) if below > 0 else 0.0)
    return [max(cuts[: i + 1]) for i in range(len(cuts))]  # monotone


def grade_at(score: float, thresholds: Sequence[float]) -> int:
    return sum(score >= cut for cut in thresholds)


def lexical_labels(
    topics: Mapping[str, str],
    pairs: Sequence[tuple[str, str]],
    documents: Mapping[str, str],
    people: Iterable[tuple[str, str, int]],
    *,
    max_grade: int,
) -> dict[tuple[str, str], tuple[int, float, list[float]]]:
    """{(topic, docno): (grade, normalised score, the thresholds used)} for every pair whose topic and document are
    known. `topics` maps a topic to its query text; `people` holds the people's labels the thresholds are fitted on,
    (topic, docno, grade) each, every person's label of a pair one observation (two people's labels of one pair
    are two, not one overwriting the other); each topic's thresholds are fitted on the other topics' labels only."""
    index = BM25(documents)
    every = {
        topic: normalised({docno: index.score(topics[topic], docno) for docno in docnos})
        for topic, docnos in pairs_by_topic(topics, pairs, documents).items()
    }
    return graded_by_other_topics(every, people, max_grade=max_grade)


def pairs_by_topic(
    topics: Mapping[str, str], pairs: Sequence[tuple[str, str]], documents: Mapping[str, str]
) -> dict[str, list[str]]:
    """The pairs whose topic and document are both known, grouped by topic."""
    by_topic: dict[str, list[str]] = {}
    for topic, docno in pairs:
        if topic in topics and docno in documents:
            by_topic.setdefault(topic, []).append(docno)
    return by_topic


def graded_by_other_topics(
    scores: Mapping[str, Mapping[str, float]], people: Iterable[tuple[str, str, int]], *, max_grade: int
) -> dict[tuple[str, str], tuple[int, float, list[float]]]:
    """Each scored pair's grade, cut at thresholds fitted on the people's labels of the other topics' scored pairs
    (`scores`: topic -> docno -> score), with its score and the thresholds used."""
    labelled = [(topic, scores[topic][docno], grade) for topic, docno, grade in people
                if topic in scores and docno in scores[topic]]  # fmt: skip
    result = {}
    for topic, by_docno in scores.items():
        others = [(score, grade) for owner, score, grade in labelled if owner != topic]
        cuts = fitted_thresholds([s for s, _ in others], [g for _, g in others], max_grade)
        for docno, score in by_docno.items():
            result[(topic, docno)] = (grade_at(score, cuts), score, cuts)
    return result
