"""Importing search logs: faulty lines named by file, line and field, nothing half-imported, re-imports idempotent,
the fast reader and the careful one agreeing."""

import json

import pytest

from evaluation.online.core import records, store
from evaluation.online.core.simulate import write_jsonl
from evaluation.online.core.store import LogImportFailed
from measures.lines import Problems
from tests.evaluation.online.worked_log import EVENTS, QUERIES


def lines(path, *texts):
    path.write_text("".join(t + "\n" for t in texts), encoding="utf-8")
    return path


def test_importing_the_same_files_twice_adds_nothing(tmp_path, worked_files):
    first = store.import_log(tmp_path / "s", files=worked_files, log_format="ubi")
    again = store.import_log(tmp_path / "s", files=worked_files, log_format="ubi")
    assert (first.queries, first.events) == (14, 10)
    assert (again.queries, again.events, again.skipped_queries, again.skipped_events) == (0, 0, 14, 10)
    con = store.connect(tmp_path / "s")
    assert con.execute("SELECT count(*) FROM events").fetchone()[0] == 10
    assert first.days == ["2026-11-01", "2026-11-02"]


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ('{"query_id": "q", "client_id": "c", "timestamp": "yesterday"}', "timestamp"),
        ('{"client_id": "c", "timestamp": "2026-11-01T00:00:00Z"}', "query_id"),
        ('{"query_id": "q", "timestamp": "2026-11-01T00:00:00Z"}', "client_id"),
        (
            '{"query_id": "q", "client_id": "c", "timestamp": "2026-11-01T00:00:00Z", "query_response_hit_ids": "d1"}',
            "query_response_hit_ids",
        ),
        ('{"query_id": true, "client_id": "c", "timestamp": "2026-11-01T00:00:00Z"}', "query_id"),
        ('{"query_id": "q", "client_id": "c", "timestamp": "2026-02-30T00:00:00Z"}', "timestamp"),
        ('{"query_id": "q", "client_id": "c", "timestamp": "2026-11-01T00:00:00Z", "user_query": 5}', "user_query"),
        ('{"query_id": "q"', None),
        ("[1, 2]", None),
    ],
)
def test_a_faulty_query_line_is_named_and_nothing_is_imported(tmp_path, line, field):
    good = '{"query_id": "ok", "client_id": "c", "timestamp": "2026-11-01T00:00:00Z"}'
    files = {"queries": lines(tmp_path / "queries.jsonl", good, line), "events": lines(tmp_path / "e.jsonl", "")}
    with pytest.raises(LogImportFailed) as failure:
        store.import_log(tmp_path / "s", files=files, log_format="ubi")
    problem = failure.value.problems[0]
    assert (problem.file, problem.line, problem.field) == ("queries.jsonl", 2, field)
    assert not list((tmp_path / "s").glob("import=*")), "nothing may be half-imported"


@pytest.mark.parametrize(
    ("attributes", "field"),
    [
        ({"position": {"ordinal": 0}}, "event_attributes.position.ordinal"),
        ({"position": {"ordinal": 1.5}}, "event_attributes.position.ordinal"),
        ({"dwell_seconds": -1}, "event_attributes.dwell_seconds"),
        ({"object": {"object_id": [1]}}, "event_attributes.object.object_id"),
    ],
)
def test_a_faulty_event_attribute_is_named(tmp_path, attributes, field):
    event = {"action_name": "click", "timestamp": "2026-11-01T00:00:00Z", "event_attributes": attributes}
    files = {
        "queries": write_jsonl(QUERIES, tmp_path / "q.jsonl"),
        "events": lines(tmp_path / "events.jsonl", json.dumps(EVENTS[0]), json.dumps(event)),
    }
    with pytest.raises(LogImportFailed) as failure:
        store.import_log(tmp_path / "s", files=files, log_format="ubi")
    assert [(p.line, p.field) for p in failure.value.problems] == [(2, field)]


