"""Django admin for the judging models: lists, filters and search for operators; every write through a service.

The admin is an operator's view of the data, not a second write path. `ServiceAdmin` lets an admin class add,
change or delete only by naming the service that does it (so derived results follow: staleness, history, the
search logs' stores); whatever it names no service for is refused. `tests/judging/test_admin_writes.py` walks
the registry and fails on a model admin that writes around its service.
"""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group
from django.db import transaction
from rest_framework.authtoken.admin import TokenAdmin
from rest_framework.authtoken.models import TokenProxy

from judging import services
from judging.jobs.models import Job
from judging.models import (
    Adjudication,
    Assignment,
    Collection,
    Document,
    Grade,
    Judgment,
    JudgmentHistory,
    PoolItem,
    Ranking,
    Run,
    Topic,
)
from judging.sources.selectors import labels_for_operators


class ServiceAdmin(admin.ModelAdmin):
    """A model admin whose writes are its services': `create_through(request, form)` returns the new object,
    `change_through(request, obj, form)` saves a change, `delete_through(request, obj)` deletes. Each left as None
    is refused (the button is not shown and the view answers 403). Inlines are read-only."""

    create_through: Callable | None = None
    change_through: Callable | None = None
    delete_through: Callable | None = None

    def has_add_permission(self, request, *args) -> bool:
        return self.create_through is not None and super().has_add_permission(request, *args)

    def has_change_permission(self, request, obj=None) -> bool:
        return self.change_through is not None and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None) -> bool:
        return self.delete_through is not None and super().has_delete_permission(request, obj)

    def save_model(self, request, obj, form, change) -> None:
        if change:
            self.change_through(request, obj, form)
            return
        created = self.create_through(request, form)
        # The admin goes on with `obj` (messages, redirects): make it the row the service created.
        obj.pk, obj._state.adding, obj._state.db = created.pk, False, created._state.db

    def save_related(self, request, form, formsets, change) -> None:
        """Inlines are read-only and many-to-many fields the services' own: nothing related is written here
        (`commit=False` only lists what a formset holds, for the admin's change message)."""
        for formset in formsets:
            formset.save(commit=False)

    def get_deleted_objects(self, objs, request):
        """What the service deletes with the object is the service's business (a document takes its judgments'
        history with it), so rows that are never deleted on their own do not block the confirmation."""
        deleted, counts, _, protected = super().get_deleted_objects(objs, request)
        return deleted, counts, set(), protected

    def delete_model(self, request, obj) -> None:
        self.delete_through(request, obj)

    @transaction.atomic
    def delete_queryset(self, request, queryset) -> None:
        for obj in queryset:
            self.delete_through(request, obj)


class ReadOnlyAdmin(ServiceAdmin):
    """Rows derived from others, append-only history, or rows only a page's own flow writes: shown, never
    written here."""


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


class GradeInline(ReadOnlyInline):
    model = Grade
    fields = ["value", "label", "description"]


def _changed(obj, form) -> dict:
    return {name: getattr(obj, name) for name in form.changed_data}


@admin.register(Collection)
class CollectionAdmin(ServiceAdmin):
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

    def get_inlines(self, request, obj):
        return [GradeInline] if obj is not None else []  # a new collection gets its scale from the service

    @staticmethod
    def create_through(request, form):
        fields = {name: form.cleaned_data[name] for name in form.changed_data if name in form.cleaned_data}
        return services.collection_create(**{"name": form.cleaned_data["name"], **fields})

    @staticmethod
    def change_through(request, obj, form):
        original = Collection.objects.get(pk=obj.pk)
        services.collection_settings_update(collection=original, **_changed(obj, form))

    @staticmethod
    def delete_through(request, obj):
        services.collection_delete(collection=obj)


@admin.register(Topic)
class TopicAdmin(ServiceAdmin):
    list_display = ["number", "title", "collection"]
    list_filter = ["collection"]
    search_fields = ["number", "title", "description"]

    @staticmethod
    def delete_through(request, obj):
        services.topic_delete(topic=obj)


@admin.register(Document)
class DocumentAdmin(ServiceAdmin):
    list_display = ["docno", "title", "collection"]
    list_filter = ["collection"]
    search_fields = ["docno", "title"]
    show_full_result_count = False

    @staticmethod
    def delete_through(request, obj):
        services.document_delete(document=obj)


