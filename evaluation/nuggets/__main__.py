"""`python -m evaluation.nuggets NUGGETS ASSIGNMENTS [--run-scores] [--json]`: castorini/nuggetizer's scores of its
own files, with no database.

NUGGETS is nuggetizer's `create` output, ASSIGNMENTS its `assign --input-kind answers` output (several runs' files
concatenated, told apart by run_id). Scores come from each assignment record's own nugget list; NUGGETS is read to
check consistency only (a difference is a warning on stderr), never to add or drop an answer. `--json` prints
{"answers": [...], "runs": {...}}; the text form prints one line per answer, and with `--run-scores` the runs' means
after them. Exit status 2 for a file that cannot be read, naming its line and field.
"""

from __future__ import annotations

import argparse
import json
import sys

from evaluation.nuggets.core import SCORES, FileProblem, inconsistencies, read_assignments, read_nuggets, score_records


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m evaluation.nuggets", description=__doc__.split("\n\n")[0])
    parser.add_argument("nuggets", help="nuggetizer's create output (JSONL, one line per topic)")
    parser.add_argument("assignments", help="nuggetizer's assign output (JSONL, one line per run and topic)")
    parser.add_argument("--run-scores", action="store_true", help="text form: print the runs' means too")
    parser.add_argument("--json", action="store_true", help="print JSON: {answers, runs}")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        with open(args.nuggets, encoding="utf-8") as lines:
            nuggets = read_nuggets(lines, args.nuggets)
        with open(args.assignments, encoding="utf-8") as lines:
            records = read_assignments(lines, args.assignments)
    except (OSError, UnicodeDecodeError) as error:
        print(f"cannot read: {error}", file=sys.stderr)
        return 2
    except FileProblem as problem:
        print(problem, file=sys.stderr)
        return 2
    for warning in inconsistencies(records, nuggets):
        print(f"warning: {args.assignments}: {warning}", file=sys.stderr)
    scored = score_records(records)
    if args.json:
        json.dump(scored, sys.stdout)
        sys.stdout.write("\n")
        return 0
    for answer in scored["answers"]:
        print("\t".join([answer["run_id"], answer["qid"], *(f"{answer[name]:.4f}" for name in SCORES)]))
    if args.run_scores:
        for run, means in scored["runs"].items():
            print("\t".join([run, "all", *(f"{means[name]:.4f}" for name in SCORES)]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
