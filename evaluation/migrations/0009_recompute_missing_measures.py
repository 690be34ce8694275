"""Marks stale every topic of a collection that asks for a measure with no stored aggregate (measures typed in
trec_eval's spelling were never stored under the name they were looked up by; judging's 0012 renamed them), so
the periodic sweep recomputes them after the upgrade, with no step by hand."""

from django.db import migrations
from django.db.models import F
from django.utils import timezone

COVERAGE_MEASURE = "Judged@10"


def mark_stale(apps, schema_editor):
    Collection = apps.get_model("judging", "Collection")
    Run = apps.get_model("judging", "Run")
    RunAggregates = apps.get_model("evaluation", "RunAggregates")
    TopicState = apps.get_model("evaluation", "TopicState")
    for collection in Collection.objects.all():
        if not Run.objects.filter(collection_id=collection.pk).exists():
            continue
        stored = set(RunAggregates.objects.filter(collection_id=collection.pk).values_list("measure", flat=True))
        if set([*(collection.measures or []), COVERAGE_MEASURE]) - stored:
            TopicState.objects.filter(topic__collection_id=collection.pk).update(
                dirty=True, generation=F("generation") + 1, dirty_since=timezone.now()
            )


class Migration(migrations.Migration):
    dependencies = [
        ("evaluation", "0008_derived_rows_one_index_per_lookup"),
        ("judging", "0012_canonical_measure_names"),
    ]

    operations = [migrations.RunPython(mark_stale, migrations.RunPython.noop)]
