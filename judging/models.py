"""Database tables of the judging app. Business rules live in services.py; these models hold data and constraints."""

from __future__ import annotations

import numpy as np
from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F, Q

from judging.ordering.core.orders import order_choices

MAX_SCALE = 5
MAX_NOTE_CHARS = 10_000
MAX_REASON_CHARS = 200
MAX_CHECK_RATE = 0.5
ROLE_ADMIN, ROLE_ASSESSOR, ROLE_RESEARCHER = "admin", "assessor", "researcher"
ROLES = (ROLE_ADMIN, ROLE_ASSESSOR, ROLE_RESEARCHER)


BEST_RANK = "best_rank"  # the static order, every collection's default


class ConsensusMethod(models.TextChoices):
    MAJORITY = "majority", "Majority vote (ties: higher grade)"
    MEDIAN = "median", "Median grade"
    MEAN = "mean", "Rounded mean"
    PRIMARY = "primary", "Primary assessor"
    DAWID_SKENE = "dawid_skene", "Dawid-Skene"


def default_measures() -> list[str]:
    return ["P@5", "P@10", "R@100", "AP", "GMAP", "Rprec", "RR", "Bpref", "nDCG", "nDCG@10", "ERR@10", "Judged@10"]


class Collection(models.Model):
    """One evaluation campaign: its topics, documents, runs, relevance scale and evaluation settings."""

    name = models.CharField(max_length=200, unique=True)
    description = models.TextField(blank=True)
    guidelines = models.TextField(blank=True, help_text="Assessor guidelines, in Markdown.")
    max_grade = models.PositiveSmallIntegerField(
        default=1,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_SCALE)],
        help_text="1 for binary relevance; up to 5 for a graded 0..max scale.",
    )
    relevance_threshold = models.PositiveSmallIntegerField(
        default=1, help_text="Lowest grade that counts as relevant for binary measures (TREC DL passages use 2)."
    )
    assessors_per_item = models.PositiveSmallIntegerField(default=1, validators=[MinValueValidator(1)])
    disagreement_tolerance = models.PositiveSmallIntegerField(
        default=0,
        help_text="Graded labels of one item further apart than this are a disagreement to adjudicate (0: any).",
    )
    researchers_see_assessors = models.BooleanField(
        default=False, help_text="Researchers see assessors' names in exports; otherwise stable pseudonyms."
    )
    blind = models.BooleanField(default=True, help_text="Assessors never see runs, ranks or other assessors' labels.")
    shuffle_within_priority = models.BooleanField(default=True)
    judging_order = models.CharField(
        max_length=20,
        choices=order_choices,
        default=BEST_RANK,
        help_text="Which unjudged document each assessor gets next; adaptive orders re-decide after every judgment.",
    )
    collection_size = models.PositiveIntegerField(
        null=True, blank=True, help_text="N for set-based measures; empty means the number of documents imported."
    )
    consensus_method = models.CharField(
        max_length=20, choices=ConsensusMethod.choices, default=ConsensusMethod.MAJORITY
    )
    trec_eval_version = models.PositiveSmallIntegerField(
        choices=[(10, "trec_eval 10.0"), (9, "trec_eval 9.0.x (as pytrec_eval)")],
        default=10,
        help_text="Whose conventions the measures follow where the versions differ (recall levels: lround in 10.0).",
    )
    measures = models.JSONField(default=default_measures, blank=True)
    ir_datasets_id = models.CharField(
        max_length=200,
        blank=True,
        db_default="",
        help_text="The ir_datasets id its topics, qrels and documents come from (e.g. msmarco-passage/trec-dl-2019/"
        "judged): a document without text is read from the dataset's document store when an assessor opens it.",
    )
    primary_assessor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="Whose grade the 'primary' consensus method takes (majority where they did not judge).",
    )
    agreement_measure = models.CharField(
        max_length=100, default="AP", help_text="The measure runs are ranked by when asking whether assessors agree."
    )
    verification_judge = models.ForeignKey(
        "MachineJudge",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The machine judge whose labels assessors verify: their queues put its likeliest errors first.",
    )
    verification_mode = models.CharField(
        max_length=10,
        choices=[("blind", "Blind: judge first, then see the machine's grade"),
                 ("post_edit", "Post-editing: the machine's grade is shown beside the document")],
        default="blind",
        db_default="blind",  # a row written by code that predates the column (an older migration's state) has it
    )  # fmt: skip
    pause_below = models.FloatField(
        null=True,
        blank=True,
        validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text="Pause an assessor whose last judgments agree with gold or the other assessors less often than "
        "this share (empty: never).",
    )
    pause_window = models.PositiveSmallIntegerField(
        default=20, db_default=20, validators=[MinValueValidator(5), MaxValueValidator(500)],
        help_text="How many of an assessor's latest comparable judgments the pause looks at.",
    )  # fmt: skip
    gold_rate = models.FloatField(
        default=0.0, db_default=0.0, validators=[MinValueValidator(0.0), MaxValueValidator(MAX_CHECK_RATE)],
        help_text="Share of an assessor's items that are gold items mixed into their queue, unmarked (0: none).",
    )  # fmt: skip
    repeat_rate = models.FloatField(
        default=0.0, db_default=0.0, validators=[MinValueValidator(0.0), MaxValueValidator(MAX_CHECK_RATE)],
        help_text="Share of an assessor's own judged documents shown to them again later, unmarked (0: none).",
    )  # fmt: skip
    judging_mode = models.CharField(
        max_length=12,
        choices=[("graded", "Graded: one document at a time, on the relevance scale"),
                 ("preferences", "Preferences: two documents side by side, which is better")],
        default="graded",
        db_default="graded",
        help_text="Preferences: each assessor runs a tournament over each topic's best candidates (the highest "
        "consensus grades, else a machine judge's, else the pool's first) to rank its top documents.",
    )  # fmt: skip
    preference_candidates = models.PositiveSmallIntegerField(
        default=8, db_default=8, validators=[MinValueValidator(2), MaxValueValidator(64)],
        help_text="How many documents per topic enter the preference tournament.",
    )  # fmt: skip
    preference_top = models.PositiveSmallIntegerField(
        default=3, db_default=3, validators=[MinValueValidator(1), MaxValueValidator(64)],
        help_text="How many top documents the tournament ranks, best first.",
    )  # fmt: skip
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(max_grade__gte=1, max_grade__lte=MAX_SCALE), name="collection_scale_1_to_5"
            ),
            models.CheckConstraint(
                condition=Q(relevance_threshold__gte=1, relevance_threshold__lte=F("max_grade")),
                name="collection_threshold_within_scale",
            ),
            models.CheckConstraint(condition=Q(assessors_per_item__gte=1), name="collection_overlap_at_least_1"),
        ]

    def __str__(self) -> str:
        return self.name


