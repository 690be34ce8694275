"""`python -m evaluation QRELS RUN [RUN ...]`: a trec_eval-compatible command line over the measures engine."""

from __future__ import annotations

import argparse
import json
import math
import sys

from .measures import (
    FAMILIES,
    TREC_DEFAULT,
    TREC_EVAL_VERSION,
    TREC_EVAL_VERSIONS,
    MeasureNameError,
    RunSet,
    TrecFormatError,
    TrecReader,
    evaluate,
    parse_measures,
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m evaluation",
        description="Evaluate TREC runs against qrels with trec_eval's conventions (10.0's, or 9.0.x's on request).",
        epilog="Measures: ir_measures names (nDCG@10, P(rel=2)@5, AP, RR, ERR@20, SetF(beta=0.5)) or trec_eval "
        "names (ndcg_cut.10, P.5, map, recip_rank, set_F). Default: trec_eval's standard set.",
    )
    parser.add_argument("qrels", nargs="?")
    parser.add_argument("runs", nargs="*", help="run files; '-' reads one from standard input")
    parser.add_argument("-m", "--measure", action="append", dest="measures", default=[], metavar="MEASURE")
    parser.add_argument("-q", action="store_true", help="print per-topic values as well as the summary")
    parser.add_argument("-c", action="store_true", help="average over all qrels topics (missing topics score 0)")
    parser.add_argument("-l", type=int, default=1, dest="level", help="relevance level (default 1)")
    parser.add_argument("-M", type=int, default=None, dest="depth", help="evaluate only the top DEPTH documents")
    parser.add_argument("-N", type=int, default=None, dest="collection_size", help="collection size for fall-out etc.")
    parser.add_argument("--max-grade", type=int, default=None, help="top grade of the scale, for ERR")
    parser.add_argument(
        "--trec-eval",
        type=int,
        choices=TREC_EVAL_VERSIONS,
        default=TREC_EVAL_VERSION,
        help="follow trec_eval 10.0 (default) or 9.0.x (as pytrec_eval) where they differ: recall levels of "
        "iprec_at_recall and 11pt_avg are lround(r * R) relevant documents in 10.0, (long)(r * R + 0.9) in 9.0.x",
    )
    parser.add_argument(
        "--duplicates",
        choices=["error", "first", "last"],
        default="error",
        help="a docno repeated within a run topic: error (the default, naming the line), or keep the first or last; "
        "trec_eval keeps both silently, which scores a run for a document twice",
    )
    parser.add_argument("--json", action="store_true", help="print results as JSON at full precision")
    parser.add_argument("--list-measures", action="store_true", help="list measure families and exit")
    return parser


def _list_measures() -> None:
    for family in FAMILIES.values():
        trec = f" (trec_eval: {family.trec})" if family.trec else ""
        params = ", ".join(f"{k}={v}" for k, v in family.params.items())
        print(
            f"{family.name}{'(' + params + ')' if params else ''}{trec}\n    {family.doc}\n    source: {family.source}"
        )


def _format(value: float, aggregate_kind: str) -> str:
    if aggregate_kind == "sum" and not math.isnan(value):
        return str(round(value))
    return "nan" if math.isnan(value) else f"{value:.4f}"


def _json_value(value: float):
    return None if math.isnan(value) else value


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.list_measures:
        _list_measures()
        return 0
    if not args.qrels or not args.runs:
        _parser().print_usage(sys.stderr)
        print("error: give a qrels file and at least one run file", file=sys.stderr)
        return 2
    try:
        names = args.measures or list(TREC_DEFAULT)
        keyed = []  # (output key, measure)
        for name in names:
            expanded = parse_measures(name)
            trec_style = "(" not in name and "@" not in name
            for measure in expanded:
                key = measure.trec_output_name if trec_style and (len(expanded) > 1 or not args.json) else name
                keyed.append((key, measure))
        collection = TrecReader()
        qrels = collection.qrels_from_file(args.qrels)
        if args.runs.count("-") > 1:
            raise ValueError("standard input ('-') can be read for one run only")
        sources = [sys.stdin.buffer if path == "-" else path for path in args.runs]
        names = ["<stdin>" if path == "-" else None for path in args.runs]
        runs = collection.runs_from_files(sources, names=names, duplicates=args.duplicates)
        tags = [run.tag for run in runs]
        for index, run in enumerate(runs):
            if tags.count(run.tag) > 1:
                run.tag = f"{run.tag}#{index + 1}"
        result = evaluate(
            qrels,
            RunSet(runs),
            [m for _, m in keyed],
            relevance_level=args.level,
            complete=args.c,
            depth=args.depth,
            collection_size=args.collection_size,
            max_grade=args.max_grade,
            trec_eval=args.trec_eval,
        )
    except (TrecFormatError, MeasureNameError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"error: {error.filename}: {error.strerror}", file=sys.stderr)
        return 2
    column = {m: result.measures.index(m) for _, m in keyed}
    if args.json:
        payload = {"results": {}, "aggregates": {}}
        for tag, run_result in result.runs.items():
            payload["results"][tag] = {
                collection.topic_name(t): {key: _json_value(row[column[m]]) for key, m in keyed}
                for t, row in zip(run_result.topics, run_result.values, strict=True)
            }
            payload["aggregates"][tag] = {key: _json_value(run_result.aggregates[column[m]]) for key, m in keyed}
        json.dump(payload, sys.stdout, indent=1)
        print()
        return 0
    out = sys.stdout
    for tag, run_result in result.runs.items():
        if args.q:
            rows = sorted(
                zip(run_result.topics, run_result.values, strict=True), key=lambda pair: collection.topic_name(pair[0])
            )
            for topic, row in rows:
                for key, m in keyed:
                    if m.spec.aggregate == "gmean":
                        continue  # like trec_eval, geometric means appear only in the summary
                    out.write(
                        f"{key:<22}\t{collection.topic_name(topic)}\t{_format(row[column[m]], m.spec.aggregate)}\n"
                    )
        out.write(f"{'runid':<22}\tall\t{tag}\n")
        out.write(f"{'num_q':<22}\tall\t{run_result.num_topics}\n")
        for key, m in keyed:
            out.write(f"{key:<22}\tall\t{_format(run_result.aggregates[column[m]], m.spec.aggregate)}\n")
    return 0
