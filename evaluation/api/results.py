"""The API of a collection's results: their status and freshness, a full recompute, the qrels and results
exports, the per-topic results and the agreement."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, permissions
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from evaluation import downloads, selectors, services
from evaluation.analysis import selectors as analysis
from evaluation.api_serializers import (
    AgreementSerializer,
    ResultsSerializer,
    StatusSerializer,
)
from judging.jobs.api import JobSerializer, job_accepted
from judging.models import Collection, Run
from judging.permissions import IsResearcherOrAdmin, ReadsOwnCollectionStatus, sees_assessors
from judging.tracks import selectors as tracks

MAX_STATUS_PAGE = 1_000_000  # far past any collection's last page, and far inside the database's integers


class StatusTopicsPagination(PageNumberPagination):
    """The status answer's topics, DRF's page-number pagination as every list of the API: 500 a page."""

    page_size = 500


class CollectionStatusView(APIView):
    """Whether the collection's stored metrics are fresh or being recomputed: counts for the whole collection, and
    one page of 500 topics (`page`, from 1; `stale=1` lists only the stale ones). Researchers, admins and the
    collection's own assessors."""

    permission_classes = [ReadsOwnCollectionStatus]

    @extend_schema(
        parameters=[OpenApiParameter("page", int), OpenApiParameter("stale", bool)],
        responses=StatusSerializer,
    )
    def get(self, request: Request, collection_id: int) -> Response:
        get_object_or_404(Collection, pk=collection_id)
        page = request.query_params.get("page", "1")
        if not (page.isascii() and page.isdigit() and 1 <= int(page) <= MAX_STATUS_PAGE):
            raise exceptions.ValidationError({"page": [f"a page number, from 1 to {MAX_STATUS_PAGE}"]})
        stale_only = request.query_params.get("stale", "") in ("1", "true")
        paginator = StatusTopicsPagination()
        rows = paginator.paginate_queryset(
            selectors.status_topics(collection_id=collection_id, stale_only=stale_only), request, view=self
        )
        pages = paginator.page.paginator
        return Response(
            selectors.collection_status(collection_id=collection_id)
            | {
                "topics_count": pages.count,
                "page": paginator.page.number,
                "pages": pages.num_pages,
                "next": paginator.get_next_link(),
                "previous": paginator.get_previous_link(),
                "topics": selectors.status_rows(rows),
            }
        )


class CollectionRecomputeView(APIView):
    """Starts a full recompute of a collection (admins); answers 202 with the Job to follow."""

    permission_classes = [permissions.IsAdminUser]

    @extend_schema(request=None, responses={202: JobSerializer})
    def post(self, request: Request, collection_id: int) -> Response:
        collection = get_object_or_404(Collection, pk=collection_id)
        return job_accepted(
            request, services.collection_recompute_start(collection=collection, created_by=request.user)
        )


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


class ReadsResults(permissions.BasePermission):
    """Researchers and admins; a track's participants once its results are released (`tracks.results_scope`)."""

    message = "results are for researchers and admins, and for the track's teams once they are released"

    def has_permission(self, request, view) -> bool:
        if IsResearcherOrAdmin().has_permission(request, view):
            return True
        collection = Collection.objects.filter(pk=view.kwargs["collection_id"]).first()
        return collection is not None and tracks.results_scope(user=request.user, collection=collection) is not None


class ResultsView(_ResearchersRead):
    """The leaderboard as data: each run's aggregate of every configured measure and its topics evaluated, with
    the qrels version, settings and freshness they reflect. A track's participant, after the release, reads the
    submitted runs only."""

    permission_classes = [ReadsResults]

    @extend_schema(responses=ResultsSerializer)
    def get(self, request: Request, collection_id: int) -> Response:
        collection = self.collection(collection_id)
        measures = list(collection.measures)
        rows = selectors.leaderboard(collection=collection, measures=measures)
        if tracks.results_scope(user=request.user, collection=collection) == "submitted":
            submitted = tracks.submitted_run_ids(collection_id=collection.pk)
            rows = [row for row in rows if row["run"].id in submitted]
        status_ = selectors.collection_status(collection_id=collection.id)
        runs = [
            {
                "run": row["run"].tag,
                "topics": row["topics"],
                "judged_at_10": row["judged"],
                "values": dict(zip(measures, row["values"], strict=True)),
            }
            for row in rows
        ]
        keys = ("qrels_version", "settings", "fresh", "stale_topics", "missing_measures")
        return Response(
            ResultsSerializer({"measures": measures, "runs": runs} | {key: status_[key] for key in keys}).data
        )


class AgreementView(_ResearchersRead):
    """Inter-assessor agreement: the mean over topics of each per-topic statistic (Cohen's and weighted kappa,
    Fleiss' kappa, Krippendorff's alpha, overlap …), where defined."""

    @extend_schema(responses=AgreementSerializer)
    def get(self, request: Request, collection_id: int) -> Response:
        collection = self.collection(collection_id)
        matrices = analysis.agreement_matrices(collection=collection, reveal=sees_assessors(request.user, collection))
        ranking = matrices.ranking if matrices else []
        return Response(
            AgreementSerializer(
                {
                    "statistics": selectors.collection_agreement(collection_id=collection.id),
                    "ranking_measure": matrices.ranking_measure if matrices else None,
                    "ranking": [{"assessor": a, "kendall_tau": t, "tau_ap": ap} for a, t, ap in ranking],
                }
            ).data
        )


def _measure(collection: Collection, params) -> str:
    # The pages' rule and words; a refusal is a 400 naming 'measure' (the one exception handler).
    return selectors.chosen_measure(collection=collection, value=params.get("measure"))


def _run(collection: Collection, params, name: str) -> Run:
    return selectors.chosen_run(collection=collection, value=params.get(name), name=name)
