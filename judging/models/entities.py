"""What a collection holds: its topics, documents, runs and their rankings, and the pool built from them."""

from __future__ import annotations

import numpy as np
from django.conf import settings
from django.db import models

from judging.core import rankings as stored
from judging.models.collection import Collection


class Topic(models.Model):
    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="topics")
    number = models.CharField(max_length=64, help_text="The TREC topic id (num).")
    title = models.TextField(help_text="The query.")
    description = models.TextField(blank=True)
    narrative = models.TextField(blank=True)
    extra = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["collection", "id"]
        constraints = [models.UniqueConstraint(fields=["collection", "number"], name="topic_unique_number")]

    def __str__(self) -> str:
        return f"{self.number}: {self.title[:60]}"


class Document(models.Model):
    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="documents")
    docno = models.CharField(max_length=200)
    title = models.TextField(blank=True)
    body = models.TextField(blank=True)
    url = models.URLField(max_length=2000, blank=True)
    extra = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["collection", "id"]
        constraints = [models.UniqueConstraint(fields=["collection", "docno"], name="document_unique_docno")]

    def __str__(self) -> str:
        return self.docno


class Run(models.Model):
    """A submitted system ranking; immutable once imported (its rankings are never edited, only replaced). Written
    only through `judging.services.runs`."""

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="runs")
    tag = models.CharField(max_length=200)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    description = models.TextField(blank=True)
    precedence = models.PositiveSmallIntegerField(default=1, help_text="Judging precedence for pooling; 1 is first.")
    model_family = models.CharField(
        max_length=100,
        blank=True,
        db_default="",  # a row written by code that predates the column (an older migration's state) has it
        help_text="The model family the run uses (a reranker, a generator), e.g. gpt-4o or llama-3: a run that shares "
        "a machine judge's family is marked, and the judge's boards are shown without it too.",
    )
    uploaded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["collection", "precedence", "tag"]
        constraints = [models.UniqueConstraint(fields=["collection", "tag"], name="run_unique_tag")]

    def __str__(self) -> str:
        return self.tag


class Ranking(models.Model):
    """One run's ranking of one topic as a compact array: document ids already in trec_eval order.

    Loading one topic's rankings for all runs is one row per run, not runs x depth rows.
    """

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="rankings")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="rankings")
    document_ids = models.BinaryField(help_text="int64 little-endian Document ids, trec_eval order.")
    scores = models.BinaryField(help_text="float64 little-endian scores, same order.")
    depth = models.PositiveIntegerField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "topic"], name="ranking_unique_run_topic")]

    def __str__(self) -> str:
        return f"ranking of run {self.run_id} for topic {self.topic_id}"

    def documents(self) -> np.ndarray:
        return stored.ids_from_bytes(self.document_ids)

    def score_array(self) -> np.ndarray:
        return stored.scores_from_bytes(self.scores)


class PoolItem(models.Model):
    """A (topic, document) pair to be judged, with where it came from and its place in the judging queue."""

    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="pool_items")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="pool_items")
    contributing_runs = models.JSONField(default=list, blank=True, help_text="Tags of the runs that retrieved it.")
    best_rank = models.PositiveIntegerField(null=True, blank=True)
    priority = models.FloatField(default=0.0, help_text="Higher is judged first.")
    strategy = models.CharField(max_length=40, blank=True)
    inclusion_probability = models.FloatField(
        default=1.0, help_text="Chance the pool strategy included it: below 1 in a sampled pool, for the estimates."
    )
    stratum = models.PositiveSmallIntegerField(default=0, help_text="Its sampled pool's stratum (0: not sampled).")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["topic", "-priority", "id"]
        constraints = [models.UniqueConstraint(fields=["topic", "document"], name="pool_item_unique")]
        indexes = [models.Index(fields=["topic", "-priority"])]

    def __str__(self) -> str:
        return f"pool item {self.topic_id}/{self.document_id}"
