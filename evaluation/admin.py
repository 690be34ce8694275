"""Django admin for stored evaluation state and results: derived rows, shown and never edited by hand.

What an operator may do here is ask for a recompute, which goes through the staleness service like any change.
"""

from django.contrib import admin
from django.db import transaction

from evaluation import services
from evaluation.models import RunAggregates, TopicAgreement, TopicState, TopicValues
from evaluation.online import services as search_logs
from evaluation.online.models import SearchLog
from judging.admin import CollectionAdmin, ReadOnlyAdmin, ServiceAdmin
from judging.models import Collection


@admin.register(TopicState)
class TopicStateAdmin(ReadOnlyAdmin):
    list_display = ["topic", "dirty", "generation", "computed_generation", "computed_at", "recompute_count"]
    list_filter = ["dirty", "topic__collection"]
    list_select_related = ["topic"]
    actions = ["recompute"]

    @admin.action(description="Recompute the selected topics now")
    def recompute(self, request, queryset):
        with transaction.atomic():
            services.topics_changed(topic_ids=list(queryset.values_list("topic_id", flat=True)))
        self.message_user(request, "The selected topics are marked stale; a worker recomputes them.")


@admin.register(TopicValues)
class TopicValuesAdmin(ReadOnlyAdmin):
    list_display = ["topic", "measure", "generation", "computed_at"]
    list_filter = ["measure", "topic__collection"]
    list_select_related = ["topic"]


@admin.register(RunAggregates)
class RunAggregatesAdmin(ReadOnlyAdmin):
    list_display = ["collection", "measure", "qrels_version", "computed_at"]
    list_filter = ["measure", "collection"]
    list_select_related = ["collection"]


@admin.register(TopicAgreement)
class TopicAgreementAdmin(ReadOnlyAdmin):
    list_display = ["collection", "topic", "statistic", "value", "items", "computed_at"]
    list_filter = ["statistic", "collection"]
    list_select_related = ["collection", "topic"]


@admin.register(SearchLog)
class SearchLogAdmin(ServiceAdmin):
    list_display = ["name", "collection", "log_format"]
    list_filter = ["collection"]

    @staticmethod
    def delete_through(request, obj):
        search_logs.search_log_delete(search_log=obj)


class CollectionWithRecomputeAdmin(CollectionAdmin):
    """judging's collection admin, with evaluation's one action on it: a full recompute as a background job."""

    actions = ["recompute"]

    @admin.action(description="Recompute all metrics and agreement (background job)")
    def recompute(self, request, queryset):
        with transaction.atomic():  # each job is enqueued when this commits, never before
            for collection in queryset:
                services.collection_recompute_start(collection=collection, created_by=request.user)
        self.message_user(request, "Recompute started; follow it under Jobs.")


admin.site.unregister(Collection)
admin.site.register(Collection, CollectionWithRecomputeAdmin)
