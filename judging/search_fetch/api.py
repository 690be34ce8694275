"""Search endpoints over the API: list, add and configure them, test a query, fetch a query set as a snapshot (a
Job) and list the snapshots, and compare two snapshots by overlap. Researchers read; admins change."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.ids import id_given
from judging.jobs.api import JobSerializer, job_accepted
from judging.models import Collection
from judging.permissions import IsAdmin, IsResearcherOrAdmin, ReadsForResearchersWritesForAdmins
from judging.search_fetch import selectors, services
from judging.search_fetch.configs import SETTINGS
from judging.search_fetch.models import SearchEndpoint, SearchSnapshot


class SearchEndpointSerializer(serializers.ModelSerializer):
    variables = serializers.DictField(child=serializers.CharField(), required=False)

    class Meta:
        model = SearchEndpoint
        fields = ["id", "name", *SETTINGS, "created_at", "updated_at"]
        read_only_fields = ["id", "created_at", "updated_at"]
        validators = []  # the service names a taken name

    def create(self, validated_data):
        name = validated_data.pop("name")
        return services.search_endpoint_create(collection=self.context["collection"], name=name, **validated_data)

    def update(self, instance, validated_data):
        validated_data.pop("name", None)
        return services.search_endpoint_update(endpoint=instance, **validated_data)


class SearchEndpointList(generics.ListCreateAPIView):
    """A collection's search endpoints; admins add one (checked before it is saved)."""

    serializer_class = SearchEndpointSerializer
    permission_classes = [ReadsForResearchersWritesForAdmins]

    def _collection(self) -> Collection:
        return get_object_or_404(Collection, pk=self.kwargs["collection_id"])

    def get_queryset(self):
        return SearchEndpoint.objects.filter(collection=self._collection()).order_by("id")

    def get_serializer_context(self):
        return {**super().get_serializer_context(), "collection": self._collection()}


class SearchEndpointDetail(generics.RetrieveUpdateAPIView):
    queryset = SearchEndpoint.objects.select_related("collection")
    serializer_class = SearchEndpointSerializer
    permission_classes = [ReadsForResearchersWritesForAdmins]
    lookup_url_kwarg = "endpoint_id"
    http_method_names = ["get", "patch", "head", "options"]


class TrySerializer(serializers.Serializer):
    query = serializers.CharField(max_length=500)
    variables = serializers.DictField(child=serializers.CharField(), required=False)


class SearchEndpointTry(APIView):
    """A test query: the rendered request and the mapped results (first page), recording nothing."""

    permission_classes = [IsAdmin]

    @extend_schema(request=TrySerializer, responses={200: OpenApiTypes.OBJECT})
    def post(self, request: Request, endpoint_id: int) -> Response:
        endpoint = get_object_or_404(SearchEndpoint, pk=endpoint_id)
        data = TrySerializer(data=request.data)
        data.is_valid(raise_exception=True)
        query = data.validated_data["query"]
        tried = selectors.query_tried(endpoint=endpoint, query=query, variables=data.validated_data.get("variables"))
        return Response(tried)


class SnapshotSerializer(serializers.ModelSerializer):
    run = serializers.CharField(source="run.tag")
    complete = serializers.BooleanField(read_only=True)

    class Meta:
        model = SearchSnapshot
        fields = ["id", "run", "queries", "failed", "complete", "variables", "settings", "created_at"]


class FetchSerializer(serializers.Serializer):
    queries = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="typed-in queries (new ones become topics)"
    )
    topics = serializers.ListField(child=serializers.CharField(), required=False, help_text="topic numbers")
    variables = serializers.DictField(child=serializers.CharField(), required=False)


class SearchSnapshots(generics.ListAPIView):
    """An endpoint's snapshots; POST fetches the query set as a new one (202 with the job to poll)."""

    serializer_class = SnapshotSerializer
    permission_classes = [ReadsForResearchersWritesForAdmins]

    def get_queryset(self):
        return SearchSnapshot.objects.filter(endpoint_id=self.kwargs["endpoint_id"]).select_related("run")

    @extend_schema(request=FetchSerializer, responses={202: JobSerializer})
    def post(self, request: Request, endpoint_id: int) -> Response:
        endpoint = get_object_or_404(SearchEndpoint.objects.select_related("collection"), pk=endpoint_id)
        data = FetchSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        job = services.snapshot_fetch_start(
            endpoint=endpoint, topics=data.validated_data.get("topics"), typed=data.validated_data.get("queries"),
            variables=data.validated_data.get("variables"), created_by=request.user,
        )  # fmt: skip
        return job_accepted(request, job)


class SnapshotComparison(APIView):
    """Two snapshots' overlap per topic (Jaccard@k, RBO at p 0.9) with what entered and left the top k."""

    permission_classes = [IsResearcherOrAdmin]

    @extend_schema(
        parameters=[OpenApiParameter("before", int, required=True), OpenApiParameter("after", int, required=True),
                    OpenApiParameter("k", int, default=10)],
        responses={200: OpenApiTypes.OBJECT},
    )  # fmt: skip
    def get(self, request: Request) -> Response:
        try:
            snapshots = SearchSnapshot.objects.select_related("endpoint__collection")
            before = snapshots.get(pk=id_given(request.GET["before"]))
            after = snapshots.get(pk=id_given(request.GET["after"]))
            k = int(request.GET.get("k") or 10)
        except (KeyError, ValueError, SearchSnapshot.DoesNotExist) as error:
            raise ValidationError({"before": "give two snapshots' ids as before and after (and k)"}) from error
        if before.endpoint.collection_id != after.endpoint.collection_id or not 1 <= k <= 1000:
            raise ValidationError({"after": "compare two snapshots of one collection, k from 1 to 1,000"})
        return Response(selectors.snapshot_comparison(before=before, after=after, k=k))
