"""Stored evaluation state and results: per-topic staleness, per-topic values and run aggregates by measure."""

from __future__ import annotations

from django.db import models
from django.db.models import F, Q

from evaluation.fields import ListField
from judging.models import Collection, Topic


class StaleResultsQuerySet(models.QuerySet):
    def stale(self) -> StaleResultsQuerySet:
        """The rows whose stored results are not those of their current inputs: dirty, or claimed by a recompute that
        has not stored its results yet. The one test of staleness; `config.sql.STALE_ROW` is its SQL spelling, and
        `StaleResults.fresh` its negation for one row."""
        return self.filter(Q(dirty=True) | Q(computed_generation__lt=F("generation")))


class StaleResults(models.Model):
    """The staleness protocol shared by a topic's results and a collection's agreement.

    A change sets `dirty` and bumps `generation`; a worker claims the row (clears `dirty`, sets `claimed_at`),
    computes, and stores its results stamped with the generation it read, so an older computation never overwrites
    a newer one. A claim whose results never arrive (`computed_generation` behind) is what the sweep looks for.
    """

    dirty = models.BooleanField(default=False, db_index=True)
    generation = models.PositiveBigIntegerField(default=0)
    computed_generation = models.PositiveBigIntegerField(default=0)
    dirty_since = models.DateTimeField(null=True, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True, help_text="When a worker last took this on.")
    resent_at = models.DateTimeField(
        null=True, blank=True, help_text="When the sweep last sent it again (the first send is at dirty_since)."
    )
    computed_at = models.DateTimeField(null=True, blank=True)

    objects = StaleResultsQuerySet.as_manager()

    class Meta:
        abstract = True

    @property
    def fresh(self) -> bool:
        """Not stale (`StaleResultsQuerySet.stale`), for one row already read."""
        return not (self.dirty or self.computed_generation < self.generation)


class TopicState(StaleResults):
    """Whether a topic's per-run values and agreement are up to date with its judgments and rankings."""

    topic = models.OneToOneField(Topic, on_delete=models.CASCADE, primary_key=True, related_name="evaluation_state")
    recompute_count = models.PositiveBigIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.topic_id}: {'stale' if self.dirty else 'fresh'} (generation {self.generation})"


class CollectionState(StaleResults):
    """A collection's qrels version (bumped by every judgment change) and whether its collection-wide agreement is
    up to date."""

    collection = models.OneToOneField(
        Collection, on_delete=models.CASCADE, primary_key=True, related_name="evaluation_state"
    )
    qrels_version = models.PositiveBigIntegerField(default=0)

    def __str__(self) -> str:
        return f"collection {self.collection_id}: qrels version {self.qrels_version}"


class TopicValues(models.Model):
    """One measure's values on one topic for every run, as two aligned lists: one row per (topic, measure), so a
    judgment's recompute rewrites a dozen rows rather than one per run and measure. Read through the selectors
    (`topic_values`), which also drop runs deleted since."""

    # No index of its own: the unique (topic, measure) index serves every lookup by topic (see RunAggregates).
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="measure_values", db_index=False)
    measure = models.CharField(max_length=100)
    runs = ListField(element="bigint", help_text="Run ids, ascending.")
    values = ListField(help_text="Each run's value; empty (null) when undefined.")
    generation = models.PositiveBigIntegerField(
        help_text="The topic generation that last changed these values; the topic's state says how fresh they are."
    )
    settings_key = models.CharField(max_length=200, help_text="Threshold, consensus method and scale used.")
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["topic", "measure"], name="topic_values_unique")]

    def __str__(self) -> str:
        return f"{self.topic_id} {self.measure} ({len(self.runs)} runs)"


class RunAggregates(models.Model):
    """One measure's aggregate over topics (mean, sum or geometric mean as the measure defines) for every run of a
    collection, aligned lists kept with the exact totals they come from, so that one topic's change moves them
    without reading the other topics. One row per (collection, measure)."""

    # No index of its own: the unique (collection, measure) index serves every lookup by collection. With a second
    # index the planner read these rows by a bitmap scan of it, which never marks the versions each store leaves
    # dead as such (the unique index's insertions do): until a vacuum, every read visited all of them.
    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="run_aggregates", db_index=False)
    measure = models.CharField(max_length=100)
    runs = ListField(element="bigint", help_text="Run ids, ascending: the collection's runs when counted.")
    values = ListField(help_text="Each run's aggregate; null when undefined.")
    topics = ListField(element="integer", help_text="Topics evaluated per run (in both the run and the qrels).")
    defined = ListField(element="integer", help_text="Topics whose value is defined (in the mean), per run.")
    totals = ListField(element="text", help_text="Exact sums of the defined values (measures.totals).")
    qrels_version = models.PositiveBigIntegerField(
        default=0, help_text="The collection's qrels version when these aggregates last changed."
    )
    settings_key = models.CharField(max_length=200)
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["collection", "measure"], name="run_aggregates_unique")]

    def __str__(self) -> str:
        return f"{self.collection_id} {self.measure} ({len(self.runs)} runs)"


def unique_per_topic_or_collection(fields: list[str], prefix: str) -> list[models.UniqueConstraint]:
    """Rows about one topic are unique per topic; rows about the whole collection (topic empty) per collection.
    Two partial constraints, since NULLs never collide in a plain unique constraint."""
    return [
        models.UniqueConstraint(
            fields=["collection", "topic", *fields],
            condition=models.Q(topic__isnull=False),
            name=f"{prefix}_unique_per_topic",
        ),
        models.UniqueConstraint(
            fields=["collection", *fields],
            condition=models.Q(topic__isnull=True),
            name=f"{prefix}_unique_per_collection",
        ),
    ]


class TopicAgreement(models.Model):
    """Inter-assessor agreement on one topic (or the whole collection when topic is empty), one row per statistic."""

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="agreements")
    topic = models.ForeignKey(Topic, null=True, blank=True, on_delete=models.CASCADE, related_name="agreements")
    statistic = models.CharField(max_length=100)
    value = models.FloatField(null=True)
    items = models.PositiveIntegerField(default=0)
    generation = models.PositiveBigIntegerField(default=0)
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = unique_per_topic_or_collection(["statistic"], "agreement")

    def __str__(self) -> str:
        return f"{self.topic_id or 'all'} {self.statistic}={self.value}"


class AgreementReport(models.Model):
    """The full agreement report of a topic (or of the whole collection when topic is empty): every statistic with
    its parameters, the assessor x assessor and against-consensus matrices, and system-ranking agreement."""

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="agreement_reports")
    topic = models.ForeignKey(Topic, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    report = models.JSONField(default=dict)
    generation = models.PositiveBigIntegerField(default=0)
    settings_key = models.CharField(max_length=200)
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = unique_per_topic_or_collection([], "report")

    def __str__(self) -> str:
        return f"agreement report {self.collection_id}/{self.topic_id or 'all'}"


class AnswerTopicState(StaleResults):
    """Whether a topic's answer scores (nuggets and support) and its assignment agreement are up to date with its
    nuggets, assignments and support judgments: the same protocol as a topic's document measures, on its own row."""

    topic = models.OneToOneField(Topic, on_delete=models.CASCADE, primary_key=True, related_name="answer_state")
    agreement = models.JSONField(default=dict, help_text="The people's agreement on the topic's assignments.")

    def __str__(self) -> str:
        return f"answers of {self.topic_id}: {'stale' if self.dirty else 'fresh'} (generation {self.generation})"
