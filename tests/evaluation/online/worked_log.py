"""A ten-session UBI log whose every online measure is worked out by hand in test_online_measures.py."""

DAY1, DAY2 = "2026-11-01", "2026-11-02"


def _q(query_id, session, app, time, hits, text, client="c"):
    record = {
        "query_id": query_id,
        "client_id": client,
        "application": app,
        "user_query": text,
        "query_response_hit_ids": hits,
        "timestamp": time,
    }
    if session:
        record["session_id"] = session
    return record


def _click(event_id, query_id, session, time, doc, ordinal=None, dwell=None, action="click"):
    attributes = {"object": {"object_id": doc}}
    if ordinal is not None:
        attributes["position"] = {"ordinal": ordinal}
    if dwell is not None:
        attributes["dwell_seconds"] = dwell
    record = {
        "event_id": event_id,
        "query_id": query_id,
        "action_name": action,
        "timestamp": time,
        "event_attributes": attributes,
    }
    if session:
        record["session_id"] = session
    return record


QUERIES = [
    _q("q1", "S1", "A", f"{DAY1}T10:00:00Z", ["d1", "d2", "d3"], "Cheap  Flights"),
    _q("q2", "S1", "A", f"{DAY1}T10:01:00Z", ["d1", "d4"], "cheap flights"),
    _q("q3", "S2", "A", f"{DAY1}T10:00:00Z", ["d1", "d2", "d3"], "CHEAP FLIGHTS "),
    _q("q4", "S3", "A", f"{DAY1}T11:00:00Z", [], "hotels"),
    _q("q5", "S4", "B", f"{DAY1}T12:00:00Z", ["d5", "d6"], "hotels"),
    _q("q6", "S5", "B", f"{DAY1}T13:00:00+00:00", ["d1", "d2", "d3", "d4"], "Café"),
    _q("q7", "S6", "B", f"{DAY1}T15:00:00+01:00", ["d1"], "cafe\u0301"),  # 14:00 UTC
    _q("q8", "S7", "A", f"{DAY2}T09:00:00Z", ["d1", "d2"], "weather"),
    _q("q9", "S7", "A", f"{DAY2}T09:00:20Z", ["d3"], "weather"),
    _q("q10", None, "A", f"{DAY2}T10:00:00Z", ["d1", "d2"], "news", client="c8"),
    _q("q11", None, "A", f"{DAY2}T10:20:00Z", ["d2"], "news", client="c8"),
    _q("q12", None, "A", f"{DAY2}T11:00:00Z", [], "news", client="c8"),  # 40 minutes later: a new session
    _q("q13", "S10", "B", f"{DAY2}T15:00:00Z", ["d7", "d8", "d9"], "maps"),
    _q("q14", "S10", "B", f"{DAY2}T15:02:00Z", ["d7"], "weather"),
]

EVENTS = [
    _click("e1", "q1", "S1", f"{DAY1}T10:00:10Z", "d2", ordinal=2),  # dwell 50 (next: q2) → success
    _click("e2", "q5", "S4", f"{DAY1}T12:00:05Z", "d5"),  # position 1 from the hits; last moment → dwell 0
    _click("e3", "q6", "S5", f"{DAY1}T13:00:20Z", "d3", ordinal=3, dwell=45),  # success
    _click("e4", "q6", "S5", f"{DAY1}T13:00:10Z", "d1", ordinal=1, dwell=5),  # the first click in time
    _click("e5", "q7", "S6", f"{DAY1}T14:00:30Z", "d1", action="copy"),  # a success only with success actions
    _click("e6", "q8", "S7", f"{DAY2}T09:00:05Z", "d2", ordinal=2),  # dwell 15 (next: q9)
    _click("e7", "q9", "S7", f"{DAY2}T09:00:25Z", "d3", ordinal=1),  # dwell 0
    _click("e8", "q11", None, f"{DAY2}T10:20:40Z", "d2", dwell=31),  # position 1 from the hits; success
    _click("e9", "q13", "S10", f"{DAY2}T15:00:40Z", "d9", ordinal=3),  # dwell 80 (next: q14) → success
    {"event_id": "e10", "action_name": "hover", "timestamp": f"{DAY2}T15:02:30Z", "session_id": "S10"},
]
