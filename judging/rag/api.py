"""RAG answers and nuggets over the API: import answer runs (admins), a topic's nuggets (read and post-edited by
admins and the topic's assessors), an assessor's assignments and support judgments, and a machine judge's nugget
work (admins). The scores are evaluation's (`/api/collections/ID/rag-leaderboard/`)."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.ids import IdField
from judging.jobs.api import job_accepted
from judging.machines.models import MachineJudge
from judging.models import ROLE_ADMIN, Assignment, Collection, Topic
from judging.permissions import IsAdmin, ReadsForResearchersWritesForAdmins, user_roles
from judging.rag.models.answers import Answer, SupportLabel
from judging.rag.models.nuggets import AssignmentLabel, Importance, Nugget
from judging.rag.selectors import answers as selectors
from judging.rag.services import answers as services
from judging.rag.services import assignments, machine
from judging.rag.services import nuggets as edits


def _topic_allowed(request: Request, topic: Topic) -> None:
    """Admins, and the assessors the topic is assigned to; nobody else reads or labels its answers."""
    if ROLE_ADMIN in user_roles(request.user):
        return
    if not Assignment.objects.filter(assessor=request.user, topic=topic).exists():
        raise PermissionDenied("this topic is not assigned to you")


class AnswerRunImportSerializer(serializers.Serializer):
    file = serializers.FileField()
    create_missing = serializers.BooleanField(default=False)


class AnswerRuns(APIView):
    """A collection's RAG runs; admins import a file of them (TREC RAG 2024 or 2025 lines), all or nothing."""

    permission_classes = [ReadsForResearchersWritesForAdmins]
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request, collection_id: int) -> Response:
        collection = get_object_or_404(Collection, pk=collection_id)
        runs = selectors.answer_runs(collection=collection)
        return Response([{"run": r["run"].tag, "run_id": r["run"].id, "answers": r["answers"],
                          "format": r["format"], "file": r["file"]} for r in runs])  # fmt: skip

    @extend_schema(request=AnswerRunImportSerializer, responses={201: OpenApiTypes.OBJECT})
    def post(self, request: Request, collection_id: int) -> Response:
        collection = get_object_or_404(Collection, pk=collection_id)
        data = AnswerRunImportSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        upload = data.validated_data["file"]
        upload.seek(0)
        try:
            result = services.answer_runs_import(
                collection=collection, file=upload.name, lines=upload.file, owner=request.user,
                create_missing=data.validated_data["create_missing"],
            )  # fmt: skip
        except UnicodeDecodeError as error:
            raise serializers.ValidationError({"file": f"{upload.name} is not UTF-8 text"}) from error
        return Response(result, status=status.HTTP_201_CREATED)


class NuggetSerializer(serializers.ModelSerializer):
    proposed_by = serializers.CharField(source="proposed_by.name", read_only=True, default=None)

    class Meta:
        model = Nugget
        fields = ["id", "text", "importance", "position", "accepted", "proposed_by"]
        read_only_fields = ["id", "position", "accepted", "proposed_by"]


class TopicNuggets(APIView):
    """A topic's nuggets (not removed); a person adds one."""

    @extend_schema(responses=NuggetSerializer(many=True))
    def get(self, request: Request, topic_id: int) -> Response:
        topic = get_object_or_404(Topic, pk=topic_id)
        _topic_allowed(request, topic)
        nuggets = Nugget.objects.filter(topic=topic, removed=False).select_related("proposed_by")
        return Response(NuggetSerializer(nuggets.order_by("position", "id"), many=True).data)

    @extend_schema(request=NuggetSerializer, responses={201: NuggetSerializer})
    def post(self, request: Request, topic_id: int) -> Response:
        topic = get_object_or_404(Topic, pk=topic_id)
        _topic_allowed(request, topic)
        data = NuggetSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        nugget = edits.nugget_create(
            topic=topic, text=data.validated_data["text"],
            importance=data.validated_data.get("importance", Importance.OKAY), by=request.user,
        )  # fmt: skip
        return Response(NuggetSerializer(nugget).data, status=status.HTTP_201_CREATED)


class NuggetEditSerializer(serializers.Serializer):
    text = serializers.CharField(required=False)
    importance = serializers.ChoiceField(choices=Importance.choices, required=False)
    accepted = serializers.BooleanField(required=False)