@admin.register(Run)
class RunAdmin(ServiceAdmin):
    list_display = ["tag", "collection", "owner", "precedence", "uploaded_at"]
    list_filter = ["collection"]
    search_fields = ["tag", "description"]

    @staticmethod
    def delete_through(request, obj):
        services.run_delete(run=obj)


@admin.register(Ranking)
class RankingAdmin(ServiceAdmin):
    list_display = ["run", "topic", "depth"]
    list_filter = ["run__collection"]
    list_select_related = ["run", "topic"]
    exclude = ["document_ids", "scores"]

    @staticmethod
    def delete_through(request, obj):
        services.ranking_delete(ranking=obj)


@admin.register(PoolItem)
class PoolItemAdmin(ServiceAdmin):
    list_display = ["topic", "document", "best_rank", "priority", "strategy"]
    list_filter = ["topic__collection", "strategy"]
    list_select_related = ["topic", "document"]
    search_fields = ["document__docno", "topic__number"]

    @staticmethod
    def delete_through(request, obj):
        services.pool_items_delete(items=[obj])


@admin.register(Assignment)
class AssignmentAdmin(ServiceAdmin):
    list_display = ["assessor", "topic", "state", "updated_at"]
    list_filter = ["state", "topic__collection"]
    list_select_related = ["assessor", "topic"]
    search_fields = ["assessor__username", "topic__number"]
    fields = ["assessor", "topic"]
    raw_id_fields = ["assessor", "topic"]

    @staticmethod
    def create_through(request, form):
        return services.assignment_create(assessor=form.cleaned_data["assessor"], topic=form.cleaned_data["topic"])

    @staticmethod
    def delete_through(request, obj):
        services.assignment_delete(assignment=obj)


@admin.register(Judgment)
class JudgmentAdmin(ServiceAdmin):
    """Judgments change only through `judgment_record` (the judging page, the API, imports); a delete here is
    `judgment_delete`, which keeps the history and marks the topic stale."""

    list_display = ["topic", "document", "assessor", "grade", "cannot_judge_reason", "seconds_spent", "updated_at"]
    list_filter = ["topic__collection", "grade", "assessor"]
    list_select_related = ["topic", "document", "assessor"]
    search_fields = ["document__docno", "topic__number", "assessor__username"]

    def get_queryset(self, request):
        return labels_for_operators().select_related(*self.list_select_related)

    @staticmethod
    def delete_through(request, obj):
        services.judgment_delete(assessor=obj.assessor, topic=obj.topic, document=obj.document, changed_by=request.user)


@admin.register(JudgmentHistory)
class JudgmentHistoryAdmin(ReadOnlyAdmin):
    list_display = ["changed_at", "topic", "document", "assessor", "old_grade", "new_grade", "action", "changed_by"]
    list_filter = ["action", "topic__collection"]
    list_select_related = ["topic", "document", "assessor", "changed_by"]


@admin.register(Adjudication)
class AdjudicationAdmin(ServiceAdmin):
    list_display = ["topic", "document", "grade", "adjudicator", "decided_at"]
    list_filter = ["topic__collection"]
    list_select_related = ["topic", "document", "adjudicator"]

    @staticmethod
    def delete_through(request, obj):
        services.adjudication_delete(adjudication=obj)


@admin.register(Job)
class JobAdmin(ReadOnlyAdmin):
    list_display = ["kind", "collection", "state", "done", "total", "percent", "updated_at"]
    list_filter = ["kind", "state"]


# Accounts are made, given roles and deactivated on the People page (`services/users.py`); the admin shows them.
admin.site.unregister(get_user_model())
admin.site.unregister(Group)
admin.site.unregister(TokenProxy)


@admin.register(get_user_model())
class AccountAdmin(ReadOnlyAdmin, UserAdmin):
    pass


@admin.register(Group)
class RoleAdmin(ReadOnlyAdmin, GroupAdmin):
    pass


@admin.register(TokenProxy)
class ApiTokenAdmin(ReadOnlyAdmin, TokenAdmin):
    """Tokens are made and replaced on the account page (`token_regenerate`)."""
