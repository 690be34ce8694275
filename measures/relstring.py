"""trec_eval's relstring: each ranking's first N labels as a string, printed per topic by `python -m evaluation`.

A digit for labels 0-9, '>' above 9, '-' for a document not in the qrels, '.' for one pooled but not judged.
"""

from __future__ import annotations

import numpy as np

from measures.data import NONPOOL, UNJUDGED, PreparedQrels
from measures.engine import judged_only_labels, plan_rows
from measures.labelling import Labeller
from measures.runset import RunSet


def _character(label: int) -> str:
    if label > 9:
        return ">"
    if label >= 0:
        return str(label)
    return {NONPOOL: "-", UNJUDGED: "."}.get(label, "<")


def relstrings(
    qrels: PreparedQrels,
    runset: RunSet,
    length: int,
    *,
    depth: int | None = None,
    judged_only: bool = False,
) -> dict[tuple[int, int], str]:
    """{(run index, topic id): relstring} for every ranking of a qrels topic."""
    rows = plan_rows(runset, qrels.topics, False, depth)
    if not len(rows.topic):
        return {}
    labeller = Labeller(qrels, runset, int(rows.length.sum()))
    labels = labeller.matrix(rows.start, rows.length, rows.topic)
    lengths = rows.length
    if judged_only:
        labels, lengths = judged_only_labels(labels)
    shown = np.minimum(lengths, length)
    return {
        (int(run), int(topic)): "".join(_character(int(label)) for label in row[:count])
        for run, topic, row, count in zip(rows.run_index, rows.topic, labels, shown, strict=True)
    }
