"""Evaluating an uploaded run against the current qrels without storing it or adding it to the pool ("what would my
new system score?"). The file is checked line by line as an import is; nothing is written either way.

A run that was not pooled retrieves documents nobody judged; trec_eval counts them as non-relevant, so its scores are
lower bounds. The result says how much of its top k was judged and warns when that share is low.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import numpy as np
from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils import timezone

from evaluation.selectors import consensus_qrels, engine_options, run_aggregates
from judging.imports.core.problems import ImportFailed, Problems
from judging.imports.core.trec_lines import parse_run
from judging.jobs import kinds as job_kinds
from judging.jobs import runner as jobs
from judging.jobs import uploads
from judging.jobs.models import Job
from judging.models import Collection, Document, Run, Topic
from measures import PreparedQrels, PreparedRun, as_measures, evaluate, trec_order

COVERAGE_DEPTH = 10
LOW_COVERAGE = 0.9  # below this share of judged documents in the top 10, the scores are flagged as lower bounds


@dataclass
class TrialResult:
    tag: str
    measures: list[str]
    values: list[float | None]  # aggregates, in `measures` order
    best_pooled: list[tuple[str, float] | None]  # the stored run with the highest value of each measure
    topics: list[tuple[str, list[float | None]]]  # (topic number, per-measure values)
    judged_at_k: float | None
    ignored_topics: list[str] = field(default_factory=list)  # in the file but not in the collection
    unknown_documents: int = 0  # docnos not in the collection (unjudged by definition)

    @property
    def depth(self) -> int:
        return COVERAGE_DEPTH

    @property
    def rows(self) -> list[tuple[str, float | None, tuple[str, float] | None]]:
        return list(zip(self.measures, self.values, self.best_pooled, strict=True))

    @property
    def low_coverage(self) -> bool:
        return self.judged_at_k is not None and self.judged_at_k < LOW_COVERAGE

    def as_dict(self) -> dict:
        return {
            "tag": self.tag,
            "measures": self.measures,
            "values": dict(zip(self.measures, self.values, strict=True)),
            "best_pooled": {
                m: {"run": best[0], "value": best[1]} if best else None
                for m, best in zip(self.measures, self.best_pooled, strict=True)
            },
            "per_topic": {topic: dict(zip(self.measures, values, strict=True)) for topic, values in self.topics},
            f"judged_at_{COVERAGE_DEPTH}": self.judged_at_k,
            "low_coverage": self.low_coverage,
            "ignored_topics": self.ignored_topics,
            "unknown_documents": self.unknown_documents,
        }

    @classmethod
    def from_dict(cls, data: dict) -> TrialResult:
        """The result as stored in a Job (JSON objects may come back with their keys reordered)."""
        measures = data["measures"]
        best = data["best_pooled"]
        return cls(
            tag=data["tag"],
            measures=measures,
            values=[data["values"][m] for m in measures],
            best_pooled=[(best[m]["run"], best[m]["value"]) if best.get(m) else None for m in measures],
            topics=[(topic, [values[m] for m in measures]) for topic, values in sorted(data["per_topic"].items())],
            judged_at_k=data[f"judged_at_{COVERAGE_DEPTH}"],
            ignored_topics=data["ignored_topics"],
            unknown_documents=data["unknown_documents"],
        )


def _read(path: str | Path, name: str) -> tuple[str, dict[str, dict[str, float]]]:
    problems = Problems()
    tag, per_topic, first_line = None, {}, {}
    for line in parse_run(path, problems, name=name):
        if tag is None:
            tag = line.tag
        elif line.tag != tag:
            reason = f"a trial evaluates one run; this line is run {line.tag!r}, not {tag!r}"
            problems.add(name, line.line, "tag", reason)
            continue
        ranked = per_topic.setdefault(line.topic, {})
        if line.docno in ranked:
            where = first_line[(line.topic, line.docno)]
            reason = f"document {line.docno!r} already ranked for topic {line.topic!r} on line {where}"
            problems.add(name, line.line, "docno", reason)
            continue
        ranked[line.docno] = line.score
        first_line[(line.topic, line.docno)] = line.line
    if tag is None and not problems:
        problems.add(name, 0, None, "the file holds no run lines")
    if problems:
        raise ImportFailed(problems)
    return tag, per_topic


def _best_pooled(collection: Collection, measures: list[str]) -> list[tuple[str, float] | None]:
    best: dict[str, tuple[str, float]] = {}
    tags = dict(Run.objects.filter(collection=collection).values_list("id", "tag"))
    for run_id, per_measure in sorted(run_aggregates(collection_id=collection.id, measures=measures).items()):
        for measure, (value, _) in per_measure.items():
            if value is not None and (measure not in best or value > best[measure][1]):
                best[measure] = (tags[run_id], value)
    return [best.get(m) for m in measures]


def trial_run_evaluate(*, collection: Collection, path: str | Path, name: str) -> TrialResult:
    """Evaluates the run in `path` (named `name` in errors) with the collection's measures and Judged@10.
    Raises ImportFailed naming the line and field of every problem."""
    tag, per_topic = _read(path, name)
    topics = dict(Topic.objects.filter(collection=collection).values_list("number", "id"))
    ignored = sorted(set(per_topic) - set(topics))
    wanted = {docno for number, ranked in per_topic.items() if number in topics for docno in ranked}
    ids = dict(Document.objects.filter(collection=collection, docno__in=wanted).values_list("docno", "id"))
    unknown = sorted(wanted - set(ids))
    ids.update({docno: -i for i, docno in enumerate(unknown, start=1)})  # distinct, and never judged
    rankings = {}
    for number, ranked in per_topic.items():
        if number in topics:
            docnos = list(ranked)
            order = trec_order(docnos, np.fromiter(ranked.values(), dtype=np.float64, count=len(docnos)))
            rankings[topics[number]] = np.array([ids[d] for d in docnos], dtype=np.int64)[order]
    names = list(dict.fromkeys([*collection.measures, f"Judged@{COVERAGE_DEPTH}"]))
    measures = as_measures(names)
    qrels = consensus_qrels(collection=collection)
    result = None
    if qrels and rankings:
        result = evaluate(
            PreparedQrels.from_mapping(qrels),
            [PreparedRun.from_rankings(tag, rankings)],
            measures,
            **engine_options(collection),
        ).runs.get(tag)
    shown = names[: len(collection.measures)] if f"Judged@{COVERAGE_DEPTH}" not in collection.measures else names
    if result is None or not len(result.topics):
        values, per_topic_rows, judged = [None] * len(shown), [], None
    else:
        clean = lambda v: None if v != v else float(v)  # noqa: E731
        values = [clean(v) for v in result.aggregates[: len(shown)]]
        judged = clean(result.aggregates[names.index(f"Judged@{COVERAGE_DEPTH}")])
        number_of = {v: k for k, v in topics.items()}
        per_topic_rows = [
            (number_of[int(t)], [clean(v) for v in row[: len(shown)]])
            for t, row in zip(result.topics, result.values, strict=True)
        ]
    return TrialResult(
        tag=tag,
        measures=shown,
        values=values,
        best_pooled=_best_pooled(collection, shown),
        topics=per_topic_rows,
        judged_at_k=judged,
        ignored_topics=ignored,
        unknown_documents=len(unknown),
    )


TRIAL_TASK = "evaluation.tasks.trial_run"
# What the job page shows of this work; registered in the app's ready().
TRIAL_RUN_JOB = job_kinds.JobKind(TRIAL_TASK, "Trial run", "evaluation/jobs/_trial_result.html")


def trial_run_start(*, collection: Collection, file, created_by) -> Job:
    """Stores an uploaded run and scores it as a Job (the page's and the API's one way in), so that a large run
    never holds a web worker. Refuses (ValidationError on 'run') a file over the trial-run size limit and a user
    over the hourly number of trial runs."""
    limits = settings.WORKBENCH_LIMITS
    if file.size is not None and file.size > limits["trial_run_bytes"]:
        raise ValidationError(
            {"run": f"the file is {file.size:,} bytes; a trial run may be {limits['trial_run_bytes']:,}"}
        )
    since = timezone.now() - timedelta(hours=1)
    recent = Job.objects.filter(task=TRIAL_TASK, created_by=created_by, created_at__gte=since).count()
    if recent >= limits["trial_runs_per_hour"]:
        raise ValidationError(
            {"run": f"you have tried {recent} runs in the last hour, the most allowed; try again later"}
        )
    try:
        upload = uploads.upload_store(upload=file, created_by=created_by)
    except ValidationError as error:
        raise ValidationError({"run": error.messages}) from error
    return jobs.job_start(
        kind="trial run", task=TRIAL_TASK, arguments={}, collection=collection, created_by=created_by, upload=upload
    )


def trial_run_job_work(job: Job, progress) -> dict:
    """The work of a trial-run Job: its result as `TrialResult.as_dict`, or JobRefused naming every problem."""
    with uploads.upload_local_copy(upload_id=job.upload_id) as path:
        try:
            return trial_run_evaluate(collection=job.collection, path=path, name=job.upload.name).as_dict()
        except ImportFailed as failure:
            result = {"count": failure.count, "problems": [p.as_dict() for p in failure.problems]}
            raise jobs.JobRefused(str(failure).splitlines()[0], result) from failure
