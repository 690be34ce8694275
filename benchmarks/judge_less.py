"""Judging orders compared: how many judgments each needs to find the relevant documents and to rank the runs.

    .venv/bin/python benchmarks/judge_less.py [--topics 50] [--runs 40] [--depth 100] [--seeds 1] [--png FILE]

Replays campaigns with `judging.ordering` (the qrels as the oracle assessor, topics round robin) on:
- "wide": generated runs of widely different quality (the easy case: best-rank order ranks them early);
- "close": generated runs of close quality (the hard case);
- "demo": the demo collection (stdlib docstrings, 4 runs, depth 50, graded by the demo's term-overlap grader), where
  cal also reads the documents' text.
For every strategy against best_rank (the depth-k pool's static order): the judgments needed to find 90% of the
pool's relevant documents, Kendall's tau of the MAP leaderboard after 10% of the pool, and the judgments needed for
tau >= 0.95 (and staying there), each with its ratio to best_rank. `--png` draws the curves.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from judging.ordering.__main__ import simulate
from judging.ordering.core.orders import ORDERS
from measures import PreparedQrels, PreparedRun


def generated_campaign(kind: str, seed: int, *, topics: int, runs: int, depth: int):
    """Qrels and runs over integer ids. Every topic has 2,000 documents, 5-60 of them relevant (grades 1-2), and a
    shared 'topicality' that makes runs agree on some non-relevant documents, as real runs do. A run's quality is
    how strongly relevance shows in its scores: spread over 0.2-3 ("wide") or 0.9-1.3 ("close")."""
    rng = np.random.default_rng(seed)
    low, high = (0.2, 3.0) if kind == "wide" else (0.9, 1.3)
    quality = rng.uniform(low, high, runs)
    qrels: dict[int, dict[int, int]] = {}
    rankings: dict[str, dict[int, np.ndarray]] = {f"r{r:02d}": {} for r in range(runs)}
    documents = 2000
    for topic in range(topics):
        grades = np.zeros(documents, dtype=np.int64)
        relevant = rng.choice(documents, rng.integers(5, 61), replace=False)
        grades[relevant] = rng.choice([1, 1, 2], len(relevant))
        topicality = rng.normal(0.0, 1.0, documents) + (grades > 0)  # relevant documents look topical too
        ids = np.arange(documents) + topic * documents
        qrels[topic] = {int(ids[d]): int(grades[d]) for d in np.flatnonzero(grades)}
        for r, tag in enumerate(rankings):
            scores = quality[r] * (1.2 * grades + 0.7 * topicality) + rng.normal(0.0, 1.0, documents)
            rankings[tag][topic] = ids[np.argsort(-scores, kind="stable")[:depth]]
    prepared = [PreparedRun.from_rankings(tag, per_topic) for tag, per_topic in rankings.items()]
    return PreparedQrels.from_mapping(qrels), prepared, None


def demo_campaign():
    """The demo collection's documents, topics and runs, every pooled document graded by the demo's grader."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from types import SimpleNamespace

    from judging.demo.corpus import TOPICS, demo_runs, harvest_docstrings, simulated_grade

    documents = harvest_docstrings()
    ids = {d["docno"]: i for i, d in enumerate(documents)}
    texts = {i: d["title"] + " " + d["body"] for i, d in enumerate(documents)}
    runs = []
    for tag, per_topic in demo_runs(documents).items():
        runs.append(
            PreparedRun.from_rankings(tag, {int(t): [ids[d] for d in scores] for t, scores in per_topic.items()})
        )
    titles = {int(number): title for number, title, _ in TOPICS}
    import random

    rng = random.Random(0)
    qrels = {
        topic: {
            i: simulated_grade(title, SimpleNamespace(docno=documents[i]["docno"], body=documents[i]["body"]), rng, 0)
            for i in range(len(documents))
        }
        for topic, title in titles.items()
    }
    # The demo's grades are 0-3 with relevance at 2, as the demo collection sets it.
    return PreparedQrels.from_mapping(qrels), runs, {t: texts for t in titles}


def rank_evidence_bound(qrels, runs, depth: int, level: int) -> int:
    """Judgments an order would need to find 90% of the pool's relevant documents if it knew, from the start, the
    logistic regression of relevance on what the runs say about each document (each run's reciprocal rank) fitted
    on every label, and judged the whole pool by it in one global order: what no order reading only the runs'
    rankings can beat by much."""
    from sklearn.linear_model import LogisticRegression

    from judging.ordering.core.pool_strategies import depth_pool

    features, relevant = [], []
    for topic in qrels.topics:
        rankings = {run.tag: run.ranking(topic).tolist() for run in runs}
        docs, labels = qrels.topic_labels(topic)
        known = dict(zip(docs.tolist(), labels.tolist(), strict=True))
        ranks = [{d: r for r, d in enumerate(rankings[run.tag], start=1)} for run in runs]
        for document in (c.document for c in depth_pool(rankings, depth=depth)):
            features.append([1.0 / rank[document] if document in rank else 0.0 for rank in ranks])
            relevant.append(known.get(document, 0) >= level)
    x, y = np.array(features), np.array(relevant)
    scores = LogisticRegression(max_iter=1000).fit(x, y).decision_function(x)
    found = np.cumsum(y[np.argsort(-scores, kind="stable")])
    return int(np.searchsorted(found, 0.9 * y.sum()) + 1)


