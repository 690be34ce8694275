"""Long work and the files it reads: the tables of the jobs platform both apps start work through. Imported by the
judging app's config (`judging.apps`), so they are its models and its migrations'."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from judging.models import (
    Collection,
)


class JobState(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


class Upload(models.Model):
    """A file uploaded for a job, kept in the database in chunks so that a worker on another machine can read it
    (no shared filesystem is needed). Written and read only through `judging.jobs.uploads`."""

    name = models.CharField(max_length=255)
    size = models.PositiveBigIntegerField(default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.name} ({self.size} bytes)"


class UploadChunk(models.Model):
    upload = models.ForeignKey(Upload, on_delete=models.CASCADE, related_name="chunks")
    index = models.PositiveIntegerField()
    data = models.BinaryField()

    class Meta:
        ordering = ["upload", "index"]
        constraints = [models.UniqueConstraint(fields=["upload", "index"], name="upload_chunk_unique")]

    def __str__(self) -> str:
        return f"chunk {self.index} of upload {self.upload_id}"


class Job(models.Model):
    """Long work (an import, a pool build, a full recompute, a trial run) and its progress, for the pages and the
    API to poll. Started only by `jobs.job_start` and run only by `jobs.job_run`, which always ends it."""

    kind = models.CharField(max_length=40)
    task = models.CharField(max_length=100, blank=True, help_text="The Celery task that runs it, by name.")
    arguments = models.JSONField(default=dict, blank=True)
    upload = models.ForeignKey(Upload, null=True, blank=True, on_delete=models.SET_NULL, related_name="jobs")
    retry_of = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="retries")
    started_at = models.DateTimeField(null=True, blank=True)
    collection = models.ForeignKey(Collection, null=True, blank=True, on_delete=models.CASCADE, related_name="jobs")
    state = models.CharField(max_length=10, choices=JobState.choices, default=JobState.QUEUED)
    done = models.PositiveBigIntegerField(default=0)
    total = models.PositiveBigIntegerField(default=0)
    message = models.TextField(blank=True)
    result = models.JSONField(default=dict, blank=True)
    cancel_requested = models.BooleanField(default=False, help_text="Asked to stop; the work stops at its next step.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.kind} {self.state} {self.done}/{self.total}"

    @property
    def percent(self) -> int:
        return 100 if self.state == JobState.DONE else int(100 * self.done / self.total) if self.total else 0

    @property
    def ended(self) -> bool:
        return self.state in (JobState.DONE, JobState.FAILED, JobState.CANCELLED)
