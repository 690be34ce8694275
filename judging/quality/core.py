"""Assessor quality, pure (no Django): from one assessor's labels in time order, their accuracy on gold items, their
agreement with themselves on repeated items, and the moments their labelling changed, each by a stated rule.
`python -m judging.quality LABELS.jsonl` runs it on any labels export; the campaign page runs it on the database.

Rules (the numbers are module constants, so a test or a caller can state them):

- A label is (topic, docno, grade, time, seconds); an assessor's labels are taken in time order (ties: as given).
  An assessor's second or later label of the same (topic, docno) is a **repeat**; everything else is measured on
  first labels only.
- **Gold accuracy**: of the assessor's first labels of gold items, the share equal to the gold grade (exact), within
  one grade, and on the same side of the relevance threshold (binarised), each with Wilson's 95% interval.
- **Self-agreement**: Cohen's kappa between each repeated item's first label and its repeat (unweighted; None
  without two repeats, or when it is undefined), with the share of repeats that agree exactly.
- **Drift** ("drift"): a change point, measured with the best yardstick the labels allow. Where the assessor
  shares at least MIN_OVERLAP items with other assessors, the yardstick is agreement with them (the others'
  majority label): the split after which the share of labels equal to theirs falls furthest, by a one-sided
  two-proportion z-test at the Bonferroni level below (the share relevant falls with the rank at which documents
  are judged, and differs between topics, so the grades alone would flag a faithful assessor). Otherwise, every
  boundary between windows of WINDOW judgments (at least two windows
  before it and one after) splits the labels in two, compared by Pearson's chi-square test of homogeneity on their
  grade counts, stratified by topic (each topic labelled on both sides adds its own statistic and degrees of
  freedom: topics differ in how much of them is relevant, and judging one topic after another must not read as a
  change); the split with the smallest p is flagged when p < ALPHA / (splits tested), Bonferroni, so a steady
  assessor is flagged with probability at most ALPHA however long they judge. `from` is the first judgment after
  the split. Testing everything since a split (not one window) lets the evidence grow with every judgment.
- **Random answering** ("random"): a flagged change after which the grades no longer differ from the uniform
  distribution over the grades used (chi-square goodness of fit, p > 0.05) while those before did (p < 0.05); or,
  tested first, with gold items: the split whose gold accuracy after it falls furthest below the accuracy before
  it, by a one-sided two-proportion z-test at the same Bonferroni level.
- **Too fast** ("fast"): FAST_RUN judgments in a row, each under max(FAST_FLOOR_S, FAST_SHARE x the assessor's own
  median seconds). `from` is the run's first judgment.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist

from measures.agreement import cohen_kappa
from measures.consensus import others_consensus
from measures.intervals import chi2_sf, wilson

WINDOW = 20
ALPHA = 0.05
FAST_RUN = 5
FAST_SHARE = 0.25
FAST_FLOOR_S = 2.0


@dataclass(frozen=True)
class Label:
    topic: str
    docno: str
    grade: int
    assessor: str
    time: str = ""  # ISO 8601; compared as given (the export writes one time zone)
    seconds: float | None = None
    order: int = 0  # its place in the input, for ties in time


@dataclass
class Flag:
    kind: str  # "drift" | "random" | "fast"
    start: int  # the assessor's own index (time order) of the window's or run's first judgment
    reason: str

    def as_dict(self) -> dict:
        return {"kind": self.kind, "from": self.start, "reason": self.reason}


@dataclass
class AssessorQuality:
    judgments: int
    repeats: int
    gold_items: int
    gold_accuracy: float | None
    gold_interval: tuple[float | None, float | None]
    gold_within_one: float | None
    gold_binary: float | None
    self_agreement: float | None
    self_exact: float | None
    median_seconds: float | None
    flags: list[Flag] = field(default_factory=list)

    def as_dict(self) -> dict:
        low, high = self.gold_interval
        return {
            "judgments": self.judgments,
            "repeats": self.repeats,
            "gold_items": self.gold_items,
            "gold_accuracy": self.gold_accuracy,
            "gold_accuracy_interval": [low, high],
            "gold_within_one": self.gold_within_one,
            "gold_binary": self.gold_binary,
            "self_agreement": self.self_agreement,
            "self_exact": self.self_exact,
            "median_seconds": self.median_seconds,
            "flags": [flag.as_dict() for flag in self.flags],
        }


def in_time_order(labels: Iterable[Label]) -> dict[str, list[Label]]:
    """Each assessor's labels, oldest first."""
    mine: dict[str, list[Label]] = {}
    for label in labels:
        mine.setdefault(label.assessor, []).append(label)
    return {name: sorted(rows, key=lambda r: (r.time, r.order)) for name, rows in mine.items()}


