"""`python -m evaluation -R prefs PREFS RUN ...` and `-R qrels_prefs QRELS RUN ...`: trec_eval's preference input
modes and their prefs_* measures (`measures.preferences`), printed as trec_eval prints them."""

from __future__ import annotations

import json
import sys

from evaluation.cli.errors import reported
from evaluation.cli.output import write_run
from measures import MeasureNameError, TrecFormatError
from measures.preferences import (
    COUNTS,
    MEASURES,
    NICKNAMES,
    evaluate_prefs,
    read_prefs,
    read_qrels_prefs,
    summary,
)
from measures.trec_files import read_run


def _wanted(names: list[str]) -> tuple[list[str], bool, bool]:
    """(the prefs_* measures asked for, in trec_eval's order; runid asked; num_q asked). Other measures are refused:
    trec_eval cannot compute them from preferences either."""
    expanded = [n for name in names for n in NICKNAMES.get(name, [name])]
    for name in expanded:
        if name not in MEASURES and name not in ("runid", "num_q"):
            raise MeasureNameError(
                f"{name!r} cannot be computed from preferences; with -R prefs or -R qrels_prefs ask for "
                f"{', '.join(MEASURES)}, or the nicknames all_prefs and prefs"
            )
    return [m for m in MEASURES if m in expanded], "runid" in expanded, "num_q" in expanded


def _format(name: str, value: float) -> str:
    return str(round(value)) if name in COUNTS else f"{value:6.4f}"


def main_prefs(args) -> int:
    try:
        measures, runid, num_q = _wanted(args.measures or ["prefs"])
        reader = read_prefs if args.rel_format == "prefs" else read_qrels_prefs
        prefs = reader(args.qrels)
        runs = [read_run(path, duplicates=args.duplicates) for path in args.runs]
        results = [(tag, evaluate_prefs(prefs, run, complete=args.c, depth=args.depth)) for tag, run in runs]
    except (MeasureNameError, TrecFormatError, ValueError, OSError) as error:
        return reported(error)
    if args.json:
        payload = {"results": {}, "aggregates": {}}
        for tag, values in results:
            payload["results"][tag] = {t: {m: row[m] for m in measures} for t, row in values.items()}
            payload["aggregates"][tag] = summary(values, measures) | {"num_q": len(values)}
        sys.stdout.write(json.dumps(payload, separators=(",", ":")) + "\n")
        return 0
    for tag, values in results:
        if not values:
            print(f"error: run {tag!r} has no topic with preferences", file=sys.stderr)
            return 2
        write_run(
            sys.stdout,
            tag,
            ((topic, [(m, _format(m, row[m])) for m in measures]) for topic, row in values.items()),
            [(m, _format(m, value)) for m, value in summary(values, measures).items()],
            per_topic=args.q,
            with_summary=not args.no_summary,
            runid=runid,
            num_q=len(values) if num_q else None,
        )
    return 0
