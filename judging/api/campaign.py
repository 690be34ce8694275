"""The campaign over the API: collections, topics, documents and runs (read by researchers, written by admins),
file imports and pool builds as jobs, and assignments."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, generics, serializers, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.ids import IdField
from judging import progress, selectors, services
from judging.imports.services import IMPORT_KINDS, import_start
from judging.jobs.api import job_accepted
from judging.models import Assignment, Collection, Document, PoolItem, Run, Topic
from judging.ordering.core import pool_strategies
from judging.permissions import IsAdmin, ReadsForResearchersWritesForAdmins
from judging.services import pools
from judging.sources import selectors as sources
from judging.sources.models import SourceRole


class AccountsInRole(serializers.ListField):
    """The accounts whose labels have a role in the collection (its label sources), as a list of user ids; written
    through the settings service, which sets the sources' roles with an audit trail."""

    def __init__(self, *, role: str, **kwargs):
        self.role = role
        super().__init__(child=IdField(), required=False, **kwargs)

    def get_attribute(self, instance):
        return sorted(sources.accounts_in_role(collection=instance, role=self.role))


class CollectionSerializer(serializers.ModelSerializer):
    """A collection and every setting its settings page has; PATCH changes any of them through the one settings
    service (which refuses what the page refuses, naming the field)."""

    advisory_assessors = AccountsInRole(role=SourceRole.ADVISORY)
    gold_assessors = AccountsInRole(role=SourceRole.GOLD)
    verification_judge = IdField(source="verification_judge_id", required=False, allow_null=True)

    class Meta:
        model = Collection
        fields = [
            "id",
            "name",
            "description",
            "max_grade",
            "relevance_threshold",
            "assessors_per_item",
            "disagreement_tolerance",
            "consensus_method",
            "trec_eval_version",
            "measures",
            "blind",
            "judging_order",
            "pause_below",
            "pause_window",
            "gold_rate",
            "repeat_rate",
            "judging_mode",
            "preference_candidates",
            "preference_top",
            "verification_judge",
            "verification_mode",
            "advisory_assessors",
            "gold_assessors",
            "agreement_measure",
            "shuffle_within_priority",
            "guidelines",
            "researchers_see_assessors",
            "ir_datasets_id",
            "created_at",
        ]
        read_only_fields = ["id", "created_at"]

    def update(self, instance, validated_data):
        if "verification_judge_id" in validated_data:
            validated_data["verification_judge"] = validated_data.pop("verification_judge_id")
        changed_by = self.context["request"].user if "request" in self.context else None
        return services.collection_settings_update(collection=instance, changed_by=changed_by, **validated_data)


class TopicSerializer(serializers.ModelSerializer):
    class Meta:
        model = Topic
        fields = ["id", "number", "title", "description", "narrative"]


class DocumentSerializer(serializers.ModelSerializer):
    class Meta:
        model = Document
        fields = ["id", "docno", "title", "body", "url"]


class RunSerializer(serializers.ModelSerializer):
    class Meta:
        model = Run
        fields = ["id", "tag", "description", "precedence", "model_family", "uploaded_at"]


class PoolItemSerializer(serializers.ModelSerializer):
    topic = serializers.CharField(source="topic.number")
    docno = serializers.CharField(source="document.docno")

    class Meta:
        model = PoolItem
        fields = ["id", "topic", "docno", "contributing_runs", "best_rank", "priority", "strategy"]
        fields += ["inclusion_probability", "stratum"]


class AssignmentSerializer(serializers.ModelSerializer):
    assessor = serializers.CharField(source="assessor.username", read_only=True)
    topic = serializers.CharField(source="topic.number", read_only=True)

    class Meta:
        model = Assignment
        fields = ["id", "assessor", "assessor_id", "topic", "topic_id", "state"]
        read_only_fields = ["assessor_id", "topic_id", "state"]


class CollectionList(generics.ListCreateAPIView):
    """Collections; admins create them."""

    queryset = Collection.objects.order_by("id")
    serializer_class = CollectionSerializer
    permission_classes = [ReadsForResearchersWritesForAdmins]

    def perform_create(self, serializer):
        settings = dict(serializer.validated_data)
        if settings.pop("verification_judge_id", None) is not None:
            raise exceptions.ValidationError({"verification_judge": "a new collection has no machine judge yet"})
        serializer.instance = services.collection_create(created_by=self.request.user, **settings)


class CollectionDetail(generics.RetrieveUpdateAPIView):
    """One collection; admins PATCH its settings (any the settings page has)."""

    queryset = Collection.objects.all()
    serializer_class = CollectionSerializer
    permission_classes = [ReadsForResearchersWritesForAdmins]
    lookup_url_kwarg = "collection_id"
    http_method_names = ["get", "patch", "head", "options"]


class _InCollection(generics.ListAPIView):
    permission_classes = [ReadsForResearchersWritesForAdmins]
    model = None

    def get_queryset(self):
        collection = get_object_or_404(Collection, pk=self.kwargs["collection_id"])
        return self.model.objects.filter(collection=collection).order_by("id")


class TopicList(_InCollection):
    serializer_class, model = TopicSerializer, Topic


class DocumentList(_InCollection):
    """Documents, filterable by `docno`."""

    serializer_class, model = DocumentSerializer, Document

    @extend_schema(parameters=[OpenApiParameter("docno", str)])
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        documents = super().get_queryset()
        docno = self.request.query_params.get("docno")
        return documents.filter(docno=docno) if docno is not None else documents


class RunList(_InCollection):
    serializer_class, model = RunSerializer, Run


class ImportSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=IMPORT_KINDS)
    file = serializers.ListField(
        child=serializers.FileField(),
        allow_empty=False,
        help_text="one file, several (the field repeated), or a .zip or .tar.gz of them: one job, all or nothing",
    )
    skip_invalid = serializers.BooleanField(default=False)
    source = serializers.CharField(
        required=False, default="", allow_blank=True, max_length=60,
        help_text="qrels: the source the labels belong to (default 'imported'; a fifth column names its own)",
    )  # fmt: skip
    role = serializers.ChoiceField(
        choices=SourceRole.choices, default=SourceRole.COUNTED, help_text="qrels: counted, advisory or gold"
    )
    model_family = serializers.CharField(
        required=False, default="", allow_blank=True, max_length=100,
        help_text="runs: the model family they use (a run sharing a machine judge's family is marked)",
    )  # fmt: skip
    create_missing = serializers.BooleanField(
        default=False, help_text="runs, qrels: make the topics and documents the collection lacks as placeholders"
    )
    pooled_only = serializers.BooleanField(
        default=False, help_text="documents: keep only the pooled documents (a corpus read as a stream)"
    )
    top_k = serializers.IntegerField(
        required=False, allow_null=True, default=None, min_value=1, max_value=10_000,
        help_text="documents, with pooled_only: also those some run ranks in a topic's top k",
    )  # fmt: skip


class ImportCreate(APIView):
    """Uploads topics, documents, runs or qrels (multipart; `file` repeated for several files, or an archive); the
    import runs as one job (202): follow its `url` for progress, and its result for the problems (file, line,
    field, reason) of every file if it was refused."""

    permission_classes = [IsAdmin]
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(request={"multipart/form-data": ImportSerializer}, responses={202: None})
    def post(self, request: Request, collection_id: int) -> Response:
        collection = get_object_or_404(Collection, pk=collection_id)
        data = (
            {**request.data.dict(), "file": request.FILES.getlist("file")}
            if hasattr(request.data, "dict")
            else request.data
        )
        serializer = ImportSerializer(data=data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        job = import_start(
            collection=collection,
            kind=data["kind"],
            files=data["file"],
            skip_invalid=data["skip_invalid"],
            created_by=request.user,
            source=data["source"],
            role=data["role"],
            model_family=data["model_family"],
            create_missing=data["create_missing"],
            pooled_only=data["pooled_only"],
            top_k=data["top_k"],
        )
        return job_accepted(request, job)


class PoolBuildSerializer(serializers.Serializer):
    strategy = serializers.ChoiceField(choices=list(pool_strategies.REGISTRY))
    size = serializers.IntegerField(min_value=1, max_value=100_000, help_text="depth k, or the budget per topic")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["strategy"].choices = list(pool_strategies.REGISTRY)  # registered after import too

    runs = serializers.ListField(child=serializers.CharField(), required=False, help_text="run tags; default all")
    more_assessors = serializers.BooleanField(default=False)
    preview = serializers.BooleanField(default=False)


class PoolView(generics.ListAPIView):
    """GET: the pool's items (filter `topic` by number) in judging order. POST: build it with a strategy; with
    `preview` the answer (200) is what would be added per topic and each run's unique contribution, else a job
    (202)."""

    serializer_class = PoolItemSerializer
    permission_classes = [ReadsForResearchersWritesForAdmins]

    def get_queryset(self):
        collection = get_object_or_404(Collection, pk=self.kwargs["collection_id"])
        items = PoolItem.objects.filter(topic__collection=collection).select_related("topic", "document")
        topic = self.request.query_params.get("topic")
        if topic is not None:
            items = items.filter(topic__number=topic)
        return items.order_by("topic_id", "-priority", "id")

    @extend_schema(parameters=[OpenApiParameter("topic", str, description="a topic number")])
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(request=PoolBuildSerializer, responses={200: None, 202: None})
    def post(self, request: Request, collection_id: int) -> Response:
        collection = get_object_or_404(Collection, pk=collection_id)
        serializer = PoolBuildSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        runs = selectors.runs_tagged(collection=collection, tags=data.get("runs", []))
        if data["preview"]:
            report = pools.pool_build(
                collection=collection,
                strategy=data["strategy"],
                depth=data["size"],
                budget=data["size"],
                runs=runs or None,
                more_assessors=data["more_assessors"],
                commit=False,
            )
            topics = {number: {"new": new, "pooled": old} for number, (new, old) in report.topics.items()}
            return Response({"added": report.added, "topics": topics, "unique": report.unique})
        job = pools.pool_build_start(
            collection=collection,
            strategy=data["strategy"],
            size=data["size"],
            runs=runs,
            more_assessors=data["more_assessors"],
            created_by=request.user,
        )
        return job_accepted(request, job)


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


class StandingSerializer(serializers.Serializer):
    pooled_items = serializers.IntegerField()
    items_judged_by_people = serializers.IntegerField()
    items_labelled_only_by_machines = serializers.IntegerField()
    unjudged_by_people = serializers.IntegerField()
    relevant_found_by_people = serializers.IntegerField()
    estimated_relevant_left = serializers.FloatField()


class CollectionStanding(APIView):
    """Where the campaign stands, the figures of its "Where we stand" card, each counted from the people's labels
    inside the pool (a machine's, a file's or clicks' label judges nothing here)."""

    permission_classes = [ReadsForResearchersWritesForAdmins]

    @extend_schema(responses=StandingSerializer)
    def get(self, request: Request, collection_id: int) -> Response:
        collection = get_object_or_404(Collection, pk=collection_id)
        standing = selectors.collection_standing(
            collection=collection, rankings=selectors.collection_rankings(collection_id=collection.id)
        )
        return Response(StandingSerializer(selectors.standing_figures(collection=collection, standing=standing)).data)
