"""`python -m evaluation QRELS RUN [RUN ...]`: a trec_eval-compatible command line over the measures engine."""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import dataclass

import numpy as np

from evaluation.cli.errors import reported
from evaluation.cli.judgment_groups import main_jg
from evaluation.cli.preferences import main_prefs
from measures import (
    FAMILIES,
    TREC_EVAL_VERSION,
    TREC_EVAL_VERSIONS,
    Measure,
    MeasureNameError,
    RunSet,
    TrecFormatError,
    TrecReader,
    evaluate,
    parse_measures,
)
from measures.aggregates import aggregate_of
from measures.relstring import relstrings
from measures.trec_names import NICKNAMES, TREC_ORDER, is_trec_style, printed_name, relstring_length
from measures.zscores import read_zscores, zscore_summary, zscore_table


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m evaluation",
        description="Evaluate TREC runs against qrels with trec_eval's conventions (10.0's, or 9.0.x's on request).",
        epilog="Measures: ir_measures names (nDCG@10, P(rel=2)@5, AP, RR, ERR@20, SetF(beta=0.5)) or trec_eval "
        "names with its parameter forms (ndcg_cut.10,20, P.5, map, iprec_at_recall..10,.20, utility.2,-1,0,0, "
        "ndcg.1=3,2=9, rbp.p=0.95, relstring.20), and its nicknames official (the default), all_trec and set. "
        "Text output is trec_eval's: measures in its order, runid and num_q when asked for.",
    )
    parser.add_argument("qrels", nargs="?")
    parser.add_argument("runs", nargs="*", help="run files; '-' reads one from standard input")
    parser.add_argument("-m", "--measure", action="append", dest="measures", default=[], metavar="MEASURE")
    parser.add_argument("-q", action="store_true", help="print per-topic values as well as the summary")
    parser.add_argument("-n", action="store_true", dest="no_summary", help="print no summary ('all') lines")
    parser.add_argument(
        "-c", action="store_true", help="average over all qrels topics (missing topics score as an empty ranking)"
    )
    parser.add_argument("-J", action="store_true", dest="judged_only", help="drop unjudged documents from rankings")
    parser.add_argument("-l", type=int, default=1, dest="level", help="relevance level (default 1)")
    parser.add_argument("-M", type=int, default=None, dest="depth", help="evaluate only the top DEPTH documents")
    parser.add_argument("-N", type=int, default=None, dest="collection_size", help="collection size for fall-out etc.")
    parser.add_argument(
        "-Z",
        dest="zscores",
        metavar="ZSCORE_FILE",
        help="print z-scores: each topic's value as (value - mean) / stddev from the file's `qid measure mean stddev` "
        "lines, named with a Z prefix; a topic or measure the file lacks scores -1000000, as in trec_eval",
    )
    parser.add_argument(
        "-R",
        dest="rel_format",
        default="qrels",
        choices=["qrels", "qrels_jg", "prefs", "qrels_prefs"],
        help="the relevance file's format: qrels (the default); qrels_jg, whose second column names a judgment "
        "group (a user), for P_avgjg, map_avgjg and Rprec_mult_avgjg (nickname qrels_jg); prefs, lines 'qid jg jsg "
        "docno rel_level' of preferences, or qrels_prefs, qrels read as preferences, for the prefs_* measures "
        "(nicknames all_prefs and prefs)",
    )
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


def _format(value: float, aggregate_kind: str, zscore: bool = False) -> str:
    """trec_eval's %ld for counts and %6.4f for everything else, counts' z-scores included."""
    if aggregate_of(aggregate_kind).summed and not zscore and not math.isnan(value):
        return str(round(value))
    return f"{value:6.4f}"


def _json_value(value: float):
    return None if math.isnan(value) else value


@dataclass
class _Item:
    """One thing a -m asked for: a measure, or a line trec_eval prints itself (runid, num_q, relstring)."""

    order: tuple
    key: str
    measure: Measure | None = None
    relstring: int | None = None
    zscore_name: str = ""  # the printed name a -Z file gives, whatever name --json keys the value by


