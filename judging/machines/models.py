"""Machine judges and every reply they stored: the tables of the machines feature. Imported by the judging app's config
(`judging.apps`), so they are its models and its migrations'."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from judging.models import (
    Collection,
    Document,
    Topic,
)


class MachineProvider(models.TextChoices):
    CHAT = "chat", "OpenAI-compatible chat-completions server (OpenAI, Azure, vLLM, Ollama, llama.cpp, LM Studio)"
    LEXICAL = "lexical", "Embedded BM25 baseline (offline; thresholds fitted on people's labels)"
    EMBEDDING = "embedding", "Offline neural judge: MiniLM embeddings (thresholds fitted on people's labels)"
    PANEL = "panel", "A panel of this collection's judges, their labels combined"


class MachineJudge(models.Model):
    """A machine assessor: the account its labels are recorded under (kind "machine": it never logs in with a
    password) and its configuration, whose `version` rises whenever what a reply depends on changes. Written only
    through `judging.machines.services`."""

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="machine_judges")
    account = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="machine_judge")
    name = models.CharField(max_length=60)
    provider = models.CharField(max_length=10, choices=MachineProvider.choices, default=MachineProvider.CHAT)
    base_url = models.CharField(max_length=500, blank=True, help_text="The server's base, e.g. http://host:8000/v1")
    model = models.CharField(max_length=200, blank=True)
    model_family = models.CharField(
        max_length=100,
        blank=True,
        db_default="",  # a row written by code that predates the column (an older migration's state) has it
        help_text="The model's family, e.g. gpt-4o or llama-3: runs of the same family are marked.",
    )
    api_key_env = models.CharField(
        max_length=100, blank=True, help_text="The environment variable holding the API key (never the key itself)."
    )
    prompt = models.CharField(max_length=20, default="umbrela", help_text="umbrela, dna, binary or custom")
    template = models.TextField(blank=True, help_text="A custom prompt: {title} {description} {narrative} {document}")
    template_max_grade = models.PositiveSmallIntegerField(default=3, help_text="A custom prompt's scale: 0..this.")
    scale_map = models.JSONField(
        default=dict, blank=True, help_text="{prompt grade: collection grade}; empty maps the scales evenly."
    )
    batch = models.CharField(max_length=10, default="pair", help_text="pair: a call per pair; topic: per topic.")
    concurrency = models.PositiveSmallIntegerField(default=4, validators=[MinValueValidator(1), MaxValueValidator(64)])
    requests_per_minute = models.PositiveIntegerField(null=True, blank=True)
    timeout = models.FloatField(default=60.0, validators=[MinValueValidator(0.1), MaxValueValidator(3600)])
    retries = models.PositiveSmallIntegerField(default=3, validators=[MaxValueValidator(10)])
    budget_requests = models.PositiveIntegerField(null=True, blank=True, help_text="Stop after this many calls.")
    budget_tokens = models.PositiveBigIntegerField(null=True, blank=True, help_text="Stop after this many tokens.")
    budget_money = models.DecimalField(
        max_digits=12, decimal_places=4, null=True, blank=True,
        validators=[MinValueValidator(0)], help_text="Stop a run once its calls cost this much (needs prices).",
    )  # fmt: skip
    budget_words = models.PositiveIntegerField(default=400, help_text="Documents are cut to this many words.")
    samples = models.PositiveSmallIntegerField(
        default=1,
        db_default=1,
        validators=[MinValueValidator(1), MaxValueValidator(10)],
        help_text="Ask this many times per pair (at temperature 0.7 when above 1); the label is the vote's majority.",
    )
    price_prompt = models.DecimalField(
        max_digits=10, decimal_places=6, null=True, blank=True,
        help_text="What 1,000 prompt tokens cost (in the operator's currency), to show what a run spends.",
    )  # fmt: skip
    price_completion = models.DecimalField(
        max_digits=10, decimal_places=6, null=True, blank=True, help_text="What 1,000 completion tokens cost."
    )
    batch_api = models.BooleanField(
        default=False, db_default=False,
        help_text="Send the requests as batch jobs (OpenAI's Batch API, vLLM's server): at the batch price, answered "
        "within the completion window (24 h).",
    )  # fmt: skip
    batch_max_requests = models.PositiveIntegerField(
        default=50_000, db_default=50_000, validators=[MinValueValidator(1)], help_text="Requests in one batch file."
    )
    batch_max_bytes = models.PositiveBigIntegerField(
        default=200_000_000, db_default=200_000_000, validators=[MinValueValidator(1024)],
        help_text="Bytes in one batch file.",
    )  # fmt: skip
    batch_poll_seconds = models.FloatField(
        default=60.0, db_default=60.0, validators=[MinValueValidator(0.01), MaxValueValidator(3600)],
        help_text="Look at a batch under way at most this often.",
    )  # fmt: skip
    batch_discount = models.DecimalField(
        max_digits=5, decimal_places=2, default=50, db_default=50,
        validators=[MinValueValidator(0), MaxValueValidator(100)],
        help_text="What the server takes off its prices for batch requests, in percent (OpenAI: 50).",
    )  # fmt: skip
    version = models.PositiveIntegerField(default=1)
    configuration = models.CharField(max_length=64, blank=True, help_text="Hash of what a reply depends on.")
    probes = models.JSONField(
        null=True, blank=True, help_text="The last gullibility probes' report, with the configuration it measured."
    )
    members = models.ManyToManyField(
        "self", symmetrical=False, blank=True, related_name="panels", help_text="A panel's judges."
    )
    combine = models.CharField(
        max_length=10,
        default="majority",
        db_default="majority",
        choices=[("majority", "Majority of the members' grades"), ("mean", "Mean of the members' grades, rounded")],
        help_text="How a panel combines its members' grades.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["collection", "name"]
        constraints = [models.UniqueConstraint(fields=["collection", "name"], name="machine_judge_unique_name")]

    def __str__(self) -> str:
        return f"{self.name} (v{self.version})"


class MachineBatch(models.Model):
    """A batch a judge's run sent through the Batch API, as the server last said: kept so that a restarted worker
    polls it instead of sending its lines again, and read back once (`collected`). Written only through
    `judging.machines.services`."""

    judge = models.ForeignKey(MachineJudge, on_delete=models.CASCADE, related_name="batches")
    configuration = models.CharField(max_length=64)
    run_job = models.ForeignKey("Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    server_id = models.CharField(max_length=200, help_text="The server's id of the batch.")
    round = models.PositiveSmallIntegerField(default=1)
    custom_ids = models.JSONField(default=list, help_text="The custom_id of each request line of its file.")
    status = models.CharField(max_length=20, default="validating")
    output_file_id = models.CharField(max_length=200, blank=True)
    error_file_id = models.CharField(max_length=200, blank=True)
    completed = models.PositiveIntegerField(default=0)
    failed = models.PositiveIntegerField(default=0)
    errors = models.CharField(max_length=300, blank=True)
    collected = models.BooleanField(default=False, help_text="Its answers were read back and kept.")
    polled_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["judge", "server_id"], name="machine_batch_unique_server_id")]

    def __str__(self) -> str:
        return f"{self.server_id} ({self.status})"


class MachineReply(models.Model):
    """One pair's answer from a machine judge under one configuration: the reply cache (a rerun, a crash or a killed
    worker never pays for a pair twice) and the provenance kept beside the judgment it gave: the raw reply, tokens
    and latency, or the failure recorded instead of a grade."""

    judge = models.ForeignKey(MachineJudge, on_delete=models.CASCADE, related_name="replies")
    configuration = models.CharField(max_length=64)
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="+")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")
    grade = models.SmallIntegerField(null=True, blank=True)
    failure = models.CharField(max_length=300, blank=True)
    reply = models.TextField(blank=True)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    seconds = models.FloatField(default=0.0)
    votes = models.JSONField(null=True, blank=True, help_text="Each sample's grade, when the judge samples.")
    run_job = models.ForeignKey(
        "Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
        help_text="The run (Job) that asked for it: what its budget and limit count when its worker dies and it runs "
        "again.",
    )  # fmt: skip
    batch = models.ForeignKey(
        MachineBatch, null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
        help_text="The batch that answered it, when the judge used the Batch API (its price is the batch price).",
    )  # fmt: skip
    custom_id = models.CharField(max_length=80, blank=True, help_text="Its request line's id in the batch.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["judge", "configuration", "topic", "document"], name="machine_reply_unique_pair"
            ),
            models.CheckConstraint(
                condition=Q(grade__isnull=False) | ~Q(failure=""), name="machine_reply_grade_or_failure"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.judge_id} {self.topic_id}/{self.document_id} = {self.grade if self.failure == '' else 'failed'}"


class VerificationSettings(models.Model):
    """Which of a collection's machine judges its assessors verify, and how (blind, or post-editing). One row per
    collection, written only by `judging.machines.services.verification_set`; a collection without one verifies no
    judge (`judging.machines.selectors.verification_settings`)."""

    collection = models.OneToOneField(
        Collection, primary_key=True, on_delete=models.CASCADE, related_name="verification_settings"
    )
    verification_judge = models.ForeignKey(
        MachineJudge,
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
        db_default="blind",
    )  # fmt: skip

    def __str__(self) -> str:
        return f"verification settings of {self.collection_id}"
