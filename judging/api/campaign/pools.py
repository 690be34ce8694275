"""The API of imports and pool builds: each starts a job (202 with its address), a preview answers at once."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, serializers
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from judging import selectors
from judging.imports.services import IMPORT_KINDS, import_start
from judging.jobs.api import job_accepted
from judging.models import Collection, PoolItem
from judging.ordering.core import pool_strategies
from judging.permissions import IsAdmin, ReadsForResearchersWritesForAdmins
from judging.services import pools
from judging.sources.models import SourceRole


class PoolItemSerializer(serializers.ModelSerializer):
    topic = serializers.CharField(source="topic.number")
    docno = serializers.CharField(source="document.docno")

    class Meta:
        model = PoolItem
        fields = ["id", "topic", "docno", "contributing_runs", "best_rank", "priority", "strategy"]
        fields += ["inclusion_probability", "stratum"]


class ImportSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=IMPORT_KINDS)
    file = serializers.ListField(
        child=serializers.FileField(),
        allow_empty=False,
        help_text="one file, several (the field repeated), or a .zip or .tar.gz of them: one job, all or nothing",
    )
    skip_invalid = serializers.BooleanField(default=False)
    source = serializers.CharField(
        required=False, default="", allow_blank=True, max_length=60,
        help_text="qrels: the source the labels belong to (default 'imported'; a fifth column names its own)",
    )  # fmt: skip
    role = serializers.ChoiceField(
        choices=SourceRole.choices, default=SourceRole.COUNTED, help_text="qrels: counted, advisory or gold"
    )
    model_family = serializers.CharField(
        required=False, default="", allow_blank=True, max_length=100,
        help_text="runs: the model family they use (a run sharing a machine judge's family is marked)",
    )  # fmt: skip
    create_missing = serializers.BooleanField(
        default=False, help_text="runs, qrels: make the topics and documents the collection lacks as placeholders"
    )
    pooled_only = serializers.BooleanField(
        default=False, help_text="documents: keep only the pooled documents (a corpus read as a stream)"
    )
    top_k = serializers.IntegerField(
        required=False, allow_null=True, default=None, min_value=1, max_value=10_000,
        help_text="documents, with pooled_only: also those some run ranks in a topic's top k",
    )  # fmt: skip


class ImportCreate(APIView):
    """Uploads topics, documents, runs or qrels (multipart; `file` repeated for several files, or an archive); the
    import runs as one job (202): follow its `url` for progress, and its result for the problems (file, line,
    field, reason) of every file if it was refused."""

    permission_classes = [IsAdmin]
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(request={"multipart/form-data": ImportSerializer}, responses={202: None})
    def post(self, request: Request, collection_id: int) -> Response:
        collection = get_object_or_404(Collection, pk=collection_id)
        data = (
            {**request.data.dict(), "file": request.FILES.getlist("file")}
            if hasattr(request.data, "dict")
            else request.data
        )
        serializer = ImportSerializer(data=data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        job = import_start(
            collection=collection,
            kind=data["kind"],
            files=data["file"],
            skip_invalid=data["skip_invalid"],
            created_by=request.user,
            source=data["source"],
            role=data["role"],
            model_family=data["model_family"],
            create_missing=data["create_missing"],
            pooled_only=data["pooled_only"],
            top_k=data["top_k"],
        )
        return job_accepted(request, job)


class PoolBuildSerializer(serializers.Serializer):
    strategy = serializers.ChoiceField(choices=list(pool_strategies.REGISTRY))
    size = serializers.IntegerField(min_value=1, max_value=100_000, help_text="depth k, or the budget per topic")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["strategy"].choices = list(pool_strategies.REGISTRY)  # registered after import too

    runs = serializers.ListField(child=serializers.CharField(), required=False, help_text="run tags; default all")
    more_assessors = serializers.BooleanField(default=False)
    preview = serializers.BooleanField(default=False)


class PoolView(generics.ListAPIView):
    """GET: the pool's items (filter `topic` by number) in judging order. POST: build it with a strategy; with
    `preview` the answer (200) is what would be added per topic and each run's unique contribution, else a job
    (202)."""

    serializer_class = PoolItemSerializer
    permission_classes = [ReadsForResearchersWritesForAdmins]

    def get_queryset(self):
        collection = get_object_or_404(Collection, pk=self.kwargs["collection_id"])
        items = PoolItem.objects.filter(topic__collection=collection).select_related("topic", "document")
        topic = self.request.query_params.get("topic")
        if topic is not None:
            items = items.filter(topic__number=topic)
        return items.order_by("topic_id", "-priority", "id")

    @extend_schema(parameters=[OpenApiParameter("topic", str, description="a topic number")])
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(request=PoolBuildSerializer, responses={200: None, 202: None})
    def post(self, request: Request, collection_id: int) -> Response:
        collection = get_object_or_404(Collection, pk=collection_id)
        serializer = PoolBuildSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        runs = selectors.runs_tagged(collection=collection, tags=data.get("runs", []))
        if data["preview"]:
            report = pools.pool_build(
                collection=collection,
                strategy=data["strategy"],
                depth=data["size"],
                budget=data["size"],
                runs=runs or None,
                more_assessors=data["more_assessors"],
                commit=False,
            )
            topics = {number: {"new": new, "pooled": old} for number, (new, old) in report.topics.items()}
            return Response({"added": report.added, "topics": topics, "unique": report.unique})
        job = pools.pool_build_start(
            collection=collection,
            strategy=data["strategy"],
            size=data["size"],
            runs=runs,
            more_assessors=data["more_assessors"],
            created_by=request.user,
        )
        return job_accepted(request, job)
