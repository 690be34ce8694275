"""trec_eval's preference measures (`-R prefs`, `-R qrels_prefs`), pure: `prefs_*` as trec_eval 10.0's
`get_prefs.c`, `get_qrels_prefs.c`, `form_prefs_counts.c` and `m_prefs_*.c` compute them.

A prefs file has lines `qid jg jsg docno rel_level`: within a judgment sub-group (jsg) of a judgment group (jg, one
user's information need), every document is preferred to those with a lower rel_level. A group with one sub-group
is a set of equivalence classes (EC) of equal rel_level; a group with several is a partial order, closed under
transitivity, which must not contradict itself. Different groups may disagree. rel_level 0 means non-relevant.
`-R qrels_prefs` reads a qrels file as preferences: the second ("iter") column is the group, one sub-group.

Per (run, topic), the topic's judged documents get internal ranks: those the run retrieved, in its order (score
descending, ties by docno ascending: this module's own tie order, unlike the other measures'), then the others by
docno. A preference A > B is fulfilled when A is ranked above B; it is "ret" when both were retrieved, "imp" when
one was, "notoccur" when neither was (never fulfilled). trec_eval's quirks are kept: the Rnonrel recount pairs the
lowest class with its own first R members, a topic whose ratio is 0/0 scores 0, counts are summed (not averaged)
over topics.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import groupby
from pathlib import Path
from typing import BinaryIO

import numpy as np

from measures.lines import FailFast, TrecFormatError, numbered_lines, source_name

# trec_eval's measure table order, and its nicknames.
MEASURES = [
    "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair",
    "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp",
]  # fmt: skip
COUNTS = {"prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret"}  # summed over topics, %ld
NICKNAMES = {
    "all_prefs": ["runid", "num_q", *MEASURES],
    "prefs": ["runid", "num_q", *MEASURES[:6]],
}
MISSING_TOPIC_RANKING = [("ceci_nest_pas_un_docno", 1.0)]  # what trec_eval ranks for a topic a run lacks, with -c

Source = str | Path | BinaryIO


@dataclass(frozen=True)
class PrefLine:
    jg: str
    jsg: str
    docno: str
    rel_level: float
    line: int = 0


Prefs = dict[str, list[PrefLine]]  # topic -> its lines


def _fields(source: Source, name: str | None, width: int, columns: str) -> Iterable[tuple[str, int, list[str]]]:
    file = source_name(source, name)
    for number, text in numbered_lines(source, FailFast(), name=file):
        fields = text.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) != width:
            raise TrecFormatError(file, number, None, f"expected {width} columns {columns}, got {len(fields)}")
        yield file, number, fields


def _level(file: str, number: int, text: str) -> float:
    try:
        return float(text)
    except ValueError as error:
        raise TrecFormatError(file, number, "rel_level", f"expected a number, got {text!r}") from error


def read_prefs(source: Source, *, name: str | None = None) -> Prefs:
    """{topic: lines} of a prefs file (`qid jg jsg docno rel_level`); TrecFormatError names a malformed line."""
    prefs: Prefs = {}
    for file, number, (topic, jg, jsg, docno, level) in _fields(source, name, 5, "'qid jg jsg docno rel_level'"):
        prefs.setdefault(topic, []).append(PrefLine(jg, jsg, docno, _level(file, number, level), number))
    if not prefs:
        raise TrecFormatError(source_name(source, name), 0, None, "file has no preference lines")
    return prefs


def read_qrels_prefs(source: Source, *, name: str | None = None) -> Prefs:
    """A qrels file (`qid jg docno rel`) read as preferences: the second column is the judgment group."""
    prefs: Prefs = {}
    for file, number, (topic, jg, docno, level) in _fields(source, name, 4, "'qid jg docno rel'"):
        prefs.setdefault(topic, []).append(PrefLine(jg, "0", docno, _level(file, number, level), number))
    if not prefs:
        raise TrecFormatError(source_name(source, name), 0, None, "file has no qrels lines")
    return prefs


@dataclass
class Group:
    """One judgment group's preferences over a topic's internal ranks, and what a ranking makes of them."""

    fulfilled_ret: int = 0
    possible_ret: int = 0
    fulfilled_imp: int = 0
    possible_imp: int = 0
    possible_notoccur: int = 0
    num_rel: int = 0
    num_rel_ret: int = 0
    num_nonrel: int = 0
    num_nonrel_ret: int = 0
    classes: list[np.ndarray] | None = None  # EC form: each class's ranks, ascending, highest rel_level first
    order: np.ndarray | None = None  # partial-order form: order[i, j] when rank i is preferred to rank j
    levels: np.ndarray | None = None  # partial-order form: each rank's rel_level (-1 where the group has none)


@dataclass
class TopicPrefs:
    judged: int
    judged_ret: int
    groups: list[Group] = field(default_factory=list)
    counts: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.int64))  # prefs i > j, all groups


def ranking_of(scores: Mapping[str, float], depth: int | None = None) -> list[str]:
    """A run topic's docnos in the order the preference measures read it: score descending, ties by docno
    ascending (`form_prefs_counts.c`), cut at `depth` (-M)."""
    ordered = sorted(scores, key=lambda docno: (-scores[docno], docno))
    return ordered if depth is None else ordered[:depth]


def topic_prefs(lines: Sequence[PrefLine], ranking: Sequence[str], *, topic: str = "") -> TopicPrefs:
    """Every group's counts for one topic and ranking (docnos in rank order, each once)."""
    judged = {line.docno for line in lines}
    retrieved = [docno for docno in ranking if docno in judged]
    rank = {docno: i for i, docno in enumerate(retrieved)}
    for docno in sorted(judged - set(rank)):
        rank[docno] = len(rank)
    n, njr = len(rank), len(retrieved)
    result = TopicPrefs(n, njr, counts=np.zeros((n, n), dtype=np.int64))
    ordered = sorted(lines, key=lambda line: (line.jg, line.jsg, -line.rel_level, rank[line.docno]))
    for jg, members in groupby(ordered, key=lambda line: line.jg):
        members = list(members)
        if len({line.jsg for line in members}) > 1:
            group = _partial_order_group(members, rank, n, njr, topic, jg)
        else:
            group = _class_group(members, rank, njr, topic, jg)
        result.counts += _group_counts(group, n)
        result.groups.append(group)
    return result


