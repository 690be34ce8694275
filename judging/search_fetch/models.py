"""A search endpoint (an engine the collection's query sets are fetched from) and its snapshots (each fetch: a run
like any other, with the recipe that made it). Defined in this feature package and imported by `judging.models`,
so they are the judging app's models. Written only through `judging.search_fetch.services`."""

from __future__ import annotations

from django.conf import settings as django_settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models


class Engine(models.TextChoices):
    ELASTICSEARCH = "elasticsearch", "Elasticsearch (_search with a query DSL template)"
    OPENSEARCH = "opensearch", "OpenSearch (_search with a query DSL template)"
    SOLR = "solr", "Solr (/select with a parameters template)"
    JSON = "json", "Any HTTP JSON API (method, URL and body templates; results read by JMESPath)"


class Auth(models.TextChoices):
    NONE = "none", "None"
    BASIC = "basic", "Basic (the secret holds user:password)"
    BEARER = "bearer", "Bearer token"
    API_KEY = "api_key", "API key header (named below)"


class SearchEndpoint(models.Model):
    collection = models.ForeignKey("judging.Collection", on_delete=models.CASCADE, related_name="search_endpoints")
    name = models.CharField(max_length=60)
    engine = models.CharField(max_length=20, choices=Engine.choices, default=Engine.ELASTICSEARCH)
    url = models.CharField(max_length=500, help_text="The engine's base URL (json: the request URL, with {{query}}).")
    index = models.CharField(max_length=200, blank=True, help_text="The index (Elasticsearch) or core (Solr).")
    method = models.CharField(max_length=10, default="POST", help_text="json: the HTTP method.")
    template = models.TextField(
        blank=True, help_text="The query DSL (JSON) or Solr parameters (name=value lines); empty: the engine's default."
    )
    results_path = models.CharField(max_length=300, blank=True, help_text="json: JMESPath to the results list.")
    id_path = models.CharField(max_length=300, default="id", help_text="json: JMESPath to a result's document id.")
    score_path = models.CharField(max_length=300, blank=True, help_text="json: JMESPath to a result's score.")
    title_path = models.CharField(
        max_length=300, blank=True, help_text="JMESPath to a hit's title, e.g. _source.title (a new document's text)."
    )
    body_path = models.CharField(max_length=300, blank=True, help_text="JMESPath to a hit's text, e.g. _source.body.")
    variables = models.JSONField(default=dict, blank=True, help_text="Named tuning variables: {name: value}.")
    auth = models.CharField(max_length=10, choices=Auth.choices, default=Auth.NONE)
    auth_header = models.CharField(max_length=60, default="X-API-Key", help_text="The API key's header.")
    secret_env = models.CharField(
        max_length=100, blank=True, help_text="The WORKBENCH_SECRET_* variable holding the key or password."
    )
    ca_bundle = models.CharField(max_length=500, blank=True, help_text="A CA bundle file to verify TLS against.")
    depth = models.PositiveIntegerField(default=100, validators=[MinValueValidator(1), MaxValueValidator(1000)])
    page_size = models.PositiveIntegerField(default=100, validators=[MinValueValidator(1), MaxValueValidator(10_000)])
    concurrency = models.PositiveSmallIntegerField(default=4, validators=[MinValueValidator(1), MaxValueValidator(32)])
    rate = models.FloatField(null=True, blank=True, help_text="At most this many requests a second.")
    timeout = models.FloatField(default=10.0, validators=[MinValueValidator(0.1), MaxValueValidator(300)])
    retries = models.PositiveSmallIntegerField(default=3, validators=[MaxValueValidator(10)])
    schedule_hours = models.PositiveIntegerField(
        null=True, blank=True, help_text="Fetch the collection's topics again every this many hours (empty: never)."
    )
    alert_measure = models.CharField(
        max_length=40,
        default="nDCG@10",
        db_default="nDCG@10",
        help_text="The measure whose drop between snapshots is flagged.",
    )
    alert_drop = models.FloatField(
        default=0.05,
        db_default=0.05,
        validators=[MinValueValidator(0)],
        help_text="Flag a mean drop of at least this much when the per-topic differences are significant (paired "
        "permutation test, p < 0.05).",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["collection", "name"], name="search_endpoint_unique_name")]

    def __str__(self) -> str:
        return self.name


class SearchSnapshot(models.Model):
    """One fetch of a query set: its run, and the recipe (the endpoint's settings and variables then, each query's
    requests with a hash of each answer and its latency, the engine's own scores) and its holes."""

    endpoint = models.ForeignKey(SearchEndpoint, on_delete=models.CASCADE, related_name="snapshots")
    run = models.OneToOneField("judging.Run", on_delete=models.CASCADE, related_name="snapshot")
    settings = models.JSONField(default=dict)
    variables = models.JSONField(default=dict)
    recipe = models.JSONField(default=dict)
    queries = models.PositiveIntegerField(default=0)
    failed = models.JSONField(default=list, help_text="[{topic, reason}] of the queries that are holes.")
    created_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.endpoint} snapshot {self.run.tag}"

    @property
    def complete(self) -> bool:
        return not self.failed
