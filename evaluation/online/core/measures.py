"""The online measures of a search log, computed by DuckDB over the store's `queries` and `events` views.

Definitions (docs/online.md says the same with the choices each makes):
- A query is one `queries` row; its impressions are its hits (unknown for AOL: result-level figures are then
  undefined). A click is an event whose action is one of `click_actions`, tied to a query by `query_id`.
- A query's session is its `session_id`, else the `session_id` of an event of that query, else the same client's
  queries with gaps under `session_gap_minutes`. A session belongs to the arm of its first query, and all its
  queries count in that arm, so that an A/B comparison's unit is the session.
- A click's position is the event's `position.ordinal`, else the clicked object's 1-based index in the hits.
- A click's dwell is the event's `dwell_seconds`, else the time to the session's next later activity (query or
  event), or 0 for the session's last moment (capped at the session's end). A success is a click with dwell of at
  least `dwell_seconds`, or any event whose action is one of `success_actions`.
Every ratio with a zero denominator is None (undefined), as trec_eval's conventions do for offline measures.
Pure: no Django.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import duckdb

BUCKETS = ("day", "week", "query")  # query: per normalised query string, query-level measures only
RATE_UNITS = ("minute", "hour", "day", "month", "year")
# A query-rate series never holds more buckets than this: a log's span in minutes can be millions (a request for
# them once took 14 s and 2.7 GB), so a finer unit than the span allows gives way to the next coarser one.
MAX_RATE_BUCKETS = 5000
ARM_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,99}")


@dataclass(frozen=True)
class OnlineRatio:
    """An online measure that is a ratio, defined once: `numerator` and `denominator` are SQL aggregates over the
    prepared per-query rows (`qa`: clicks, hits_n, first_position) when `level` is "query", or expressions over a
    session's sums (`sa`: clicked, succeeded) when it is "session". Every figure derives from them: the whole log,
    each day, week or query, each arm, and the A/B statistics' per-session sums."""

    name: str
    label: str
    formula: str
    choice: str
    level: str  # "query" | "session"
    numerator: str
    denominator: str


# In the order the pages show them; a new ratio is one `register` call (its label, definition and SQL).
RATIO_REGISTRY: dict[str, OnlineRatio] = {}


def register(ratio: OnlineRatio) -> OnlineRatio:
    RATIO_REGISTRY[ratio.name] = ratio
    return ratio


register(
    OnlineRatio(
        "session_abandonment_rate",
        "Session abandonment rate",
        "sessions with a query and no click / sessions",
        "a session counts in the arm of its first query",
        "session",
        "1 - clicked",
        "1",
    )
)
register(
    OnlineRatio(
        "query_ctr",
        "Query CTR",
        "queries with at least one click / queries",
        "a click is an event whose action is a click action (click), tied by query_id",
        "query",
        "count(*) FILTER (WHERE clicks > 0)",
        "count(*)",
    )
)
register(
    OnlineRatio(
        "result_ctr",
        "Result CTR",
        "clicks / impressions (the hits shown)",
        "undefined for AOL, which does not say what was shown",
        "query",
        "coalesce(sum(clicks) FILTER (WHERE hits_n IS NOT NULL), 0)",
        "coalesce(sum(hits_n), 0)",
    )
)
register(
    OnlineRatio(
        "session_success_rate",
        "Session success rate",
        "sessions with a success / sessions",
        "a success is a click with dwell >= the dwell threshold (30 s) or an event whose action is a success action; "
        "dwell is the event's dwell_seconds, else the time to the session's next later moment, else 0",
        "session",
        "succeeded",
        "1",
    )
)
register(
    OnlineRatio(
        "zero_result_rate",
        "Zero-result rate",
        "queries with no hits / queries whose hits are known",
        "none",
        "query",
        "count(*) FILTER (WHERE hits_n = 0)",
        "count(*) FILTER (WHERE hits_n IS NOT NULL)",
    )
)
register(
    OnlineRatio(
        "mrr_first_click",
        "MRR of the first click",
        "mean of 1/position of each clicked query's first click",
        "first: earliest, ties by position",
        "query",
        "coalesce(sum(1.0 / first_position), 0)",
        "count(first_position)",
    )
)


def measure_names() -> tuple[str, ...]:
    """Every figure of `online_measures`' overall answer that the pages list, in order."""
    return ("queries", "sessions", *RATIO_REGISTRY, "ctr_at")


