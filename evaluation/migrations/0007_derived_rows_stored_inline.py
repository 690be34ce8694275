"""Rows rewritten on every recompute are kept whole and uncompressed on PostgreSQL.

A runs' aggregates row of 100 runs (values, counts and exact totals) and a topic's agreement report pass 2 kB, so
PostgreSQL compressed them on each write and decompressed them on each read. Keeping such rows in their page
(toast_tuple_target at its maximum) and their columns uncompressed (STORAGE EXTERNAL, still moved out of line when
a row outgrows a page) saves that work; the rows take a little more space. Nothing to do on other databases.
"""

from django.db import migrations

TABLES = {
    "evaluation_runaggregates": ["runs", "values", "topics", "defined", "totals"],
    "evaluation_topicvalues": ["runs", "values"],
    "evaluation_agreementreport": ["report"],
}


def store_inline(apps, schema_editor, *, target=8160, storage="EXTERNAL"):
    if schema_editor.connection.vendor != "postgresql":
        return
    for table, columns in TABLES.items():
        schema_editor.execute(f"ALTER TABLE {table} SET (toast_tuple_target = {target})")
        for column in columns:
            schema_editor.execute(f'ALTER TABLE {table} ALTER COLUMN "{column}" SET STORAGE {storage}')


def store_as_before(apps, schema_editor):
    store_inline(apps, schema_editor, target=2032, storage="EXTENDED")


class Migration(migrations.Migration):
    dependencies = [("evaluation", "0006_compact_values")]

    operations = [migrations.RunPython(store_inline, store_as_before)]
