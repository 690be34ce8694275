"""`python -m judging.ordering QRELS RUN [RUN ...] --strategy NAME`: replays a judging campaign with the qrels as the
oracle assessor, pure (no Django), to compare judging orders before spending real assessors' time.

Each topic's pool is the runs' depth-k union (`pool_strategies.depth_pool`, whose order is best_rank's). Topics are
judged round robin, one judgment per topic per round, each by its own `judging.ordering.core.orders` order, the code
the judging queue uses. A pooled document the qrels do not list is not relevant (as trec_eval reads an unjudged
document). After every N judgments the curve gets a point: the share of the pool's relevant documents found, and
Kendall's tau (tau-b) between the runs' leaderboard by MAP (and by mean nDCG@10) computed from the judgments so far and
from all of the pool's judgments. Means are over every topic with a pool, so both leaderboards have the same
denominator.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Mapping, Sequence

import numpy as np

from judging.ordering.core.orders import ORDERS, judging_order
from judging.ordering.core.pool_strategies import depth_pool
from measures import PreparedQrels, PreparedRun, RunSet, TrecReader, evaluate, kendall_tau

MEASURES = ("AP", "nDCG@10")


def _leaderboard(labels: Mapping[int, Mapping[int, int]], runset: RunSet, topics: int) -> np.ndarray:
    """(runs x measures) means over `topics` topics of MAP and nDCG@10 under `labels`; topics without labels
    score 0."""
    qrels = PreparedQrels.from_mapping(labels)
    means = np.zeros((len(runset), len(MEASURES)))
    if len(qrels.topics) == 0:
        return means
    result = evaluate(qrels, runset, MEASURES)
    for row, tag in enumerate(runset.tags):
        means[row] = result.runs[tag].values.sum(axis=0) / topics if tag in result.runs else 0.0
    return means


def _tau(reference: np.ndarray, current: np.ndarray) -> float | None:
    tau = kendall_tau(reference, current)
    return None if math.isnan(tau) else round(tau, 6)


def simulate(
    qrels: PreparedQrels,
    runs: Sequence[PreparedRun],
    *,
    strategy: str,
    depth: int = 100,
    seed: int = 0,
    every: int | None = None,
    relevance_level: int = 1,
    texts: Mapping[int, Mapping[int, str]] | None = None,
) -> dict:
    """The campaign's curve (see the module docstring) as {"strategy", "pool", "relevant", "curve": [...]}.
    `texts` ({topic: {document: text}}) feeds the orders that read documents (cal)."""
    if strategy not in ORDERS:
        raise ValueError(f"unknown strategy {strategy!r}; one of {', '.join(ORDERS)}")
    runset = RunSet(list(runs))
    oracle: dict[int, dict[int, int]] = {}
    orders = {}
    for topic in (int(t) for t in qrels.topics):
        rankings = {run.tag: run.ranking(topic).tolist() for run in runs}
        pool = [c.document for c in depth_pool(rankings, depth=depth)]
        if not pool:
            continue
        docs, labels = qrels.topic_labels(topic)
        known = dict(zip(docs.tolist(), labels.tolist(), strict=True))
        oracle[topic] = {d: max(known.get(d, 0), 0) for d in pool}
        orders[topic] = judging_order(
            strategy,
            rankings,
            pool,
            relevance_level=relevance_level,
            seed=seed * 100_003 + topic,
            texts=(texts or {}).get(topic),
        )
    pool_size = sum(len(p) for p in oracle.values())
    relevant = sum(label >= relevance_level for p in oracle.values() for label in p.values())
    every = every or max(1, pool_size // 100)
    reference = _leaderboard(oracle, runset, len(oracle))
    judged: dict[int, dict[int, int]] = {t: {} for t in oracle}
    curve, count, found = [], 0, 0
    active = list(oracle)
    while active:
        still = []
        for topic in active:
            document = orders[topic].choose()
            if document is None:
                continue
            still.append(topic)
            label = oracle[topic][document]
            orders[topic].observe(document, label)
            judged[topic][document] = label
            count += 1
            found += label >= relevance_level
            if count % every == 0 or count == pool_size:
                current = _leaderboard(judged, runset, len(oracle))
                curve.append(
                    {
                        "judged": count,
                        "relevant_found": round(found / relevant, 6) if relevant else 1.0,
                        "tau_ap": _tau(reference[:, 0], current[:, 0]),
                        "tau_ndcg10": _tau(reference[:, 1], current[:, 1]),
                    }
                )
        active = still
    return {"strategy": strategy, "pool": pool_size, "relevant": relevant, "curve": curve}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m judging.ordering",
        description="Replay a judging campaign with the qrels as the oracle assessor and print how fast each "
        "judging order finds the relevant documents and the runs' final leaderboard.",
    )
    parser.add_argument("qrels")
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--strategy", choices=ORDERS, default="best_rank", help="judging order (default best_rank)")
    parser.add_argument("--depth", type=int, default=100, help="pool depth k (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the randomised orders (default 0)")
    parser.add_argument("--every", type=int, default=None, help="a curve point every N judgments (default: 1%%)")
    parser.add_argument("-l", type=int, default=1, dest="level", help="relevance level (default 1)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.depth < 1 or (args.every is not None and args.every < 1):
        print("--depth and --every must be positive", file=sys.stderr)
        return 2
    reader = TrecReader()
    try:
        qrels = reader.qrels_from_file(args.qrels)
        runs = reader.runs_from_files(args.runs)
    except (OSError, ValueError) as error:
        print(error, file=sys.stderr)
        return 2
    result = simulate(
        qrels,
        runs,
        strategy=args.strategy,
        depth=args.depth,
        seed=args.seed,
        every=args.every,
        relevance_level=args.level,
    )
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"{result['strategy']}: pool {result['pool']}, relevant {result['relevant']}")
    print(f"{'judged':>8} {'found':>7} {'tau MAP':>8} {'tau nDCG@10':>12}")
    for point in result["curve"]:
        taus = [f"{t:.4f}" if t is not None else "-" for t in (point["tau_ap"], point["tau_ndcg10"])]
        print(f"{point['judged']:>8} {point['relevant_found']:>7.4f} {taus[0]:>8} {taus[1]:>12}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