class Grade(models.Model):
    """One value of a collection's relevance scale, with the label and description shown to assessors."""

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="grades")
    value = models.PositiveSmallIntegerField(validators=[MaxValueValidator(MAX_SCALE)])
    label = models.CharField(max_length=60)
    description = models.TextField(blank=True)

    class Meta:
        ordering = ["collection", "value"]
        constraints = [
            models.UniqueConstraint(fields=["collection", "value"], name="grade_unique_value"),
            models.CheckConstraint(condition=Q(value__lte=MAX_SCALE), name="grade_value_at_most_5"),
        ]

    def __str__(self) -> str:
        return f"{self.value} {self.label}"


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
        return np.frombuffer(bytes(self.document_ids), dtype="<i8")

    def score_array(self) -> np.ndarray:
        return np.frombuffer(bytes(self.scores), dtype="<f8")


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


class AssignmentState(models.TextChoices):
    ASSIGNED = "assigned", "Assigned"
    IN_PROGRESS = "in_progress", "In progress"
    COMPLETED = "completed", "Completed"


class Assignment(models.Model):
    """An assessor's task: judge the pool of one topic."""

    assessor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignments")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="assignments")
    state = models.CharField(max_length=20, choices=AssignmentState.choices, default=AssignmentState.ASSIGNED)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["topic", "assessor"]
        constraints = [models.UniqueConstraint(fields=["assessor", "topic"], name="assignment_unique")]

    def __str__(self) -> str:
        return f"{self.assessor_id} judges topic {self.topic_id}"


class Judgment(models.Model):
    """One assessor's label for one (topic, document). Written only through `judging.services.judgments`
    (judgment_record, judgments_record_bulk, judgment_delete), which keep the history and the staleness."""

    assessor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="judgments")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="judgments")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="judgments")
    grade = models.SmallIntegerField(null=True, blank=True, help_text="Empty when the assessor could not judge.")
    cannot_judge_reason = models.CharField(max_length=MAX_REASON_CHARS, blank=True)
    note = models.TextField(blank=True, max_length=MAX_NOTE_CHARS)
    seconds_spent = models.FloatField(default=0.0)
    # Where a label that no person typed came from, beyond its source: {"file", "line"} for an import, {"log",
    # "model"} for clicks. A machine's provenance is its reply (MachineReply), joined at export.
    origin = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["assessor", "topic", "document"], name="judgment_unique_per_assessor"),
            models.CheckConstraint(
                condition=Q(grade__isnull=True) | Q(grade__gte=0, grade__lte=MAX_SCALE), name="judgment_grade_0_to_5"
            ),
            models.CheckConstraint(
                condition=Q(grade__isnull=False) | ~Q(cannot_judge_reason=""), name="judgment_grade_or_reason"
            ),
            models.CheckConstraint(condition=Q(seconds_spent__gte=0), name="judgment_seconds_not_negative"),
        ]
        indexes = [models.Index(fields=["topic", "document"])]

    def __str__(self) -> str:
        return f"{self.assessor_id} {self.topic_id}/{self.document_id} = {self.grade}"


class ChangeRecord(models.Model):
    """What every append-only change log keeps: whose label on which topic changed, who changed it, and when."""

    assessor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="+")
    changed_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    changed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        abstract = True
        ordering = ["-changed_at", "-id"]


class JudgmentHistory(ChangeRecord):
    """Append-only log of every judgment change: who, when, old and new grade."""

    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")
    old_grade = models.SmallIntegerField(null=True, blank=True)
    new_grade = models.SmallIntegerField(null=True, blank=True)
    action = models.CharField(max_length=20)  # created | changed | deleted | cannot_judge
    note = models.TextField(blank=True)

    class Meta(ChangeRecord.Meta):
        verbose_name_plural = "judgment history"

    def __str__(self) -> str:
        return f"{self.action} {self.topic_id}/{self.document_id}: {self.old_grade} -> {self.new_grade}"


class Adjudication(models.Model):
    """An admin's label for a (topic, document) on which assessors disagree; it always wins in the consensus."""

    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="adjudications")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="adjudications")
    grade = models.SmallIntegerField()
    adjudicator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    note = models.TextField(blank=True)
    decided_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["topic", "document"], name="adjudication_unique"),
            models.CheckConstraint(condition=Q(grade__gte=0, grade__lte=MAX_SCALE), name="adjudication_grade_0_to_5"),
        ]

    def __str__(self) -> str:
        return f"{self.topic_id}/{self.document_id} adjudicated {self.grade}"
