"""Collections store their measures by canonical name (a measure typed as `ndcg_cut.5` was stored as typed, while
its values are stored as `nDCG@5`, so no reader found them). evaluation's migration 0009 then recomputes the
collections whose measures have no stored values."""

from django.db import migrations


def canonical(apps, schema_editor):
    from measures import MeasureNameError, canonical_names

    Collection = apps.get_model("judging", "Collection")
    for collection in Collection.objects.all():
        try:
            names = canonical_names(collection.measures or [])
        except MeasureNameError:
            continue  # left as it is: the collection's form names the unknown measure when next saved
        if names != collection.measures:
            collection.measures = names
            collection.save(update_fields=["measures"])


class Migration(migrations.Migration):
    dependencies = [("judging", "0011_pool_item_inclusion")]

    operations = [migrations.RunPython(canonical, migrations.RunPython.noop)]
