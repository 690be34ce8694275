"""Marks stale every topic and collection-wide agreement of a collection with an advisory source: their stored
agreement counted an advisory machine judge as an assessor (issue #59), and is computed again, from the labels that
count, by the periodic sweep after the upgrade, with no step by hand."""

from django.db import migrations
from django.db.models import F
from django.utils import timezone


def mark_stale(apps, schema_editor):
    LabelSource = apps.get_model("judging", "LabelSource")
    TopicState = apps.get_model("evaluation", "TopicState")
    CollectionState = apps.get_model("evaluation", "CollectionState")
    collections = set(LabelSource.objects.filter(role="advisory").values_list("collection_id", flat=True))
    now = timezone.now()
    for states, field in ((TopicState, "topic__collection_id__in"), (CollectionState, "collection_id__in")):
        states.objects.filter(**{field: collections}).update(
            dirty=True, generation=F("generation") + 1, dirty_since=now
        )


class Migration(migrations.Migration):
    dependencies = [
        ("evaluation", "0011_answer_scores"),
        ("judging", "0032_rag_answers_and_nuggets"),
    ]

    operations = [migrations.RunPython(mark_stale, migrations.RunPython.noop)]