def _split(labels: Sequence[Label]) -> tuple[list[Label], list[tuple[Label, Label]]]:
    """(first labels, (first, repeat) pairs)."""
    first: dict[tuple[str, str], Label] = {}
    firsts, repeats = [], []
    for label in labels:
        key = (label.topic, label.docno)
        if key in first:
            repeats.append((first[key], label))
        else:
            first[key] = label
            firsts.append(label)
    return firsts, repeats


def _share(hits: int, n: int) -> float | None:
    return hits / n if n else None


def _pearson(first: Counter, second: Counter) -> tuple[float, int]:
    """Pearson's statistic that two samples of grades come from one distribution, and its degrees of freedom
    (grades neither sample used left out; (0, 0) when there is nothing to compare)."""
    grades = sorted(g for g in set(first) | set(second) if first[g] + second[g] > 0)
    n1, n2 = sum(first.values()), sum(second.values())
    if len(grades) < 2 or not n1 or not n2:
        return 0.0, 0
    statistic = 0.0
    for grade in grades:
        total = first[grade] + second[grade]
        for count, n in ((first[grade], n1), (second[grade], n2)):
            expected = total * n / (n1 + n2)
            statistic += (count - expected) ** 2 / expected
    return statistic, len(grades) - 1


def chi2_homogeneity(first: Counter, second: Counter) -> float:
    """p-value of Pearson's chi-square test that two samples of grades come from one distribution."""
    statistic, df = _pearson(first, second)
    return chi2_sf(statistic, df) if df else 1.0


def chi2_homogeneity_by_topic(before: Sequence[Label], after: Sequence[Label]) -> float:
    """p-value of the topic-stratified homogeneity test: each topic labelled on both sides contributes Pearson's
    statistic of its own two samples, with its own degrees of freedom, and the sum is referred to the chi-square
    distribution with the summed degrees of freedom. A topic's relevant share is its own, so a change of topic
    between the sides never reads as a change in the assessor."""
    statistic, df = 0.0, 0
    for topic in {label.topic for label in before} & {label.topic for label in after}:
        part = _pearson(Counter(r.grade for r in before if r.topic == topic),
                        Counter(r.grade for r in after if r.topic == topic))  # fmt: skip
        statistic, df = statistic + part[0], df + part[1]
    return chi2_sf(statistic, df) if df else 1.0


def chi2_uniform(counts: Counter, grades: Sequence[int]) -> float:
    """p-value of the chi-square goodness of fit of grade counts to the uniform distribution over `grades`."""
    n = sum(counts[g] for g in grades)
    if len(grades) < 2 or not n:
        return 1.0
    expected = n / len(grades)
    return chi2_sf(sum((counts[g] - expected) ** 2 / expected for g in grades), len(grades) - 1)


def _lower_proportion_p(before: tuple[int, int], now: tuple[int, int]) -> float:
    """One-sided p of the two-proportion z-test that the `now` rate (hits, n) is below the `before` one."""
    (h1, n1), (h2, n2) = before, now
    if not n1 or not n2:
        return 1.0
    pooled = (h1 + h2) / (n1 + n2)
    spread = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    if spread == 0:
        return 1.0
    return NormalDist().cdf((h2 / n2 - h1 / n1) / spread)


MIN_OVERLAP = 40  # labels shared with other assessors needed before agreement with them is the yardstick