def ratios() -> dict[str, tuple[str, str]]:
    """Each ratio as (numerator, denominator) columns of the per-session sums (`sa`): the A/B statistics' pairs."""
    return {name: (f"{name}__n", f"{name}__d") for name in RATIO_REGISTRY}


# Each measure's formula and the choice it makes (`python -m evaluation.online --list-measures`; docs/online.md too).
def definitions() -> dict[str, tuple[str, str]]:
    """Each figure's formula and the choice it makes, the registered ratios among them."""
    return {
        "queries": ("one ubi_queries record (AOL: the lines of one user, query and time)", "none"),
        "sessions": (
            "distinct sessions with a query",
            "session_id, else an event's session_id for the query, else the "
            "same client's queries with gaps under the session gap (30 min)",
        ),
        **{name: (ratio.formula, ratio.choice) for name, ratio in RATIO_REGISTRY.items()},
        "ctr_at": (
            "per position p: clicks at p / queries with at least p hits",
            "the position is the event's position.ordinal, else the object's 1-based index in the hits",
        ),
        "top_queries": (
            "normalised query strings by count, ties by text; head/torso/tail shares of traffic",
            "NFC, lower-case, whitespace collapsed; head = top 1% of distinct queries (rounded up), "
            "torso = the next 19%",
        ),
        "rate": (
            "queries per UTC minute, hour, day or month, empty buckets included",
            "a spike has a robust z-score 0.6745 (n - median) / MAD above 3.5; undefined when the MAD is 0",
        ),
    }


@dataclass(frozen=True)
class OnlineSettings:
    """The only freedoms the definitions leave."""

    click_actions: tuple[str, ...] = ("click",)
    success_actions: tuple[str, ...] = ()
    dwell_seconds: float = 30.0
    session_gap_minutes: float = 30.0
    arm: str | None = None  # "application", or a query attribute's name
    top: int = 20
    spike_z: float = 3.5
    extra: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.arm is not None and not ARM_NAME.fullmatch(self.arm):
            raise ValueError(f"arm field {self.arm!r}: expected a field name (letters, digits, _ . -)")
        if not self.click_actions:
            raise ValueError("at least one click action is needed")
        if self.dwell_seconds < 0 or self.session_gap_minutes <= 0:
            raise ValueError("dwell seconds must be at least 0 and the session gap more than 0 minutes")


def _strings(values) -> str:
    return "(" + ", ".join("'" + v.replace("'", "''") + "'" for v in values) + ")" if values else "(NULL)"


def _arm(settings: OnlineSettings) -> str:
    if settings.arm is None:
        return "NULL::VARCHAR"
    if settings.arm == "application":
        return "application"
    return f"json_extract_string(attributes, '$.\"{settings.arm}\"')"


def _query_level_sums() -> str:
    """Each query-level ratio's numerator and denominator, summed over a group of `qa` rows (a session's)."""
    return ", ".join(
        f"{r.numerator} AS {r.name}__n, {r.denominator} AS {r.name}__d"
        for r in RATIO_REGISTRY.values()
        if r.level == "query"
    )


def _session_level_sums() -> str:
    """Each session-level ratio's numerator and denominator for one session (one `sa` row)."""
    return ", ".join(
        f"{r.numerator} AS {r.name}__n, {r.denominator} AS {r.name}__d"
        for r in RATIO_REGISTRY.values()
        if r.level == "session"
    )


