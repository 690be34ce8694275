"""Pairwise preferences and their history: the tables of the preferences feature. Imported by the judging app's config
(`judging.apps`), so they are its models and its migrations'."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F, Q

from judging.models import (
    ChangeRecord,
    Collection,
    Document,
    Topic,
)


class PreferenceOutcome(models.TextChoices):
    FIRST = "first", "The first document is better"
    SECOND = "second", "The second document is better"
    EQUAL = "equal", "Equally good"
    NEITHER = "neither", "Both not relevant"


class Preference(models.Model):
    """One assessor's comparison of two documents for a topic, the pair kept in one order (first has the lower
    document id) whichever side each was shown on. Written only through `judging.preferences.services`, which keeps
    the history."""

    assessor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="preferences")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="preferences")
    first = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")
    second = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")
    outcome = models.CharField(max_length=8, choices=PreferenceOutcome.choices)
    seconds_spent = models.FloatField(default=0.0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["assessor", "topic", "first", "second"], name="preference_unique_pair"),
            models.CheckConstraint(condition=Q(first__lt=F("second")), name="preference_pair_in_order"),
            models.CheckConstraint(condition=Q(seconds_spent__gte=0), name="preference_seconds_not_negative"),
        ]
        indexes = [models.Index(fields=["topic", "assessor"])]

    def __str__(self) -> str:
        return f"{self.assessor_id} {self.topic_id}: {self.first_id} vs {self.second_id} = {self.outcome}"


class PreferenceHistory(ChangeRecord):
    """Append-only log of every preference change: who, when, the old and the new outcome."""

    first = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")
    second = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")
    old_outcome = models.CharField(max_length=8, blank=True)
    new_outcome = models.CharField(max_length=8, blank=True)

    class Meta(ChangeRecord.Meta):
        verbose_name_plural = "preference history"

    def __str__(self) -> str:
        return f"{self.topic_id}: {self.first_id} vs {self.second_id}: {self.old_outcome} -> {self.new_outcome}"


class PreferenceSettings(models.Model):
    """A collection's judging mode (graded, or preferences) and its preference tournament's size. One row per
    collection, written only by `judging.preferences.services.settings_update`; a collection without one is graded
    (`judging.preferences.selectors.preference_settings`)."""

    collection = models.OneToOneField(
        Collection, primary_key=True, on_delete=models.CASCADE, related_name="preference_settings"
    )
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

    def __str__(self) -> str:
        return f"preference settings of {self.collection_id}"
