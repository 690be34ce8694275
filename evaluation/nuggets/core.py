"""Nugget and support scores, pure: castorini/nuggetizer's `core/metrics.py` rules, the consensus of several
labels, and the reading of nuggetizer's JSONL files (for `python -m evaluation.nuggets`).

The four scores of one answer (nuggetizer's `calculate_nugget_scores`), over the nuggets of its assignment record
in order: *vital* nuggets are those whose importance is "vital"; a strict score counts "support" as 1, a non-strict
one adds 0.5 for "partial_support"; any other label ("not_support", "failed", anything) earns 0 and stays in the
denominator; an empty scope (no nuggets, or no vital nuggets for the vital scores) scores 0.0. A run's score is the
mean over its records (`statistics.mean`, as nuggetizer's `calculate_global_metrics`); a topic without a record is
not in the run's mean.

Support (Thakur et al., SIGIR 2025, as the TREC 2024 RAG track reported it), with full = 1, partial = 0.5, none = 0:
weighted precision = the sum of the weights of the judged (sentence, cited segment) pairs / their number; weighted
recall = the sum over the answer's sentences of the best weight among its judged citations (0 for a sentence with
none) / the number of sentences. Both are undefined (None) until one pair is judged.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from config.core import strict_json

SUPPORT, PARTIAL, NOT_SUPPORT, FAILED = "support", "partial_support", "not_support", "failed"
ASSIGNMENT_LABELS = (NOT_SUPPORT, PARTIAL, SUPPORT)  # in order: a tie in a vote goes to the later
VITAL, OKAY = "vital", "okay"
IMPORTANCES = (VITAL, OKAY)
SCORES = ("strict_vital_score", "strict_all_score", "vital_score", "all_score")
FULL, PARTIAL_SUPPORT, NO_SUPPORT = "full", "partial", "none"
SUPPORT_LABELS = (NO_SUPPORT, PARTIAL_SUPPORT, FULL)
SUPPORT_WEIGHT = {FULL: 1.0, PARTIAL_SUPPORT: 0.5, NO_SUPPORT: 0.0}


@dataclass(frozen=True)
class NuggetScores:
    strict_vital_score: float
    strict_all_score: float
    vital_score: float
    all_score: float

    def as_dict(self) -> dict[str, float]:
        return {name: getattr(self, name) for name in SCORES}


def nugget_scores(nuggets: Iterable[tuple[str, str]]) -> NuggetScores:
    """The four scores of one answer from its (importance, assignment) pairs, as the module says."""
    nuggets = list(nuggets)
    vital = [assignment for importance, assignment in nuggets if importance == VITAL]
    every = [assignment for _, assignment in nuggets]

    def strict(labels: list[str]) -> float:
        return sum(1 for label in labels if label == SUPPORT) / len(labels) if labels else 0.0

    def lenient(labels: list[str]) -> float:
        if not labels:
            return 0.0
        return (sum(1 for x in labels if x == SUPPORT) + sum(0.5 for x in labels if x == PARTIAL)) / len(labels)

    return NuggetScores(strict(vital), strict(every), lenient(vital), lenient(every))


def mean_scores(scores: Sequence[NuggetScores]) -> dict[str, float]:
    """A run's scores: each score's mean over its answers (exactly as `statistics.mean`, nuggetizer's)."""
    return {name: statistics.mean(getattr(s, name) for s in scores) for name in SCORES}


def majority(labels: Iterable[str], order: Sequence[str]) -> str | None:
    """The most frequent label; a tie goes to the label later in `order` (the more supportive, as a tie between
    grades goes to the higher); labels outside `order` (a failed machine call) rank below all of it."""
    counts = Counter(labels)
    if not counts:
        return None
    rank = {label: index for index, label in enumerate(order)}
    return max(counts, key=lambda label: (counts[label], rank.get(label, -1)))


@dataclass(frozen=True)
class SupportScores:
    precision: float | None
    recall: float | None
    judged: int  # (sentence, cited segment) pairs with a label
    cited: int  # all (sentence, cited segment) pairs


def support_scores(sentences: Sequence[Sequence[str | None]]) -> SupportScores:
    """Support precision and recall of one answer from each sentence's citations' labels (None: not judged yet)."""
    weights = [[SUPPORT_WEIGHT[label] for label in cited if label is not None] for cited in sentences]
    judged = sum(len(w) for w in weights)
    cited = sum(len(c) for c in sentences)
    if not judged:
        return SupportScores(None, None, 0, cited)
    precision = sum(sum(w) for w in weights) / judged
    recall = sum(max(w, default=0.0) for w in weights) / len(sentences)
    return SupportScores(precision, recall, judged, cited)


# nuggetizer's files


class FileProblem(ValueError):
    """A problem of an input file, named by file, line and field."""

    def __init__(self, file: str, line: int, field: str, message: str):
        super().__init__(f"{file}:{line}: {field}: {message}")
        self.file, self.line, self.field = file, line, field


@dataclass(frozen=True)
class AssignmentRecord:
    """One answer's record of nuggetizer's `assign --input-kind answers` output."""

    line: int
    qid: str
    run_id: str
    nuggets: tuple[tuple[str, str, str], ...]  # (text, importance, assignment), in the record's order


def _records(lines: Iterable[str], file: str) -> Iterable[tuple[int, dict]]:
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            record = strict_json.record(raw)
        except strict_json.RecordError as error:
            raise FileProblem(file, number, error.key or "(line)", error.reason) from None
        yield number, record


def _text(record: dict, key: str, file: str, line: int) -> str:
    value = record.get(key)
    if isinstance(value, int | float) and not isinstance(value, bool) and key in ("qid", "run_id"):
        return str(value)
    if not isinstance(value, str) or (key != "text" and not value.strip()):
        raise FileProblem(file, line, key, "missing or not a string")
    return value


def _nugget_list(record: dict, file: str, line: int, *, assigned: bool) -> list[tuple[str, ...]]:
    nuggets = record.get("nuggets")
    if not isinstance(nuggets, list):
        raise FileProblem(file, line, "nuggets", "missing or not a list")
    found = []
    for index, nugget in enumerate(nuggets):
        where = f"nuggets[{index}]"
        if not isinstance(nugget, dict):
            raise FileProblem(file, line, where, "not an object")
        text = nugget.get("text")
        if not isinstance(text, str):
            raise FileProblem(file, line, f"{where}.text", "missing or not a string")
        importance = nugget.get("importance")
        if not isinstance(importance, str) and (assigned or importance is not None):
            # The scores read it; `create`'s own output, before scoring, has nuggets without it (read for
            # consistency only).
            raise FileProblem(file, line, f"{where}.importance", "missing or not a string")
        if assigned:
            assignment = nugget.get("assignment")
            if not isinstance(assignment, str):
                raise FileProblem(file, line, f"{where}.assignment", "missing or not a string")
            found.append((text, importance, assignment))
        else:
            found.append((text, importance))
    return found


def read_nuggets(lines: Iterable[str], file: str) -> dict[str, list[tuple[str, str | None]]]:
    """nuggetizer's `create` or `score` output: {qid: [(text, importance, or None where `create` gave none)]}."""
    topics: dict[str, list[tuple[str, str]]] = {}
    for line, record in _records(lines, file):
        qid = _text(record, "qid", file, line)
        if qid in topics:
            raise FileProblem(file, line, "qid", f"topic {qid} is listed twice")
        topics[qid] = _nugget_list(record, file, line, assigned=False)
    return topics


def read_assignments(lines: Iterable[str], file: str) -> list[AssignmentRecord]:
    """nuggetizer's `assign --input-kind answers` output, several runs' concatenated: one record per (run, topic).
    A record without `run_id` (nuggetizer's own `calculate_metrics` reads none: one file is one run) belongs to the
    run the file is named for (its name without the extension)."""
    records, seen = [], {}
    own_run = Path(file).name.split(".")[0] or file
    for line, record in _records(lines, file):
        qid = _text(record, "qid", file, line)
        run_id = _text(record, "run_id", file, line) if "run_id" in record else own_run
        if (run_id, qid) in seen:
            raise FileProblem(file, line, "qid", f"run {run_id} has topic {qid} already (line {seen[run_id, qid]})")
        seen[run_id, qid] = line
        nuggets = _nugget_list(record, file, line, assigned=True)
        records.append(AssignmentRecord(line, qid, run_id, tuple(nuggets)))  # type: ignore[arg-type]
    return records


def inconsistencies(records: Sequence[AssignmentRecord], nuggets: dict[str, list[tuple[str, str]]]) -> list[str]:
    """Where the assignment records disagree with the nuggets file (which never changes a score): a topic it lacks,
    or a record whose (text, importance) list differs from the topic's."""
    found = []
    for record in records:
        listed = nuggets.get(record.qid)
        if listed is None:
            found.append(f"line {record.line}: topic {record.qid} is not in the nuggets file")
        elif [(t, i if given is not None else None) for (t, i, _), (_, given) in zip(record.nuggets, listed,
              strict=False)] != listed:  # fmt: skip
            found.append(f"line {record.line}: run {record.run_id}'s nuggets for {record.qid} differ from the file's")
    return found


def score_records(records: Sequence[AssignmentRecord]) -> dict:
    """{"answers": [{qid, run_id, the four scores}] in the records' order, "runs": {run_id: the four means}}."""
    answers, by_run = [], {}
    for record in records:
        scores = nugget_scores((importance, assignment) for _, importance, assignment in record.nuggets)
        answers.append({"qid": record.qid, "run_id": record.run_id, **scores.as_dict()})
        by_run.setdefault(record.run_id, []).append(scores)
    return {"answers": answers, "runs": {run: mean_scores(scores) for run, scores in by_run.items()}}
