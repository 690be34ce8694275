"""Long jobs over the API (imports, pool builds, full recomputes): their progress, and the 202 that starts one."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

from judging.jobs.models import Job
from judging.permissions import IsAdmin


class JobSerializer(serializers.ModelSerializer):
    percent = serializers.IntegerField(read_only=True)
    collection = serializers.PrimaryKeyRelatedField(read_only=True)

    class Meta:
        model = Job
        fields = ["id", "kind", "collection", "state", "done", "total", "percent", "message", "result", "created_at"]


def job_accepted(request: Request, job: Job) -> Response:
    """202 with the job and the URL to poll."""
    body = JobSerializer(job).data | {"url": reverse("api-job", args=[job.id], request=request)}
    return Response(body, status=status.HTTP_202_ACCEPTED)


class JobView(APIView):
    """A long job's progress and result: admins see every job, other users the jobs they started (trial runs)."""

    @extend_schema(responses=JobSerializer)
    def get(self, request: Request, job_id: int) -> Response:
        job = get_object_or_404(Job, pk=job_id)
        if job.created_by_id != request.user.pk and not IsAdmin().has_permission(request, self):
            raise PermissionDenied("only admins and the user who started a job may follow it")
        return Response(JobSerializer(job).data)
