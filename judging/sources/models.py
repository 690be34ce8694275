"""What each labelling account is and whether its labels count: the tables of the sources feature. Imported by the
judging app's config (`judging.apps`), so they are its models and its migrations'."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from judging.models import (
    Collection,
)


class SourceKind(models.TextChoices):
    PERSON = "person", "A person"
    MACHINE = "machine", "A machine judge"
    IMPORTED = "imported", "An imported file"
    CLICKS = "clicks", "Clicks from a search log"


class SourceRole(models.TextChoices):
    COUNTED = "counted", "Counted in the consensus"
    ADVISORY = "advisory", "Advisory: measured and shown, never counted"
    GOLD = "gold", "Gold: counted, and the reference every assessor's accuracy is measured against"


class LabelSource(models.Model):
    """What an account that labels in a collection is, and what its labels do there. An account without a row is a
    person whose labels count: the services that make machine judges, import qrels or clicks give theirs a row as
    they make them. Read only through the selectors (`judging.selectors.label_sources` and those beside it)."""

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="label_sources")
    account = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="label_sources")
    kind = models.CharField(max_length=10, choices=SourceKind.choices, default=SourceKind.PERSON)
    role = models.CharField(max_length=10, choices=SourceRole.choices, default=SourceRole.COUNTED)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["collection", "account"], name="one_source_per_account")]

    def __str__(self) -> str:
        return f"{self.account_id} in {self.collection_id}: {self.kind}, {self.role}"


class LabelSourceChange(models.Model):
    """The audit trail of a label source: each change of its kind or role, who made it, when and why."""

    source = models.ForeignKey(LabelSource, on_delete=models.CASCADE, related_name="changes")
    kind = models.CharField(max_length=10, choices=SourceKind.choices)
    role = models.CharField(max_length=10, choices=SourceRole.choices)
    previous_kind = models.CharField(max_length=10, blank=True)  # blank: the source was made by this change
    previous_role = models.CharField(max_length=10, blank=True)
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    changed_at = models.DateTimeField(default=timezone.now)
    reason = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["changed_at", "id"]

    def __str__(self) -> str:
        return f"{self.previous_role or 'new'} -> {self.role} ({self.changed_at:%Y-%m-%d %H:%M})"
