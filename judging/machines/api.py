"""Machine judges over the API: create and configure one, preview its prompt on a pair, start a run (a Job) and
cancel it, read its labels; and the assessor's queue, so that a team's own pipeline judges through the API with
an assessor account's token as a person's page does."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import exceptions, generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from judging import selectors
from judging.jobs import runner as jobs
from judging.jobs.api import JobSerializer, job_accepted
from judging.jobs.models import Job
from judging.machines import selectors as machine_selectors
from judging.machines import services as service
from judging.machines.models import MachineJudge, MachineReply
from judging.models import Assignment, Collection, Document, PoolItem, Topic
from judging.permissions import IsAdmin, IsAssessor, ReadsForResearchersWritesForAdmins
from judging.quality import selectors as checking

QUEUE_LIMIT = 100


class MachineJudgeSerializer(serializers.ModelSerializer):
    account = serializers.CharField(source="account.username", read_only=True)
    spending = serializers.SerializerMethodField(
        help_text="under its current configuration: replies, tokens, cost (with prices), latency p50/p95, failures "
        "by class with examples"
    )

    @extend_schema_field(serializers.DictField())
    def get_spending(self, judge) -> dict:
        return machine_selectors.judge_spending(judge=judge)

    estimate = serializers.SerializerMethodField(
        help_text="what a run over the pairs left would take: pairs, calls, tokens, cost, seconds, the basis "
        "(measured or rendered) and the calls its budget allows when fewer"
    )

    @extend_schema_field(serializers.DictField())
    def get_estimate(self, judge) -> dict:
        return machine_selectors.run_estimate(judge=judge)

    gullibility = serializers.SerializerMethodField(
        help_text="its last gullibility probes: per kind tried, flipped, failed, share and Wilson 95% interval; "
        "flagged when the worst kind's share is over the limit; current when they measured this configuration"
    )

    @extend_schema_field(serializers.DictField(allow_null=True))
    def get_gullibility(self, judge) -> dict | None:
        return machine_selectors.gullibility(judge=judge)

    scale_map = serializers.DictField(child=serializers.IntegerField(), required=False)

    class Meta:
        model = MachineJudge
        fields = ["id", "name", "account", "version", "configuration", *service.SETTINGS, "spending", "estimate",
                  "gullibility", "created_at", "updated_at"]  # fmt: skip
        read_only_fields = ["id", "account", "version", "configuration", "spending", "estimate", "gullibility",
                            "created_at", "updated_at"]  # fmt: skip
        validators = []  # the service names a taken name

    def create(self, validated_data):
        collection = self.context["collection"]
        name = validated_data.pop("name")
        return service.machine_judge_create(collection=collection, name=name, **validated_data)

    def update(self, instance, validated_data):
        validated_data.pop("name", None)  # a judge keeps its name (and account)
        return service.machine_judge_update(judge=instance, **validated_data)


class MachineJudgeList(generics.ListCreateAPIView):
    """A collection's machine judges; admins add one (advisory from the start)."""

    serializer_class = MachineJudgeSerializer
    permission_classes = [ReadsForResearchersWritesForAdmins]

    def _collection(self) -> Collection:
        return get_object_or_404(Collection, pk=self.kwargs["collection_id"])

    def get_queryset(self):
        return MachineJudge.objects.filter(collection=self._collection()).select_related("account").order_by("id")

    def get_serializer_context(self):
        return {**super().get_serializer_context(), "collection": self._collection()}


class MachineJudgeDetail(generics.RetrieveUpdateAPIView):
    """One judge; PATCH changes its settings (a change of what replies depend on is a new version)."""

    queryset = MachineJudge.objects.select_related("account", "collection")
    serializer_class = MachineJudgeSerializer
    permission_classes = [ReadsForResearchersWritesForAdmins]
    lookup_url_kwarg = "judge_id"
    http_method_names = ["get", "patch", "head", "options"]


class PreviewSerializer(serializers.Serializer):
    topic = serializers.CharField(help_text="the topic's number")
    docno = serializers.CharField()
    ask = serializers.BooleanField(default=False, help_text="also ask the model (nothing is recorded)")
    template = serializers.CharField(required=False, allow_blank=False, help_text="an unsaved template to try")


class MachineJudgePreview(APIView):
    permission_classes = [IsAdmin]

    @extend_schema(request=PreviewSerializer, responses={200: OpenApiTypes.OBJECT})
    def post(self, request: Request, judge_id: int) -> Response:
        judge = get_object_or_404(MachineJudge.objects.select_related("collection"), pk=judge_id)
        serializer = PreviewSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        item = PoolItem.objects.filter(
            topic__collection=judge.collection, topic__number=data["topic"], document__docno=data["docno"]
        ).select_related("topic", "document")
        item = item.first()
        if item is None:
            raise exceptions.NotFound(f"no pooled pair ({data['topic']}, {data['docno']}) in this collection")
        preview = service.machine_judge_preview(
            judge=judge, topic=item.topic, document=item.document, ask=data["ask"], template_text=data.get("template")
        )
        return Response(preview)


class MachineRunSerializer(serializers.Serializer):
    topics = serializers.ListField(child=serializers.CharField(), required=False, help_text="topic numbers")
    limit = serializers.IntegerField(required=False, min_value=1)
    retry_failed = serializers.BooleanField(default=False)


