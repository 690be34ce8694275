"""Simulated search logs (UBI records) for the demo, the tests and the benchmark: users issue topics' queries,
each arm shows its own ranking, and clicks follow a position-based model (examination 1/rank^η times an
attractiveness that grows with the judged grade). Pure: no Django."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np

ISO = "%Y-%m-%dT%H:%M:%S.%fZ"


@dataclass(frozen=True)
class SimulatedTopic:
    query: str
    rankings: dict[str, list[str]]  # arm → ranked document ids
    grades: dict[str, int]  # document id → grade (unjudged: 0)
    weight: float = 1.0  # how often users ask it


def attractiveness(grade: int, top_grade: int) -> float:
    return 0.05 + 0.85 * (grade / top_grade if top_grade else 0.0)


def simulated_log(
    topics: list[SimulatedTopic],
    *,
    sessions: int,
    start: datetime,
    days: int = 7,
    seed: int = 0,
    eta: float = 1.0,
    depth: int = 10,
) -> tuple[list[dict], list[dict]]:
    """(queries, events) as UBI records. Sessions hold 1–4 queries, a user's arm fixed per client; clicked results
    get a `dwell_seconds` (longer when relevant); a tenth of the sessions' queries find nothing."""
    rng = np.random.default_rng(seed)
    weights = np.array([t.weight for t in topics], dtype=float)
    weights /= weights.sum()
    top_grade = max((g for t in topics for g in t.grades.values()), default=1) or 1
    arms = sorted({arm for t in topics for arm in t.rankings})
    queries, events = [], []
    seconds = days * 86400
    for s in range(sessions):
        user = s % max(1, sessions // 3)
        client = f"user-{user}"
        arm = arms[user % len(arms)] if arms else None
        moment = start + timedelta(seconds=float(rng.uniform(0, seconds)))
        for position_in_session in range(int(rng.integers(1, 5))):
            topic = topics[int(rng.choice(len(topics), p=weights))]
            query_id = f"q{s}-{position_in_session}"
            hits = [] if rng.random() < 0.1 else topic.rankings.get(arm, [])[:depth]
            queries.append(
                {
                    "application": arm,
                    "query_id": query_id,
                    "client_id": client,
                    "session_id": f"s{s}",
                    "user_query": topic.query,
                    "query_response_hit_ids": hits,
                    "timestamp": moment.strftime(ISO),
                }
            )
            for rank, doc in enumerate(hits, start=1):
                examined = rank**-eta
                if rng.random() < examined * attractiveness(topic.grades.get(doc, 0), top_grade):
                    moment += timedelta(seconds=float(rng.uniform(2, 20)))
                    relevant = topic.grades.get(doc, 0) > 0
                    events.append(
                        {
                            "application": arm,
                            "action_name": "click",
                            "query_id": query_id,
                            "session_id": f"s{s}",
                            "client_id": client,
                            "timestamp": moment.strftime(ISO),
                            "event_id": f"e{len(events)}",
                            "event_attributes": {
                                "object": {"object_id": doc},
                                "position": {"ordinal": rank},
                                "dwell_seconds": round(float(rng.exponential(60 if relevant else 12)), 1),
                            },
                        }
                    )
            moment += timedelta(seconds=float(rng.uniform(20, 300)))
    return queries, events


def write_jsonl(records: list[dict], path: Path) -> Path:
    with open(path, "w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, separators=(",", ":")) + "\n")
    return path
