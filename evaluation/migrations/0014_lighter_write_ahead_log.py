"""Less write-ahead log per judgment on PostgreSQL (#64: 67 KB a judgment at 40/s, 42 KB of it the runs' totals).

- The runs' totals (`evaluation_runaggregates`) are unlogged. They are derived: a recount from the stored per-topic
  values restores them exactly (`totals.runs_aggregate`). A row of 100 runs is ~6 KB, so each of the 12 a judgment
  moves was written whole to the log, never in place. Unlogged, a crash empties the table on recovery: the next
  recompute of a topic finds its totals missing and recounts, and the sweep recounts collections left idle
  (`collections_with_lost_totals`). A streaming standby has no copy of it, so pages are served from the primary.
- A topic's values rows (~1.7 KB) get room in their page (fillfactor 50): updated in place (HOT), PostgreSQL logs
  only the bytes that changed (the values, not the run ids before them) instead of the whole new row.
- A topic's agreement report (~6.7 KB of JSON, most of it each run's score under each assessor) is compressed in its
  row again (~2.5 KB; lz4 where the server has it, else pglz), undoing 0007 for this table: the log, not the
  compression, was the cost that counted. Rows already stored are compressed when next rewritten.

Nothing to do on other databases."""

from django.db import migrations

# (table, the change, how it was before), applied in this order and undone in reverse.
CHANGES = [
    ("evaluation_runaggregates", "SET UNLOGGED", "SET LOGGED"),
    ("evaluation_topicvalues", "SET (fillfactor = 50)", "RESET (fillfactor)"),
    ("evaluation_agreementreport", "RESET (toast_tuple_target)", "SET (toast_tuple_target = 8160)"),
    (
        "evaluation_agreementreport",
        'ALTER COLUMN "report" SET STORAGE MAIN',
        'ALTER COLUMN "report" SET STORAGE EXTERNAL',
    ),
    (
        "evaluation_agreementreport",
        'ALTER COLUMN "report" SET COMPRESSION lz4',
        'ALTER COLUMN "report" SET COMPRESSION DEFAULT',
    ),
]
LZ4 = "SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)"


def _altered(forward: bool):
    def alter(apps, schema_editor):
        connection = schema_editor.connection
        if connection.vendor != "postgresql":
            return
        with connection.cursor() as cursor:
            cursor.execute(LZ4)
            has_lz4 = cursor.fetchone() is not None
        for table, change, before in CHANGES if forward else reversed(CHANGES):
            if forward and "lz4" in change and not has_lz4:
                continue  # a server built without lz4 keeps pglz, its default
            schema_editor.execute(f"ALTER TABLE {table} {change if forward else before}")

    return alter


class Migration(migrations.Migration):
    dependencies = [("evaluation", "0013_topic_draws")]

    operations = [migrations.RunPython(_altered(forward=True), _altered(forward=False))]