class MachineJudgeRun(APIView):
    """Starts a run as a Job: 202 with the job to poll (its `result` holds the running figures)."""

    permission_classes = [IsAdmin]

    @extend_schema(request=MachineRunSerializer, responses={202: JobSerializer})
    def post(self, request: Request, judge_id: int) -> Response:
        judge = get_object_or_404(MachineJudge.objects.select_related("collection"), pk=judge_id)
        serializer = MachineRunSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        topics = selectors.topics_numbered(collection=judge.collection, numbers=data.get("topics") or [])
        job = service.machine_judge_run_start(
            judge=judge,
            topic_ids=[t.id for t in topics],
            limit=data.get("limit"),
            retry_failed=data["retry_failed"],
            created_by=request.user,
        )
        return job_accepted(request, job)


class ProbeSerializer(serializers.Serializer):
    count = serializers.IntegerField(default=20, min_value=1, max_value=500, help_text="documents to probe")


class MachineJudgeProbes(APIView):
    """Starts the judge's gullibility probes as a Job: 202 with the job to poll; its result, and then the judge's
    `gullibility`, hold the report."""

    permission_classes = [IsAdmin]

    @extend_schema(request=ProbeSerializer, responses={202: JobSerializer})
    def post(self, request: Request, judge_id: int) -> Response:
        judge = get_object_or_404(MachineJudge.objects.select_related("collection"), pk=judge_id)
        serializer = ProbeSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        job = service.machine_judge_probe_start(
            judge=judge, count=serializer.validated_data["count"], created_by=request.user
        )
        return job_accepted(request, job)


class JobEnded(exceptions.APIException):
    status_code, default_detail, default_code = 409, "the job has already ended", "job_ended"


class JobCancel(APIView):
    """Asks a job to stop (a queued one at once, a running one at its next step); 409 once it has ended."""

    permission_classes = [IsAdmin]

    @extend_schema(request=None, responses=JobSerializer)
    def post(self, request: Request, job_id: int) -> Response:
        job = get_object_or_404(Job, pk=job_id)
        if not jobs.job_cancel(job=job):
            raise JobEnded()
        job.refresh_from_db()
        return Response(JobSerializer(job).data)


class ReplySerializer(serializers.ModelSerializer):
    topic = serializers.CharField(source="topic.number")
    docno = serializers.CharField(source="document.docno")
    vote_share = serializers.SerializerMethodField(help_text="the share of the samples' votes for its grade")

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_vote_share(self, reply) -> float | None:
        return machine_selectors.vote_share(reply.votes, reply.grade)

    class Meta:
        model = MachineReply
        fields = ["topic", "docno", "grade", "votes", "vote_share", "failure", "reply", "prompt_tokens",
                  "completion_tokens", "seconds", "created_at"]  # fmt: skip


class MachineJudgeLabels(generics.ListAPIView):
    """The judge's replies under its current configuration: each pair's grade (as recorded as its judgment) with
    the raw reply, tokens and latency, or the failure recorded instead. `failed=true` lists the failures only."""

    serializer_class = ReplySerializer
    permission_classes = [ReadsForResearchersWritesForAdmins]

    def get_queryset(self):
        judge = get_object_or_404(MachineJudge, pk=self.kwargs["judge_id"])
        replies = MachineReply.objects.filter(judge=judge, configuration=judge.configuration)
        if self.request.query_params.get("failed") == "true":
            replies = replies.exclude(failure="")
        return replies.select_related("topic", "document").order_by("topic_id", "document__docno")

    @extend_schema(parameters=[OpenApiParameter("failed", bool, description="only the failed pairs")])
    def get(self, request: Request, *args, **kwargs) -> Response:
        return super().get(request, *args, **kwargs)


class AssessorQueue(APIView):
    """The next documents for the caller on a topic assigned to them, in the collection's judging order: what their
    judging page would show next, quality checks included as the page has them. Each with id, docno and its entry
    `key` (POST /api/judgments/ with `entry` answers that entry, as the page's save does), the topic's text and each
    document's. Blind as the page is: no run, rank or other assessor's label, and nothing marks a check."""

    permission_classes = [IsAssessor]

    @extend_schema(
        parameters=[OpenApiParameter("limit", int, description=f"at most this many (≤ {QUEUE_LIMIT})")],
        responses={200: OpenApiTypes.OBJECT},
    )
    def get(self, request: Request, topic_id: int) -> Response:
        topic = get_object_or_404(Topic.objects.select_related("collection"), pk=topic_id)
        if not Assignment.objects.filter(assessor=request.user, topic=topic).exists():
            raise exceptions.PermissionDenied(f"topic {topic.number} is not assigned to you")
        raw = request.query_params.get("limit", "10")
        if not raw.isdigit() or not 1 <= int(raw) <= QUEUE_LIMIT:
            raise exceptions.ValidationError({"limit": f"a whole number from 1 to {QUEUE_LIMIT}"})
        page = checking.judging_page_queue(assessor_id=request.user.id, topic=topic)  # the page's, checks and all
        waiting = checking.upcoming_of(page)[: int(raw)]
        texts = dict(
            (d.pk, d) for d in Document.objects.filter(pk__in=[e["id"] for e in waiting]).only("title", "body", "url")
        )
        return Response(
            {
                "topic": {"id": topic.id, "number": topic.number, "title": topic.title,
                          "description": topic.description, "narrative": topic.narrative},
                "left": page.total - page.judged,
                "documents": [
                    {"id": e["id"], "docno": e["docno"], "key": e["key"], "title": texts[e["id"]].title,
                     "text": texts[e["id"]].body}
                    for e in waiting
                ],
            }
        )  # fmt: skip