def prepare(con: duckdb.DuckDBPyConnection, settings: OnlineSettings) -> None:
    """Builds the temp tables every figure is read from: `q` (queries with session, arm and hit count), `clicks`
    (with position and dwell), `qa` (per query) and `sa` (per session, with the sums the A/B statistics use)."""
    gap = float(settings.session_gap_minutes) * 60
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE q AS
        WITH event_session AS (
            SELECT query_id, min(session_id) AS session_id FROM events
            WHERE session_id IS NOT NULL AND query_id IN (SELECT query_id FROM queries WHERE session_id IS NULL)
            GROUP BY query_id),
        known AS (
            SELECT q.query_id, q.client_id, coalesce(q.session_id, es.session_id) AS known_session, q.hits, q.ts,
                q.user_query, {_arm(settings)} AS own_arm
            FROM queries q LEFT JOIN event_session es USING (query_id)),
        gaps AS (
            SELECT *, CASE WHEN known_session IS NULL THEN coalesce(epoch(ts - lag(ts) OVER w) >= {gap}, true)
                      END AS starts
            FROM known WINDOW w AS (PARTITION BY client_id, known_session IS NULL ORDER BY ts, query_id)),
        sessions AS (
            SELECT *, CASE WHEN known_session IS NOT NULL THEN 's:' || known_session
                           ELSE 'c:' || client_id || '#' || sum(starts::INTEGER) OVER (
                               PARTITION BY client_id, known_session IS NULL ORDER BY ts, query_id
                               ROWS UNBOUNDED PRECEDING) END AS session
            FROM gaps)
        SELECT query_id, session, hits, len(hits) AS hits_n, ts, user_query,
            arg_min(own_arm, (ts, query_id)) OVER (PARTITION BY session) AS arm
        FROM sessions
    """)
    con.execute("""
        CREATE OR REPLACE TEMP TABLE acts AS
        SELECT coalesce(q.session, 's:' || e.session_id) AS session, e.ts, e.action_name, e.event_id, e.query_id,
            e.object_id, e.ordinal, e.dwell_seconds, q.hits, q.hits_n, q.arm, q.query_id IS NOT NULL AS of_query
        FROM events e LEFT JOIN q USING (query_id)
        WHERE coalesce(q.session, 's:' || e.session_id) IS NOT NULL
    """)
    # The next later moment of the session after each event: a range frame, so that ties are not "next".
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE clicks AS
        WITH chosen AS (
            SELECT * FROM acts
            WHERE action_name IN {_strings(settings.click_actions)} AND of_query),
        moments AS (
            SELECT event_id, min(ts) OVER (
                PARTITION BY session ORDER BY ts RANGE BETWEEN INTERVAL 1 MICROSECOND FOLLOWING AND UNBOUNDED FOLLOWING
            ) AS next_ts
            FROM (SELECT session, ts, NULL AS event_id FROM q UNION ALL SELECT session, ts, event_id FROM acts)
            QUALIFY event_id IS NOT NULL)
        SELECT c.event_id, c.query_id, c.session, c.arm, c.ts, c.hits_n,
            coalesce(c.ordinal, nullif(list_position(c.hits, c.object_id), 0)) AS position,
            coalesce(c.dwell_seconds, epoch(m.next_ts - c.ts), 0) AS dwell
        FROM chosen c LEFT JOIN moments m USING (event_id)
    """)
    con.execute("""
        CREATE OR REPLACE TEMP TABLE qa AS
        WITH firsts AS (
            SELECT query_id, count(*) AS clicks,
                arg_min(position, (ts, position)) FILTER (WHERE position IS NOT NULL) AS first_position
            FROM clicks GROUP BY query_id)
        SELECT q.query_id, q.session, q.arm, q.ts, q.hits_n, coalesce(f.clicks, 0) AS clicks, f.first_position,
            lower(regexp_replace(trim(nfc_normalize(q.user_query)), '\\s+', ' ', 'g')) AS normalised
        FROM q LEFT JOIN firsts f USING (query_id)
    """)
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE sa AS
        WITH successes AS (
            SELECT DISTINCT session FROM clicks WHERE dwell >= {float(settings.dwell_seconds)}
            UNION SELECT DISTINCT session FROM acts WHERE action_name IN {_strings(settings.success_actions)})
        SELECT *, {_session_level_sums()} FROM (
            SELECT qa.session, any_value(qa.arm) AS arm, min(qa.ts) AS start, count(*) AS queries,
                {_query_level_sums()},
                (count(*) FILTER (WHERE clicks > 0) > 0)::INTEGER AS clicked,
                (bool_or(s.session IS NOT NULL))::INTEGER AS succeeded
            FROM qa LEFT JOIN successes s USING (session)
            GROUP BY qa.session)
    """)


def _ratio(numerator, denominator):
    return None if not denominator else float(numerator) / float(denominator)


def _session_figures(con, group: str | None) -> dict:
    pairs = ratios()
    select = ", ".join(f"sum({n}) AS n_{m}, sum({d}) AS d_{m}" for m, (n, d) in pairs.items())
    key = f"{group} AS key" if group else "NULL AS key"
    rows = con.execute(
        f"SELECT {key}, sum(queries), count(*), {select} FROM sa {'GROUP BY 1' if group else ''}"
    ).fetchall()
    figures = {}
    for row in rows:
        values = {"queries": int(row[1] or 0), "sessions": int(row[2] or 0)}
        for index, measure in enumerate(pairs):
            values[measure] = _ratio(row[3 + 2 * index], row[4 + 2 * index])
        figures[row[0]] = values
    return figures


def _ctr_at(con, group: str | None) -> dict:
    """CTR at each position p: clicks at p on queries whose hits are known ÷ those queries with at least p hits."""
    key = group or "NULL"
    shown: dict = {}
    for arm, hits_n, count in con.execute(
        f"SELECT {key}, hits_n, count(*) FROM qa WHERE hits_n > 0 GROUP BY ALL ORDER BY 2 DESC"
    ).fetchall():
        shown.setdefault(arm, []).append((int(hits_n), int(count)))
    clicked = {
        (arm, int(p)): int(n)
        for arm, p, n in con.execute(
            f"SELECT {key}, position, count(*) FROM clicks "
            "WHERE hits_n IS NOT NULL AND position IS NOT NULL GROUP BY ALL"
        ).fetchall()
    }
    result: dict = {}
    for arm, lengths in shown.items():
        at_least = 0  # queries with at least p hits, counted down from the longest list
        impressions = {}
        for position in range(lengths[0][0], 0, -1):
            at_least += sum(count for n, count in lengths if n == position)
            impressions[position] = at_least
        result[arm] = {p: clicked.get((arm, p), 0) / impressions[p] for p in sorted(impressions)}
    return result


def _top_queries(con, top: int) -> tuple[list, dict]:
    rows = con.execute("""
        SELECT query, count FROM (
            SELECT normalised AS query, count(*) AS count FROM qa GROUP BY 1)
        ORDER BY count DESC, query
    """).fetchall()
    total = sum(count for _, count in rows)
    distinct = len(rows)
    head = math.ceil(distinct * 0.01)
    torso = math.ceil(distinct * 0.20) - head
    shares = {"distinct_queries": distinct}
    for name, part in (("head", rows[:head]), ("torso", rows[head : head + torso]), ("tail", rows[head + torso :])):
        shares[f"{name}_share"] = _ratio(sum(count for _, count in part), total)
    return [[query, int(count)] for query, count in rows[:top]], shares


def bucket_sql(by: str, column: str = "ts") -> str:
    if by not in BUCKETS:
        raise ValueError(f"unknown bucket {by!r}; expected one of {', '.join(BUCKETS)}")
    if by == "query":
        return "normalised"
    # ISO weeks start on Monday; the bucket is named by its first day.
    return f"strftime(date_trunc('{by}', {column}), '%Y-%m-%d')"


def _by_bucket(con, by: str) -> dict:
    figures = {}
    per_query = [r for r in RATIO_REGISTRY.values() if r.level == "query"]
    sums = ", ".join(f"{r.numerator}, {r.denominator}" for r in per_query)
    for bucket, queries, *values in con.execute(
        f"SELECT {bucket_sql(by)} AS bucket, count(*), {sums} FROM qa GROUP BY 1 ORDER BY 1"
    ).fetchall():
        figures[bucket] = {"queries": int(queries)} | {
            r.name: _ratio(values[2 * i], values[2 * i + 1]) for i, r in enumerate(per_query)
        }
    # A session spans queries: per query, the session measures are left out (they are per day, week or arm).
    per_session = [r for r in RATIO_REGISTRY.values() if r.level == "session"]
    if by != "query" and per_session:
        sums = ", ".join(f"sum({r.name}__n), sum({r.name}__d)" for r in per_session)
        for bucket, sessions, *values in con.execute(
            f"SELECT {bucket_sql(by, 'start')}, count(*), {sums} FROM sa GROUP BY 1 ORDER BY 1"
        ).fetchall():
            figures.setdefault(bucket, {"queries": 0})
            figures[bucket]["sessions"] = int(sessions)
            figures[bucket].update(
                {r.name: _ratio(values[2 * i], values[2 * i + 1]) for i, r in enumerate(per_session)}
            )
    return {bucket: dict(sorted(values.items())) for bucket, values in sorted(figures.items())}


PREPARED_TABLES = ("qa", "sa", "clicks")


def prepared_key(settings: OnlineSettings) -> dict:
    """The settings the prepared tables depend on (the rest only shape the answer)."""
    return {
        "click_actions": list(settings.click_actions),
        "success_actions": list(settings.success_actions),
        "dwell_seconds": settings.dwell_seconds,
        "session_gap_minutes": settings.session_gap_minutes,
        "arm": settings.arm,
    }


def online_measures(
    con: duckdb.DuckDBPyConnection, settings: OnlineSettings, *, by: str | None = None, prepared: bool = False
) -> dict:
    """Every online measure of the log behind `con`'s `queries` and `events` views:
    `{"overall": {...}, "by": {bucket: {...}}, "arms": {arm: {...}}}`. `prepared`: the tables of `prepare` (for
    these settings) are already there."""
    if not prepared:
        prepare(con, settings)
    overall = _session_figures(con, None).get(None) or {"queries": 0, "sessions": 0} | dict.fromkeys(RATIO_REGISTRY)
    overall["ctr_at"] = _ctr_at(con, None).get(None, {})
    overall["top_queries"], shares = _top_queries(con, settings.top)
    overall.update(shares)
    result = {"overall": overall, "by": _by_bucket(con, by) if by else {}, "arms": {}}
    if settings.arm is not None:
        positions = _ctr_at(con, "arm")
        for arm, values in sorted(_session_figures(con, "arm").items(), key=lambda item: str(item[0])):
            values["ctr_at"] = positions.get(arm, {})
            result["arms"]["(none)" if arm is None else arm] = values
    return result


def rate_buckets(con: duckdb.DuckDBPyConnection, unit: str) -> int:
    """How many `unit` buckets the log's queries span, first to last (0 for an empty log). Reads the prepared `qa`."""
    if unit not in RATE_UNITS:
        raise ValueError(f"unknown unit {unit!r}; expected one of {', '.join(RATE_UNITS)}")
    first, last = con.execute(f"SELECT date_trunc('{unit}', min(ts)), date_trunc('{unit}', max(ts)) FROM qa").fetchone()
    if first is None:
        return 0
    return con.execute(f"SELECT date_diff('{unit}', ?::TIMESTAMP, ?::TIMESTAMP) + 1", [first, last]).fetchone()[0]


