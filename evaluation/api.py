"""REST endpoints of the evaluation app: results, qrels and results exports, agreement, recompute status and start."""

from __future__ import annotations

from django.db import transaction
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import exceptions, permissions, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from judging import jobs
from judging.api.jobs import JobSerializer, job_accepted
from judging.models import Collection
from judging.permissions import IsResearcherOrAdmin

from . import downloads, selectors, tasks


class CollectionStatusView(APIView):
    """Whether the collection's stored metrics are fresh or being recomputed, per topic."""

    @extend_schema(responses=inline_serializer("Status", {"fresh": serializers.BooleanField()}))
    def get(self, request: Request, collection_id: int) -> Response:
        get_object_or_404(Collection, pk=collection_id)
        return Response(selectors.collection_status(collection_id=collection_id))


class CollectionRecomputeView(APIView):
    """Starts a full recompute of a collection (admins); answers 202 with the Job to follow."""

    permission_classes = [permissions.IsAdminUser]

    @extend_schema(request=None, responses={202: JobSerializer})
    def post(self, request: Request, collection_id: int) -> Response:
        collection = get_object_or_404(Collection, pk=collection_id)
        job = jobs.job_create(kind="recompute", collection=collection, created_by=request.user)
        transaction.on_commit(lambda: tasks.recompute_collection.delay(collection.id, job.id))
        return job_accepted(request, job)


class _ResearchersRead(APIView):
    permission_classes = [IsResearcherOrAdmin]

    def collection(self, collection_id: int) -> Collection:
        return get_object_or_404(Collection, pk=collection_id)


class QrelsExportView(_ResearchersRead):
    """The collection's qrels as a file, streamed: the consensus by default (`source=assessor&assessor=NAME` or
    `source=all` for assessors' own labels), `binarise_at`, `topics` (comma-separated). Assessor names are
    pseudonyms for researchers unless the collection shows them. Provenance in X-Qrels-Version,
    X-Evaluation-Settings and X-Provenance headers."""

    @extend_schema(
        parameters=[
            OpenApiParameter("format", str, enum=["trec", "jsonl", "csv"]),
            OpenApiParameter("source", str, enum=["consensus", "assessor", "all"]),
            OpenApiParameter("assessor", str),
            OpenApiParameter("binarise_at", int),
            OpenApiParameter("topics", str, description="comma-separated topic numbers"),
        ],
        responses={(200, "text/plain"): OpenApiTypes.STR},
    )
    def get(self, request: Request, collection_id: int):
        try:
            return downloads.qrels_download(self.collection(collection_id), request.query_params, request.user)
        except downloads.BadExportRequest as error:
            raise exceptions.ValidationError({"query": [str(error)]}) from error


class ResultsExportView(_ResearchersRead):
    """Every run's stored per-topic values and aggregates as a file, streamed: trec_eval -q text, CSV or JSON;
    `runs` (comma-separated tags) to choose runs. Provenance in headers, and inside the JSON."""

    @extend_schema(
        parameters=[
            OpenApiParameter("format", str, enum=["trec", "csv", "json"]),
            OpenApiParameter("runs", str, description="comma-separated run tags"),
        ],
        responses={(200, "text/plain"): OpenApiTypes.STR},
    )
    def get(self, request: Request, collection_id: int):
        try:
            return downloads.results_download(self.collection(collection_id), request.query_params)
        except downloads.BadExportRequest as error:
            raise exceptions.ValidationError({"query": [str(error)]}) from error


class ResultsView(_ResearchersRead):
    """The leaderboard as data: each run's aggregate of every configured measure and its topics evaluated, with
    the qrels version, settings and freshness they reflect."""

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, collection_id: int) -> Response:
        collection = self.collection(collection_id)
        measures = list(collection.measures)
        rows = selectors.leaderboard(collection_id=collection.id, measures=measures)
        status_ = selectors.collection_status(collection_id=collection.id)
        runs = [
            {"run": row["run"].tag, "topics": row["topics"], "values": dict(zip(measures, row["values"], strict=True))}
            for row in rows
        ]
        keys = ("qrels_version", "settings", "fresh", "stale_topics")
        return Response({"measures": measures, "runs": runs} | {key: status_[key] for key in keys})


class AgreementView(_ResearchersRead):
    """Inter-assessor agreement: the mean over topics of each per-topic statistic (Cohen's and weighted kappa,
    Fleiss' kappa, Krippendorff's alpha, overlap …), where defined."""

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, collection_id: int) -> Response:
        collection = self.collection(collection_id)
        return Response({"statistics": selectors.collection_agreement(collection_id=collection.id)})
