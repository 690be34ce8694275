"""Reads of the estimate feature: the machine judge an estimate starts from, the topics people judged whole (the
sample) and whether they were drawn at random, and the collection's estimate: every run's value of every measure
from the judge's labels on all its topics, corrected by the people's consensus on the sample (`core`).

Computed on demand from the labels (two evaluations of every run): the machine's labels and the draws change
without a recompute, so no stored version would say when a kept copy went stale."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Count, Q

from evaluation import ranking_cache
from evaluation.estimate.core import DEFAULT_LEVEL, estimate_report, per_topic_values
from evaluation.estimate.models import TopicDraw
from evaluation.selectors import COVERAGE_MEASURE, consensus_labels, engine_options
from judging.machines import selectors as machine_selectors
from judging.machines.models import MachineJudge
from judging.models import Collection, PoolItem, Run, Topic
from judging.sources import selectors as sources
from measures import PreparedQrels, evaluate, parse_measure

LEVELS = (0.9, 0.95, 0.99)


@dataclass
class CollectionEstimate:
    """A collection's estimate under one machine judge: the report (`core.estimate_report`, runs by tag), the
    topics (N: the judge labelled them; n: people judged them whole), and whether the interval is valid."""

    judge: MachineJudge
    level: float
    topics: int
    people_topics: list[str]
    report: dict = field(default_factory=dict)
    exact: bool = False  # people judged every topic: the leaderboard is exact, nothing to estimate
    not_random: list[str] = field(default_factory=list)  # people topics that were never drawn at random

    @property
    def valid(self) -> bool:
        return not self.not_random

    @property
    def drawable(self) -> bool:
        return self.topics > len(self.people_topics)


def machine_labels(*, judge: MachineJudge) -> dict[int, dict[int, int]]:
    """{topic id: {document id: grade}} of the judge's graded labels in its collection."""
    labels: dict[int, dict[int, int]] = {}
    rows = sources.every_label(collection=judge.collection).filter(assessor_id=judge.account_id, grade__isnull=False)
    for topic_id, document_id, grade in rows.values_list("topic_id", "document_id", "grade").iterator():
        labels.setdefault(topic_id, {})[document_id] = grade
    return labels


def estimate_judge(*, collection: Collection, judge_id: int | None = None) -> MachineJudge | None:
    """The machine judge an estimate starts from: the one asked for, else the verification judge, else the judge
    with the most labels; None when no judge of the collection has labelled anything."""
    judges = MachineJudge.objects.filter(collection=collection).select_related("account", "collection")
    if judge_id is not None:
        return judges.filter(pk=judge_id).first()
    labelled = {
        judge: sources.every_label(collection=collection).filter(assessor_id=judge.account_id).count()
        for judge in judges
    }
    labelled = {judge: count for judge, count in labelled.items() if count}
    verified = machine_selectors.verified_judge_id(collection)
    chosen = [j for j in labelled if j.pk == verified] or sorted(labelled, key=lambda j: (-labelled[j], j.pk))
    return chosen[0] if chosen else None


def people_topics(*, collection: Collection) -> set[int]:
    """The topics whose every pooled item is judged (`sources.judged`): the people's sample."""
    rows = (
        PoolItem.objects.filter(topic__collection=collection)
        .values("topic_id")
        .annotate(total=Count("pk"), judged=Count("pk", filter=Q(sources.judged())))
    )
    return {row["topic_id"] for row in rows if row["total"] and row["judged"] == row["total"]}


def drawn_topics(*, collection: Collection) -> set[int]:
    return set(TopicDraw.objects.filter(collection=collection).values_list("topic_id", flat=True))


def collection_estimate(
    *, collection: Collection, judge: MachineJudge, level: float = DEFAULT_LEVEL
) -> CollectionEstimate:
    """The collection's estimate from `judge`'s labels and the people's consensus on the topics they judged whole."""
    machine = machine_labels(judge=judge)
    numbers = dict(Topic.objects.filter(collection=collection).values_list("id", "number"))
    topics = sorted(machine, key=lambda t: numbers[t])
    sample = sorted(people_topics(collection=collection) & set(machine), key=lambda t: numbers[t])
    estimate = CollectionEstimate(judge, level, len(topics), [numbers[t] for t in sample])
    if not topics or len(sample) == len(topics):
        estimate.exact = bool(topics)
        return estimate
    drawn = drawn_topics(collection=collection)
    estimate.not_random = [numbers[t] for t in sample if t not in drawn]
    measures = {m: parse_measure(m) for m in collection.measures if m != COVERAGE_MEASURE}
    people = {t: c.labels for t, c in consensus_labels(collection=collection, topic_ids=sample).items() if c.labels}
    runs = ranking_cache.collection_runs(topic_ids=topics)
    tags = dict(Run.objects.filter(collection=collection).values_list("id", "tag"))
    options = engine_options(collection)
    machine_values = _per_topic(machine, runs, measures, options, tags)
    people_values = _per_topic(people, runs, measures, options, tags)
    estimate.report = estimate_report(
        machine_values, people_values, topics=topics, people_topics=sample, measures=measures, level=level
    )
    return estimate


def _per_topic(qrels: dict, runs, measures: dict, options: dict, tags: dict) -> dict:
    """{run tag: {measure: {topic id: value}}} over every topic of `qrels` (a run missing a topic scores 0)."""
    qrels = {topic: labels for topic, labels in qrels.items() if labels}
    if not qrels or not len(runs.tags):
        return {tags.get(int(tag), tag): {m: {} for m in measures} for tag in runs.tags}
    result = evaluate(PreparedQrels.from_mapping(qrels), runs, list(measures.values()), complete=True, **options)
    return per_topic_values(result, list(measures), int, lambda tag: tags.get(int(tag), tag))
