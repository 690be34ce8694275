"""The runs' aggregates and a topic's values keep one index per lookup: their unique (collection or topic, measure)
index. The foreign key's own index duplicated its first column, and the planner read the aggregates through it by a
bitmap scan, which visits every version the stores left dead until a vacuum (the unique index's insertions mark
them as such); it also cost one more index entry per rewritten row.
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("evaluation", "0007_derived_rows_stored_inline"),
        ("judging", "0011_pool_item_inclusion"),
    ]

    operations = [
        migrations.AlterField(
            model_name="runaggregates",
            name="collection",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="run_aggregates",
                to="judging.collection",
            ),
        ),
        migrations.AlterField(
            model_name="topicvalues",
            name="topic",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="measure_values",
                to="judging.topic",
            ),
        ),
    ]
