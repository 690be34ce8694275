"""The fast reader of search logs: DuckDB reads a UBI or AOL file in parallel and applies the careful reader's rules
(`records`) in SQL. Every row carries `fault`; a file with any faulty row is handed to the careful reader, which
names the line and field. Pure: no Django."""

from __future__ import annotations

from pathlib import Path

import duckdb

from evaluation.online.core.records import EARLIEST, LATEST, MAX_RECORD_BYTES

MEMORY_LIMIT = "1GB"  # DuckDB spills to disk beyond this, so memory stays flat whatever the log's size

# The normalised columns of the store (see `store`): one row a query, one row an event.
QUERY_COLUMNS = "query_id, client_id, session_id, application, user_query, hits, attributes, ts"
EVENT_COLUMNS = "event_id, query_id, session_id, client_id, action_name, object_id, ordinal, dwell_seconds, ts"

_ID_TYPES = "('VARCHAR', 'BIGINT', 'UBIGINT')"
_TIMESTAMP = r"^\d{4}-\d{2}-\d{2}[T ]([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,6})?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)?$"
_AOL_TIME = r"^\d{4}-\d{2}-\d{2} ([01]\d|2[0-3]):[0-5]\d:[0-5]\d$"
# The careful reader's span (records.EARLIEST..LATEST), for a moment already read as UTC.
_IN_SPAN = f"BETWEEN TIMESTAMP '{EARLIEST.isoformat(sep=' ')}' AND TIMESTAMP '{LATEST.isoformat(sep=' ')}'"


def connection(*, threads: int | None = None, temp_directory: str | None = None) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection in UTC with bounded memory."""
    con = duckdb.connect(config={"memory_limit": MEMORY_LIMIT})
    con.execute("SET TimeZone = 'UTC'")  # offsets in the logs are applied; stored times are UTC
    con.execute("SET enable_progress_bar = true; SET enable_progress_bar_print = false")  # progress is ours to show
    if threads:
        con.execute(f"SET threads = {int(threads)}")
    if temp_directory:
        con.execute("SET temp_directory = ?", [temp_directory])
    return con


def quoted(path: str | Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def _lines(path: str | Path) -> str:
    return (
        f"SELECT line FROM read_csv({quoted(path)}, columns={{'line': 'VARCHAR'}}, delim='\\x1f', quote='', "
        f"escape='', header=false, auto_detect=false, max_line_size={MAX_RECORD_BYTES + 2}, "
        "strict_mode=false) WHERE line IS NOT NULL AND trim(line) <> ''"
    )


def _optional_id(value: str) -> str:
    return f"(json_type({value}) IS NULL OR json_type({value}) = 'NULL' OR json_type({value}) IN {_ID_TYPES})"


def _text(value: str) -> str:
    return f"CASE WHEN json_type({value}) IN {_ID_TYPES} THEN json_extract_string({value}, '$') END"


def _timestamp_ok(value: str) -> str:
    return (
        f"(json_type({value}) = 'VARCHAR' AND regexp_full_match(json_extract_string({value}, '$'), '{_TIMESTAMP}') "
        f"AND try_cast(json_extract_string({value}, '$') AS TIMESTAMPTZ)::TIMESTAMP {_IN_SPAN})"
    )


def _timestamp(value: str) -> str:
    return f"try_cast(json_extract_string({value}, '$') AS TIMESTAMPTZ)::TIMESTAMP"


def ubi_queries(path: str | Path) -> str:
    """SQL reading a `ubi_queries` JSON-lines file into the store's query columns and `fault`."""
    paths = [
        "query_id",
        "client_id",
        "session_id",
        "application",
        "user_query",
        "query_response_hit_ids",
        "query_attributes",
        "timestamp",
    ]
    extract = ", ".join(f"'$.{p}'" for p in paths)
    v = {p: f"v[{i + 1}]" for i, p in enumerate(paths)}
    hits = v["query_response_hit_ids"]
    hits_ok = (
        f"(json_type({hits}) IS NULL OR json_type({hits}) = 'NULL' OR (json_type({hits}) = 'ARRAY' AND "
        f"list_bool_and(list_transform(json_type({hits}, '$[*]'), lambda t: t IN {_ID_TYPES})) IS NOT FALSE))"
    )
    has_query_id = f"(json_type({v['query_id']}) IN {_ID_TYPES} AND json_extract_string({v['query_id']}, '$') <> '')"
    attributes = v["query_attributes"]
    fault = " AND ".join(
        [
            has_query_id,
            _optional_id(v["client_id"]),
            _optional_id(v["session_id"]),
            _optional_id(v["application"]),
            f"(json_type({v['user_query']}) IS NULL OR json_type({v['user_query']}) = 'VARCHAR')",
            hits_ok,
            f"(json_type({attributes}) IS NULL OR json_type({attributes}) IN ('NULL', 'OBJECT'))",
            _timestamp_ok(v["timestamp"]),
            f"({_text(v['client_id'])} IS NOT NULL OR {_text(v['session_id'])} IS NOT NULL)",
        ]
    )
    return f"""
        SELECT {_text(v["query_id"])} AS query_id, {_text(v["client_id"])} AS client_id,
            {_text(v["session_id"])} AS session_id, {_text(v["application"])} AS application,
            coalesce(json_extract_string({v["user_query"]}, '$'), '') AS user_query,
            CASE WHEN json_type({hits}) = 'ARRAY' THEN json_extract_string({hits}, '$[*]') END AS hits,
            CASE WHEN json_type({attributes}) = 'OBJECT' THEN json({attributes})::VARCHAR END AS attributes,
            {_timestamp(v["timestamp"])} AS ts,
            NOT coalesce({fault}, false) AS fault
        FROM (SELECT CASE WHEN json_valid(line) AND json_type(line) = 'OBJECT'
                          THEN json_extract(line, [{extract}]) END AS v FROM ({_lines(path)}))
    """


