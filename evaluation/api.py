"""REST endpoints of the evaluation app: recompute status, starting a full recompute, and following its Job."""

from __future__ import annotations

from django.db import transaction
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import permissions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

from judging import jobs
from judging.models import Collection, Job

from . import selectors, tasks


class JobSerializer(serializers.ModelSerializer):
    percent = serializers.IntegerField(read_only=True)
    collection = serializers.PrimaryKeyRelatedField(read_only=True)

    class Meta:
        model = Job
        fields = ["id", "kind", "collection", "state", "done", "total", "percent", "message", "result", "created_at"]


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
        body = JobSerializer(job).data | {"url": reverse("api-job", args=[job.id], request=request)}
        return Response(body, status=status.HTTP_202_ACCEPTED)


class JobView(APIView):
    """A long job's progress (imports, pool builds, recomputes); admins only."""

    permission_classes = [permissions.IsAdminUser]

    @extend_schema(responses=JobSerializer)
    def get(self, request: Request, job_id: int) -> Response:
        return Response(JobSerializer(get_object_or_404(Job, pk=job_id)).data)
