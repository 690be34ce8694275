"""A track over the API: teams (admins), submissions (a participant uploads, lists and withdraws their team's runs;
admins see all) and the pool built from them by priority (admins). Reports are evaluation's
(`/api/collections/ID/submissions/SID/report/`)."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from judging.jobs.api import job_accepted
from judging.models import Collection
from judging.permissions import IsAdmin
from judging.tracks import selectors, services
from judging.tracks.models import RunType, Submission, Team
from judging.tracks.services import SubmissionRefused


class TeamSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100)
    members = serializers.ListField(child=serializers.CharField(max_length=150), allow_empty=False)


def _team(team) -> dict:
    return {"id": team.id, "name": team.name, "members": sorted(m.user.username for m in team.members.all())}


class TeamList(APIView):
    """A collection's teams; admins create them from existing accounts, each member given the participant role."""

    permission_classes = [IsAdmin]

    @extend_schema(operation_id="collections_teams_list", responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request, collection_id: int) -> Response:
        collection = get_object_or_404(Collection, pk=collection_id)
        return Response([_team(team) for team in selectors.collection_teams(collection=collection)])

    @extend_schema(request=TeamSerializer, responses={201: OpenApiTypes.OBJECT})
    def post(self, request: Request, collection_id: int) -> Response:
        collection = get_object_or_404(Collection, pk=collection_id)
        data = TeamSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        team = services.team_create(collection=collection, **data.validated_data)
        return Response(_team(team), status=status.HTTP_201_CREATED)


class TeamDetail(APIView):
    """One team; admins rename it or set its members (PUT, the whole team as POST creates it)."""

    permission_classes = [IsAdmin]

    @extend_schema(operation_id="collections_teams_retrieve", responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request, collection_id: int, team_id: int) -> Response:
        return Response(_team(get_object_or_404(Team, pk=team_id, collection_id=collection_id)))

    @extend_schema(request=TeamSerializer, responses={200: OpenApiTypes.OBJECT})
    def put(self, request: Request, collection_id: int, team_id: int) -> Response:
        team = get_object_or_404(Team, pk=team_id, collection_id=collection_id)
        data = TeamSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return Response(_team(services.team_update(team=team, **data.validated_data)))


class SubmissionSerializer(serializers.Serializer):
    file = serializers.FileField()
    run_type = serializers.ChoiceField(choices=RunType.values)
    description = serializers.CharField(required=False, allow_blank=True, max_length=5000, default="")
    model_family = serializers.CharField(required=False, allow_blank=True, max_length=100, default="")
    priority = serializers.IntegerField(min_value=1, max_value=1000)


def receipt(submission: Submission) -> dict:
    """A submission as its team reads it: the receipt and the questionnaire."""
    return {
        "id": submission.id,
        "run": submission.tag,
        "sha256": submission.sha256,
        "received_at": submission.received_at.isoformat(),
        "team": submission.team.name,
        "run_type": submission.run_type,
        "description": submission.description,
        "model_family": submission.model_family,
        "priority": submission.priority,
        "topics": submission.topics,
        "lines": submission.lines,
        "placeholders": submission.placeholders,
    }


class InTrack(permissions.BasePermission):
    """Admins, and the participants of the collection (the view's `collection_id`)."""

    message = "only the track's participants and its organizers may do this"

    def has_permission(self, request, view) -> bool:
        return selectors.organizes(request.user) or (
            selectors.team_of(user=request.user, collection_id=view.kwargs["collection_id"]) is not None
        )


def refused(error: SubmissionRefused) -> Response:
    """A refusal in the API's one error shape; a refused file's problems also as `problems` (line, field, reason)."""
    body = {"error": {"status": error.http_status, "code": error.code, "message": error.reason}}
    if error.kind == "invalid":
        body |= {"problems": error.problems, "problem_count": error.count}
    return Response(body, status=error.http_status)


