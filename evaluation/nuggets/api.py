"""The RAG leaderboard over the API: each run's nugget and support scores with their freshness, the people's
agreement on assignments, and each machine assigner against people."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from evaluation.nuggets import selectors
from judging.models import Collection
from judging.permissions import IsResearcherOrAdmin


class RagLeaderboard(APIView):
    permission_classes = [IsResearcherOrAdmin]

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request, collection_id: int) -> Response:
        collection = get_object_or_404(Collection, pk=collection_id)
        return Response({
            **selectors.rag_leaderboard(collection=collection),
            "agreement": selectors.assignment_agreement(collection=collection),
            "machines": selectors.machine_against_people(collection=collection),
        })  # fmt: skip