def _class_group(members: list[PrefLine], rank: dict[str, int], njr: int, topic: str, jg: str) -> Group:
    classes, levels = [], []
    for level, same in groupby(members, key=lambda line: line.rel_level):
        classes.append(np.array([rank[line.docno] for line in same], dtype=np.int64))
        levels.append(level)
    group = Group(classes=classes)
    for index, ranks in enumerate(classes):
        retrieved = int(np.count_nonzero(ranks < njr))
        if levels[index] > 0.0:
            group.num_rel, group.num_rel_ret = group.num_rel + len(ranks), group.num_rel_ret + retrieved
        else:
            group.num_nonrel, group.num_nonrel_ret = group.num_nonrel + len(ranks), group.num_nonrel_ret + retrieved
        for lower in classes[index + 1 :]:
            better, worse = ranks[:, None], lower[None, :]
            if np.any(better == worse):
                docno = next(line.docno for line in members if rank[line.docno] in set(ranks) & set(lower))
                raise ValueError(f"topic {topic!r}, group {jg!r}: document {docno!r} has two rel_levels")
            above = better < worse
            group.fulfilled_ret += int(np.count_nonzero(above & (worse < njr)))
            group.fulfilled_imp += int(np.count_nonzero(above & (worse >= njr) & (better < njr)))
            group.possible_ret += int(np.count_nonzero(~above & (better < njr)))
            group.possible_imp += int(np.count_nonzero(~above & (better >= njr) & (worse < njr)))
            group.possible_notoccur += int(np.count_nonzero((better >= njr) & (worse >= njr)))
    group.possible_ret += group.fulfilled_ret
    group.possible_imp += group.fulfilled_imp
    return group


def _partial_order_group(members: list[PrefLine], rank: dict[str, int], n: int, njr: int, topic: str, jg: str) -> Group:
    order = np.zeros((n, n), dtype=bool)
    levels = np.full(n, -1.0)
    for index, line in enumerate(members):
        r, before = rank[line.docno], levels[rank[line.docno]]
        if (before > 0.0 and line.rel_level == 0.0) or (before == 0.0 and line.rel_level > 0.0):
            raise ValueError(f"topic {topic!r}, group {jg!r}: document {line.docno!r} has both 0 and non-0 rel_level")
        levels[r] = line.rel_level
        later = [m for m in members[index + 1 :] if m.jsg == line.jsg and m.rel_level != line.rel_level]
        for other in later:  # the sub-group's lines are sorted by rel_level, highest first
            order[r, rank[other.docno]] = True
    for k in range(n):  # transitive closure (Warshall)
        order |= order[:, k : k + 1] & order[k : k + 1, :]
    np.fill_diagonal(order, False)
    conflicted = np.argwhere(order & order.T)
    if len(conflicted):
        i, j = conflicted[0]
        names = {r: d for d, r in rank.items()}
        raise ValueError(
            f"topic {topic!r}, group {jg!r}: preferences contradict each other between {names[i]!r} and "
            f"{names[j]!r} (a group is one consistent information need; put disagreeing users in separate groups)"
        )
    group = Group(order=order, levels=levels)
    group.num_rel_ret, group.num_nonrel_ret = int(np.sum(levels[:njr] > 0.0)), int(np.sum(levels[:njr] == 0.0))
    group.num_rel, group.num_nonrel = int(np.sum(levels > 0.0)), int(np.sum(levels == 0.0))
    top = order[:njr, :njr]
    group.fulfilled_ret = int(np.count_nonzero(np.triu(top, 1)))
    group.possible_ret = int(np.count_nonzero(np.tril(top, -1))) + group.fulfilled_ret
    group.fulfilled_imp = int(np.count_nonzero(order[:njr, njr:]))
    group.possible_imp = int(np.count_nonzero(order[njr:, :njr])) + group.fulfilled_imp
    group.possible_notoccur = int(np.count_nonzero(order[njr:, njr:]))
    return group


