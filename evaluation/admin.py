"""Django admin for stored evaluation state and results."""

from django.contrib import admin

from . import services
from .models import RunAggregates, TopicAgreement, TopicState, TopicValues


@admin.register(TopicState)
class TopicStateAdmin(admin.ModelAdmin):
    list_display = ["topic", "dirty", "generation", "computed_generation", "computed_at", "recompute_count"]
    list_filter = ["dirty", "topic__collection"]
    list_select_related = ["topic"]
    actions = ["recompute"]

    @admin.action(description="Recompute the selected topics now")
    def recompute(self, request, queryset):
        services.topics_changed(topic_ids=queryset.values_list("topic_id", flat=True))


@admin.register(TopicValues)
class TopicValuesAdmin(admin.ModelAdmin):
    list_display = ["topic", "measure", "generation", "computed_at"]
    list_filter = ["measure", "topic__collection"]
    list_select_related = ["topic"]


@admin.register(RunAggregates)
class RunAggregatesAdmin(admin.ModelAdmin):
    list_display = ["collection", "measure", "qrels_version", "computed_at"]
    list_filter = ["measure", "collection"]
    list_select_related = ["collection"]


@admin.register(TopicAgreement)
class TopicAgreementAdmin(admin.ModelAdmin):
    list_display = ["collection", "topic", "statistic", "value", "items", "computed_at"]
    list_filter = ["statistic", "collection"]
    list_select_related = ["collection", "topic"]