def ubi_events(path: str | Path) -> str:
    """SQL reading a `ubi_events` JSON-lines file into the store's event columns and `fault`."""
    paths = [
        "event_id",
        "query_id",
        "session_id",
        "client_id",
        "action_name",
        "timestamp",
        "event_attributes",
        "event_attributes.object.object_id",
        "event_attributes.position.ordinal",
        "event_attributes.dwell_seconds",
    ]
    extract = ", ".join(f"'$.{p}'" for p in paths)
    v = {p: f"v[{i + 1}]" for i, p in enumerate(paths)}
    attributes, ordinal, dwell = (
        v["event_attributes"],
        v["event_attributes.position.ordinal"],
        v["event_attributes.dwell_seconds"],
    )
    numeric = "('BIGINT', 'UBIGINT', 'DOUBLE')"
    fault = " AND ".join(
        [
            _optional_id(v["event_id"]),
            _optional_id(v["query_id"]),
            _optional_id(v["session_id"]),
            _optional_id(v["client_id"]),
            f"(json_type({v['action_name']}) IN {_ID_TYPES} AND json_extract_string({v['action_name']}, '$') <> '')",
            _timestamp_ok(v["timestamp"]),
            f"(json_type({attributes}) IS NULL OR json_type({attributes}) IN ('NULL', 'OBJECT'))",
            _optional_id(v["event_attributes.object.object_id"]),
            f"(json_type({ordinal}) IS NULL OR json_type({ordinal}) = 'NULL' OR (json_type({ordinal}) IN "
            f"('BIGINT', 'UBIGINT') AND try_cast(json_extract_string({ordinal}, '$') AS BIGINT) "
            "BETWEEN 1 AND 2147483647))",
            f"(json_type({dwell}) IS NULL OR json_type({dwell}) = 'NULL' OR (json_type({dwell}) IN {numeric} AND "
            f"try_cast(json_extract_string({dwell}, '$') AS DOUBLE) BETWEEN 0 AND 1.7976931348623157e308))",
        ]
    )
    return f"""
        SELECT coalesce({_text(v["event_id"])}, md5(line)) AS event_id,
            {_text(v["query_id"])} AS query_id, {_text(v["session_id"])} AS session_id,
            {_text(v["client_id"])} AS client_id, {_text(v["action_name"])} AS action_name,
            {_text(v["event_attributes.object.object_id"])} AS object_id,
            try_cast(json_extract_string({ordinal}, '$') AS INTEGER) AS ordinal,
            try_cast(json_extract_string({dwell}, '$') AS DOUBLE) AS dwell_seconds,
            {_timestamp(v["timestamp"])} AS ts,
            NOT coalesce({fault}, false) AS fault
        FROM (SELECT line, CASE WHEN json_valid(line) AND json_type(line) = 'OBJECT'
                                THEN json_extract(line, [{extract}]) END AS v FROM ({_lines(path)}))
    """


