"""Prediction-powered intervals for machine-judged leaderboards: do they hold the true value as often as they say?

    .venv/bin/python benchmarks/estimate.py [--seeds 200] [--topics 200] [--people 20 40]

Each seed draws a collection with known true labels (200 topics, 60 pooled documents each, relevance rates varying
by topic) and 4 runs of different quality over it, with tied scores; a machine judge that over-rates (a quarter of
the non-relevant documents called relevant) and errs (a tenth of the relevant missed); people's labels (the truth)
on a random 20 to 40 topics. Every run's AP per topic is computed by the measures engine under the true, the
machine's and the people's labels; the true value is the mean over all topics under the true labels. Printed for
every run: how often the 95% prediction-powered interval holds the true value (target at least 93%), the machine-
only value's bias and how often its naive interval holds the truth, and the PPI interval's mean width beside the
people-only one's; then the same with a bad machine (labels at random), where PPI must not be much wider. Peer:
ppi-python's `ppi_mean_ci` on the same values, its numbers equal to ours and its time beside ours as a ratio.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from measures import RunSet, TrecReader, evaluate, parse_measure  # noqa: E402
from measures.prediction_powered import classical_mean, ppi_mean, z_value  # noqa: E402

DOCUMENTS, RUNS, LEVEL = 60, 4, 0.95
AP = parse_measure("AP")


def _world(rng: np.random.Generator, topics: int):
    """(true labels, runs' scores), topics x documents arrays: labels in {0, 1}; each run scores relevant documents
    higher by its skill, rounded to one decimal so that ties are common."""
    rates = rng.beta(2, 5, topics)
    truth = (rng.random((topics, DOCUMENTS)) < rates[:, None]).astype(int)
    runs = {f"run{r}": np.round(skill * truth + rng.normal(0, 1, truth.shape), 1)
            for r, skill in enumerate(np.linspace(1.5, 0.2, RUNS))}  # fmt: skip
    return truth, runs


def _machine(rng: np.random.Generator, truth: np.ndarray, good: bool) -> np.ndarray:
    draws = rng.random(truth.shape)
    if not good:
        return (draws < 0.3).astype(int)
    return np.where(truth == 1, draws >= 0.1, draws < 0.25).astype(int)


def _named(table: np.ndarray) -> dict[str, dict[str, float]]:
    return {str(t): {f"d{d}": value for d, value in enumerate(row)} for t, row in enumerate(table.tolist())}


def _ap(reader: TrecReader, labels, runset: RunSet, topics: int) -> dict[str, np.ndarray]:
    """{run: AP of every topic, in topic order} under `labels` (a run missing a topic scores 0, as trec_eval -c)."""
    qrels = reader.qrels(_named(labels))
    result = evaluate(qrels, runset, [AP], complete=True)
    values = {}
    for tag, run in result.runs.items():
        by_topic = dict(zip(run.topics.tolist(), run.values[:, 0].tolist(), strict=True))
        if run.missing_topics is not None:
            by_topic |= dict(zip(run.missing_topics.tolist(), run.missing_values[:, 0].tolist(), strict=True))
        named = {reader.topic_name(t): v for t, v in by_topic.items()}
        values[tag] = np.array([named.get(str(t), 0.0) for t in range(topics)])
    return values


def _seed(seed: int, topics: int, people_range, good: bool):
    rng = np.random.default_rng(seed)
    truth, runs = _world(rng, topics)
    reader = TrecReader()
    runset = RunSet([reader.run(tag, _named(scores)) for tag, scores in runs.items()])
    true_values = _ap(reader, truth, runset, topics)
    machine_values = _ap(reader, _machine(rng, truth, good), runset, topics)
    n = int(rng.integers(people_range[0], people_range[1] + 1))
    sample = np.sort(rng.choice(topics, n, replace=False))
    others = np.setdiff1d(np.arange(topics), sample)
    return {tag: (true_values[tag], machine_values[tag], sample, others) for tag in runs}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--topics", type=int, default=200)
    parser.add_argument("--people", type=int, nargs=2, default=[20, 40])
    args = parser.parse_args(argv)
    try:
        import ppi_py
    except ImportError:
        ppi_py = None
    ok = True
    for good in (True, False):
        tally = {f"run{r}": {"ppi": 0, "machine": 0, "ppi_width": 0.0, "people_width": 0.0, "bias": 0.0}
                 for r in range(RUNS)}  # fmt: skip
        ours_seconds = peer_seconds = 0.0
        largest_gap = 0.0
        started = time.perf_counter()
        for seed in range(args.seeds):
            for tag, (true, machine, sample, others) in _seed(seed, args.topics, args.people, good).items():
                target = true.mean()
                y, yhat, rest = true[sample], machine[sample], machine[others]
                clock = time.perf_counter()
                estimate = ppi_mean(y, yhat, rest, LEVEL)
                people = classical_mean(y, LEVEL)
                ours_seconds += time.perf_counter() - clock
                if ppi_py is not None:
                    clock = time.perf_counter()
                    low, high = ppi_py.ppi_mean_ci(y, yhat, rest, alpha=1 - LEVEL)
                    peer_seconds += time.perf_counter() - clock
                    largest_gap = max(
                        largest_gap, abs(float(low[0]) - estimate.low), abs(float(high[0]) - estimate.high)
                    )
                row = tally[tag]
                row["ppi"] += estimate.low <= target <= estimate.high
                naive_half = z_value(LEVEL) * machine.std() / np.sqrt(len(machine))
                row["machine"] += abs(machine.mean() - target) <= naive_half
                row["bias"] += machine.mean() - target
                row["ppi_width"] += estimate.high - estimate.low
                row["people_width"] += people.high - people.low
        machine_kind = "a good machine (over-rates a quarter, misses a tenth)" if good else "a bad machine (random)"
        fewest, most = args.people
        print(f"\n{machine_kind}, {args.seeds} seeds, {args.topics} topics, people on {fewest}-{most} at random, AP, "
              f"95% intervals ({time.perf_counter() - started:.1f} s)")  # fmt: skip
        print(
            f"{'run':6} {'PPI covers':>11} {'machine covers':>15} {'machine bias':>13} {'PPI width':>10} "
            f"{'people width':>13} {'ratio':>6}"
        )
        for tag, row in tally.items():
            coverage = row["ppi"] / args.seeds
            ratio = row["ppi_width"] / row["people_width"]
            print(
                f"{tag:6} {coverage:>11.1%} {row['machine'] / args.seeds:>15.1%} {row['bias'] / args.seeds:>+13.4f} "
                f"{row['ppi_width'] / args.seeds:>10.4f} {row['people_width'] / args.seeds:>13.4f} {ratio:>6.2f}"
            )
            ok &= coverage >= 0.93 and (ratio < 1 if good else ratio <= 1.1)
        if ppi_py is not None:
            ratio = ours_seconds / peer_seconds
            print(
                f"peer ppi-python: largest difference from ours {largest_gap:.1e}; time ours {ours_seconds:.3f} s "
                f"(with the people-only interval), ppi-python {peer_seconds:.3f} s, ratio {ratio:.2f}"
            )
        else:
            print("peer ppi-python: not installed (pip install -e '.[test]'), no comparison")
    print(
        "\ntargets (coverage >= 93% every run; PPI narrower than people-only with a good machine, at most 10% wider "
        f"with a bad one): {'met' if ok else 'NOT met'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
