"""The API of collections and what they hold: a collection's settings, its topics, documents and runs
(read), and its standing (how far judging has come)."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.ids import IdField
from judging import plugins, selectors, services
from judging.machines.models import VerificationSettings
from judging.models import Collection, Document, Run, Topic
from judging.permissions import ReadsForResearchersWritesForAdmins
from judging.preferences import selectors as preferences
from judging.preferences.models import PreferenceSettings
from judging.quality import selectors as quality
from judging.quality.models import QualitySettings
from judging.sources import selectors as sources
from judging.sources.models import SourceRole

# Each feature's settings the page has, declared by the feature's own model (the verified judge: an id, below).
FEATURE_SETTINGS = (
    (QualitySettings, quality.SETTINGS),
    (PreferenceSettings, preferences.SETTINGS),
    (VerificationSettings, ("verification_mode",)),
)


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
    verification_judge = IdField(required=False, allow_null=True)
    submissions = serializers.JSONField(
        required=False,
        allow_null=True,
        help_text="The track's submission settings (judging.tracks), merged into what is set: opens, closes (ISO "
        "times), runs_per_team, depth, missing_documents (refuse|placeholders), released, live_reports.",
    )

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
            "verification_judge",
            "advisory_assessors",
            "gold_assessors",
            "agreement_measure",
            "shuffle_within_priority",
            "guidelines",
            "researchers_see_assessors",
            "ir_datasets_id",
            "submissions",
            "created_at",
        ]
        read_only_fields = ["id", "created_at"]

    def get_fields(self):
        """The collection's columns, and each feature's settings as its own model declares them (bounds, choices)."""
        fields = super().get_fields()
        for model, names in FEATURE_SETTINGS:
            for name in names:
                field_class, kwargs = self.build_standard_field(name, model._meta.get_field(name))
                fields[name] = field_class(**(kwargs | {"required": False}))
        return fields

    def to_representation(self, instance):
        """Feature settings are read from the features' rows (`judging.plugins.settings_read`), not the collection."""
        data = super().to_representation(instance)
        features = plugins.settings_read(collection=instance)
        data.update({name: features[name] for name in self.fields if name in features})
        return data

    def update(self, instance, validated_data):
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


class CollectionList(generics.ListCreateAPIView):
    """Collections; admins create them."""

    queryset = Collection.objects.order_by("id")
    serializer_class = CollectionSerializer
    permission_classes = [ReadsForResearchersWritesForAdmins]

    def perform_create(self, serializer):
        settings = dict(serializer.validated_data)
        if settings.pop("verification_judge", None) is not None:
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
