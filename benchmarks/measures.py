"""Measures engine speed against pytrec_eval and ranx, measured in the same process on the same data.

    .venv/bin/pip install -e '.[bench]' && .venv/bin/python benchmarks/measures.py [--quick]

(a) all runs x all topics for eleven measures, on prepared input for each tool; (b) re-evaluating one topic after
one judgment changes; (c) file to result: the same files through the same fast reader (`trec_files.run_table`),
pytrec_eval getting its input format (dicts, built from the columns as fast as Python builds dicts, repeated docnos
refused) and ours its prepared arrays; (d) whole processes from files to printed results: `python -m evaluation`
against a pytrec_eval script using pytrec_eval's own readers, trec_eval's default measures; (e) the same per-topic
JSON processes on files whose scores tie often (one decimal; integers), 40 topics x 60 runs x depth 1000. Shape 1
is 50 topics x 100 runs x depth 1000; shape 2 is 20,000 topics x 4 runs x depth 100 with ~2 relevant per topic.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from measures import TREC_DEFAULT, RunSet, TrecReader, evaluate, read_qrels, read_run
from measures.trec_files import run_table

OURS = ["P@5", "P@10", "P@20", "R@100", "R@1000", "AP", "nDCG@10", "nDCG", "RR", "Rprec", "Bpref"]
TREC = {"P.5,10,20", "recall.100,1000", "map", "ndcg_cut.10", "ndcg", "recip_rank", "Rprec", "bpref"}
RANX = [
    "precision@5",
    "precision@10",
    "precision@20",
    "recall@100",
    "recall@1000",
    "map",
    "ndcg@10",
    "ndcg",
    "mrr",
    "r-precision",
    "bpref",
]


def best_of(fn, repeat=3):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def run_dicts_from_file(path) -> dict[str, dict[str, float]]:
    """pytrec_eval's input from a run file, by the same fast reader as ours: {topic: {docno: score}}."""
    table = run_table(path)
    if table is None:
        return read_run(path)[1]
    run: dict[str, dict[str, float]] = {}
    for topic, docno, score in zip(
        table.topics.to_pylist(), table.docnos.to_pylist(), table.scores.tolist(), strict=True
    ):
        ranked = run.setdefault(topic, {})
        if docno in ranked:
            return read_run(path)[1]  # a repeated docno: the careful reader names its line
        ranked[docno] = score
    return run


PYTREC_SCRIPT = """
import sys, pytrec_eval
qrels_path, *run_paths = sys.argv[1:]
with open(qrels_path) as f:
    evaluator = pytrec_eval.RelevanceEvaluator(pytrec_eval.parse_qrel(f), {MEASURES})
for path in run_paths:
    with open(path) as f:
        per_topic = evaluator.evaluate(pytrec_eval.parse_run(f))
    names = sorted(next(iter(per_topic.values())))
    for name in names:
        print(path, name, pytrec_eval.compute_aggregated_measure(name, [v[name] for v in per_topic.values()]))
"""


PYTREC_JSON_SCRIPT = """
import json, sys, pytrec_eval
qrels_path, *run_paths = sys.argv[1:]
with open(qrels_path) as f:
    evaluator = pytrec_eval.RelevanceEvaluator(pytrec_eval.parse_qrel(f), {MEASURES})
results = {}
for path in run_paths:
    with open(path) as f:
        results[path] = evaluator.evaluate(pytrec_eval.parse_run(f))
print(json.dumps(results, separators=(",", ":")))
"""