def rate_unit(con: duckdb.DuckDBPyConnection, unit: str) -> str:
    """The unit asked for, or the finest coarser one whose series stays within MAX_RATE_BUCKETS."""
    if unit not in RATE_UNITS:
        raise ValueError(f"unknown unit {unit!r}; expected one of {', '.join(RATE_UNITS)}")
    for candidate in RATE_UNITS[RATE_UNITS.index(unit) :]:
        if rate_buckets(con, candidate) <= MAX_RATE_BUCKETS:
            return candidate
    return RATE_UNITS[-1]


def query_rate(con: duckdb.DuckDBPyConnection, unit: str, *, spike_z: float = 3.5) -> list[dict]:
    """Queries per UTC minute, hour, day, month or year, empty buckets included, each with its robust z-score
    0.6745·(count − median)/MAD over the series (Iglewicz and Hoaglin) and whether it is a spike (z > spike_z).
    When the MAD is 0 the z-score is undefined (None) and nothing is a spike. Reads the prepared `qa`. Refuses
    (ValueError) a series longer than MAX_RATE_BUCKETS: `rate_unit` gives a unit that fits."""
    buckets = rate_buckets(con, unit)
    if buckets > MAX_RATE_BUCKETS:
        raise ValueError(f"the log spans {buckets} {unit}s, more than {MAX_RATE_BUCKETS}; choose a coarser unit")
    rows = con.execute(f"""
        WITH counts AS (SELECT date_trunc('{unit}', ts) AS bucket, count(*) AS n FROM qa GROUP BY 1),
        span AS (SELECT min(bucket) AS first, max(bucket) AS last FROM counts)
        SELECT b.bucket, coalesce(c.n, 0)
        FROM span, LATERAL (SELECT unnest(generate_series(first, last, INTERVAL 1 {unit})) AS bucket) b
        LEFT JOIN counts c USING (bucket) ORDER BY 1
    """).fetchall()
    counts = [int(n) for _, n in rows]
    if not counts:
        return []
    median = _median(counts)
    mad = _median([abs(n - median) for n in counts])
    series = []
    for bucket, n in rows:
        z = None if mad == 0 else 0.6745 * (n - median) / mad
        series.append({"bucket": bucket.isoformat(), "queries": int(n), "z": z, "spike": z is not None and z > spike_z})
    return series


def _median(values: list[int]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return float(ordered[middle]) if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
