"""A standard collection by id over the API: POST an ir_datasets id, get the job (202)."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from judging.datasets.services import DOCUMENT_CHOICES, dataset_import_start
from judging.jobs.api import JobSerializer, job_accepted
from judging.models import Collection
from judging.permissions import IsAdmin


class DatasetSerializer(serializers.Serializer):
    dataset = serializers.CharField(max_length=200, help_text="an ir_datasets id, with or without irds:")
    documents = serializers.ChoiceField(choices=DOCUMENT_CHOICES, default="none")


class DatasetImport(APIView):
    """Imports a standard collection's topics, qrels and (none, pooled or all) documents as a job."""

    permission_classes = [IsAdmin]

    @extend_schema(request=DatasetSerializer, responses={202: JobSerializer})
    def post(self, request: Request, collection_id: int) -> Response:
        collection = get_object_or_404(Collection, pk=collection_id)
        data = DatasetSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        job = dataset_import_start(collection=collection, dataset=data.validated_data["dataset"],
                                   documents=data.validated_data["documents"], created_by=request.user)  # fmt: skip
        return job_accepted(request, job)
