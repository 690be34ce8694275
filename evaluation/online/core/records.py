"""The careful reader of search logs: one record per line, every rule checked in Python, each problem naming the
file, line and field. The fast reader (`sources`) applies the same rules in DuckDB and, when any line breaks one,
this reader says which. It is also the reference the tests compare the fast reader with. Pure: no Django."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from config.core import strict_json
from measures.lines import Problems, Progress, numbered_lines

MAX_RECORD_BYTES = 1 << 20
# ISO 8601 as UBI writes it: a date, a time to the second, up to six decimals, and Z or an offset below 24 hours
# (none means UTC).
TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)?")
# A log's moments lie in this span, in UTC: every page and plot can represent them (Python's datetime stops at years
# 1 and 9999, which an offset can cross), and a bucketed series over them stays bounded.
EARLIEST, LATEST = datetime(1970, 1, 1), datetime(2999, 12, 31, 23, 59, 59, 999999)
TIME_SPAN = "between 1970 and 2999 (UTC)"
AOL_TIME = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}")
AOL_HEADER = ("AnonID", "Query", "QueryTime", "ItemRank", "ClickURL")


@dataclass(frozen=True, slots=True)
class Query:
    query_id: str
    client_id: str | None
    session_id: str | None
    application: str | None
    user_query: str
    hits: tuple[str, ...] | None  # None: the log does not say what was shown (AOL)
    attributes: str | None  # the query_attributes object as JSON text
    ts: datetime  # UTC, naive


@dataclass(frozen=True, slots=True)
class Event:
    event_id: str
    query_id: str | None
    session_id: str | None
    client_id: str | None
    action_name: str
    object_id: str | None
    ordinal: int | None
    dwell_seconds: float | None
    ts: datetime


def parse_timestamp(text: object) -> datetime | None:
    """A UTC naive datetime from an ISO 8601 string, or None when it is not one or lies outside EARLIEST..LATEST."""
    if not isinstance(text, str) or not TIMESTAMP.fullmatch(text):
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
        moment = moment.astimezone(UTC).replace(tzinfo=None) if moment.tzinfo else moment
    except (ValueError, OverflowError):  # no such date, or an offset that moves it past year 1 or 9999
        return None
    return moment if EARLIEST <= moment <= LATEST else None


def _json_lines(
    path: str | Path, problems: Problems, name: str, progress: Progress | None
) -> Iterator[tuple[int, str, dict]]:
    for number, text in numbered_lines(path, problems, name=name, max_bytes=MAX_RECORD_BYTES, progress=progress):
        if not text.strip():
            continue
        try:
            value = strict_json.record(text)
        except strict_json.RecordError as error:
            problems.add(name, number, error.key, error.reason)
            continue
        yield number, text, value


class _Faults(list):
    """One line's faults, (field, reason) each; `parse` functions return None once they have any."""

    def __call__(self, field: str, reason: str) -> None:
        self.append((field, reason))


def _checked(path, problems: Problems, name: str, progress, parse) -> Iterator:
    """Yields `parse(value, line, add)` for each JSON line whose fields all pass; `add(field, reason)` records a
    fault, and a line with any is a problem per fault and yields nothing."""
    for number, line, value in _json_lines(path, problems, name, progress):
        add = _Faults()
        record = parse(value, line, add)
        for field, reason in add:
            problems.add(name, number, field, reason)
        if not add:
            yield record


def _text(value: dict, key: str, required: bool, add) -> str | None:
    """A string field; integers are accepted as their decimal text (ids are often numbers)."""
    found = value.get(key)
    if found is None:
        if required:
            add(key, "missing")
        return None
    if not _is_id(found):
        add(key, "expected a string")
        return None
    text = str(found)
    if required and not text:
        add(key, "empty")
        return None
    return text