def _first(curve, test) -> int | None:
    return next((p["judged"] for p in curve if test(p)), None)


def _first_stable(curve, threshold: float) -> int | None:
    """The judgments after which tau stays at or above the threshold."""
    last_below = max((i for i, p in enumerate(curve) if (p["tau_ap"] or -1) < threshold), default=-1)
    return curve[last_below + 1]["judged"] if last_below + 1 < len(curve) else None


def figures(result: dict) -> dict:
    curve, pool = result["curve"], result["pool"]
    tenth = next((p for p in curve if p["judged"] >= pool * 0.1), curve[-1])
    return {
        "found90": _first(curve, lambda p: p["relevant_found"] >= 0.9),
        "tau10": tenth["tau_ap"],
        "tau95": _first_stable(curve, 0.95),
    }


def _ratio(ours, base) -> str:
    return f"{ours / base:.2f}x" if ours and base else "-"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--seeds", type=int, default=1, help="generated collections per kind")
    parser.add_argument("--strategies", default=",".join(ORDERS))
    parser.add_argument("--no-demo", action="store_true")
    parser.add_argument("--png", default=None, help="write the curves to this PNG")
    args = parser.parse_args()
    strategies = args.strategies.split(",")
    campaigns = []
    for kind in ("wide", "close"):
        for seed in range(args.seeds):
            campaigns.append(
                (
                    f"{kind} (seed {seed})",
                    generated_campaign(kind, seed, topics=args.topics, runs=args.runs, depth=args.depth),
                    args.depth,
                    1,
                )
            )
    if not args.no_demo:
        campaigns.append(("demo", demo_campaign(), 50, 2))
    curves = {}
    for name, (qrels, runs, texts), depth, level in campaigns:
        print(f"\n{name}: {len(runs)} runs, depth {depth}")
        print(
            f"{'strategy':<10} {'pool':>6} {'rel':>5} {'90% found':>14} {'tau@10%':>14} {'tau>=0.95':>16} {'time':>7}"
        )
        base = None
        for strategy in strategies:
            started = time.perf_counter()
            result = simulate(qrels, runs, strategy=strategy, depth=depth, texts=texts, relevance_level=level)
            seconds = time.perf_counter() - started
            got = figures(result)
            curves[(name, strategy)] = result
            base = base or got if strategy == "best_rank" else base
            b = base or {}
            tau10 = f"{got['tau10']:.3f}" if got["tau10"] is not None else "-"
            delta = (
                f" ({got['tau10'] - b['tau10']:+.3f})"
                if b.get("tau10") is not None and got["tau10"] is not None
                else ""
            )
            print(
                f"{strategy:<10} {result['pool']:>6} {result['relevant']:>5} "
                f"{got['found90'] or '-':>6} {_ratio(got['found90'], b.get('found90')):>7} "
                f"{tau10:>6}{delta:>8} {got['tau95'] or '-':>7} {_ratio(got['tau95'], b.get('tau95')):>8} "
                f"{seconds:>6.1f}s"
            )
        if "best_rank" in strategies:
            bound = rank_evidence_bound(qrels, runs, depth, level)
            best = figures(curves[(name, "best_rank")])["found90"]
            print(
                f"{'bound':<10} 90% found by an order knowing the fitted rank-evidence model: {bound} "
                f"({_ratio(bound, best)})"
            )
    if args.png:
        _plot(curves, args.png)
        print(f"\ncurves: {args.png}")
    return 0


def _plot(curves: dict, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(dict.fromkeys(name for name, _ in curves))
    figure, axes = plt.subplots(2, len(names), figsize=(5 * len(names), 8), squeeze=False)
    for column, name in enumerate(names):
        for (campaign, strategy), result in curves.items():
            if campaign != name:
                continue
            share = [p["judged"] / result["pool"] for p in result["curve"]]
            axes[0][column].plot(share, [p["relevant_found"] for p in result["curve"]], label=strategy)
            axes[1][column].plot(share, [p["tau_ap"] if p["tau_ap"] is not None else np.nan for p in result["curve"]])
        axes[0][column].set_title(name)
        axes[0][column].set_ylabel("share of relevant found")
        axes[1][column].set_ylabel("Kendall tau, MAP leaderboard")
        axes[1][column].set_ylim(0.5, 1.0)
        for row in (0, 1):
            axes[row][column].set_xlabel("share of the pool judged")
            axes[row][column].grid(alpha=0.3)
    axes[0][0].legend()
    figure.tight_layout()
    figure.savefig(path, dpi=110)


if __name__ == "__main__":
    sys.exit(main())