def _group_counts(group: Group, n: int) -> np.ndarray:
    if group.order is not None:
        return group.order.astype(np.int64)
    counts = np.zeros((n, n), dtype=np.int64)
    for index, ranks in enumerate(group.classes or []):
        for lower in group.classes[index + 1 :]:
            np.add.at(counts, (np.repeat(ranks, len(lower)), np.tile(lower, len(ranks))), 1)
    return counts


def _ratio(fulfilled: float, possible: float) -> float:
    return fulfilled / possible if possible else float("nan")  # C's 0.0 / 0.0


def _pairs(counts: np.ndarray, njr: int, *, imp: bool, notoccur: bool) -> float:
    """Mean over document pairs with any preference of the share of preferences the ranking fulfils: pairs of
    retrieved documents, then (imp) retrieved with unretrieved, then (notoccur) unretrieved pairs, which add a pair
    and nothing fulfilled; summed block by block, row by row, as trec_eval's loops sum."""
    either = (counts + counts.T) > 0
    blocks = [np.argwhere(np.triu(either[:njr, :njr], 1))]
    if imp or notoccur:
        blocks.append(np.argwhere(either[:njr, njr:]) + np.array([0, njr]))
    total, pairs = 0.0, 0
    for found in blocks:
        for i, j in found.tolist():
            total += counts[i, j] / (counts[i, j] + counts[j, i])
        pairs += len(found)
    if notoccur:
        pairs += int(np.count_nonzero(np.triu(either[njr:, njr:], 1)))
    return total / pairs if pairs else 0.0


def _over_groups(ratios: Iterable[float], groups: int) -> float:
    total = 0.0
    for ratio in ratios:
        total += ratio
    return total / groups if total > 0.0 else 0.0  # NaN (a 0/0 group) fails the test, as in C


def _rnonrel(group: Group, njr: int, *, retrieved_only: bool) -> float:
    """prefs_avgjg_Rnonrel(_ret)'s ratio for one group: as if it had as many non-relevant documents as relevant."""
    if retrieved_only:
        r, nonrel = group.num_rel_ret, group.num_nonrel_ret
        if r >= nonrel:
            fulfilled = group.fulfilled_ret + group.num_rel_ret * (r - nonrel)
            return _ratio(fulfilled, group.possible_ret + group.num_rel * (r - nonrel))
    else:
        r, nonrel = group.num_rel, group.num_nonrel
        if r >= nonrel:
            fulfilled = group.fulfilled_ret + group.fulfilled_imp + group.num_rel_ret * (r - nonrel)
            possible = group.possible_ret + group.possible_imp + group.possible_notoccur + group.num_rel * (r - nonrel)
            return _ratio(fulfilled, possible)
    if group.classes is not None:
        return _rnonrel_classes(group, njr, retrieved_only)
    return _rnonrel_order(group, njr, retrieved_only)


def _rnonrel_classes(group: Group, njr: int, retrieved_only: bool) -> float:
    classes = group.classes or []
    keep = group.num_rel_ret if retrieved_only else group.num_rel
    cut = [c[c < njr] if retrieved_only else c for c in classes]
    lowest = classes[-1][:keep]
    lowest = lowest[lowest < njr] if retrieved_only else lowest
    fulfilled = possible = 0
    pairs = [(cut[a], cut[b]) for a in range(len(classes)) for b in range(a + 1, len(classes) - 1)]
    pairs += [(ranks, lowest) for ranks in cut]  # every class, the lowest itself too (trec_eval's loop)
    for better, worse in pairs:
        above = better[:, None] < worse[None, :]
        if not retrieved_only:
            above &= (better < njr)[:, None]
        hits = int(np.count_nonzero(above))
        fulfilled += hits
        possible += above.size - hits
    return _ratio(fulfilled, possible + fulfilled)


