"""Who judges what and what they said: assignments, judgments and their history, adjudications."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from judging.models.constants import MAX_NOTE_CHARS, MAX_REASON_CHARS, MAX_SCALE
from judging.models.entities import Document, Topic


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
