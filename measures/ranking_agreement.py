"""System-ranking agreement, pure (no Django): would the leaderboard change if another assessor had judged?

For each assessor, the qrels take that assessor's grade wherever they judged an item and the consensus label
elsewhere (Voorhees 2000 swaps whole qrels; with partial overlap, substituting is the comparable question). Every
run is scored under each such qrels with one measure (mean over topics, the measures engine), and the orderings are
compared with Kendall's tau and tau_ap (Yilmaz et al. 2008): each assessor against the consensus, and every pair.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Mapping, Sequence

import numpy as np

from measures import PreparedQrels, PreparedRun, RunSet, evaluate, parse_measure
from measures.correlation import kendall_tau, tau_ap

Judgments = Mapping[int, Mapping[int, Mapping[Hashable, int]]]  # topic -> document -> assessor -> grade


def _none_if_nan(value: float) -> float | None:
    return None if value != value else float(value)


def assessor_qrels(judgments: Judgments, consensus: Mapping[int, Mapping[int, int]], assessor) -> dict:
    """The consensus qrels with `assessor`'s own grade substituted wherever they judged."""
    qrels = {topic: dict(labels) for topic, labels in consensus.items()}
    for topic, documents in judgments.items():
        for document, grades in documents.items():
            if assessor in grades:
                qrels.setdefault(topic, {})[document] = grades[assessor]
    return qrels


def system_ranking_agreement(
    judgments: Judgments,
    consensus: Mapping[int, Mapping[int, int]],
    runs: RunSet | Sequence[PreparedRun],
    *,
    measure: str = "AP",
    consensus_scores: Mapping[str, float] | None = None,
    **options,
) -> dict:
    """Scores of every run under each assessor's qrels and the consensus, and tau / tau_ap between the orderings.
    `options` are the engine's (relevance_level, max_grade, trec_eval, ...), as `measures.evaluate` takes them.
    `consensus_scores`, {tag: score}, are the runs' scores under the consensus when the caller already has them.

    Runs are keyed by tag. Correlations are None when undefined (fewer than two runs, or an ordering of all ties).
    """
    runset = runs if isinstance(runs, RunSet) else RunSet(list(runs))
    parsed = parse_measure(measure)
    names = sorted({a for documents in judgments.values() for grades in documents.values() for a in grades}, key=str)

    scored: dict[tuple, np.ndarray] = {}  # an assessor who agrees with the consensus everywhere scores as it does

    def scores(qrels) -> np.ndarray:
        name = _qrels_name(qrels)
        if name not in scored:
            result = evaluate(PreparedQrels.from_mapping(qrels), runset, [parsed], **options)
            scored[name] = result.aggregates[:, 0]  # every tag of the run set, in its order
        return scored[name]

    if consensus_scores is not None:
        reference = np.array([consensus_scores.get(tag, 0.0) for tag in runset.tags], dtype=np.float64)
        scored[_qrels_name(consensus)] = reference
    else:
        reference = scores(consensus)
    per_assessor = {name: scores(assessor_qrels(judgments, consensus, name)) for name in names}
    return {
        "measure": str(parsed),
        "runs": len(runset.tags),
        "scores": {
            "consensus": dict(zip(runset.tags, reference.tolist(), strict=True)),
            **{str(a): dict(zip(runset.tags, s.tolist(), strict=True)) for a, s in per_assessor.items()},
        },
        "against_consensus": {str(a): _correlations(reference, s) for a, s in per_assessor.items()},
        "pairwise": {
            f"{a}|{b}": _correlations(per_assessor[a], per_assessor[b]) for a, b in itertools.combinations(names, 2)
        },
    }


def _qrels_name(qrels: Mapping[int, Mapping[int, int]]) -> tuple:
    return tuple(sorted((topic, tuple(sorted(labels.items()))) for topic, labels in qrels.items() if labels))


def _correlations(reference: np.ndarray, candidate: np.ndarray) -> dict[str, float | None]:
    if len(reference) < 2:
        return {"kendall_tau": None, "tau_ap": None}
    return {
        "kendall_tau": _none_if_nan(kendall_tau(reference, candidate)),
        "tau_ap": _none_if_nan(tau_ap(reference, candidate)),
    }