def realistic_files(folder, run_paths) -> list[str]:
    """Files as real runs come: 6 in 100 repeat a docno within a topic, a `#` comment every 100 lines. pytrec_eval's
    reader refuses both (an assertion on a repeated docno, a split on a comment), so it gets the clean files: what
    its user would first have to make."""
    ours = []
    for index, path in enumerate(run_paths):
        with open(path) as source:
            lines = source.readlines()
        if index % 100 < 6:
            lines.insert(len(lines) // 2, lines[len(lines) // 2])  # a docno twice in one topic
        commented = [text for number, line in enumerate(lines) for text in
                     ((f"# checkpoint {number}\n", line) if number % 100 == 0 else (line,))]  # fmt: skip
        with open(path + ".real", "w") as out:
            out.writelines(commented)
        ours.append(path + ".real")
    return ours


def trailing_column_files(run_paths) -> list[str]:
    """Files whose lines carry a column after the run tag (a system's own note), which trec_eval ignores and
    pytrec_eval's reader refuses (it unpacks six columns), so it gets the clean files."""
    ours = []
    for path in run_paths:
        with open(path) as source, open(path + ".trailing", "w") as out:
            out.writelines(f"{line[:-1]} note\n" for line in source)
        ours.append(path + ".trailing")
    return ours


def whole_processes(folder, qrels_path, run_paths):
    """(d) `python -m evaluation` against a pytrec_eval script (its own file readers), each a whole process with
    trec_eval's default measures: what a user waits for at the shell."""
    script = os.path.join(folder, "pytrec_eval_script.py")
    with open(script, "w") as out:
        out.write(PYTREC_SCRIPT.replace("{MEASURES}", repr(set(TREC_DEFAULT))))

    ours = min(timed([sys.executable, "-m", "evaluation", qrels_path, *run_paths]) for _ in range(3))
    theirs = min(timed([sys.executable, script, qrels_path, *run_paths]) for _ in range(3))
    line("(d) whole process, files to printed results", ours, "pytrec_eval", theirs)
    real = realistic_files(folder, run_paths)
    ours = min(
        timed([sys.executable, "-m", "evaluation", "--duplicates", "first", qrels_path, *real]) for _ in range(3)
    )
    theirs = min(timed([sys.executable, script, qrels_path, *run_paths]) for _ in range(3))
    line("(d) repeats + # comments (theirs clean)", ours, "pytrec_eval", theirs)
    trailing = trailing_column_files(run_paths)
    ours = min(timed([sys.executable, "-m", "evaluation", qrels_path, *trailing]) for _ in range(3))
    line("(d) a trailing column (theirs clean)", ours, "pytrec_eval", theirs)
    json_script = os.path.join(folder, "pytrec_eval_json.py")
    with open(json_script, "w") as out:
        out.write(PYTREC_JSON_SCRIPT.replace("{MEASURES}", repr(set(TREC_DEFAULT))))
    ours = min(timed([sys.executable, "-m", "evaluation", "-q", "--json", qrels_path, *run_paths]) for _ in range(3))
    theirs = min(timed([sys.executable, json_script, qrels_path, *run_paths]) for _ in range(3))
    line("(d) per-topic JSON (-q --json)", ours, "pytrec_eval", theirs)


def generate(topics, runs, depth, judged_per_topic, rel_per_topic, seed=0, decimals=2):
    rng = np.random.default_rng(seed)
    docs_per_topic = depth * 3
    qrels, run_dicts = {}, {}
    for t in range(topics):
        judged = rng.choice(docs_per_topic, size=judged_per_topic, replace=False)
        labels = np.zeros(judged_per_topic, dtype=int)
        labels[:rel_per_topic] = rng.integers(1, 4, size=rel_per_topic)
        qrels[f"q{t}"] = {f"t{t}d{d}": int(lab) for d, lab in zip(judged, labels, strict=True)}
    for r in range(runs):
        run = {}
        for t in range(topics):
            docs = rng.choice(docs_per_topic, size=depth, replace=False)
            scores = np.round(rng.random(depth) * 100, decimals)  # rounding makes score ties
            run[f"q{t}"] = {f"t{t}d{d}": float(s) for d, s in zip(docs, scores, strict=True)}
        run_dicts[f"run{r}"] = run
    return qrels, run_dicts


def write_files(folder, qrels, run_dicts) -> tuple[str, list[str]]:
    """The qrels and one run file per run, as TREC files in `folder`."""
    qrels_path = os.path.join(folder, "qrels")
    with open(qrels_path, "w") as out:
        out.writelines(f"{t} 0 {d} {label}\n" for t, docs in qrels.items() for d, label in docs.items())
    run_paths = []
    for tag, run in run_dicts.items():
        path = os.path.join(folder, tag)
        with open(path, "w") as out:
            out.writelines(f"{t} Q0 {d} 0 {s:g} {tag}\n" for t, docs in run.items() for d, s in docs.items())
        run_paths.append(path)
    return qrels_path, run_paths


def timed(command) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def line(label, ours, peer_name, peer):
    print(f"  {label:<44} ours {ours * 1000:9.1f} ms   {peer_name} {peer * 1000:9.1f} ms   ratio {peer / ours:6.2f}x")


def check_identical(ours_eval, reference, collection):
    """Largest absolute difference between our per-topic values and pytrec_eval's, over the shared measures."""
    pairs = [
        ("P@5", "P_5"),
        ("AP", "map"),
        ("nDCG@10", "ndcg_cut_10"),
        ("nDCG", "ndcg"),
        ("Bpref", "bpref"),
        ("RR", "recip_rank"),
        ("Rprec", "Rprec"),
        ("R@100", "recall_100"),
    ]
    worst = 0.0
    for tag, result in ours_eval.runs.items():
        for row, topic in enumerate(result.topics):
            name = collection.topics.names[topic]
            for ours_name, trec_name in pairs:
                value = result.values[
                    row, ours_eval.measures.index(next(m for m in ours_eval.measures if str(m) == ours_name))
                ]
                worst = max(worst, abs(value - reference[tag][name][trec_name]))
    return worst


def shape(topics, runs, depth, judged, rel, *, with_files):
    import pytrec_eval

    print(f"\nshape: {topics} topics x {runs} runs x depth {depth} ({topics * runs * depth:,} ranked entries)")
    qrels, run_dicts = generate(topics, runs, depth, judged, rel)
    collection = TrecReader()
    prepared_qrels = collection.qrels(qrels)
    prepared = RunSet([collection.run(tag, run) for tag, run in run_dicts.items()])

    evaluator = pytrec_eval.RelevanceEvaluator(qrels, TREC)

    first_time, _ = best_of(lambda: evaluate(prepared_qrels, prepared, OURS), 1)  # builds the run set's indexes
    ours_time, ours_eval = best_of(lambda: evaluate(prepared_qrels, prepared, OURS))
    trec_time, reference = best_of(lambda: {tag: evaluator.evaluate(run) for tag, run in run_dicts.items()}, 1)
    print(f"  identical numbers: max |ours - pytrec_eval| = {check_identical(ours_eval, reference, collection):.1e}")
    line("(a) all runs, 11 measures, prepared input", ours_time, "pytrec_eval", trec_time)
    print(f"  (our first call, building the run set's table of document ids: {first_time * 1000:.1f} ms)")
    try:
        from ranx import Qrels, Run
        from ranx import evaluate as ranx_evaluate

        ranx_qrels = Qrels(qrels)
        ranx_runs = [Run(run, name=tag) for tag, run in run_dicts.items()]
        start = time.perf_counter()
        ranx_evaluate(ranx_qrels, ranx_runs[0], RANX)
        warm = time.perf_counter() - start
        ranx_time, _ = best_of(lambda: [ranx_evaluate(ranx_qrels, run, RANX) for run in ranx_runs], 1)
        line("(a) all runs, 11 measures, prepared input", ours_time, "ranx", ranx_time)
        print(f"  (ranx first call incl. JIT compilation: {warm * 1000:.0f} ms, not counted)")
    except ImportError:
        print("  ranx not installed (pip install -e '.[bench]'); skipped")
    if not with_files:
        return
    # (b) one judgment changes: re-evaluate that topic for every run.
    topic_name = "q7"
    doc = next(iter(qrels[topic_name]))
    qrels[topic_name][doc] = 1 - min(qrels[topic_name][doc], 1)
    changed = collection.qrels(qrels)
    topic_id = collection.topics.get(topic_name)
    one_time, _ = best_of(lambda: evaluate(changed, prepared, OURS, topics=[topic_id]), 5)
    single = {topic_name: qrels[topic_name]}
    single_evaluator = pytrec_eval.RelevanceEvaluator(single, TREC)
    trec_one, _ = best_of(
        lambda: [single_evaluator.evaluate({topic_name: run[topic_name]}) for run in run_dicts.values()], 5
    )
    line("(b) one topic re-evaluated, all runs", one_time, "pytrec_eval", trec_one)
    # (c) file to result, same parser for both tools.
    with tempfile.TemporaryDirectory() as folder:
        qrels_path, run_paths = write_files(folder, qrels, run_dicts)

        def ours_files():
            c = TrecReader()
            q = c.qrels_from_file(qrels_path)
            return evaluate(q, c.runs_from_files(run_paths), OURS)

        def trec_files():
            ev = pytrec_eval.RelevanceEvaluator(read_qrels(qrels_path), TREC)
            return [ev.evaluate(run_dicts_from_file(p)) for p in run_paths]

        ours_file_time, _ = best_of(ours_files)  # best of three for both: the first pass of either pays for
        trec_file_time, _ = best_of(trec_files)  # the memory the process has not touched yet
        line("(c) files to results, same parser", ours_file_time, "pytrec_eval", trec_file_time)
        whole_processes(folder, qrels_path, run_paths)


def tied(topics, runs, depth, decimals):
    """(e) Whole processes on files whose scores tie often, as real runs do (BM25 with coarse scores, integer
    scores): `python -m evaluation -q --json` against the pytrec_eval script, trec_eval's default measures."""
    label = "integers" if decimals == 0 else f"{decimals} decimal{'s' if decimals != 1 else ''}"
    print(f"\ntied scores ({label}): {topics} topics x {runs} runs x depth {depth}")
    qrels, run_dicts = generate(topics, runs, depth, 500, 50, seed=1, decimals=decimals)
    with tempfile.TemporaryDirectory() as folder:
        qrels_path, run_paths = write_files(folder, qrels, run_dicts)
        json_script = os.path.join(folder, "pytrec_eval_json.py")
        with open(json_script, "w") as out:
            out.write(PYTREC_JSON_SCRIPT.replace("{MEASURES}", repr(set(TREC_DEFAULT))))

        ours = [timed([sys.executable, "-m", "evaluation", "-q", "--json", qrels_path, *run_paths]) for _ in range(3)]
        theirs = [timed([sys.executable, json_script, qrels_path, *run_paths]) for _ in range(3)]
        line("(e) per-topic JSON (-q --json), tied scores", min(ours), "pytrec_eval", min(theirs))
        # The same files as real runs come (a docno repeated in a topic, comments), read with --duplicates last;
        # pytrec_eval refuses both, so it keeps the clean files.
        real = realistic_files(folder, run_paths)
        command = [sys.executable, "-m", "evaluation", "--duplicates", "last", "-q", "--json", qrels_path, *real]
        ours = [timed(command) for _ in range(3)]
        line("(e) ... with repeats + comments (theirs clean)", min(ours), "pytrec_eval", min(theirs))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smaller shapes, for a smoke run")
    args = parser.parse_args()
    if args.quick:
        shape(10, 10, 200, 100, 10, with_files=True)
        shape(2000, 4, 100, 10, 2, with_files=False)
        tied(10, 10, 200, 1)
    else:
        shape(50, 100, 1000, 500, 50, with_files=True)
        shape(20000, 4, 100, 10, 2, with_files=False)
        tied(40, 60, 1000, 1)
        tied(40, 60, 1000, 0)


if __name__ == "__main__":
    main()
