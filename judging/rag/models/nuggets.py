"""A topic's nuggets with their history and importance votes, their assignments to answers, and the adjudication of
assignments people disagree on. Defined in this feature package and imported by `judging.models`, so they are the
judging app's models. Written only through `judging.rag.services`."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Importance(models.TextChoices):
    VITAL = "vital", "Vital"
    OKAY = "okay", "Okay"


class AssignmentLabel(models.TextChoices):
    SUPPORT = "support", "Support"
    PARTIAL = "partial_support", "Partial support"
    NOT_SUPPORT = "not_support", "No support"
    FAILED = "failed", "Failed (a machine call without an answer)"


class Nugget(models.Model):
    """One fact a good answer to the topic holds. A machine's proposal is not accepted until a person accepts it (only
    accepted nuggets are scored); a removed nugget is kept, with its history, and no longer scored."""

    topic = models.ForeignKey("judging.Topic", on_delete=models.CASCADE, related_name="nuggets")
    text = models.TextField()
    importance = models.CharField(max_length=5, choices=Importance.choices, default=Importance.OKAY)
    position = models.PositiveIntegerField(default=0)
    accepted = models.BooleanField(default=True)
    removed = models.BooleanField(default=False)
    proposed_by = models.ForeignKey(
        "judging.MachineJudge", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["topic", "position", "id"]
        indexes = [models.Index(fields=["topic", "removed"])]

    def __str__(self) -> str:
        return f"{self.topic_id}: {self.text[:60]} ({self.importance})"


class NuggetChange(models.Model):
    """The history of a nugget: every edit, who made it and when."""

    nugget = models.ForeignKey(Nugget, on_delete=models.CASCADE, related_name="changes")
    action = models.CharField(max_length=12)  # created proposed accepted reworded importance merged split removed
    old_text = models.TextField(blank=True)
    new_text = models.TextField(blank=True)
    old_importance = models.CharField(max_length=5, blank=True)
    new_importance = models.CharField(max_length=5, blank=True)
    other = models.ForeignKey(
        Nugget, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", help_text="Merged or split with."
    )
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    changed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-changed_at", "-id"]

    def __str__(self) -> str:
        return f"{self.nugget_id} {self.action}"


class NuggetVote(models.Model):
    """One assessor's vote on a nugget's importance (the nugget pyramid's weight is the share of vital votes)."""

    nugget = models.ForeignKey(Nugget, on_delete=models.CASCADE, related_name="votes")
    assessor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    importance = models.CharField(max_length=5, choices=Importance.choices)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["nugget", "assessor"], name="nugget_vote_unique")]

    def __str__(self) -> str:
        return f"{self.assessor_id} votes {self.importance} on {self.nugget_id}"


class NuggetAssignment(models.Model):
    """One assessor's (or machine's) label of whether an answer holds a nugget."""

    assessor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    answer = models.ForeignKey("judging.Answer", on_delete=models.CASCADE, related_name="assignments")
    nugget = models.ForeignKey(Nugget, on_delete=models.CASCADE, related_name="assignments")
    label = models.CharField(max_length=16, choices=AssignmentLabel.choices)
    reply = models.TextField(blank=True, help_text="A machine's reply, its provenance.")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["assessor", "answer", "nugget"], name="nugget_assignment_unique")
        ]
        indexes = [models.Index(fields=["answer", "nugget"])]

    def __str__(self) -> str:
        return f"{self.assessor_id} {self.answer_id}/{self.nugget_id} = {self.label}"


class AssignmentHistory(models.Model):
    """Append-only log of every assignment change."""

    assessor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    answer = models.ForeignKey("judging.Answer", on_delete=models.CASCADE, related_name="+")
    nugget = models.ForeignKey(Nugget, on_delete=models.CASCADE, related_name="+")
    old_label = models.CharField(max_length=16, blank=True)
    new_label = models.CharField(max_length=16, blank=True)
    changed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-changed_at", "-id"]
        verbose_name_plural = "assignment history"

    def __str__(self) -> str:
        return f"{self.answer_id}/{self.nugget_id}: {self.old_label} -> {self.new_label}"


class AssignmentAdjudication(models.Model):
    """An admin's label for an (answer, nugget) people disagree on; it wins over their votes."""

    answer = models.ForeignKey("judging.Answer", on_delete=models.CASCADE, related_name="+")
    nugget = models.ForeignKey(Nugget, on_delete=models.CASCADE, related_name="+")
    label = models.CharField(max_length=16, choices=AssignmentLabel.choices)
    adjudicator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    decided_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["answer", "nugget"], name="assignment_adjudication_unique")]

    def __str__(self) -> str:
        return f"{self.answer_id}/{self.nugget_id} adjudicated {self.label}"