def _rate_change(
    labels: Sequence[Label], positions: Sequence[int], truth: Mapping[tuple[str, str], int], window: int,
    what: str, kind: str,
) -> Flag | None:  # fmt: skip
    """The window boundary after which the share of labels equal to `truth` (among those it covers) falls furthest,
    by a one-sided two-proportion z-test at ALPHA / (boundaries tested), as a flag of `kind`; or None."""
    candidates = list(range(2 * window, len(labels) - window + 1, window))
    if not candidates or not truth:
        return None
    hits = [truth.get((label.topic, label.docno)) for label in labels]
    hits = [None if expected is None else expected == label.grade for expected, label in zip(hits, labels, strict=True)]

    def rate(part) -> tuple[int, int]:
        known = [hit for hit in part if hit is not None]
        return sum(known), len(known)

    p, k = min((_lower_proportion_p(rate(hits[:k]), rate(hits[k:])), k) for k in candidates)
    level = ALPHA / len(candidates)
    if p >= level:
        return None
    (h1, n1), (h2, n2) = rate(hits[:k]), rate(hits[k:])
    reason = f"{what} {h2}/{n2} from judgment {positions[k]} on, against {h1}/{n1} before"
    return Flag(kind, positions[k], f"{reason} (one-sided z-test p = {p:.2g} < {level:.2g})")


def _change_flags(
    labels: Sequence[Label], positions: Sequence[int], gold: Mapping[tuple[str, str], int],
    others: Mapping[tuple[str, str], int], window: int,
) -> list[Flag]:  # fmt: skip
    """At most one flag: the likeliest change point among the window boundaries, if it passes its test (see the
    module), with the best yardstick the labels allow: gold, then the other assessors, then the grades alone.
    `positions` gives each first label's index among all the assessor's labels."""
    flag = _rate_change(labels, positions, gold, window, "gold accuracy", "random")
    if flag:
        return [flag]
    if sum((label.topic, label.docno) in others for label in labels) >= MIN_OVERLAP:
        flag = _rate_change(labels, positions, others, window, "agreement with the other assessors", "drift")
        return [flag] if flag else []
    candidates = list(range(2 * window, len(labels) - window + 1, window))
    if not candidates:
        return []
    level = ALPHA / len(candidates)
    used = sorted({label.grade for label in labels})
    p, k = min((chi2_homogeneity_by_topic(labels[:k], labels[k:]), k) for k in candidates)
    if p >= level:
        return []
    before, after = Counter(r.grade for r in labels[:k]), Counter(r.grade for r in labels[k:])
    if chi2_uniform(after, used) > 0.05 and chi2_uniform(before, used) < 0.05:
        kind, how = "random", " and no longer differ from answering at random"
    else:
        kind, how = "drift", ""
    reason = f"the grades from judgment {positions[k]} on differ from the {k} before"
    return [Flag(kind, positions[k], f"{reason} (chi-square p = {p:.2g} < {level:.2g}){how}")]


def _fast_flags(labels: Sequence[Label], median: float | None) -> list[Flag]:
    if median is None:
        return []
    limit = max(FAST_FLOOR_S, FAST_SHARE * median)
    flags, run = [], 0
    for index, label in enumerate(labels):
        quick = label.seconds is not None and 0 < label.seconds < limit
        run = run + 1 if quick else 0
        if run == FAST_RUN:
            start = index - FAST_RUN + 1
            flags.append(Flag("fast", start, f"{FAST_RUN} judgments in a row under {limit:.1f} s "
                                             f"(own median {median:.1f} s)"))  # fmt: skip
    return flags