class NuggetDetail(APIView):
    """A nugget reworded, given an importance, accepted (a machine's proposal) or removed (kept in its history)."""

    def _nugget(self, request: Request, nugget_id: int) -> Nugget:
        nugget = get_object_or_404(Nugget.objects.select_related("topic"), pk=nugget_id)
        _topic_allowed(request, nugget.topic)
        return nugget

    @extend_schema(request=NuggetEditSerializer, responses=NuggetSerializer)
    def patch(self, request: Request, nugget_id: int) -> Response:
        nugget = self._nugget(request, nugget_id)
        data = NuggetEditSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        changes = data.validated_data
        nugget = edits.nugget_edit(nugget=nugget, by=request.user, text=changes.get("text"),
                                   importance=changes.get("importance"))  # fmt: skip
        if changes.get("accepted"):
            edits.nuggets_accept(topic=nugget.topic, by=request.user, nugget_ids=[nugget.pk])
            nugget.refresh_from_db()
        return Response(NuggetSerializer(nugget).data)

    @extend_schema(responses={204: None})
    def delete(self, request: Request, nugget_id: int) -> Response:
        edits.nugget_remove(nugget=self._nugget(request, nugget_id), by=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class NuggetAssignmentSerializer(serializers.Serializer):
    nugget = IdField()
    label = serializers.ChoiceField(choices=[c for c in AssignmentLabel.choices if c[0] != AssignmentLabel.FAILED])


def _answer_and_data(request: Request, answer_id: int, serializer_class) -> tuple[Answer, dict]:
    """The answer (for an admin or its topic's assessor) and the request's validated data."""
    answer = get_object_or_404(Answer.objects.select_related("topic"), pk=answer_id)
    _topic_allowed(request, answer.topic)
    data = serializer_class(data=request.data)
    data.is_valid(raise_exception=True)
    return answer, data.validated_data


class AnswerAssignments(APIView):
    """The calling assessor's label of whether the answer holds a nugget (recorded again: changed)."""

    @extend_schema(request=NuggetAssignmentSerializer, responses={200: OpenApiTypes.OBJECT})
    def post(self, request: Request, answer_id: int) -> Response:
        answer, data = _answer_and_data(request, answer_id, NuggetAssignmentSerializer)
        nugget = get_object_or_404(Nugget, pk=data["nugget"], topic_id=answer.topic_id)
        row = assignments.assignment_record(assessor=request.user, answer=answer, nugget=nugget, label=data["label"])
        return Response({"answer": answer.id, "nugget": nugget.id, "label": row.label})


class SupportSerializer(serializers.Serializer):
    sentence = serializers.IntegerField(min_value=0)
    document = IdField()
    label = serializers.ChoiceField(choices=SupportLabel.choices)


class AnswerSupport(APIView):
    """The calling assessor's judgment of whether a cited segment supports a sentence of the answer."""

    @extend_schema(request=SupportSerializer, responses={200: OpenApiTypes.OBJECT})
    def post(self, request: Request, answer_id: int) -> Response:
        answer, data = _answer_and_data(request, answer_id, SupportSerializer)
        row = services.support_record(
            assessor=request.user, answer=answer, sentence=data["sentence"], document_id=data["document"],
            label=data["label"],
        )  # fmt: skip
        return Response(
            {"answer": answer.id, "sentence": row.sentence, "document": row.document_id, "label": row.label}
        )


class MachineNuggetWorkSerializer(serializers.Serializer):
    work = serializers.ChoiceField(
        choices=[("propose", "propose nuggets"), ("assign", "assign nuggets"), ("support", "judge citations' support")]
    )


class MachineNuggetWork(APIView):
    """Starts a chat judge proposing the topics' nuggets, assigning them to the answers, or judging the citations'
    support, as a Job (202)."""

    permission_classes = [IsAdmin]

    @extend_schema(request=MachineNuggetWorkSerializer, responses={202: OpenApiTypes.OBJECT})
    def post(self, request: Request, judge_id: int) -> Response:
        judge = get_object_or_404(MachineJudge, pk=judge_id)
        data = MachineNuggetWorkSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        start = (
            machine.nuggets_propose_start if data.validated_data["work"] == "propose" else machine.nuggets_assign_start
        )
        return job_accepted(request, start(judge=judge, created_by=request.user))
