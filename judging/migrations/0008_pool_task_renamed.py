"""The pool-build task is now `judging.tasks.build_pool` (tasks are named verb first, like `import_file`); Jobs
started under the old name keep being retried and swept under the new one."""

from django.db import migrations

OLD, NEW = "judging.tasks.pool_build", "judging.tasks.build_pool"


def rename(apps, schema_editor):
    apps.get_model("judging", "Job").objects.filter(task=OLD).update(task=NEW)


def restore(apps, schema_editor):
    apps.get_model("judging", "Job").objects.filter(task=NEW).update(task=OLD)


class Migration(migrations.Migration):
    dependencies = [("judging", "0007_note_limit")]
    operations = [migrations.RunPython(rename, restore)]