def assessor_quality(
    labels: Sequence[Label], *, gold: Mapping[tuple[str, str], int] | None = None, threshold: int = 1,
    window: int = WINDOW, others: Mapping[tuple[str, str], int] | None = None,
) -> AssessorQuality:  # fmt: skip
    """One assessor's figures and flags, `labels` in time order (see the module for every rule). `others`, the
    other assessors' label of each item they labelled (`others_labels`), is the yardstick of a change when the
    assessor shares enough items with them."""
    gold, others = gold or {}, others or {}
    firsts, repeats = _split(labels)
    on_gold = [
        (label.grade, gold[(label.topic, label.docno)]) for label in firsts if (label.topic, label.docno) in gold
    ]
    exact = sum(a == b for a, b in on_gold)
    seconds = [label.seconds for label in labels if label.seconds is not None and label.seconds > 0]
    median = statistics.median(seconds) if seconds else None
    pairs = [{"first": a.grade, "repeat": b.grade} for a, b in repeats]
    kappa = cohen_kappa(pairs) if len(pairs) >= 2 else None
    position = {id(label): i for i, label in enumerate(labels)}
    positions = [position[id(label)] for label in firsts]
    flags = _change_flags(firsts, positions, gold, others, window) + _fast_flags(labels, median)
    return AssessorQuality(
        judgments=len(firsts),
        repeats=len(repeats),
        gold_items=len(on_gold),
        gold_accuracy=_share(exact, len(on_gold)),
        gold_interval=wilson(exact, len(on_gold)),
        gold_within_one=_share(sum(abs(a - b) <= 1 for a, b in on_gold), len(on_gold)),
        gold_binary=_share(sum((a >= threshold) == (b >= threshold) for a, b in on_gold), len(on_gold)),
        self_agreement=kappa,
        self_exact=_share(sum(a.grade == b.grade for a, b in repeats), len(repeats)),
        median_seconds=median,
        flags=sorted(flags, key=lambda f: (f.start, f.kind)),
    )


def quality_report(
    labels: Iterable[Label], *, gold: Mapping[tuple[str, str], int] | None = None, threshold: int = 1,
    window: int = WINDOW,
) -> dict[str, AssessorQuality]:  # fmt: skip
    """{assessor: AssessorQuality} for every assessor of `labels` (any order), each measured against the others."""
    mine = in_time_order(labels)
    return {
        name: assessor_quality(rows, gold=gold, threshold=threshold, window=window, others=others_labels(mine, name))
        for name, rows in sorted(mine.items())
    }


def others_labels(
    by_assessor: Mapping[str, Sequence[Label]], assessor: str, *, method: str = "majority", primary: str | None = None,
    categories: Sequence[int] | None = None,
) -> dict[tuple[str, str], int]:  # fmt: skip
    """{(topic, docno): the other assessors' label}: the consensus of their first labels by `method` (the
    collection's own; majority, ties to the higher grade, by default), `measures.consensus.others_consensus`."""
    items: dict[tuple[str, str], dict[str, int]] = {}
    for name, rows in by_assessor.items():
        for label in rows:
            items.setdefault((label.topic, label.docno), {}).setdefault(name, label.grade)  # first labels only
    return others_consensus(items, assessor, method, primary=primary, categories=categories)


def agreement_blocks(
    labels: Sequence[Label], *, gold: Mapping[tuple[str, str], int] | None = None,
    others: Mapping[tuple[str, str], int] | None = None, window: int = WINDOW,
) -> list[tuple[int, float | None]]:  # fmt: skip
    """(the block's first judgment, share of its comparable first labels that agree with the yardstick: gold where
    the item is gold, else the others' label) for each block of `window` first labels in time order; None for a
    block with nothing comparable. What the reliability plot draws for one assessor over time."""
    gold, others = gold or {}, others or {}
    firsts, _ = _split(labels)
    position = {id(label): i for i, label in enumerate(labels)}
    blocks = []
    for start in range(0, len(firsts), window):
        block = firsts[start : start + window]
        hits = [
            label.grade == (gold.get((label.topic, label.docno), others.get((label.topic, label.docno))))
            for label in block
            if (label.topic, label.docno) in gold or (label.topic, label.docno) in others
        ]
        blocks.append((position[id(block[0])], sum(hits) / len(hits) if hits else None))
    return blocks


def relevant_blocks(labels: Sequence[Label], *, threshold: int = 1, window: int = WINDOW) -> list[tuple[int, float]]:
    """(the block's first judgment, share of its first labels at or above the relevance threshold) for each block of
    `window` first labels in time order: the assessor's grade distribution over time, which a drifting assessor
    shifts (mostly between partly and highly relevant) before anything else shows it."""
    firsts, _ = _split(labels)
    position = {id(label): i for i, label in enumerate(labels)}
    return [
        (position[id(block[0])], sum(label.grade >= threshold for label in block) / len(block))
        for block in (firsts[start : start + window] for start in range(0, len(firsts), window))
    ]
