"""`python -m evaluation.online QUERIES EVENTS`: a search log's online measures as JSON (see `measures`).

UBI logs come as two JSON-lines files (queries, events); an AOL log is one TSV file given once. Pure: no Django.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from evaluation.online.core import ab, store
from evaluation.online.core.measures import (
    BUCKETS,
    RATE_UNITS,
    OnlineSettings,
    definitions,
    online_measures,
    query_rate,
    rate_unit,
)
from evaluation.online.core.records import FORMATS, LOG_FORMATS
from evaluation.online.core.store import LogImportFailed


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m evaluation.online", description=__doc__.splitlines()[0])
    p.add_argument("queries", nargs="?", help="ubi_queries JSON lines, or the AOL TSV log")
    p.add_argument("events", nargs="?", help="ubi_events JSON lines (not for AOL)")
    p.add_argument("--format", choices=FORMATS, default="ubi")
    p.add_argument(
        "--by",
        choices=BUCKETS,
        help="also give every measure per UTC day or ISO week, or the query-level ones per query",
    )
    p.add_argument("--arm", help="the A/B arm: 'application' or a query attribute's name")
    p.add_argument("--control", help="the arm the others are compared with (default: the first by name)")
    p.add_argument("--dwell-seconds", type=float, default=30.0, help="a click this long is a success (default 30)")
    p.add_argument("--success-actions", default="", help="event actions that are a success, e.g. copy,add_to_cart")
    p.add_argument("--click-actions", default="click", help="event actions that are clicks (default: click)")
    p.add_argument("--session-gap", type=float, default=30.0, help="minutes of quiet that end a session without id")
    p.add_argument("--rate", choices=RATE_UNITS, help="also give queries per minute/hour/day/month with spikes")
    p.add_argument("--top", type=int, default=20, help="how many top queries to list (default 20)")
    p.add_argument("--json", action="store_true", help="print JSON (the only output for now; kept for scripts)")
    p.add_argument("--list-measures", action="store_true", help="print each measure's definition and exit")
    return p


def _names(text: str) -> tuple[str, ...]:
    return tuple(name.strip() for name in text.split(",") if name.strip())


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.list_measures:
        for name, (formula, choice) in definitions().items():
            print(f"{name}\n    {formula}\n    choice: {choice}")
        return 0
    if not args.queries:
        parser().error("give the log's files")
    log = LOG_FORMATS[args.format]
    if not log.one_file and not args.events:
        parser().error(f"a {args.format.upper()} log needs its events file too")
    if log.one_file and args.events:
        parser().error(f"an {args.format.upper()} log is one file")
    try:
        settings = OnlineSettings(
            click_actions=_names(args.click_actions),
            success_actions=_names(args.success_actions),
            dwell_seconds=args.dwell_seconds,
            session_gap_minutes=args.session_gap,
            arm=args.arm,
            top=args.top,
        )
    except ValueError as error:
        parser().error(str(error))
    files = (
        {"log": Path(args.queries)} if log.one_file else {"queries": Path(args.queries), "events": Path(args.events)}
    )
    with tempfile.TemporaryDirectory(prefix="online-") as scratch:
        try:
            store.import_log(Path(scratch) / "store", files=files, log_format=args.format)
        except (LogImportFailed, OSError) as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        con = store.connect(Path(scratch) / "store")
        result = online_measures(con, settings, by=args.by)
        if args.arm:
            result["comparison"] = ab.arm_comparison(con, control=args.control)
        if args.rate:
            unit = rate_unit(con, args.rate)
            result["rate"] = {"unit": unit, "series": query_rate(con, unit)}
    json.dump(result, sys.stdout, indent=1, default=str)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
