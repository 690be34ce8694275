"""Label sources over the API: each labelling account of a collection with its kind, role and audit trail (read by
admins and researchers), and its kind or role changed by an admin through the one service."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from judging import selectors as judging_selectors
from judging.machines import selectors as machine_selectors
from judging.models import Collection
from judging.permissions import ReadsForResearchersWritesForAdmins, sees_assessors
from judging.sources import selectors, services
from judging.sources.models import SourceKind, SourceRole


class SourceChangeSerializer(serializers.Serializer):
    kind = serializers.CharField()
    role = serializers.CharField()
    previous_kind = serializers.CharField()
    previous_role = serializers.CharField()
    changed_by = serializers.CharField(source="changed_by.username", default=None)
    changed_at = serializers.DateTimeField()
    reason = serializers.CharField()


class SourceSerializer(serializers.Serializer):
    account = serializers.IntegerField(source="account_id")
    name = serializers.CharField()
    kind = serializers.ChoiceField(choices=SourceKind.choices)
    role = serializers.ChoiceField(choices=SourceRole.choices)
    labels = serializers.IntegerField()
    history = SourceChangeSerializer(many=True)


class SourceUpdateSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=SourceKind.choices, required=False)
    role = serializers.ChoiceField(choices=SourceRole.choices, required=False)
    reason = serializers.CharField(required=False, default="", allow_blank=True, max_length=200)


class SourceList(APIView):
    """Every account that labels in the collection: what it is (person, machine, imported, clicks) and what its
    labels do (counted, advisory, gold), with its audit trail."""

    permission_classes = [ReadsForResearchersWritesForAdmins]

    @extend_schema(responses=SourceSerializer(many=True))
    def get(self, request: Request, collection_id: int) -> Response:
        collection = get_object_or_404(Collection, pk=collection_id)
        rows = selectors.collection_sources(
            collection=collection, names=_names(request, collection), reveal=sees_assessors(request.user, collection)
        )
        return Response(SourceSerializer(rows, many=True).data)


class SourceDetail(APIView):
    """PATCH `{"kind", "role", "reason"}` changes one account's source; the change is kept in its trail and, for a
    role, the collection's results are recomputed."""

    permission_classes = [ReadsForResearchersWritesForAdmins]

    @extend_schema(request=SourceUpdateSerializer, responses=SourceSerializer)
    def patch(self, request: Request, collection_id: int, account_id: int) -> Response:
        collection = get_object_or_404(Collection, pk=collection_id)
        serializer = SourceUpdateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.label_source_set(
            collection=collection, account=account_id, changed_by=request.user, **serializer.validated_data
        )
        row = next(r for r in selectors.collection_sources(collection=collection) if r.account_id == account_id)
        return Response(SourceSerializer(row).data)


def _names(request, collection) -> dict[int, str]:
    """The accounts' names as every page shows them to this reader (machines named, people pseudonymised unless
    the reader sees assessors)."""
    reveal = sees_assessors(request.user, collection)
    return machine_selectors.machine_names(collection=collection) | judging_selectors.assessor_names(
        collection=collection, reveal=reveal
    )
