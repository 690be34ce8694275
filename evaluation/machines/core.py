"""Verifying a machine judge against people, pure (no Django): its agreement with each person and with the
consensus, its error rate per grade on the items people verified, the leaderboard with the pool's holes filled by
its labels, and how far plausible corrections of its unverified labels could move that leaderboard.

Conventions:
- Agreement is over the items both sides labelled: Cohen's kappa (graded, and binarised at the collection's
  relevance threshold), Krippendorff's alpha (ordinal; the two sides as two coders), the confusion matrix (rows:
  the machine's grade; columns: the people's). The same functions as every other agreement figure.
- An item is verified when the people's consensus labels it; the machine's error is a grade different from it.
  Rates carry Wilson's 95% score interval.
- Holes filled (as UMBRELA's "modified qrels", Upadhyay et al. 2024): the consensus qrels, and the machine's label
  for every pooled item the consensus does not label. Never the other way round: a person's label always wins.
- Corrections: each unverified machine label is redrawn from P(people's grade | machine's grade), estimated on the
  verified items with add-one smoothing; each draw's leaderboard (one measure, as trec_eval) is compared with the
  holes-filled one by Kendall's tau. The share of draws with tau >= 0.9 is the stop signal's figure
  (`judging.ordering.core.stopping`), applied to machine labels: near 1, the machine's remaining errors would not
  reorder the runs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from judging.core.model_families import same_family  # noqa: F401  (the feature's spelling)
from measures import PreparedQrels, RunSet, evaluate, kendall_tau, parse_measure
from measures.agreement import cohen_kappa, confusion_matrix, krippendorff_alpha
from measures.correlation import tau_ap
from measures.intervals import wilson

Qrels = Mapping[int, Mapping[int, int]]  # topic -> document -> grade
TAU_THRESHOLD = 0.9
DRAWS = 200


def pair_agreement(pairs: Sequence[tuple[int, int]], *, categories: Sequence[int], threshold: int) -> dict:
    """Agreement of (machine grade, people's grade) pairs: n, kappa graded and binarised, alpha, confusion."""
    cats = list(categories)
    if not pairs:
        return {"items": 0, "cohen_kappa": None, "binary_cohen_kappa": None, "krippendorff_alpha": None,
                "confusion": [[0] * len(cats) for _ in cats]}  # fmt: skip
    items = [{"machine": a, "people": b} for a, b in pairs]
    binary = [{"machine": int(a >= threshold), "people": int(b >= threshold)} for a, b in pairs]
    return {
        "items": len(pairs),
        "cohen_kappa": cohen_kappa(items, categories=cats),
        "binary_cohen_kappa": cohen_kappa(binary, categories=[0, 1]),
        "krippendorff_alpha": krippendorff_alpha(items, "ordinal", categories=cats),
        "confusion": confusion_matrix(items, ("machine", "people"), cats).tolist(),
    }


def error_rates(pairs: Sequence[tuple[int, int]], *, categories: Sequence[int], threshold: int) -> dict:
    """The machine's error rate on verified items, per grade it gave and binarised, each with its interval."""
    per_grade = []
    for grade in categories:
        given = [people for machine, people in pairs if machine == grade]
        errors = sum(people != grade for people in given)
        low, high = wilson(errors, len(given))
        per_grade.append({"grade": grade, "items": len(given), "errors": errors,
                          "rate": errors / len(given) if given else None, "low": low, "high": high})  # fmt: skip
    wrong = sum((m >= threshold) != (p >= threshold) for m, p in pairs)
    low, high = wilson(wrong, len(pairs))
    binary = {"items": len(pairs), "errors": wrong, "rate": wrong / len(pairs) if pairs else None, "low": low,
              "high": high}  # fmt: skip
    return {"per_grade": per_grade, "binary": binary}


def holes_filled(consensus: Qrels, machine: Qrels, pooled: Mapping[int, Sequence[int]]) -> dict[int, dict[int, int]]:
    """The consensus qrels with the machine's label for each pooled item the consensus leaves unlabelled."""
    qrels = {topic: dict(labels) for topic, labels in consensus.items()}
    for topic, documents in pooled.items():
        theirs = machine.get(topic, {})
        for document in documents:
            if document not in qrels.get(topic, {}) and document in theirs:
                qrels.setdefault(topic, {})[document] = theirs[document]
    return qrels


def run_scores(qrels: Qrels, runs: RunSet, measures: Sequence[str], **options) -> dict[str, list[float | None]]:
    """{run tag: [its mean of each measure over the topics the qrels hold]}, as the stored leaderboard is."""
    qrels = {topic: labels for topic, labels in qrels.items() if labels}
    if not qrels or not len(runs.tags):
        return {tag: [None] * len(measures) for tag in runs.tags}
    result = evaluate(PreparedQrels.from_mapping(qrels), runs, [parse_measure(m) for m in measures], **options)
    rows = zip(result.tags, result.aggregates, strict=True)
    return {tag: [None if v != v else float(v) for v in row] for tag, row in rows}


def correction_stability(
    filled: Qrels,
    unverified: Mapping[tuple[int, int], int],
    verified_pairs: Sequence[tuple[int, int]],
    runs: RunSet,
    *,
    categories: Sequence[int],
    measure: str,
    draws: int = DRAWS,
    seed: int = 0,
    **options,
) -> dict:
    """How often plausible corrections of the `unverified` machine labels ({(topic, doc): machine grade}, all in
    `filled`) keep the runs' order under `measure`: {"draws", "share" (tau >= TAU_THRESHOLD), "tau_median"}; the
    share is None with fewer than two runs, or nothing unverified (then nothing can move: reported as 1.0)."""
    if len(runs.tags) < 2:
        return {"draws": 0, "share": None, "tau_median": None}
    if not unverified:
        return {"draws": 0, "share": 1.0, "tau_median": 1.0}
    cats = list(categories)
    counts = np.ones((len(cats), len(cats)))  # add-one smoothing: every correction stays possible
    for machine, people in verified_pairs:
        counts[cats.index(machine), cats.index(people)] += 1
    rows = counts / counts.sum(axis=1, keepdims=True)
    rng = np.random.default_rng(seed)
    base = np.array([s[0] for s in run_scores(filled, runs, [measure], **options).values()], dtype=float)
    keys = list(unverified)
    given = np.array([cats.index(unverified[key]) for key in keys])
    taus = []
    for _ in range(draws):
        uniform = rng.random(len(keys))
        drawn = (uniform[:, None] > np.cumsum(rows[given], axis=1)).sum(axis=1)
        corrected = {topic: dict(labels) for topic, labels in filled.items()}
        for (topic, document), index in zip(keys, drawn, strict=True):
            corrected[topic][document] = cats[min(index, len(cats) - 1)]
        scores = np.array([s[0] for s in run_scores(corrected, runs, [measure], **options).values()], dtype=float)
        tau = kendall_tau(np.nan_to_num(base), np.nan_to_num(scores))
        taus.append(1.0 if tau != tau else float(tau))
    share = float(np.mean([t >= TAU_THRESHOLD for t in taus]))
    return {"draws": draws, "share": share, "tau_median": float(np.median(taus))}


def ranking_agreement(
    reference: Mapping[str, float | None], candidate: Mapping[str, float | None], *, leave_out: Iterable[str] = ()
) -> dict:
    """Kendall's tau and tau_AP (`reference` the truth) between two scorings of the runs, {run: score}, over the runs
    both score and `leave_out` does not name (the runs that share the judge's model family, say); None for either
    when fewer than two runs remain or an order is all ties."""
    left_out = set(leave_out)
    tags = [t for t in reference if t not in left_out and reference[t] is not None and candidate.get(t) is not None]
    if len(tags) < 2:
        return {"kendall_tau": None, "tau_ap": None, "runs": len(tags)}
    a = np.array([reference[t] for t in tags], dtype=float)
    b = np.array([candidate[t] for t in tags], dtype=float)
    tau, ap = kendall_tau(a, b), tau_ap(a, b)
    return {
        "kendall_tau": None if tau != tau else float(tau),
        "tau_ap": None if ap != ap else float(ap),
        "runs": len(tags),
    }


TOP_SYSTEMS = 10  # kendall@10: agreement among the systems people rank best, where a leaderboard is read


def rating_bias(pairs: Sequence[tuple[int, int]], *, threshold: int) -> dict:
    """Over- and under-rating on verified items, (machine grade, people's grade) pairs: the share of the items people
    call not relevant that the machine calls relevant, and of those people call relevant that it calls not; each
    with Wilson's interval. LLM judges over-rate (Alaofi et al., 2025); the overall agreement hides the direction."""
    found = {}
    for name, people_relevant in (("over_rating", False), ("under_rating", True)):
        items = [m for m, p in pairs if (p >= threshold) == people_relevant]
        wrong = sum((m >= threshold) != people_relevant for m in items)
        low, high = wilson(wrong, len(items))
        found[name] = {"items": len(items), "errors": wrong, "rate": wrong / len(items) if items else None,
                       "low": low, "high": high}  # fmt: skip
    return found


def kendall_at_k(reference: Mapping[str, float | None], candidate: Mapping[str, float | None], k: int = TOP_SYSTEMS):
    """Kendall's tau over the `k` systems `reference` ranks best (ties broken by name): top-heavy agreement, where an
    overall tau of 0.9 can hide a shuffled top (Clarke and Dietz, 2024). None with fewer than two systems."""
    scored = [t for t in reference if reference[t] is not None and candidate.get(t) is not None]
    top = sorted(scored, key=lambda t: (-reference[t], t))[:k]
    if len(top) < 2:
        return None
    tau = kendall_tau(np.array([reference[t] for t in top], float), np.array([candidate[t] for t in top], float))
    return None if tau != tau else float(tau)


def per_topic_agreement(
    pairs_by_topic: Mapping[str, Sequence[tuple[int, int]]], *, threshold: int, worst: int = 5
) -> dict:
    """Per topic, the share of verified items on which the machine and the people agree on relevance, with its
    interval; and the `worst` topics (most disagreement first, then most items): where to look first."""
    rows = []
    for topic, pairs in pairs_by_topic.items():
        agree = sum((m >= threshold) == (p >= threshold) for m, p in pairs)
        low, high = wilson(agree, len(pairs))
        rows.append({"topic": topic, "items": len(pairs), "agreement": agree / len(pairs) if pairs else None,
                     "low": low, "high": high})  # fmt: skip
    rows.sort(key=lambda r: (r["agreement"] if r["agreement"] is not None else 2.0, -r["items"], r["topic"]))
    return {"topics": rows, "worst": [r for r in rows if r["items"]][:worst]}


CALIBRATION_BINS = 10


def calibration(confidence: Sequence[float], relevant: Sequence[bool], *, bins: int = CALIBRATION_BINS) -> dict:
    """How well a judge's confidence that an item is relevant (the share of its votes at or above the threshold)
    matches how often people find it relevant: reliability bins of equal width (as scikit-learn's
    `calibration_curve(strategy="uniform")` cuts them: a value on an inner edge falls in the lower bin), each with
    its items, mean confidence and observed share relevant; the expected calibration error ECE = sum over bins of
    items / N * |observed - confidence|; and the Brier score, the mean of (confidence - relevant)^2. None without
    items."""
    p = np.asarray(confidence, dtype=np.float64)
    y = np.asarray(relevant, dtype=np.float64)
    if not len(p):
        return {"items": 0, "bins": [], "ece": None, "brier": None}
    edges = np.linspace(0.0, 1.0, bins + 1)
    index = np.searchsorted(edges[1:-1], p)
    rows, ece = [], 0.0
    for b in range(bins):
        inside = index == b
        count = int(inside.sum())
        if not count:
            continue
        mean, observed = float(p[inside].mean()), float(y[inside].mean())
        ece += count / len(p) * abs(observed - mean)
        rows.append({"low": float(edges[b]), "high": float(edges[b + 1]), "items": count, "confidence": mean,
                     "observed": observed})  # fmt: skip
    return {"items": len(p), "bins": rows, "ece": ece, "brier": float(np.mean((p - y) ** 2))}
