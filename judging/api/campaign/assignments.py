"""The API of assignments: who judges which topic, assigned, balanced, reassigned or removed."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, generics, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from judging import progress, selectors, services
from judging.models import Assignment, Collection
from judging.permissions import IsAdmin


class AssignmentSerializer(serializers.ModelSerializer):
    assessor = serializers.CharField(source="assessor.username", read_only=True)
    topic = serializers.CharField(source="topic.number", read_only=True)

    class Meta:
        model = Assignment
        fields = ["id", "assessor", "assessor_id", "topic", "topic_id", "state"]
        read_only_fields = ["assessor_id", "topic_id", "state"]


class AssignRequestSerializer(serializers.Serializer):
    assessors = serializers.ListField(child=serializers.CharField(), min_length=1, help_text="usernames")
    topics = serializers.ListField(child=serializers.CharField(), required=False, help_text="numbers; default all")
    mode = serializers.ChoiceField(
        choices=["balance", "add"],
        default="balance",
        help_text="balance: fill each topic up to k, the work spread; add: put every named assessor on every named "
        "topic, beyond k (they share its items; topics required)",
    )


class AssignmentList(generics.ListAPIView):
    """GET: who judges which topic. POST: assign the named assessors, k per topic, balanced (existing assignments
    count); answers the assignments created."""

    serializer_class = AssignmentSerializer
    permission_classes = [IsAdmin]

    def get_queryset(self):
        collection = get_object_or_404(Collection, pk=self.kwargs["collection_id"])
        return Assignment.objects.filter(topic__collection=collection).select_related("assessor", "topic")

    @extend_schema(request=AssignRequestSerializer, responses={201: AssignmentSerializer(many=True)})
    def post(self, request: Request, collection_id: int) -> Response:
        collection = get_object_or_404(Collection, pk=collection_id)
        serializer = AssignRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        numbers = serializer.validated_data.get("topics")
        people = selectors.assessors_named(usernames=serializer.validated_data["assessors"])
        topics = selectors.topics_numbered(collection=collection, numbers=numbers) if numbers else None
        if serializer.validated_data["mode"] == "add":
            created = services.assignments_add(collection=collection, assessors=people, topics=topics or [])
        else:
            created = services.assignments_balance(collection=collection, assessors=people, topics=topics)
        return Response(AssignmentSerializer(created, many=True).data, status=status.HTTP_201_CREATED)


class ReassignSerializer(serializers.Serializer):
    assessor = serializers.CharField(help_text="username")


class AssignmentDetail(APIView):
    """PATCH hands the assignment to another assessor; DELETE removes it (judgments made stay)."""

    permission_classes = [IsAdmin]

    @extend_schema(request=ReassignSerializer, responses=AssignmentSerializer)
    def patch(self, request: Request, assignment_id: int) -> Response:
        assignment = get_object_or_404(Assignment, pk=assignment_id)
        serializer = ReassignSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        person = progress.assessors().filter(username=serializer.validated_data["assessor"]).first()
        if person is None:
            raise exceptions.ValidationError({"assessor": "no assessor with this username"})
        moved = services.assignment_reassign(assignment=assignment, assessor=person)
        return Response(AssignmentSerializer(moved).data)

    @extend_schema(responses={204: None})
    def delete(self, request: Request, assignment_id: int) -> Response:
        services.assignment_delete(assignment=get_object_or_404(Assignment, pk=assignment_id))
        return Response(status=status.HTTP_204_NO_CONTENT)