def _timestamp(value: dict, add) -> datetime | None:
    moment = parse_timestamp(value.get("timestamp"))
    if moment is None:
        add(
            "timestamp",
            "missing"
            if value.get("timestamp") is None
            else f"expected an ISO 8601 date and time {TIME_SPAN}, e.g. 2026-11-01T09:30:00Z",
        )
    return moment


def ubi_queries(
    path: str | Path, problems: Problems, *, name: str | None = None, progress: Progress | None = None
) -> Iterator[Query]:
    """UBI 1.0 `ubi_queries` records: query_id and timestamp required; query_response_hit_ids a list of ids (absent:
    unknown); a query needs a client_id or a session_id so that it belongs to a session."""
    return _checked(path, problems, name or str(path), progress, _query)


def _query(value: dict, _line: str, add: _Faults) -> Query | None:
    query_id = _text(value, "query_id", True, add)
    client_id = _text(value, "client_id", False, add)
    session_id = _text(value, "session_id", False, add)
    application = _text(value, "application", False, add)
    user_query = value.get("user_query", "")
    if not isinstance(user_query, str):
        add("user_query", "expected a string")
    hits = value.get("query_response_hit_ids")
    if hits is not None and not (isinstance(hits, list) and all(_is_id(h) for h in hits)):
        add("query_response_hit_ids", "expected a list of document ids")
    attributes = value.get("query_attributes")
    if attributes is not None and not isinstance(attributes, dict):
        add("query_attributes", "expected an object")
    ts = _timestamp(value, add)
    if not add and client_id is None and session_id is None:
        add("client_id", "missing: a query needs a client_id or a session_id")
    if add:
        return None
    return Query(
        query_id=query_id,
        client_id=client_id,
        session_id=session_id,
        application=application,
        user_query=user_query,
        hits=None if hits is None else tuple(str(h) for h in hits),
        attributes=None if attributes is None else json.dumps(attributes, separators=(",", ":")),
        ts=ts,
    )


def _is_id(value: object) -> bool:
    """A string, or a whole number that fits 64 bits (as JSON readers in other languages take it)."""
    if isinstance(value, bool):
        return False
    return isinstance(value, str) or (isinstance(value, int) and -(2**63) <= value < 2**64)


def ubi_events(
    path: str | Path, problems: Problems, *, name: str | None = None, progress: Progress | None = None
) -> Iterator[Event]:
    """UBI 1.0 `ubi_events` records: action_name and timestamp required; event_attributes.object.object_id,
    .position.ordinal (a whole number from 1) and .dwell_seconds (a number from 0) optional. The event's id is its
    `event_id`, else the MD5 digest of the line's text: importing a file twice adds nothing, and two
    identical lines (a client's retry) are one event."""
    return _checked(path, problems, name or str(path), progress, _event)


def _event(value: dict, line: str, add: _Faults) -> Event | None:
    event_id = _text(value, "event_id", False, add)
    query_id = _text(value, "query_id", False, add)
    session_id = _text(value, "session_id", False, add)
    client_id = _text(value, "client_id", False, add)
    action = _text(value, "action_name", True, add)
    ts = _timestamp(value, add)
    attributes = value.get("event_attributes")
    object_id = ordinal = dwell = None
    if attributes is None:
        attributes = {}
    elif not isinstance(attributes, dict):
        add("event_attributes", "expected an object")
        attributes = {}
    target = attributes.get("object")
    if isinstance(target, dict) and target.get("object_id") is not None:
        object_id = target["object_id"]
        if not _is_id(object_id):
            add("event_attributes.object.object_id", "expected a string")
        object_id = str(object_id)
    position = attributes.get("position")
    if isinstance(position, dict) and position.get("ordinal") is not None:
        ordinal = position["ordinal"]
        if isinstance(ordinal, bool) or not isinstance(ordinal, int) or not 1 <= ordinal < 2**31:
            add("event_attributes.position.ordinal", "expected a whole number from 1")
    if attributes.get("dwell_seconds") is not None:
        dwell = attributes["dwell_seconds"]
        if isinstance(dwell, bool) or not isinstance(dwell, int | float) or not 0 <= dwell < float("inf"):
            add("event_attributes.dwell_seconds", "expected a number of seconds from 0")
        else:
            dwell = float(dwell)
    if add:
        return None
    if event_id is None:
        event_id = hashlib.md5(line.encode()).hexdigest()
    return Event(event_id, query_id, session_id, client_id, action, object_id, ordinal, dwell, ts)


