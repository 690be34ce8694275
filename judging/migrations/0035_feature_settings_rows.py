"""Feature settings leave the collection's columns for one row per feature (quality, preferences, verification)."""

import django.core.validators
import django.db.models.deletion
from django.db import migrations, models

QUALITY = ("pause_below", "pause_window", "gold_rate", "repeat_rate")
PREFERENCES = ("judging_mode", "preference_candidates", "preference_top")
VERIFICATION = ("verification_judge_id", "verification_mode")
ROWS = (("QualitySettings", QUALITY), ("PreferenceSettings", PREFERENCES), ("VerificationSettings", VERIFICATION))


def settings_to_features(apps, schema_editor):
    """Each collection's feature settings, from its own columns into one row per feature."""
    collections = apps.get_model("judging", "Collection").objects.values("pk", *(n for _, names in ROWS for n in names))
    for model_name, names in ROWS:
        model = apps.get_model("judging", model_name)
        model.objects.bulk_create(
            model(collection_id=row["pk"], **{name: row[name] for name in names}) for row in collections
        )


def settings_to_collection(apps, schema_editor):
    """Back: the features' rows into the collection's columns (a collection without a row keeps the defaults)."""
    collection = apps.get_model("judging", "Collection")
    for model_name, names in ROWS:
        for row in apps.get_model("judging", model_name).objects.values("collection_id", *names):
            collection.objects.filter(pk=row.pop("collection_id")).update(**row)


class Migration(migrations.Migration):
    dependencies = [
        ("judging", "0034_machine_reply_run_job"),
    ]

    operations = [
        migrations.CreateModel(
            name="PreferenceSettings",
            fields=[
                (
                    "collection",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="preference_settings",
                        serialize=False,
                        to="judging.collection",
                    ),
                ),
                (
                    "judging_mode",
                    models.CharField(
                        choices=[
                            ("graded", "Graded: one document at a time, on the relevance scale"),
                            ("preferences", "Preferences: two documents side by side, which is better"),
                        ],
                        db_default="graded",
                        default="graded",
                        help_text="Preferences: each assessor runs a tournament over each topic's best candidates (the highest consensus grades, else a machine judge's, else the pool's first) to rank its top documents.",
                        max_length=12,
                    ),
                ),
                (
                    "preference_candidates",
                    models.PositiveSmallIntegerField(
                        db_default=8,
                        default=8,
                        help_text="How many documents per topic enter the preference tournament.",
                        validators=[
                            django.core.validators.MinValueValidator(2),
                            django.core.validators.MaxValueValidator(64),
                        ],
                    ),
                ),
                (
                    "preference_top",
                    models.PositiveSmallIntegerField(
                        db_default=3,
                        default=3,
                        help_text="How many top documents the tournament ranks, best first.",
                        validators=[
                            django.core.validators.MinValueValidator(1),
                            django.core.validators.MaxValueValidator(64),
                        ],
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="QualitySettings",
            fields=[
                (
                    "collection",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="quality_settings",
                        serialize=False,
                        to="judging.collection",
                    ),
                ),
                (
                    "pause_below",
                    models.FloatField(
                        blank=True,
                        help_text="Pause an assessor whose last judgments agree with gold or the other assessors less often than this share (empty: never).",
                        null=True,
                        validators=[
                            django.core.validators.MinValueValidator(0.0),
                            django.core.validators.MaxValueValidator(1.0),
                        ],
                    ),
                ),
                (
                    "pause_window",
                    models.PositiveSmallIntegerField(
                        db_default=20,
                        default=20,
                        help_text="How many of an assessor's latest comparable judgments the pause looks at.",
                        validators=[
                            django.core.validators.MinValueValidator(5),
                            django.core.validators.MaxValueValidator(500),
                        ],
                    ),
                ),
                (
                    "gold_rate",
                    models.FloatField(
                        db_default=0.0,
                        default=0.0,
                        help_text="Share of an assessor's items that are gold items mixed into their queue, unmarked (0: none).",
                        validators=[
                            django.core.validators.MinValueValidator(0.0),
                            django.core.validators.MaxValueValidator(0.5),
                        ],
                    ),
                ),
                (
                    "repeat_rate",
                    models.FloatField(
                        db_default=0.0,
                        default=0.0,
                        help_text="Share of an assessor's own judged documents shown to them again later, unmarked (0: none).",
                        validators=[
                            django.core.validators.MinValueValidator(0.0),
                            django.core.validators.MaxValueValidator(0.5),
                        ],
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="VerificationSettings",
            fields=[
                (
                    "collection",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="verification_settings",
                        serialize=False,
                        to="judging.collection",
                    ),
                ),
                (
                    "verification_mode",
                    models.CharField(
                        choices=[
                            ("blind", "Blind: judge first, then see the machine's grade"),
                            ("post_edit", "Post-editing: the machine's grade is shown beside the document"),
                        ],
                        db_default="blind",
                        default="blind",
                        max_length=10,
                    ),
                ),
                (
                    "verification_judge",
                    models.ForeignKey(
                        blank=True,
                        help_text="The machine judge whose labels assessors verify: their queues put its likeliest errors first.",
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="judging.machinejudge",
                    ),
                ),
            ],
        ),
        migrations.RunPython(settings_to_features, settings_to_collection),
        migrations.RemoveField(
            model_name="collection",
            name="gold_rate",
        ),
        migrations.RemoveField(
            model_name="collection",
            name="judging_mode",
        ),
        migrations.RemoveField(
            model_name="collection",
            name="pause_below",
        ),
        migrations.RemoveField(
            model_name="collection",
            name="pause_window",
        ),
        migrations.RemoveField(
            model_name="collection",
            name="preference_candidates",
        ),
        migrations.RemoveField(
            model_name="collection",
            name="preference_top",
        ),
        migrations.RemoveField(
            model_name="collection",
            name="repeat_rate",
        ),
        migrations.RemoveField(
            model_name="collection",
            name="verification_judge",
        ),
        migrations.RemoveField(
            model_name="collection",
            name="verification_mode",
        ),
    ]
