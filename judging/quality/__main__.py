"""`python -m judging.quality LABELS.jsonl [--gold QRELS] [--window N] [--threshold T] --json`: each assessor's gold
accuracy, self-agreement, median seconds and flags (drift, random answering, too fast), from labels of any source,
with no database (the rules: `judging.quality`).

LABELS.jsonl has one label a line, {"topic", "docno", "grade", "assessor", "time", "seconds"} (time ISO 8601,
seconds optional), in any order; an assessor's second label of a (topic, docno) is a repeat. QRELS is a TREC
qrels file of gold grades. Prints {"assessors": {NAME: {"judgments", "gold_accuracy", "self_agreement",
"median_seconds", "flags": [{"kind", "from", "reason"}], ...}}, "rules": {...}}. Exit status 2 on bad input, naming
the file, line and field.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from config.core.strict_json import StrictJSONError, loads
from judging.quality.core import ALPHA, FAST_FLOOR_S, FAST_RUN, FAST_SHARE, WINDOW, Label, quality_report
from measures.trec_files import TrecFormatError, qrels_lines


class BadLabels(ValueError):
    pass


def _text(record: dict, field: str, where: str) -> str:
    value = record.get(field)
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        raise BadLabels(f"{where}: field {field!r} must be a non-empty string")
    return value.strip()


def read_labels(path: Path) -> list[Label]:
    labels = []
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            where = f"{path.name}:{number}"
            try:
                record = loads(line)
            except StrictJSONError as error:
                raise BadLabels(f"{where}: not JSON ({error})") from error
            if not isinstance(record, dict):
                raise BadLabels(f"{where}: a label is a JSON object")
            grade = record.get("grade")
            if not isinstance(grade, int) or isinstance(grade, bool) or grade < 0:
                raise BadLabels(f"{where}: field 'grade' must be a whole number from 0")
            seconds = record.get("seconds")
            if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, int | float)
                                        or not math.isfinite(seconds) or seconds < 0):  # fmt: skip
                raise BadLabels(f"{where}: field 'seconds' must be a number of seconds, 0 or more")
            time = record.get("time", "")
            if not isinstance(time, str):
                raise BadLabels(f"{where}: field 'time' must be an ISO 8601 string")
            labels.append(
                Label(
                    _text(record, "topic", where),
                    _text(record, "docno", where),
                    grade,
                    _text(record, "assessor", where),
                    time,
                    seconds,
                    number,
                )
            )
    return labels


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m judging.quality", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("labels", type=Path)
    parser.add_argument("--gold", type=Path, help="a TREC qrels file of gold grades")
    parser.add_argument("--window", type=int, default=WINDOW, help=f"judgments a window (default {WINDOW})")
    parser.add_argument("--threshold", type=int, default=1, help="the lowest relevant grade, for binarised accuracy")
    parser.add_argument("--json", action="store_true", help="print JSON (the only output format)")
    args = parser.parse_args(argv)
    if args.window < 2:
        parser.error("--window must be at least 2")
    try:
        labels = read_labels(args.labels)
        gold = {(q.topic, q.docno): q.grade for q in qrels_lines(args.gold)} if args.gold else {}
    except (OSError, BadLabels, TrecFormatError, UnicodeDecodeError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    report = quality_report(labels, gold=gold, threshold=args.threshold, window=args.window)
    rules = {"window": args.window, "alpha": ALPHA, "test": "chi-square homogeneity, Bonferroni over windows",
             "fast": f"{FAST_RUN} in a row under max({FAST_FLOOR_S} s, {FAST_SHARE} x own median)"}  # fmt: skip
    print(json.dumps({"assessors": {name: q.as_dict() for name, q in report.items()}, "rules": rules}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