def _items(names: list[str], trec_eval: int, json_output: bool) -> list[_Item]:
    # trec_eval computes each of its measures once, with the parameters of the first -m that gives it some
    # (`-m all_trec -m relstring.20` prints relstring_20 alone; `-m P.5 -m P.10`, P_5 alone), else its defaults.
    first = {}
    for name in names:
        if name not in NICKNAMES and is_trec_style(name) and "." in name:
            first.setdefault(name.partition(".")[0], name)
    expanded = [n for name in names for n in NICKNAMES.get(name, [name])]
    expanded = [first.get(n.partition(".")[0], n) if is_trec_style(n) else n for n in expanded]
    items: list[_Item] = []
    for index, name in enumerate(expanded):
        base = name.partition(".")[0]
        if not is_trec_style(name):
            items.extend(_Item((len(TREC_ORDER), index), name, m) for m in parse_measures(name))
        elif base in ("runid", "num_q"):
            items.append(_Item((TREC_ORDER[base], index), base))
        elif base == "relstring":
            printed = f"relstring_{name.partition('.')[2]}" if "." in name else "relstring"
            items.append(_Item((TREC_ORDER[base], index), printed, relstring=relstring_length(name)))
        else:
            measures = parse_measures(name)
            for m in measures:
                key = name if json_output and len(measures) == 1 else printed_name(m, trec_eval)
                items.append(_Item((TREC_ORDER[base], index), key, m, zscore_name=printed_name(m, trec_eval)))
    unique: dict[tuple, _Item] = {}
    for item in items:
        unique.setdefault((item.key, item.measure, item.relstring), item)
    return sorted(unique.values(), key=lambda item: item.order)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.list_measures:
        _list_measures()
        return 0
    if not args.qrels or not args.runs:
        _parser().print_usage(sys.stderr)
        print("error: give a qrels file and at least one run file", file=sys.stderr)
        return 2
    if args.rel_format == "qrels_jg":
        return main_jg(args)
    if args.rel_format in ("prefs", "qrels_prefs"):
        return main_prefs(args)
    try:
        items = _items(args.measures or ["official"], args.trec_eval, args.json)
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
        runset = RunSet(runs)
        measures = [item.measure for item in items if item.measure is not None]
        result = evaluate(
            qrels,
            runset,
            measures,
            relevance_level=args.level,
            complete=args.c,
            depth=args.depth,
            collection_size=args.collection_size,
            max_grade=args.max_grade,
            trec_eval=args.trec_eval,
            judged_only=args.judged_only,
        )
        lengths = {item.relstring for item in items if item.relstring is not None}
        strings = {n: relstrings(qrels, runset, n, depth=args.depth, judged_only=args.judged_only) for n in lengths}
        if args.zscores:
            _convert_to_zscores(collection, result, items, read_zscores(args.zscores))
    except MeasureNameError as error:
        return reported(error, "; see `python -m evaluation --list-measures`")
    except (TrecFormatError, ValueError, OSError) as error:
        return reported(error)
    column = {m: result.measures.index(m) for m in measures}
    if args.json:
        _print_json(collection, result, items, column, strings)
        return 0
    for run_index, (tag, run_result) in enumerate(result.runs.items()):
        prefix = "Z" if args.zscores else ""
        if args.q:
            _print_topics(collection, run_index, run_result, items, column, strings, prefix)
        if not args.no_summary:
            _print_summary(tag, run_result, items, column, prefix)
    return 0


def _convert_to_zscores(collection, result, items, zscores) -> None:
    """Replaces every run's values and summaries by z-scores, named as the lines they print under."""
    measures = result.measures
    printed = {}
    for item in items:
        if item.measure is not None:
            printed.setdefault(item.measure, item.zscore_name or item.key)
    names = [printed[m] for m in measures]
    kinds = [m.spec.aggregate for m in measures]
    trec = [m.spec.trec is not None for m in measures]
    for run_result in result.runs.values():
        qids = [collection.topic_name(t) for t in run_result.topics]
        run_result.values = zscore_table(zscores, qids, names, kinds, run_result.values)
        everything = run_result.values
        if run_result.missing_topics is not None and len(run_result.missing_topics):
            missing_qids = [collection.topic_name(t) for t in run_result.missing_topics]
            run_result.missing_values = zscore_table(zscores, missing_qids, names, kinds, run_result.missing_values)
            everything = np.concatenate([everything, run_result.missing_values])
        run_result.aggregates = zscore_summary(everything, kinds, trec)


def _topic_rows(collection, run_result):
    rows = list(zip(run_result.topics, run_result.values, strict=True))
    if run_result.missing_topics is not None:
        rows += list(zip(run_result.missing_topics, run_result.missing_values, strict=True))
    return sorted(rows, key=lambda pair: collection.topic_name(pair[0]))


def _print_topics(collection, run_index, run_result, items, column, strings, prefix) -> None:
    out = sys.stdout
    for topic, row in _topic_rows(collection, run_result):
        name = collection.topic_name(topic)
        for item in items:
            if item.relstring is not None:
                text = strings[item.relstring].get((run_index, int(topic)), "")
                out.write(f"{item.key:<22}\t{name}\t'{text}'\n")
            elif item.measure is not None and not aggregate_of(item.measure.spec.aggregate).log_scale:
                # like trec_eval, geometric means appear only in the summary
                value = _format(row[column[item.measure]], item.measure.spec.aggregate, bool(prefix))
                out.write(f"{prefix}{item.key:<22}\t{name}\t{value}\n")


def _print_summary(tag, run_result, items, column, prefix) -> None:
    out = sys.stdout
    for item in items:
        if item.key == "runid":
            out.write(f"{'runid':<22}\tall\t{tag}\n")
        elif item.key == "num_q":
            out.write(f"{prefix}{'num_q':<22}\tall\t{_format(run_result.num_topics, 'sum', bool(prefix))}\n")
        elif item.measure is not None:
            value = _format(run_result.aggregates[column[item.measure]], item.measure.spec.aggregate, bool(prefix))
            out.write(f"{prefix}{item.key:<22}\tall\t{value}\n")


def _print_json(collection, result, items, column, strings) -> None:
    payload = {"results": {}, "aggregates": {}}
    measured = [item for item in items if item.measure]
    keys, columns = [item.key for item in measured], [column[item.measure] for item in measured]
    for run_index, (tag, run_result) in enumerate(result.runs.items()):
        per_topic = {}
        for topic, row in _topic_rows(collection, run_result):
            # The row's values as Python floats in one call (NaN, undefined, becomes null below), not one by one.
            values = dict(zip(keys, map(_json_value, row[columns].tolist()), strict=True))
            for item in items:
                if item.relstring is not None:
                    values[item.key] = strings[item.relstring].get((run_index, int(topic)), "")
            per_topic[collection.topic_name(topic)] = values
        payload["results"][tag] = per_topic
        payload["aggregates"][tag] = {
            item.key: _json_value(run_result.aggregates[column[item.measure]]) for item in items if item.measure
        }
    # Compact: the C encoder writes it (an indent sends json through its pure-Python path, several times slower).
    sys.stdout.write(json.dumps(payload, separators=(",", ":")) + "\n")