def _aol(path: str | Path) -> str:
    # `ok` is never NULL: a date with no such day casts to NULL, and a NULL `ok` once let such a line through.
    return f"""
        SELECT AnonID AS anon, Query AS query, QueryTime AS time, ItemRank AS rank, ClickURL AS url,
            coalesce(AnonID IS NOT NULL AND AnonID <> ''
             AND regexp_full_match(coalesce(QueryTime, ''), '{_AOL_TIME}')
             AND try_cast(QueryTime AS TIMESTAMP) {_IN_SPAN}
             AND (coalesce(ItemRank, '') = '' OR try_cast(ItemRank AS INTEGER) >= 1 AND
                  regexp_full_match(ItemRank, '^[0-9]+$'))
             AND (coalesce(ItemRank, '') = '') = (coalesce(ClickURL, '') = ''), false) AS ok
        FROM read_csv({quoted(path)}, delim='\\t', quote='', escape='', header=true, auto_detect=false,
            columns={{'AnonID': 'VARCHAR', 'Query': 'VARCHAR', 'QueryTime': 'VARCHAR', 'ItemRank': 'VARCHAR',
                      'ClickURL': 'VARCHAR'}}, null_padding=true, max_line_size={MAX_RECORD_BYTES + 2},
            allow_quoted_nulls=false, nullstr='\\x1f\\x1f')
    """


def aol_queries(path: str | Path) -> str:
    """SQL reading the AOL log's queries (one per user, query text and time) into the store's query columns."""
    return f"""
        SELECT md5(anon || '\t' || query || '\t' || time) AS query_id, anon AS client_id, NULL::VARCHAR AS session_id,
            NULL::VARCHAR AS application, query AS user_query, NULL::VARCHAR[] AS hits, NULL::VARCHAR AS attributes,
            try_cast(time AS TIMESTAMP) AS ts, bool_or(NOT ok) AS fault
        FROM ({_aol(path)}) GROUP BY ALL
    """


def aol_events(path: str | Path) -> str:
    """SQL reading the AOL log's clicks into the store's event columns."""
    return f"""
        SELECT query_id || ':' || rank || ':' || url || ':' || row_number() OVER (PARTITION BY query_id, rank, url)
                AS event_id, query_id, NULL::VARCHAR AS session_id, anon AS client_id, 'click' AS action_name,
            url AS object_id, try_cast(rank AS INTEGER) AS ordinal, NULL::DOUBLE AS dwell_seconds,
            try_cast(time AS TIMESTAMP) AS ts, NOT ok AS fault
        FROM (SELECT *, md5(anon || '\t' || query || '\t' || time) AS query_id FROM ({_aol(path)}))
        WHERE coalesce(url, '') <> '' OR NOT ok
    """


READERS = {
    ("ubi", "queries"): ubi_queries,
    ("ubi", "events"): ubi_events,
    ("aol", "queries"): aol_queries,
    ("aol", "events"): aol_events,
}
