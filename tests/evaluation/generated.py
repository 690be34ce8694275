"""Seeded random TREC collections with every awkward case trec_eval has a convention for."""

from __future__ import annotations

import random


def generated_collection(seed: int, *, topics: int = 12, runs: int = 4, max_depth: int = 60):
    """Returns (qrels, {tag: run}) as {topic: {docno: label}} and {topic: {docno: score}} dicts.

    Includes: score ties among docnos of different lengths and cases, negative and scientific-notation scores,
    unjudged retrieved documents, negative (pooled-unjudged) labels, graded labels, a topic with no relevant
    document, qrels topics missing from some runs, run topics missing from the qrels, and an empty-looking topic
    with a single retrieved document.
    """
    rng = random.Random(seed)
    stems = ["d", "D", "doc", "Doc", "x"]
    pool = [f"{rng.choice(stems)}{i}" for i in range(400)] + ["123", "1234", "12", "a", "B", "b"]
    qrels: dict[str, dict[str, int]] = {}
    for t in range(topics):
        judged = rng.sample(pool, rng.randint(1, 80))
        qrels[f"q{t}"] = {d: rng.choice([0, 0, 0, 1, 1, 2, 3, -1]) for d in judged}
    qrels["q0"] = {d: 0 for d in list(qrels["q0"])[:5]} or {"d1": 0}  # no relevant document
    run_dicts = {}
    for r in range(runs):
        run: dict[str, dict[str, float]] = {}
        for t in range(topics + 2):  # q{topics}, q{topics+1} are not in the qrels
            if rng.random() < 0.15 and t > 0:
                continue  # this run misses the topic
            depth = 1 if t == 1 else rng.randint(1, max_depth)
            known = list(qrels.get(f"q{t}", {}))
            docs = rng.sample(pool, min(depth, len(pool)))
            docs = list(dict.fromkeys(rng.sample(known, min(len(known), depth // 2)) + docs))[:depth]
            style = rng.random()
            scores = {}
            for d in docs:
                if style < 0.3:
                    scores[d] = float(rng.randint(-3, 3))  # many ties, negative scores
                elif style < 0.5:
                    scores[d] = float(f"{rng.uniform(-1, 1):.2e}")  # scientific notation
                else:
                    scores[d] = round(rng.uniform(0, 20), 1)
            run[f"q{t}"] = scores
        run_dicts[f"run{r}"] = run
    return qrels, run_dicts


def run_lines(tag: str, run: dict[str, dict[str, float]], rng_seed: int = 0) -> list[str]:
    """TREC run lines with a misleading rank column (reversed), scores written as given."""
    rng = random.Random(rng_seed)
    lines = []
    for topic, scores in run.items():
        items = list(scores.items())
        rng.shuffle(items)
        for rank, (doc, score) in enumerate(items):
            lines.append(f"{topic} Q0 {doc} {len(items) - rank} {score!r} {tag}")
    return lines


def qrels_lines(qrels: dict[str, dict[str, int]]) -> list[str]:
    return [f"{t} 0 {d} {label}" for t, docs in qrels.items() for d, label in docs.items()]