def test_the_fast_reader_reads_what_the_careful_reader_reads(tmp_path, worked_files):
    root = tmp_path / "s"
    store.import_log(root, files=worked_files, log_format="ubi")
    con = store.connect(root)
    fast = {row[0]: row for row in con.execute(f"SELECT {store.COLUMNS['events']} FROM events").fetchall()}
    careful = list(records.ubi_events(worked_files["events"], Problems()))
    assert {e.event_id for e in careful} == set(fast)
    for event in careful:
        assert fast[event.event_id] == (
            event.event_id,
            event.query_id,
            event.session_id,
            event.client_id,
            event.action_name,
            event.object_id,
            event.ordinal,
            event.dwell_seconds,
            event.ts,
        )
    fast_queries = {r[0]: r for r in con.execute(f"SELECT {store.COLUMNS['queries']} FROM queries").fetchall()}
    for query in records.ubi_queries(worked_files["queries"], Problems()):
        row = fast_queries[query.query_id]
        assert row[:5] == (query.query_id, query.client_id, query.session_id, query.application, query.user_query)
        assert tuple(row[5]) == query.hits and row[7] == query.ts


def test_an_event_without_id_is_known_by_its_line(tmp_path):
    event = '{"action_name": "click", "timestamp": "2026-11-01T00:00:00Z", "session_id": "s"}'
    files = {"queries": write_jsonl(QUERIES, tmp_path / "q.jsonl"), "events": lines(tmp_path / "e.jsonl", event)}
    store.import_log(tmp_path / "s", files=files, log_format="ubi")
    again = store.import_log(tmp_path / "s", files=files, log_format="ubi")
    assert again.events == 0 and again.skipped_events == 1


AOL = [
    "AnonID\tQuery\tQueryTime\tItemRank\tClickURL",
    "142\trentdirect.com\t2006-03-01 07:17:12",
    "142\twww.prescriptionfortime.com\t2006-03-12 12:31:06\t1\thttp://www.prescriptionfortime.com",
    "142\twww.prescriptionfortime.com\t2006-03-12 12:31:06\t3\thttp://www.example.com",
    "217\tlottery\t2006-03-01 11:58:51\t1\thttp://www.calottery.com",
    "217\tlottery\t2006-03-01 12:10:00\t\t",
]


def test_an_aol_log_groups_lines_into_queries_and_clicks(tmp_path):
    summary = store.import_log(tmp_path / "s", files={"log": lines(tmp_path / "aol.tsv", *AOL)}, log_format="aol")
    assert (summary.queries, summary.events) == (4, 3)
    from evaluation.online.core.measures import OnlineSettings, online_measures

    overall = online_measures(store.connect(tmp_path / "s"), OnlineSettings())["overall"]
    assert overall["query_ctr"] == pytest.approx(2 / 4)
    assert overall["result_ctr"] is None and overall["zero_result_rate"] is None  # impressions are not in AOL
    assert overall["sessions"] == 3  # 142's two queries are days apart, 217's twelve minutes apart
    assert overall["mrr_first_click"] == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ("142\tq\t2006-03-01\t\t", "QueryTime"),
        ("142\tq\t2006-03-01 07:17:12\t0\thttp://x", "ItemRank"),
        ("142\tq\t2006-03-01 07:17:12\t2\t", "ClickURL"),
        ("\tq\t2006-03-01 07:17:12", "AnonID"),
        ("142\tq", None),
    ],
)
def test_a_faulty_aol_line_is_named(tmp_path, line, field):
    with pytest.raises(LogImportFailed) as failure:
        store.import_log(tmp_path / "s", files={"log": lines(tmp_path / "aol.tsv", *AOL[:2], line)}, log_format="aol")
    assert [(p.file, p.line, p.field) for p in failure.value.problems] == [("aol.tsv", 3, field)]


def test_an_aol_file_without_its_header_is_refused(tmp_path):
    with pytest.raises(LogImportFailed, match="header"):
        store.import_log(tmp_path / "s", files={"log": lines(tmp_path / "aol.tsv", *AOL[1:])}, log_format="aol")


