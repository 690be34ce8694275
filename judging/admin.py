"""Django admin for the judging models: list displays, filters and search for campaign staff."""

from django.contrib import admin
from django.db import transaction

from . import services
from .models import (
    Adjudication,
    Assignment,
    Collection,
    Document,
    Grade,
    Job,
    Judgment,
    JudgmentHistory,
    PoolItem,
    Ranking,
    Run,
    Topic,
)


class GradeInline(admin.TabularInline):
    model = Grade
    extra = 0


class DeletesThroughService:
    """Admin deletions go through the write service, so that derived results follow (staleness, history)."""

    @staticmethod
    def delete_through(request, obj):
        raise NotImplementedError

    def delete_model(self, request, obj):
        self.delete_through(request, obj)

    def delete_queryset(self, request, queryset):
        for obj in queryset:
            self.delete_through(request, obj)


@admin.register(Collection)
class CollectionAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "max_grade",
        "relevance_threshold",
        "assessors_per_item",
        "disagreement_tolerance",
        "researchers_see_assessors",
        "blind",
        "consensus_method",
        "created_at",
    ]
    list_filter = ["blind", "consensus_method", "max_grade"]
    search_fields = ["name", "description"]
    actions = ["recompute"]

    def get_inlines(self, request, obj):
        return [GradeInline] if obj is not None else []  # a new collection gets its scale from the service

    def save_model(self, request, obj, form, change):
        if not change:
            # Through the service, so that the collection never exists without its relevance scale.
            fields = {name: form.cleaned_data[name] for name in form.changed_data if name in form.cleaned_data}
            fields.setdefault("max_grade", obj.max_grade)
            fields.setdefault("relevance_threshold", obj.relevance_threshold)
            created = services.collection_create(name=obj.name, **{k: v for k, v in fields.items() if k != "name"})
            obj.pk, obj._state.adding, obj._state.db = created.pk, False, created._state.db
            return None
        # Through the service, so that a changed threshold, scale, consensus or measure set triggers a recompute.
        original = Collection.objects.get(pk=obj.pk)
        changes = {name: getattr(obj, name) for name in form.changed_data if name in services.EVALUATION_SETTINGS}
        other = {name: getattr(obj, name) for name in form.changed_data if name not in changes}
        services.collection_settings_update(collection=original, **changes, **other)

    @admin.action(description="Recompute all metrics and agreement (background job)")
    def recompute(self, request, queryset):
        from evaluation.services import collection_recompute_start

        with transaction.atomic():  # each job is enqueued when this commits, never before
            for collection in queryset:
                collection_recompute_start(collection=collection, created_by=request.user)
        self.message_user(request, "Recompute started; follow it under Jobs.")


@admin.register(Topic)
class TopicAdmin(DeletesThroughService, admin.ModelAdmin):
    @staticmethod
    def delete_through(request, obj):
        services.topic_delete(topic=obj)

    list_display = ["number", "title", "collection"]
    list_filter = ["collection"]
    search_fields = ["number", "title", "description"]


@admin.register(Document)
class DocumentAdmin(DeletesThroughService, admin.ModelAdmin):
    @staticmethod
    def delete_through(request, obj):
        services.document_delete(document=obj)

    list_display = ["docno", "title", "collection"]
    list_filter = ["collection"]
    search_fields = ["docno", "title"]
    show_full_result_count = False


@admin.register(Run)
class RunAdmin(DeletesThroughService, admin.ModelAdmin):
    @staticmethod
    def delete_through(request, obj):
        services.run_delete(run=obj)

    list_display = ["tag", "collection", "owner", "precedence", "uploaded_at"]
    list_filter = ["collection"]
    search_fields = ["tag", "description"]


@admin.register(Ranking)
class RankingAdmin(admin.ModelAdmin):
    list_display = ["run", "topic", "depth"]
    list_filter = ["run__collection"]
    list_select_related = ["run", "topic"]
    exclude = ["document_ids", "scores"]
    readonly_fields = ["run", "topic", "depth"]


@admin.register(PoolItem)
class PoolItemAdmin(DeletesThroughService, admin.ModelAdmin):
    @staticmethod
    def delete_through(request, obj):
        services.pool_items_delete(items=[obj])

    list_display = ["topic", "document", "best_rank", "priority", "strategy"]
    list_filter = ["topic__collection", "strategy"]
    list_select_related = ["topic", "document"]
    search_fields = ["document__docno", "topic__number"]
    raw_id_fields = ["topic", "document"]


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["assessor", "topic", "state", "updated_at"]
    list_filter = ["state", "topic__collection"]
    list_select_related = ["assessor", "topic"]
    search_fields = ["assessor__username", "topic__number"]


@admin.register(Judgment)
class JudgmentAdmin(DeletesThroughService, admin.ModelAdmin):
    @staticmethod
    def delete_through(request, obj):
        services.judgment_delete(assessor=obj.assessor, topic=obj.topic, document=obj.document, changed_by=request.user)

    """Read-only here: judgments change only through services.judgment_record, which keeps history and metrics."""

    list_display = ["topic", "document", "assessor", "grade", "cannot_judge_reason", "seconds_spent", "updated_at"]
    list_filter = ["topic__collection", "grade", "assessor"]
    list_select_related = ["topic", "document", "assessor"]
    search_fields = ["document__docno", "topic__number", "assessor__username"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(JudgmentHistory)
class JudgmentHistoryAdmin(admin.ModelAdmin):
    list_display = ["changed_at", "topic", "document", "assessor", "old_grade", "new_grade", "action", "changed_by"]
    list_filter = ["action", "topic__collection"]
    list_select_related = ["topic", "document", "assessor", "changed_by"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Adjudication)
class AdjudicationAdmin(admin.ModelAdmin):
    list_display = ["topic", "document", "grade", "adjudicator", "decided_at"]
    list_filter = ["topic__collection"]
    list_select_related = ["topic", "document", "adjudicator"]
    readonly_fields = ["topic", "document", "grade", "adjudicator", "note", "decided_at"]


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    list_display = ["kind", "collection", "state", "done", "total", "percent", "updated_at"]
    list_filter = ["kind", "state"]
    readonly_fields = ["kind", "collection", "state", "done", "total", "message", "result", "created_by"]