def aol_records(
    path: str | Path, problems: Problems, *, name: str | None = None, progress: Progress | None = None
) -> Iterator[Query | Event]:
    """The AOL query log (AnonID, Query, QueryTime, ItemRank, ClickURL; tab-separated, a header line): a query is
    the lines of one user, query and time; each line with a ClickURL is a click at ItemRank. What was shown is not
    in the log, so the queries' hits are unknown."""
    name = name or str(path)
    queries: set[str] = set()
    seen: Counter[str] = Counter()
    for number, text in numbered_lines(path, problems, name=name, max_bytes=MAX_RECORD_BYTES, progress=progress):
        fields = text.split("\t")
        if number == 1:
            if tuple(fields) != AOL_HEADER:
                problems.add(name, 1, None, "expected the header line " + "\\t".join(AOL_HEADER))
            continue
        if not text.strip():
            continue
        if len(fields) not in (3, 5):
            problems.add(name, number, None, f"expected 3 or 5 tab-separated fields, found {len(fields)}")
            continue
        anon, query, time = fields[:3]
        rank, url = (fields[3], fields[4]) if len(fields) == 5 else ("", "")
        faults = []
        if not anon:
            faults.append(("AnonID", "empty"))
        if not AOL_TIME.fullmatch(time) or parse_timestamp(time) is None:
            faults.append(("QueryTime", f"expected YYYY-MM-DD HH:MM:SS {TIME_SPAN}"))
        if rank and not (rank.isascii() and rank.isdigit() and int(rank) >= 1):
            faults.append(("ItemRank", "expected a whole number from 1"))
        if bool(rank) != bool(url):
            faults.append(("ClickURL" if rank else "ItemRank", "ItemRank and ClickURL come together"))
        for field, reason in faults:
            problems.add(name, number, field, reason)
        if faults:
            continue
        key = aol_query_id(anon, query, time)
        if key not in queries:
            queries.add(key)
            yield Query(key, anon, None, None, query, None, None, parse_timestamp(time))
        if url:
            base = f"{key}:{rank}:{url}"
            seen[base] += 1
            yield Event(f"{base}:{seen[base]}", key, None, anon, "click", url, int(rank), None, parse_timestamp(time))


def aol_query_id(anon: str, query: str, time: str) -> str:
    return hashlib.md5(f"{anon}\t{query}\t{time}".encode()).hexdigest()


@dataclass(frozen=True)
class LogFormat:
    """A search log's format as every reader, form and command line asks it: its name and label, whether it comes as
    one file holding queries and clicks together (AOL) or as a file of each (UBI), the header line it must open with
    where it has one, and the careful reader of each kind of record."""

    name: str
    label: str
    one_file: bool
    readers: dict
    header: tuple[str, ...] | None = None

    def files(self, given: dict) -> dict:
        """{kind: file} for each kind of record given (`given`: "log" for a one-file format, else by kind)."""
        if self.one_file:
            return {kind: given["log"] for kind in ("queries", "events")} if "log" in given else {}
        return {kind: given[kind] for kind in ("queries", "events") if kind in given}


LOG_FORMATS = {
    log.name: log
    for log in (
        LogFormat("ubi", "UBI 1.0 (ubi_queries + ubi_events JSON lines)", one_file=False,
                  readers={"queries": ubi_queries, "events": ubi_events}),
        LogFormat("aol", "AOL query log (TSV)", one_file=True,
                  readers={"queries": aol_records, "events": aol_records}, header=AOL_HEADER),
    )
}  # fmt: skip
FORMATS = tuple(LOG_FORMATS)