class SubmissionList(APIView):
    """The current submissions: a participant's team's, or every team's for admins. A participant POSTs a run file
    (multipart `file`) with its questionnaire: 201 with the receipt, 200 for a replacement of the same tag, 400 with
    every problem named by line and field (nothing saved), 409 for a tag that is not theirs, 403 outside the window
    or over the team's limit."""

    permission_classes = [InTrack]
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(operation_id="collections_submissions_list", responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request, collection_id: int) -> Response:
        collection = get_object_or_404(Collection, pk=collection_id)
        team = None if selectors.organizes(request.user) else selectors.team_of(
            user=request.user, collection_id=collection.pk)  # fmt: skip
        return Response([receipt(s) for s in selectors.current_submissions(collection=collection, team=team)])

    @extend_schema(request=SubmissionSerializer, responses={201: OpenApiTypes.OBJECT, 200: OpenApiTypes.OBJECT})
    def post(self, request: Request, collection_id: int) -> Response:
        collection = get_object_or_404(Collection, pk=collection_id)
        data = SubmissionSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        given = dict(data.validated_data)
        upload = given.pop("file")
        try:
            submission, replaced = services.submission_receive(
                collection=collection, user=request.user, upload=upload, questionnaire=services.Questionnaire(**given)
            )
        except SubmissionRefused as error:
            return refused(error)
        return Response(receipt(submission), status=status.HTTP_200_OK if replaced else status.HTTP_201_CREATED)


class SubmissionDetail(APIView):
    """One submission: its receipt (its team and admins); DELETE withdraws it (its team, before the close)."""

    permission_classes = [InTrack]

    def _submission(self, request: Request, collection_id: int, submission_id: int) -> Submission:
        submission = get_object_or_404(
            Submission.objects.select_related("team", "collection"), pk=submission_id, collection_id=collection_id
        )
        own = selectors.team_of(user=request.user, collection_id=collection_id) == submission.team
        if not (own or selectors.organizes(request.user)):
            raise PermissionDenied("a team sees only its own submissions")
        return submission

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request, collection_id: int, submission_id: int) -> Response:
        submission = self._submission(request, collection_id, submission_id)
        return Response(receipt(submission) | {"state": submission.state})

    @extend_schema(responses={204: None})
    def delete(self, request: Request, collection_id: int, submission_id: int) -> Response:
        submission = self._submission(request, collection_id, submission_id)
        try:
            services.submission_withdraw(submission=submission, user=request.user)
        except SubmissionRefused as error:
            return refused(error)
        return Response(status=status.HTTP_204_NO_CONTENT)


class PriorityPoolSerializer(serializers.Serializer):
    depths = serializers.DictField(child=serializers.IntegerField(min_value=1, max_value=100_000), allow_empty=False)
    strategy = serializers.CharField(default="depth")
    preview = serializers.BooleanField(default=False)

    def validate_depths(self, value: dict) -> dict[int, int]:
        if not all(str(key).isdigit() and int(key) >= 1 for key in value):
            raise serializers.ValidationError("keys are priorities: whole numbers from 1")
        return {int(key): size for key, size in value.items()}


class SubmissionPool(APIView):
    """Admins pool the current submissions by priority: {"depths": {"1": 100, "2": 20}, "strategy", "preview"}; a
    preview answers 200 with what a build would add, a build 202 with its job."""

    permission_classes = [IsAdmin]

    @extend_schema(request=PriorityPoolSerializer, responses={200: OpenApiTypes.OBJECT, 202: OpenApiTypes.OBJECT})
    def post(self, request: Request, collection_id: int) -> Response:
        collection = get_object_or_404(Collection, pk=collection_id)
        data = PriorityPoolSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        given = data.validated_data
        if not given["preview"]:
            job = services.submissions_pool_start(collection=collection, depths=given["depths"],
                                                  strategy=given["strategy"], created_by=request.user)  # fmt: skip
            return job_accepted(request, job)
        report = services.submissions_pool(collection=collection, depths=given["depths"], strategy=given["strategy"])
        return Response(
            {
                "committed": report.committed,
                "added": report.added,
                "topics": {number: {"new": new, "pooled": before} for number, (new, before) in report.topics.items()},
                "unique": report.unique,
            }
        )