@pytest.mark.parametrize(
    "moment",
    [
        "0000-01-01T00:00:00Z",
        "0001-01-01T00:00:00+01:00",  # year 0 once moved to UTC
        "9999-12-31T23:59:59-01:00",  # year 10000 once moved to UTC
        "1969-12-31T23:59:59Z",
        "2026-11-01T00:00:00+99:99",
        "2026-11-01T00:00:00+24:00",
    ],
)
def test_a_moment_pages_could_not_show_is_refused_by_line_and_field(tmp_path, moment):
    """Accepted, such a timestamp made every online page and plot of the log answer 500 for good."""
    good = '{"query_id": "ok", "client_id": "c", "timestamp": "2026-11-01T00:00:00Z"}'
    bad = json.dumps({"query_id": "q", "client_id": "c", "timestamp": moment})
    files = {"queries": lines(tmp_path / "queries.jsonl", good, bad), "events": lines(tmp_path / "e.jsonl", "")}
    with pytest.raises(LogImportFailed) as failure:
        store.import_log(tmp_path / "s", files=files, log_format="ubi")
    problem = failure.value.problems[0]
    assert (problem.file, problem.line, problem.field) == ("queries.jsonl", 2, "timestamp")
    assert "between 1970 and 2999" in problem.reason
    assert not list((tmp_path / "s").glob("import=*"))


@pytest.mark.parametrize(
    "moment",
    [
        "0000-03-01 10:00:00",
        "1969-12-31 23:59:59",
        "3000-01-01 00:00:00",
        "2006-03-32 10:00:00",
        "2006-02-29 10:00:00",
        "2006-03-01 24:00:00",
    ],
)
def test_an_aol_time_outside_the_span_is_refused(tmp_path, moment):
    with pytest.raises(LogImportFailed) as failure:
        store.import_log(
            tmp_path / "s", files={"log": lines(tmp_path / "aol.tsv", *AOL[:2], f"142\tq\t{moment}")}, log_format="aol"
        )
    assert [(p.file, p.line, p.field) for p in failure.value.problems] == [("aol.tsv", 3, "QueryTime")]


@pytest.mark.parametrize("text", ["", "\n\n   \n"])
def test_an_empty_or_blank_queries_file_is_refused(tmp_path, text):
    files = {"queries": lines(tmp_path / "queries.jsonl", text), "events": lines(tmp_path / "e.jsonl", "")}
    with pytest.raises(LogImportFailed) as failure:
        store.import_log(tmp_path / "s", files=files, log_format="ubi")
    assert "holds no query" in failure.value.problems[0].reason


def test_a_lone_surrogate_is_named_by_its_line(tmp_path):
    good = '{"query_id": "ok", "client_id": "c", "timestamp": "2026-11-01T00:00:00Z"}'
    bad = '{"query_id": "q", "client_id": "c", "timestamp": "2026-11-01T00:00:00Z", "user_query": "a\\ud800b"}'
    files = {"queries": lines(tmp_path / "queries.jsonl", good, bad), "events": lines(tmp_path / "e.jsonl", "")}
    with pytest.raises(LogImportFailed) as failure:
        store.import_log(tmp_path / "s", files=files, log_format="ubi")
    assert [(p.file, p.line) for p in failure.value.problems] == [("queries.jsonl", 2)]


def test_deep_nesting_is_named_by_its_line_never_a_crash(tmp_path):
    # (a NUL in a log's text is no fault: the log's store, DuckDB and Parquet, keeps it)
    bad, field, reason = "[" * 5000 + "]" * 5000, None, "nested more than"
    good = '{"query_id": "ok", "client_id": "c", "timestamp": "2026-11-01T00:00:00Z"}'
    files = {"queries": lines(tmp_path / "queries.jsonl", good, bad), "events": lines(tmp_path / "e.jsonl", "")}
    with pytest.raises(LogImportFailed) as failure:
        store.import_log(tmp_path / "s", files=files, log_format="ubi")
    (problem,) = failure.value.problems
    assert (problem.file, problem.line, problem.field) == ("queries.jsonl", 2, field) and reason in problem.reason