def _rnonrel_order(group: Group, njr: int, retrieved_only: bool) -> float:
    order, levels = group.order, group.levels
    n = njr if retrieved_only else len(levels)
    seen, first_dropped = 0, n
    for i in range(n):
        if levels[i] == 0.0:
            seen += 1
            if seen == group.num_rel + 1:
                first_dropped = i
                break
    kept = ~((np.arange(len(levels)) >= first_dropped) & (levels == 0.0))
    live = order & kept[:, None] & kept[None, :]
    fulfilled = int(np.count_nonzero(np.triu(live[:njr, :njr], 1)))
    possible = int(np.count_nonzero(np.tril(live[:njr, :njr], -1)))
    if not retrieved_only:
        fulfilled += int(np.count_nonzero(live[:njr, njr:]))
        possible += int(np.count_nonzero(live[njr:, :njr])) + int(np.count_nonzero(live[njr:, njr:]))
    return _ratio(fulfilled, possible + fulfilled)


def prefs_values(topic: TopicPrefs) -> dict[str, float]:
    """Every prefs_* measure of one (run, topic)."""
    groups, njr = topic.groups, topic.judged_ret
    ful_ret = sum(g.fulfilled_ret for g in groups)
    ful_imp = sum(g.fulfilled_imp for g in groups)
    poss_ret = sum(g.possible_ret for g in groups)
    poss_imp = sum(g.possible_imp for g in groups)
    notoccur = sum(g.possible_notoccur for g in groups)

    def simple(fulfilled: int, possible: int) -> float:
        return fulfilled / possible if possible else 0.0

    count = len(groups)
    everything = [(g.fulfilled_ret + g.fulfilled_imp, g.possible_ret + g.possible_imp + g.possible_notoccur)
                  for g in groups]  # fmt: skip
    implied = [(g.fulfilled_ret + g.fulfilled_imp, g.possible_ret + g.possible_imp) for g in groups]
    retrieved = [(g.fulfilled_ret, g.possible_ret) for g in groups]
    return {
        "prefs_num_prefs_poss": float(poss_ret + poss_imp + notoccur),
        "prefs_num_prefs_ful": float(ful_ret + ful_imp),
        "prefs_num_prefs_ful_ret": float(ful_ret),
        "prefs_simp": simple(ful_ret + ful_imp, poss_ret + poss_imp + notoccur),
        "prefs_pair": _pairs(topic.counts, njr, imp=True, notoccur=True),
        "prefs_avgjg": _over_groups((simple(f, p) for f, p in everything), count),
        "prefs_avgjg_Rnonrel": _over_groups((_rnonrel(g, njr, retrieved_only=False) for g in groups), count),
        "prefs_simp_ret": simple(ful_ret, poss_ret),
        "prefs_pair_ret": _pairs(topic.counts, njr, imp=False, notoccur=False),
        "prefs_avgjg_ret": _over_groups((simple(f, p) for f, p in retrieved), count),
        "prefs_avgjg_Rnonrel_ret": _over_groups((_rnonrel(g, njr, retrieved_only=True) for g in groups), count),
        "prefs_simp_imp": simple(ful_ret + ful_imp, poss_ret + poss_imp),
        "prefs_pair_imp": _pairs(topic.counts, njr, imp=True, notoccur=False),
        "prefs_avgjg_imp": _over_groups((simple(f, p) for f, p in implied), count),
    }


def evaluate_prefs(
    prefs: Prefs,
    run: Mapping[str, Mapping[str, float]],
    *,
    complete: bool = False,
    depth: int | None = None,
) -> dict[str, dict[str, float]]:
    """{topic: {measure: value}} of one run, topics in trec_eval's order: those with preferences that the run ranked
    (every topic with preferences under `complete`, -c, a missing one ranking trec_eval's one stand-in document)."""
    values = {}
    for topic in sorted(prefs):
        if topic in run:
            ranking = ranking_of(run[topic], depth)
        elif complete:
            ranking = [docno for docno, _ in MISSING_TOPIC_RANKING]
        else:
            continue
        values[topic] = prefs_values(topic_prefs(prefs[topic], ranking, topic=topic))
    return values


def summary(values: Mapping[str, Mapping[str, float]], measures: Sequence[str]) -> dict[str, float]:
    """The "all" line: counts summed over topics, the rest their mean, summed in topic order."""
    rows = list(values.values())
    totals = {}
    for name in measures:
        total = 0.0
        for row in rows:
            total += row[name]
        totals[name] = total if name in COUNTS else (total / len(rows) if rows else 0.0)
    return totals
