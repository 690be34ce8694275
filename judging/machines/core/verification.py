"""Which machine labels people should verify first, pure (no Django): a score per pooled item of a topic, highest
first, stated so that an admin can say why an item came up.

    score = 3                                                the machine gave no label (failed, or not run yet)
          = 2 * disagreement + 2 * doubt + boundary + impact   otherwise, where

- disagreement: the share of the collection's other machine judges (other prompts, models or samples) whose
  label falls on the other side of the relevance threshold; two readings that disagree are the surest sign of a
  likely error;
- doubt: for a judge asked several times per pair, the share of its own votes on the other side of the threshold
  from its label (1 - its vote share for that side): a judge that wavers is likelier wrong;
- boundary: 1 when the machine's grade is one of the two either side of the relevance threshold (threshold - 1 or
  threshold), where LLM judges' errors concentrate and where an error flips relevance; else 0;
- impact: how much the item's label weighs in the runs' AP, as the `impact` judging order weighs it (Aslam, Pavlu
  and Savell 2003: rank r of N weighs (1 + H_N - H_r) / 2N, summed over the runs that retrieved it), divided by the
  topic's largest, so in [0, 1].

Token log-probabilities are not used: the chat-completions replies this workbench asks for carry none by default.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def _harmonic(n: int) -> float:
    return sum(1.0 / k for k in range(1, n + 1))


def impact_weights(rankings: Mapping[str, Sequence[int]], pool: Sequence[int]) -> dict[int, float]:
    """Each pooled document's AP-prior weight summed over the runs, divided by the topic's largest (0 when none)."""
    pooled = set(pool)
    weights = dict.fromkeys(pool, 0.0)
    for ranking in rankings.values():
        n = len(ranking)
        if not n:
            continue
        h_n = _harmonic(n)
        h_r = 0.0
        for rank, document in enumerate(ranking, start=1):
            h_r += 1.0 / rank
            if document in pooled:
                weights[document] += (1 + h_n - h_r) / (2 * n)
    top = max(weights.values(), default=0.0)
    return {d: (w / top if top > 0 else 0.0) for d, w in weights.items()}


def verification_scores(
    pool: Sequence[int],
    machine: Mapping[int, int],
    others: Sequence[Mapping[int, int]],
    impact: Mapping[int, float],
    *,
    threshold: int,
    votes: Mapping[int, Sequence[int]] | None = None,
) -> dict[int, float]:
    """{document: score} for the pooled documents (see the module); `votes` holds a sampled judge's votes."""
    scores = {}
    for document in pool:
        grade = machine.get(document)
        if grade is None:
            scores[document] = 3.0
            continue
        relevant = grade >= threshold
        readings = [o[document] for o in others if document in o]
        disagreement = sum((g >= threshold) != relevant for g in readings) / len(readings) if readings else 0.0
        own = (votes or {}).get(document) or ()
        doubt = sum((g >= threshold) != relevant for g in own) / len(own) if own else 0.0
        boundary = 1.0 if grade in (threshold - 1, threshold) else 0.0
        scores[document] = 2 * disagreement + 2 * doubt + boundary + impact.get(document, 0.0)
    return scores
