"""`python -m evaluation.estimate --machine MACHINE_QRELS --people PEOPLE_QRELS RUN [RUN ...] -m MEASURE --json`:
each run's prediction-powered estimate of each measure, with its interval, from a machine's qrels on every topic and
people's qrels on a random sample of them; and every pair of runs' difference. Exit 2 on bad input, named."""

from __future__ import annotations

import argparse
import json
import sys

from evaluation.cli.errors import reported
from evaluation.estimate.core import DEFAULT_LEVEL, estimate_report, per_topic_values
from measures import TREC_EVAL_VERSION, MeasureNameError, RunSet, TrecFormatError, TrecReader, evaluate, parse_measures
from measures.trec_names import printed_name


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m evaluation.estimate",
        description="Estimate each run's measures from a machine's qrels on every topic, corrected by people's qrels "
        "on a random sample of the topics (prediction-powered inference, PPI++), with confidence intervals.",
    )
    parser.add_argument(
        "--machine", required=True, metavar="MACHINE_QRELS", help="the machine's labels: its topics are all N"
    )
    parser.add_argument("--people", required=True, metavar="PEOPLE_QRELS", help="people's labels on a random sample")
    parser.add_argument("runs", nargs="+", metavar="RUN")
    parser.add_argument("-m", "--measure", action="append", dest="measures", required=True, metavar="MEASURE")
    parser.add_argument("--level", type=float, default=DEFAULT_LEVEL, help="the intervals' confidence (default 0.95)")
    parser.add_argument("--relevance-level", type=int, default=1, help="lowest relevant grade (default 1)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON (the only output for now)")
    return parser


def _measures(names: list[str]) -> dict:
    """{key: measure}: a name as given when it names one measure, trec_eval's printed names when it names several."""
    found = {}
    for name in names:
        parsed = parse_measures(name)
        for measure in parsed:
            found[name if len(parsed) == 1 else printed_name(measure, TREC_EVAL_VERSION)] = measure
    return found


def _per_topic(reader: TrecReader, qrels, runs: RunSet, measures: dict, relevance_level: int) -> dict:
    """{run: {measure: {topic: value}}} over every topic of `qrels` (-c: a run missing a topic scores 0 on it)."""
    result = evaluate(qrels, runs, list(measures.values()), relevance_level=relevance_level, complete=True)
    return per_topic_values(result, list(measures), reader.topic_name, str)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if not 0 < args.level < 1:
            raise ValueError(f"--level must be between 0 and 1, not {args.level}")
        measures = _measures(args.measures)
        reader = TrecReader()
        machine, people = reader.qrels_from_file(args.machine), reader.qrels_from_file(args.people)
        topics = sorted(reader.topic_name(t) for t in machine.topics)
        sample = sorted(reader.topic_name(t) for t in people.topics)
        missing = sorted(set(sample) - set(topics))
        if missing:
            raise ValueError(f"{args.people}: topics the machine qrels lack: {', '.join(missing)}")
        runs = RunSet(reader.runs_from_files(args.runs))
        machine_values = _per_topic(reader, machine, runs, measures, args.relevance_level)
        people_values = _per_topic(reader, people, runs, measures, args.relevance_level)
    except MeasureNameError as error:
        return reported(error, "; see `python -m evaluation --list-measures`")
    except (TrecFormatError, ValueError, OSError) as error:
        return reported(error)
    report = estimate_report(
        machine_values, people_values, topics=topics, people_topics=sample, measures=measures, level=args.level
    )
    json.dump(report, sys.stdout, allow_nan=False)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
