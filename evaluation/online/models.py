"""Search logs (the online measures' input): the table of the online feature. Imported by the evaluation app's config
(`evaluation.apps`), so they are its models and its migrations'."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from evaluation.online.core.records import LOG_FORMATS
from judging.models import Collection


class SearchLog(models.Model):
    """A search log of a collection's users (UBI or AOL), kept in its own columnar store under SEARCH_LOG_ROOT.

    `settings` holds the only freedoms of the online measures (`evaluation.online.core.measures.OnlineSettings`: click
    and success actions, dwell threshold, session gap, arm field) and the control arm; `arm_runs` ties arms to the
    collection's runs (arm → run tag) for the online/offline comparison."""

    FORMATS = [(log.name, log.label) for log in LOG_FORMATS.values()]

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="search_logs")
    name = models.CharField(max_length=100)
    log_format = models.CharField(max_length=10, choices=FORMATS, default="ubi")
    settings = models.JSONField(default=dict, blank=True)
    arm_runs = models.JSONField(default=dict, blank=True)
    imports = models.JSONField(default=list, blank=True, help_text="Each import's file names and counts.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["collection", "id"]
        constraints = [models.UniqueConstraint(fields=["collection", "name"], name="search_log_unique_name")]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_log_format_display()})"

    @property
    def store_path(self):

        return settings.SEARCH_LOG_ROOT / f"log-{self.pk}"
