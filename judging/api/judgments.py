"""Assessors' own judgments over the API, read and written through the one write service."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, generics, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from config.ids import BoundedPrimaryKeyRelatedField
from judging import selectors
from judging.models import Document, Judgment, Topic
from judging.permissions import IsAssessor
from judging.quality import selectors as checking
from judging.quality.services import entries
from judging.quality.services import pauses as quality
from judging.sources import selectors as sources


class JudgmentSerializer(serializers.ModelSerializer):
    topic = BoundedPrimaryKeyRelatedField(queryset=Topic.objects.all())
    document = BoundedPrimaryKeyRelatedField(queryset=Document.objects.all())
    grade = serializers.IntegerField(allow_null=True, min_value=0, max_value=5)
    seconds_total = serializers.FloatField(write_only=True, required=False, min_value=0, max_value=1e7)
    entry = serializers.RegexField(
        r"^[0-9a-f]{0,32}$", write_only=True, required=False, allow_blank=True,
        help_text="the queue entry's key (GET /api/topics/ID/queue/); its answer is the entry's, as on the page",
    )  # fmt: skip

    class Meta:
        model = Judgment
        fields = [
            "id",
            "topic",
            "document",
            "grade",
            "note",
            "cannot_judge_reason",
            "seconds_spent",
            "seconds_total",
            "entry",
            "updated_at",
        ]
        read_only_fields = ["id", "seconds_spent", "updated_at"]
        validators = []  # (assessor, topic, document) is unique: a repeated POST updates, it is not an error


class JudgmentListCreate(generics.ListCreateAPIView):
    """The caller's own judgments (never anyone else's), filterable by `topic`; POST records one (creating or
    updating it, idempotently) for a topic assigned to the caller and a document in its pool, else 403."""

    serializer_class = JudgmentSerializer
    permission_classes = [IsAssessor]

    def get_queryset(self):
        judgments = sources.own_labels(assessor_id=self.request.user.pk).order_by("id")
        topic = self.request.query_params.get("topic")
        if topic is not None:
            if not topic.isdigit():
                raise exceptions.ValidationError({"topic": "must be a topic id"})
            judgments = judgments.filter(topic_id=int(topic))
        topic_ids = judgments.values_list("topic_id", flat=True).distinct()
        for topic_id, document_id in checking.repeats_waiting(assessor_id=self.request.user.pk, topic_ids=topic_ids):
            judgments = judgments.exclude(topic_id=topic_id, document_id=document_id)  # its repeat is still due
        return judgments

    @extend_schema(parameters=[OpenApiParameter("topic", int, description="only this topic's judgments")])
    def get(self, request: Request, *args, **kwargs) -> Response:
        return super().get(request, *args, **kwargs)

    def create(self, request: Request, *args, **kwargs) -> Response:
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        topic = get_object_or_404(selectors.topics_with_settings(), pk=data["topic"].pk)
        if data["document"].collection_id != topic.collection_id:
            raise exceptions.NotFound("no such document in this topic's collection")
        own = sources.own_labels(assessor_id=request.user.pk, topic_ids=[topic.pk]).filter(document=data["document"])
        existed = own.exists()
        # The one exception handler answers the service's refusals: 400 by field, 403, 409 for a full item.
        saved = entries.entry_judge(
            assessor=request.user,
            topic=topic,
            document=data["document"],
            entry=data.get("entry", ""),
            grade=data["grade"],
            note=data.get("note", ""),
            cannot_judge_reason=data.get("cannot_judge_reason", ""),
            seconds_total=data.get("seconds_total"),
        )
        if "entry" in data:  # an entry of the queue: answered alike, whatever the entry is
            body = {"entry": data["entry"], "topic": topic.pk, "document": data["document"].pk,
                    "grade": data["grade"], "note": data.get("note", ""),
                    "cannot_judge_reason": data.get("cannot_judge_reason", "")}  # fmt: skip
            code = status.HTTP_200_OK
        else:
            judgment = own.get()
            code = status.HTTP_200_OK if existed else status.HTTP_201_CREATED
            body = self.get_serializer(judgment).data
        if saved.paused:
            body = {**body, "paused": quality.PAUSED_MESSAGE}  # this one is kept; the next is refused (403 paused)
        return Response(body, status=code)
