"""The tables of a track with participants: its submission settings, its teams and their members, and every run a
team submitted (kept as a receipt after a replacement or a withdrawal). Imported by the judging app's config
(`judging.apps`), so they are its models and its migrations'."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from judging.models import Collection, Run

MAX_RUNS_PER_TEAM = 50


class MissingDocuments(models.TextChoices):
    REFUSE = "refuse", "Refuse the file"
    PLACEHOLDERS = "placeholders", "Make them placeholders (their text comes later)"


class SubmissionSettings(models.Model):
    """A collection's submission window and rules: one row per collection that takes submissions, written only by
    `judging.tracks.services`; a collection without one takes none."""

    collection = models.OneToOneField(
        Collection, primary_key=True, on_delete=models.CASCADE, related_name="submission_settings"
    )
    opens = models.DateTimeField(null=True, blank=True, help_text="When teams may start submitting (UTC).")
    closes = models.DateTimeField(null=True, blank=True, help_text="The deadline (UTC); no upload is taken after it.")
    runs_per_team = models.PositiveSmallIntegerField(
        default=3, validators=[MinValueValidator(1), MaxValueValidator(MAX_RUNS_PER_TEAM)]
    )
    depth = models.PositiveIntegerField(
        default=1000, validators=[MinValueValidator(1)], help_text="The most documents a run may rank per topic."
    )
    missing_documents = models.CharField(
        max_length=20, choices=MissingDocuments.choices, default=MissingDocuments.REFUSE
    )
    released = models.BooleanField(default=False, help_text="Teams see every submitted run's results and reports.")
    live_reports = models.BooleanField(
        default=False, help_text="Teams read their own runs' reports before the release (naming no other run)."
    )

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(opens__isnull=True) | Q(closes__isnull=True) | Q(closes__gt=models.F("opens")),
                name="submissions_close_after_open",
            )
        ]

    def __str__(self) -> str:
        return f"submission settings of {self.collection_id}"


class Team(models.Model):
    """A participating team of one collection; written only by `judging.tracks.services`."""

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="teams")
    name = models.CharField(max_length=100)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["collection", "name"]
        constraints = [models.UniqueConstraint(fields=["collection", "name"], name="team_unique_name")]

    def __str__(self) -> str:
        return self.name


class TeamMember(models.Model):
    """An account's membership of a team: it is the account's `participant` role in that collection, and an account
    belongs to at most one team of a collection."""

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="members")
    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="team_memberships")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["collection", "user"], name="team_member_one_team")]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.team_id}"


class RunType(models.TextChoices):
    AUTOMATIC = "automatic", "Automatic"
    MANUAL = "manual", "Manual"
    FEEDBACK = "feedback", "Relevance feedback"


class SubmissionState(models.TextChoices):
    CURRENT = "current", "Current"
    REPLACED = "replaced", "Replaced"
    WITHDRAWN = "withdrawn", "Withdrawn"


class Submission(models.Model):
    """One accepted upload of a team's run, with its questionnaire and receipt. The current submission of a tag
    holds the run; a replaced or withdrawn one keeps its receipt only. Written only by `judging.tracks.services`."""

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="submissions")
    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="submissions")
    run = models.ForeignKey(Run, null=True, blank=True, on_delete=models.SET_NULL, related_name="submissions")
    tag = models.CharField(max_length=200)
    state = models.CharField(max_length=10, choices=SubmissionState.choices, default=SubmissionState.CURRENT)
    sha256 = models.CharField(max_length=64)
    received_at = models.DateTimeField()
    file_name = models.CharField(max_length=255, blank=True)
    submitted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    run_type = models.CharField(max_length=10, choices=RunType.choices)
    description = models.TextField(blank=True, max_length=5000)
    model_family = models.CharField(max_length=100, blank=True)
    priority = models.PositiveSmallIntegerField(validators=[MinValueValidator(1)])
    topics = models.PositiveIntegerField(default=0)
    lines = models.PositiveIntegerField(default=0)
    placeholders = models.PositiveIntegerField(default=0, help_text="Documents the collection lacked, made for it.")

    class Meta:
        ordering = ["collection", "team", "priority", "tag"]
        constraints = [
            models.UniqueConstraint(
                fields=["collection", "tag"], condition=Q(state="current"), name="submission_one_current_per_tag"
            )
        ]

    def __str__(self) -> str:
        return f"{self.tag} ({self.state})"
