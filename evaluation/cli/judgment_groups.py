"""`python -m evaluation -R qrels_jg QRELS_JG RUN ...`: trec_eval's judgment-group input mode, its measures averaged
over each topic's judgment groups (`measures.judgment_groups`), printed as trec_eval prints them."""

from __future__ import annotations

import json
import sys

from evaluation.cli.errors import reported
from evaluation.cli.output import write_run
from measures import MeasureNameError, RunSet, TrecFormatError, TrecReader
from measures.judgment_groups import AVERAGED, NICKNAME, evaluate_groups, read_qrels_jg


def _wanted(names: list[str]) -> tuple[list[str], bool, bool]:
    """(the *_avgjg measures, each with the first parameters given, in trec_eval's order; runid asked; num_q asked).
    Other measures are refused: trec_eval cannot compute them from judgment groups either."""
    expanded = [n for name in names for n in (NICKNAME if name == "qrels_jg" else [name])]
    with_parameters: dict[str, str] = {}
    bare: set[str] = set()
    for name in expanded:
        family = name.partition(".")[0]
        if family in ("runid", "num_q"):
            continue
        if family not in AVERAGED:
            raise MeasureNameError(
                f"{name!r} cannot be computed from judgment groups; with -R qrels_jg ask for "
                f"{', '.join(AVERAGED)} (or the nickname qrels_jg)"
            )
        if "." in name:
            with_parameters.setdefault(family, name)  # trec_eval takes the first parameters given
        else:
            bare.add(family)
    order = ["map_avgjg", "P_avgjg", "Rprec_mult_avgjg"]  # trec_eval's measure table
    chosen = [with_parameters.get(f, f) for f in order if f in with_parameters or f in bare]
    return chosen, "runid" in expanded, "num_q" in expanded


def main_jg(args) -> int:
    try:
        measures, runid, num_q = _wanted(args.measures or ["qrels_jg"])
        groups = read_qrels_jg(args.qrels)
        reader = TrecReader()
        runs = RunSet(reader.runs_from_files(args.runs, duplicates=args.duplicates))
        printed, values = evaluate_groups(
            groups, reader, runs, measures, relevance_level=args.level, judged_only=args.judged_only, depth=args.depth
        )
    except (MeasureNameError, TrecFormatError, ValueError, OSError) as error:
        return reported(error)
    if args.json:
        payload = {
            tag: {topic: dict(zip(printed, map(float, row), strict=True)) for topic, row in sorted(by_topic.items())}
            for tag, by_topic in values.items()
        }
        sys.stdout.write(json.dumps({"results": payload}, separators=(",", ":")) + "\n")
        return 0
    for tag, by_topic in values.items():
        rows = sorted(by_topic.items())  # summed in topic order, as trec_eval sums
        means = [sum(row[i] for _, row in rows) / len(rows) if rows else 0.0 for i in range(len(printed))]
        write_run(
            sys.stdout,
            tag,
            ((topic, [(n, f"{v:6.4f}") for n, v in zip(printed, row, strict=True)]) for topic, row in rows),
            [(n, f"{v:6.4f}") for n, v in zip(printed, means, strict=True)],
            per_topic=args.q,
            with_summary=not args.no_summary,
            runid=runid,
            num_q=len(by_topic) if num_q else None,
        )
    return 0
