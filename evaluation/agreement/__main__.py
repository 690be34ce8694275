"""`python -m evaluation.agreement JUDGMENTS`: a JSON agreement report per topic and overall; optional consensus qrels.

JUDGMENTS is TSV or CSV with the columns topic, docno, assessor, grade (a header row naming them is optional), or
JSONL with those keys. Errors name the file, line and field, and exit with status 2.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections import defaultdict

from evaluation.cli.errors import reported
from measures import TrecFormatError
from measures.agreement import agreement_report
from measures.consensus import METHODS, consensus

COLUMNS = ("topic", "docno", "assessor", "grade")


def _rows(path: str):
    with open(path, encoding="utf-8", newline="") as handle:
        if path.endswith((".jsonl", ".json")):
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as error:
                    raise TrecFormatError(path, number, None, f"not JSON ({error.msg})") from None
                missing = [c for c in COLUMNS if c not in record]
                if missing:
                    raise TrecFormatError(path, number, missing[0], "missing key")
                yield number, [str(record[c]) for c in COLUMNS]
            return
        dialect = "excel-tab" if path.endswith((".tsv", ".txt")) else "excel"
        for number, fields in enumerate(csv.reader(handle, dialect=dialect), start=1):
            if not fields or (number == 1 and [f.strip().lower() for f in fields] == list(COLUMNS)):
                continue
            if len(fields) != 4:
                raise TrecFormatError(path, number, None, f"expected 4 columns {', '.join(COLUMNS)}, got {len(fields)}")
            yield number, [f.strip() for f in fields]


def read_judgments(path: str) -> dict[str, dict[str, dict[str, int]]]:
    """{topic: {docno: {assessor: grade}}}; a repeated (topic, docno, assessor) is an error."""
    topics: dict[str, dict[str, dict[str, int]]] = defaultdict(lambda: defaultdict(dict))
    for number, (topic, docno, assessor, grade) in _rows(path):
        try:
            value = int(grade)
        except ValueError:
            raise TrecFormatError(path, number, "grade", f"expected an integer, got {grade!r}") from None
        if assessor in topics[topic][docno]:
            raise TrecFormatError(path, number, "assessor", f"{assessor!r} judged {docno!r} twice for {topic!r}")
        topics[topic][docno][assessor] = value
    if not topics:
        raise TrecFormatError(path, 0, None, "file has no judgments")
    return topics


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m evaluation.agreement", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("judgments")
    parser.add_argument("--categories", help="the full scale, e.g. 0,1,2,3,4,5 (default: grades seen)")
    parser.add_argument("--threshold", type=int, default=1, help="lowest relevant grade for the binary view")
    parser.add_argument("--consensus", choices=METHODS, help="also write consensus qrels by this method")
    parser.add_argument("--out", help="where to write the consensus qrels (TREC format)")
    args = parser.parse_args(argv)
    if args.consensus and not args.out:
        parser.error("--consensus needs --out QRELS")
    try:
        categories = [int(c) for c in args.categories.split(",")] if args.categories else None
        topics = read_judgments(args.judgments)
    except (TrecFormatError, ValueError, OSError) as error:
        return reported(error)
    everything = [item for docs in topics.values() for item in docs.values()]
    report = {
        "overall": agreement_report(everything, categories=categories, threshold=args.threshold),
        "topics": {
            t: agreement_report(list(docs.values()), categories=categories, threshold=args.threshold)
            for t, docs in sorted(topics.items())
        },
    }
    if args.consensus:
        with open(args.out, "w", encoding="utf-8") as out:
            for topic, docs in sorted(topics.items()):
                labels = consensus(docs, args.consensus, categories=categories).labels
                out.writelines(f"{topic} 0 {docno} {labels[docno]}\n" for docno in sorted(labels))
        report["consensus"] = {"method": args.consensus, "qrels": args.out}
    json.dump(report, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
