"""Pool items: building a collection's judging pool with any strategy of `pool_strategies` (or previewing it
without writing), as a job or at once, and taking items out."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import transaction

from judging import selectors
from judging.jobs import kinds as job_kinds
from judging.jobs import runner as jobs
from judging.models import Collection, Judgment, PoolItem, Run, Topic
from judging.ordering.core import pool_strategies


@dataclass
class PoolReport:
    """What a build adds (or would add): per topic number, (new items, items already in the pool); per run tag, the
    new items only that run contributed."""

    strategy: str
    topics: dict[str, tuple[int, int]] = field(default_factory=dict)
    unique: dict[str, int] = field(default_factory=dict)
    committed: bool = False

    @property
    def added(self) -> int:
        return sum(new for new, _ in self.topics.values())


def _label_sets(collection: Collection) -> tuple[dict[int, set[int]], dict[int, dict[int, int]]]:
    """Per topic: the documents anyone judged, and each judged document's highest grade (for Move-to-Front: a run
    found a relevant document if any assessor says so)."""
    judged: dict[int, set[int]] = defaultdict(set)
    labels: dict[int, dict[int, int]] = defaultdict(dict)
    rows = Judgment.objects.filter(topic__collection=collection).values_list("topic_id", "document_id", "grade")
    for topic_id, document_id, grade in rows.iterator(chunk_size=5000):
        judged[topic_id].add(document_id)
        if grade is not None:
            labels[topic_id][document_id] = max(grade, labels[topic_id].get(document_id, grade))
    return judged, labels


def pool_build(
    *,
    collection: Collection,
    strategy: str,
    depth: int | None = None,
    budget: int | None = None,
    runs: Sequence[Run] | None = None,
    more_assessors: bool = False,
    commit: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> PoolReport:
    """Adds the strategy's documents to each topic's pool: `depth` for "depth" (TREC depth-k) and "sampled" (a
    stratified sample of the depth-k union, each item with its inclusion probability), `budget` per topic for
    "take_n", "rrf" and "mtf". Incremental: items already pooled keep their place and their judgments, only new
    ones are added. Documents someone already judged (imported qrels) are not queued again unless
    `more_assessors`. With `commit=False` nothing is written: the report is the preview."""
    if strategy not in pool_strategies.REGISTRY:
        raise ValidationError(
            {"strategy": f"unknown strategy {strategy!r}; one of {', '.join(pool_strategies.REGISTRY)}"}
        )
    by_depth = pool_strategies.REGISTRY[strategy].size == "depth"
    size = depth if by_depth else budget
    if size is None or size < 1:
        raise ValidationError({"depth" if by_depth else "budget": "must be a positive number"})
    runs = list(runs if runs is not None else Run.objects.filter(collection=collection))
    tags = {run.id: run.tag for run in runs}
    precedence = {run.tag: run.precedence for run in runs}
    by_topic: dict[int, dict[str, list[int]]] = defaultdict(dict)
    for run_id, per_topic in selectors.collection_rankings(collection_id=collection.id).items():
        if run_id in tags:
            for topic_id, documents in per_topic.items():
                by_topic[topic_id][tags[run_id]] = documents.tolist()
    judged, labels = _label_sets(collection)
    existing = defaultdict(set)
    for topic_id, document_id in PoolItem.objects.filter(topic__collection=collection).values_list(
        "topic_id", "document_id"
    ):
        existing[topic_id].add(document_id)
    report = PoolReport(strategy=strategy, unique={tag: 0 for tag in tags.values()})
    new_items = []
    topics = list(Topic.objects.filter(collection=collection).order_by("id").values_list("id", "number"))
    for done, (topic_id, number) in enumerate(topics, start=1):
        skip = set() if more_assessors else judged.get(topic_id, set())
        candidates = _strategy(
            strategy, by_topic.get(topic_id, {}), size, precedence, skip, labels.get(topic_id, {}), seed=topic_id
        )
        fresh = [c for c in candidates if c.document not in existing[topic_id]]
        report.topics[number] = (len(fresh), len(existing[topic_id]))
        for tag, count in pool_strategies.unique_contributions(fresh).items():
            report.unique[tag] += count
        new_items += [
            PoolItem(
                topic_id=topic_id,
                document_id=c.document,
                contributing_runs=list(c.runs),
                best_rank=c.best_rank,
                priority=c.priority,
                strategy=f"{strategy}-{size}",
                inclusion_probability=c.inclusion,
                stratum=c.stratum,
            )
            for c in fresh
        ]
        if progress:
            progress(done, len(topics))
    if commit:
        with transaction.atomic():
            PoolItem.objects.bulk_create(new_items, batch_size=2000, ignore_conflicts=True)
        report.committed = True
    return report


def _strategy(strategy, rankings, size, precedence, skip, labels, seed):
    request = pool_strategies.PoolRequest(rankings, size, precedence or {}, skip, labels or {}, seed)
    return pool_strategies.REGISTRY[strategy].pool(request)


POOL_TASK = "judging.tasks.build_pool"
# What the job page shows of this work; registered in the app's ready().
POOL_JOB = job_kinds.JobKind(POOL_TASK, "Pool build", "judging/jobs/_pool_result.html", in_order=True)


def pool_build_start(
    *,
    collection: Collection,
    strategy: str,
    size: int,
    runs: Sequence[Run],
    more_assessors: bool,
    created_by=None,
    steps: Sequence[tuple[Sequence[Run], int]] | None = None,
):
    """Starts a pool build as a Job (the page's and the API's one way in). `steps`, when given, are (runs, size)
    built one after the other in the job instead (a track's runs by priority, each priority to its own depth)."""
    arguments = {"strategy": strategy, "size": size, "run_ids": [r.id for r in runs], "more_assessors": more_assessors}
    if steps is not None:
        arguments["steps"] = [
            {"run_ids": [r.id for r in step_runs], "size": step_size} for step_runs, step_size in steps
        ]
    return jobs.job_start(
        kind=f"pool build ({strategy})", task=POOL_TASK, arguments=arguments, collection=collection,
        created_by=created_by,
    )  # fmt: skip


def pool_build_steps(
    *,
    collection: Collection,
    strategy: str,
    steps: Sequence[tuple[Sequence[Run], int]],
    more_assessors: bool = True,
    commit: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> PoolReport:
    """`pool_build` for each (runs, depth or budget) in turn, in one transaction, as one report: per topic the new
    items of every step and the items pooled before the first; per run its unique contribution within its step.
    With `commit=False` nothing is written, and the preview counts each step after the ones before it."""
    report = PoolReport(strategy=strategy)
    topics = Topic.objects.filter(collection=collection).count()
    with transaction.atomic():
        for index, (runs, size) in enumerate(steps):
            step_progress = _step_share(progress, index * topics, len(steps) * topics) if progress else None
            part = pool_build(collection=collection, strategy=strategy, depth=size, budget=size, runs=runs,
                              more_assessors=more_assessors, progress=step_progress)  # fmt: skip
            for number, (new, before) in part.topics.items():
                added, pooled = report.topics.get(number, (0, before))
                report.topics[number] = (added + new, pooled)
            for tag, count in part.unique.items():
                report.unique[tag] = report.unique.get(tag, 0) + count
        if not commit:
            transaction.set_rollback(True)
    report.committed = commit
    return report


def _step_share(progress: Callable[[int, int], None], before: int, total: int) -> Callable[[int, int], None]:
    """A step's progress (its topics done) as the whole build's (`before` topics were done by earlier steps)."""
    return lambda done, _: progress(before + done, total)


def pool_build_job_work(job, progress) -> dict:
    """The work of a pool-build Job: `pool_build` with the Job's options (or `pool_build_steps` with its steps),
    progress per topic."""
    options = job.arguments
    run_ids = options["run_ids"]
    runs = list(Run.objects.filter(collection=job.collection, pk__in=run_ids)) if run_ids else None
    try:
        if options.get("steps"):
            steps = [(list(Run.objects.filter(collection=job.collection, pk__in=step["run_ids"])), step["size"])
                     for step in options["steps"]]  # fmt: skip
            report = pool_build_steps(collection=job.collection, strategy=options["strategy"], steps=steps,
                                      more_assessors=options["more_assessors"], progress=progress)  # fmt: skip
        else:
            report = pool_build(
                collection=job.collection,
                strategy=options["strategy"],
                depth=options["size"],
                budget=options["size"],
                runs=runs,
                more_assessors=options["more_assessors"],
                progress=progress,
            )
    except ValidationError as error:
        raise jobs.JobRefused("; ".join(error.messages)) from error
    return {"added": report.added, "topics": len(report.topics), "unique": report.unique}


def pool_build_depth(*, collection: Collection, depth: int, runs: Sequence[Run] | None = None) -> int:
    """TREC depth-k pooling (`pool_build` has every strategy and the preview); returns new items added."""
    return pool_build(collection=collection, strategy="depth", depth=depth, runs=runs, more_assessors=True).added


@transaction.atomic
def pool_items_delete(*, items) -> int:
    """Takes items out of their topics' judging queues; judgments already made stay (they are real labels)."""
    deleted, _ = PoolItem.objects.filter(pk__in=[item.pk for item in items]).delete()
    return deleted
