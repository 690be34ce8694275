"""A collection (one evaluation campaign: its scale, measures and settings) and its grades' words."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F, Q

from judging.models.constants import BEST_RANK, MAX_SCALE, ConsensusMethod, default_measures
from judging.ordering.core.orders import order_choices


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
