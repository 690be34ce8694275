"""Curves over rankings for the plots, pure (numpy only): the interpolated precision-recall curve at trec_eval's 11
recall levels, and the ROC curve averaged over topics rank by rank.

trec_eval has no ROC measure; the convention here is stated so the plot can be read: at each rank k a topic's true
positive rate is its relevant documents retrieved in the top k over all its relevant documents (recall@k), and its
false positive rate is its judged non-relevant documents retrieved in the top k over all its judged non-relevant
documents. Unjudged documents move neither (as in bpref). Past the end of a topic's ranking both rates stay where
they were. The curve is the mean over the topics with at least one relevant and one judged non-relevant document.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

RECALL_LEVELS = tuple(round(i / 10, 1) for i in range(11))
PR_MEASURES = tuple(f"IPrec@{level:g}" for level in RECALL_LEVELS)


@dataclass(frozen=True)
class TopicLabels:
    """One topic as one run ranked it: each retrieved document's grade in rank order (-1 when unjudged), and how
    many documents the qrels hold at or above and below the relevance threshold."""

    ranked_grades: np.ndarray
    relevant: int
    nonrelevant: int


@dataclass(frozen=True)
class RocCurve:
    false_positive_rate: np.ndarray
    true_positive_rate: np.ndarray
    topics: int

    @property
    def partial_auc(self) -> float:
        """Area under the curve up to where the rankings end (a full AUC needs every document ranked)."""
        x, y = self.false_positive_rate, self.true_positive_rate
        return float(np.sum((x[1:] - x[:-1]) * (y[1:] + y[:-1]) / 2.0)) if len(x) > 1 else 0.0


def roc_curve(topics: Iterable[TopicLabels], *, relevance_level: int = 1) -> RocCurve:
    usable = [t for t in topics if t.relevant > 0 and t.nonrelevant > 0]
    if not usable:
        return RocCurve(np.zeros(1), np.zeros(1), 0)
    depth = max(len(t.ranked_grades) for t in usable)
    tpr = np.zeros((len(usable), depth + 1))
    fpr = np.zeros((len(usable), depth + 1))
    for row, topic in enumerate(usable):
        grades = np.asarray(topic.ranked_grades)
        hits = np.concatenate(([0], np.cumsum(grades >= relevance_level)))
        misses = np.concatenate(([0], np.cumsum((grades >= 0) & (grades < relevance_level))))
        tpr[row, : len(hits)] = hits / topic.relevant
        fpr[row, : len(misses)] = misses / topic.nonrelevant
        tpr[row, len(hits) :] = tpr[row, len(hits) - 1]
        fpr[row, len(misses) :] = fpr[row, len(misses) - 1]
    return RocCurve(fpr.mean(axis=0), tpr.mean(axis=0), len(usable))


def ranked_grades(ranking: np.ndarray, judged_ids: np.ndarray, judged_grades: np.ndarray) -> np.ndarray:
    """Each ranked document's grade (-1 when unjudged), given the topic's judged ids sorted ascending."""
    if len(judged_ids) == 0:
        return np.full(len(ranking), -1, dtype=np.int64)
    position = np.clip(np.searchsorted(judged_ids, ranking), 0, len(judged_ids) - 1)
    found = judged_ids[position] == ranking
    return np.where(found, judged_grades[position], -1)
