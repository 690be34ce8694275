"""Quality checks shown to assessors and the pauses they cause: the tables of the quality feature. Imported by the
judging app's config (`judging.apps`), so they are its models and its migrations'."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from judging.models import (
    MAX_CHECK_RATE,
    MAX_NOTE_CHARS,
    MAX_REASON_CHARS,
    MAX_SCALE,
    Collection,
    Document,
    Topic,
)


class AssessorPause(models.Model):
    """An assessor's judging of a collection paused because their latest judgments agreed with gold or the other
    assessors less often than the collection's `pause_below`; open until an admin resumes it. Written only through
    `judging.quality.services.pauses`."""

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="pauses")
    assessor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="pauses")
    reason = models.TextField()
    window_start = models.DateTimeField(null=True, blank=True, help_text="When the judgments it weighed began.")
    paused_at = models.DateTimeField(auto_now_add=True)
    resumed_at = models.DateTimeField(null=True, blank=True)
    resumed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-paused_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["collection", "assessor"], condition=Q(resumed_at__isnull=True), name="assessor_pause_one_open"
            )
        ]

    def __str__(self) -> str:
        return f"{self.assessor_id} paused in {self.collection_id}"


class CheckKind(models.TextChoices):
    GOLD = "gold", "Gold item"
    REPEAT = "repeat", "Repeated item"


class QualityCheck(models.Model):
    """An item shown to an assessor to measure them, looking like any other: a gold item they had not judged, or one
    of their own judged documents shown again. Its answer is theirs, never the item's: it is kept here, beside their
    first label (which it never overwrites), and never enters the consensus. Shown once the assessor has made
    `due_after` judgments of the topic. Written only through `judging.quality.services.checks`."""

    assessor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="quality_checks")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="quality_checks")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="quality_checks")
    kind = models.CharField(max_length=10, choices=CheckKind.choices)
    due_after = models.PositiveIntegerField(help_text="Shown once the assessor has judged this many of the topic.")
    grade = models.SmallIntegerField(null=True, blank=True)
    cannot_judge_reason = models.CharField(max_length=MAX_REASON_CHARS, blank=True)
    note = models.TextField(blank=True, max_length=MAX_NOTE_CHARS)
    seconds_spent = models.FloatField(default=0.0)
    answered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["topic", "assessor", "due_after", "id"]
        constraints = [
            models.UniqueConstraint(fields=["assessor", "topic", "document", "kind"], name="quality_check_unique"),
            models.CheckConstraint(
                condition=Q(grade__isnull=True) | Q(grade__gte=0, grade__lte=MAX_SCALE), name="quality_check_grade"
            ),
            models.CheckConstraint(condition=Q(seconds_spent__gte=0), name="quality_check_seconds_not_negative"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} check of {self.assessor_id} on {self.topic_id}/{self.document_id} = {self.grade}"


class QualitySettings(models.Model):
    """A collection's quality settings: when an assessor is paused, and how many gold and repeated items are mixed
    into their queue. One row per collection, written only by `judging.quality.services.settings`; a collection
    without one has the defaults (`judging.quality.selectors.quality_settings`)."""

    collection = models.OneToOneField(
        Collection, primary_key=True, on_delete=models.CASCADE, related_name="quality_settings"
    )
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

    def __str__(self) -> str:
        return f"quality settings of {self.collection_id}"
