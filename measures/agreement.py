"""Inter-assessor agreement, pure (no Django): percent agreement, Cohen's and Fleiss' kappa, Krippendorff's alpha,
Gwet's AC1 and Voorhees' overlap, plus confusion, pairwise and against-consensus matrices.

An item is a mapping assessor -> grade; an assessor who did not judge the item is simply absent. Grades are
integers, or any hashable labels (strings from another annotation tool), ordered by `categories` (see `coded`).
Statistics that are undefined for the data (one assessor, nothing pairable, zero expected disagreement) return
None, never a made-up number. Every function also accepts a `Labels` matrix, which a report builds once and
shares, since the statistics are all computed from the same items x assessors table. Both apps use them (the
recompute's agreement, an assessor's self-agreement), so they live here, owned by neither. Run
`python -m evaluation.agreement JUDGMENTS` for a JSON report.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

Item = Mapping[Hashable, Hashable]
REFERENCE = "consensus"  # the column name of the reference labels in against-consensus comparisons


@dataclass(frozen=True)
class Labels:
    """Grades as an items x assessors matrix; `judged` marks which assessor graded which item."""

    names: list
    grades: np.ndarray  # int64, 0 where not judged
    judged: np.ndarray  # bool

    @classmethod
    def of(cls, items: Iterable[Item] | Mapping[Hashable, Item] | Labels) -> Labels:
        if isinstance(items, Labels):
            return items
        items = list(items.values()) if isinstance(items, Mapping) else list(items)
        names = sorted(set(itertools.chain.from_iterable(items)), key=str)
        column = {a: i for i, a in enumerate(names)}
        grades = np.zeros((len(items), len(names)), dtype=np.int64)
        judged = np.zeros((len(items), len(names)), dtype=bool)
        rows = np.repeat(np.arange(len(items)), [len(item) for item in items])
        cols = [column[a] for a in itertools.chain.from_iterable(items)]
        grades[rows, cols] = list(itertools.chain.from_iterable(item.values() for item in items))
        judged[rows, cols] = True
        return cls(names, grades, judged)

    def binary(self, threshold: int) -> Labels:
        """The binary view: 1 where grade >= threshold, else 0."""
        return Labels(self.names, ((self.grades >= threshold) & self.judged).astype(np.int64), self.judged)

    def pair(self, a: Hashable, b: Hashable) -> Labels:
        """Two assessors' columns, on the items both judged."""
        i, j = self.names.index(a), self.names.index(b)
        both = self.judged[:, i] & self.judged[:, j]
        return Labels([a, b], self.grades[both][:, [i, j]], np.ones((int(both.sum()), 2), dtype=bool))

    def with_reference(self, reference: Sequence[int | None]) -> Labels:
        """Adds the reference labels (say, the consensus) as one more column, named REFERENCE."""
        known = np.array([r is not None for r in reference], dtype=bool)
        column = np.array([0 if r is None else r for r in reference], dtype=np.int64)
        return Labels(
            [*self.names, REFERENCE], np.column_stack((self.grades, column)), np.column_stack((self.judged, known))
        )

    def categories(self, categories: Sequence[int] | None = None) -> np.ndarray:
        if categories is not None:
            return np.asarray(list(categories), dtype=np.int64)
        return np.unique(self.grades[self.judged])

    def counts(self, categories: Sequence[int] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(items x categories table of how many assessors gave each grade, the categories)."""
        cats = self.categories(categories)
        position = np.clip(np.searchsorted(cats, self.grades), 0, max(len(cats) - 1, 0))
        if len(cats) == 0 or (self.judged & (cats[position] != self.grades)).any():
            unknown = sorted(set(self.grades[self.judged].tolist()) - set(cats.tolist()))
            if unknown:
                raise ValueError(f"grades {unknown} are not among the categories {cats.tolist()}")
        rows = np.broadcast_to(np.arange(len(self.grades))[:, None], self.grades.shape)
        flat = (rows * len(cats) + position)[self.judged]
        table = np.bincount(flat, minlength=len(self.grades) * len(cats)).reshape(len(self.grades), len(cats))
        return table.astype(np.float64), cats


def coded(items, categories: Sequence | None = None) -> tuple[Labels, Sequence | None]:
    """Items whose labels are any hashable values (strings from another annotation tool, say) as integer codes: each
    label's place in `categories`, which gives their order for weighted and ordinal statistics (default: sorted
    by their text). Integer grades pass through unchanged."""
    if isinstance(items, Labels):
        return items, categories
    items = list(items.values()) if isinstance(items, Mapping) else list(items)
    values = {g for item in items for g in item.values()}
    if all(isinstance(g, int | np.integer) for g in values):
        return Labels.of(items), categories
    order = list(categories) if categories is not None else sorted(values, key=str)
    unknown = sorted(values - set(order), key=str)
    if unknown:
        raise ValueError(f"labels {unknown} are not among the categories {order}")
    code = {label: index for index, label in enumerate(order)}
    return Labels.of([{a: code[g] for a, g in item.items()} for item in items]), list(range(len(order)))


def _none_if_nan(value: float | None) -> float | None:
    return None if value is None or not np.isfinite(value) else float(value)


def percent_agreement(items, definition: str = "pairwise", tolerance: int = 0) -> float | None:
    """`pairwise`: the mean, over items judged by at least two assessors, of the share of assessor pairs whose grades
    differ by at most `tolerance`. `all_agree`: the share of such items on which every pair agrees."""
    if definition not in ("pairwise", "all_agree"):
        raise ValueError(f"definition must be 'pairwise' or 'all_agree', not {definition!r}")
    table, cats = coded(items)[0].counts()
    per_item = table.sum(axis=1)
    pairable = per_item >= 2
    if not pairable.any():
        return None
    close = (np.abs(cats[:, None] - cats[None, :]) <= tolerance).astype(np.float64)
    agreeing = ((table * (table @ close)).sum(axis=1) - per_item)[pairable]  # ordered pairs, self-pairs removed
    pairs = (per_item * (per_item - 1))[pairable]
    if definition == "all_agree":
        return float(np.mean(agreeing == pairs))
    return float(np.mean(agreeing / pairs))


def _two_raters(labels: Labels, raters) -> Labels:
    if raters is not None:
        return labels.pair(*raters)
    if len(labels.names) != 2:
        raise ValueError(
            f"Cohen's kappa compares two assessors; these items have {len(labels.names)}: name two with raters="
        )
    return labels.pair(*labels.names)


def _weight_matrix(size: int, weights: str | None) -> np.ndarray:
    i, j = np.indices((size, size))
    if weights is None:
        return (i != j).astype(np.float64)
    if weights == "linear":
        return np.abs(i - j).astype(np.float64)
    if weights == "quadratic":
        return ((i - j) ** 2).astype(np.float64)
    raise ValueError(f"weights must be None, 'linear' or 'quadratic', not {weights!r}")


def confusion_matrix(items, raters=None, categories: Sequence[int] | None = None) -> np.ndarray:
    """Counts of (grade by the first assessor, grade by the second) over the items both judged; rows and columns
    follow `categories` (default: every grade either gave, ascending)."""
    labels, categories = coded(items, categories)
    both = _two_raters(labels, raters)
    cats = both.categories(categories)
    position = np.searchsorted(cats, both.grades)
    if (
        len(both.grades)
        and ((position >= len(cats)) | (cats[np.minimum(position, len(cats) - 1)] != both.grades)).any()
    ):
        raise ValueError(f"some grades are not among the categories {cats.tolist()}")
    size = len(cats)
    flat = np.bincount(position[:, 0] * size + position[:, 1], minlength=size * size) if len(both.grades) else None
    return np.zeros((size, size), dtype=np.int64) if flat is None else flat.reshape(size, size).astype(np.int64)


def cohen_kappa(items, weights: str | None = None, categories: Sequence[int] | None = None, raters=None):
    """Cohen's kappa between two assessors on the items both judged: 1 - sum(w * observed) / sum(w * expected).

    Weights come from positions in `categories` (|i - j| linear, (i - j)^2 quadratic), so for graded relevance pass
    the full scale (0..max) and an unused grade still counts. Same definition as sklearn's cohen_kappa_score.
    """
    observed = confusion_matrix(items, raters, categories).astype(np.float64)
    total = observed.sum()
    if total == 0:
        return None
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / total
    w = _weight_matrix(len(observed), weights)
    denominator = (w * expected).sum()
    return _none_if_nan(1.0 - (w * observed).sum() / denominator) if denominator else None


def fleiss_kappa(items, categories: Sequence[int] | None = None, proportions: str = "pooled") -> float | None:
    """Fleiss' kappa (1971) for any number of assessors per item.

    With a varying number of assessors, each item's agreement P_i = (sum_j n_ij^2 - n_i) / (n_i (n_i - 1)) uses its
    own n_i, items with fewer than two grades are left out, and P_bar is the plain mean of P_i. The chance term
    P_e = sum_j p_j^2 takes the category proportions p_j either `pooled` over all grades of the kept items (the
    default), or `per_item`: the mean over every graded item of its own share n_ij / n_i, the generalised form of
    Gwet's Handbook of Inter-Rater Reliability (2014, ch. 2). With a constant number of assessors both are exactly
    Fleiss' formula (and statsmodels' fleiss_kappa).
    """
    if proportions not in ("pooled", "per_item"):
        raise ValueError(f"proportions must be 'pooled' or 'per_item', not {proportions!r}")
    labels, categories = coded(items, categories)
    table, _ = labels.counts(categories)
    graded = table[table.sum(axis=1) >= 1]
    table = table[table.sum(axis=1) >= 2]
    if not len(table):
        return None
    per_item = table.sum(axis=1)
    agreement = ((table * table).sum(axis=1) - per_item) / (per_item * (per_item - 1))
    if proportions == "pooled":
        shares = table.sum(axis=0) / table.sum()
    else:
        shares = (graded / graded.sum(axis=1)[:, None]).mean(axis=0)
    chance = float((shares**2).sum())
    return _none_if_nan((agreement.mean() - chance) / (1.0 - chance)) if chance < 1.0 else None


def gwet_ac1(items, categories: Sequence[int] | None = None) -> float | None:
    """Gwet's AC1 (Gwet 2008) for several assessors with missing grades: (p_a - p_e) / (1 - p_e), where p_a is the
    mean pairwise agreement over items with >= 2 grades and p_e = sum_k pi_k (1 - pi_k) / (Q - 1), pi_k the mean
    over items of the share of the item's grades in category k, Q the number of categories."""
    labels, categories = coded(items, categories)
    table, cats = labels.counts(categories)
    table = table[table.sum(axis=1) > 0]
    if len(cats) < 2 or not len(table):
        return None
    per_item = table.sum(axis=1)
    pairable = per_item >= 2
    if not pairable.any():
        return None
    p_a = (((table * (table - 1)).sum(axis=1))[pairable] / (per_item * (per_item - 1))[pairable]).mean()
    pi = (table / per_item[:, None]).mean(axis=0)
    p_e = float((pi * (1 - pi)).sum() / (len(cats) - 1))
    return _none_if_nan((p_a - p_e) / (1 - p_e)) if p_e < 1 else None


def _distance(values: np.ndarray, marginals: np.ndarray, level: str) -> np.ndarray:
    c, k = np.meshgrid(values, values, indexing="ij")
    if level == "nominal":
        return (c != k).astype(np.float64)
    if level == "interval":
        return (c - k) ** 2
    if level == "ratio":
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.nan_to_num(((c - k) / (c + k)) ** 2)
    if level == "ordinal":
        cumulative = np.concatenate(([0.0], np.cumsum(marginals)))
        i, j = np.meshgrid(np.arange(len(values)), np.arange(len(values)), indexing="ij")
        low, high = np.minimum(i, j), np.maximum(i, j)
        between = cumulative[high + 1] - cumulative[low]
        return (between - (marginals[i] + marginals[j]) / 2.0) ** 2
    raise ValueError(f"level must be nominal, ordinal, interval or ratio, not {level!r}")


def krippendorff_alpha(items, level: str = "nominal", categories: Sequence | None = None) -> float | None:
    """Krippendorff's alpha from the coincidence matrix (Krippendorff 2011, "Computing Krippendorff's alpha"):
    alpha = 1 - (n - 1) sum o_ck d_ck / sum n_c n_k d_ck over the values actually used; items with fewer than two
    grades are not pairable and are left out. `level` picks the distance: nominal, ordinal, interval or ratio;
    labels that are not numbers (ordered by `categories`) allow nominal and ordinal only."""
    if not isinstance(items, Labels):
        items = list(items.values()) if isinstance(items, Mapping) else list(items)
        numeric = all(isinstance(g, int | np.integer) for item in items for g in item.values())
        if level in ("interval", "ratio") and not numeric:
            raise ValueError(f"{level} distances need numeric grades; give nominal or ordinal for these labels")
    labels, _ = coded(items, categories)
    pairable = labels.judged.sum(axis=1) >= 2
    if not pairable.any():
        return None
    kept = Labels(labels.names, labels.grades[pairable], labels.judged[pairable])
    table, values = kept.counts()
    weighted = table / (table.sum(axis=1) - 1)[:, None]
    coincidence = table.T @ weighted - np.diag(weighted.sum(axis=0))
    marginals = coincidence.sum(axis=1)
    n = marginals.sum()
    distance = _distance(values.astype(np.float64), marginals, level)
    expected = (np.outer(marginals, marginals) * distance).sum()
    if expected == 0:
        return None
    return _none_if_nan(1.0 - (n - 1) * (coincidence * distance).sum() / expected)


def overlap(items, threshold: int = 1, definition: str = "pairwise") -> float | None:
    """Voorhees' overlap of the items assessors judged relevant (grade >= threshold).

    `pairwise` (the default): |A & B| / |A | B| for each pair of assessors over the items both judged, averaged over
    the pairs with a non-empty union. `all`: Voorhees' (2000) overlap of every assessor at once, the intersection of
    all their relevant sets over the union, on the items every assessor judged. For two assessors they are equal.
    """
    if definition not in ("pairwise", "all"):
        raise ValueError(f"definition must be 'pairwise' or 'all', not {definition!r}")
    labels = Labels.of(items)
    relevant = (labels.grades >= threshold) & labels.judged
    if definition == "all":
        if len(labels.names) < 2:
            return None
        everyone = labels.judged.all(axis=1)
        union = int((relevant.any(axis=1) & everyone).sum())
        return int((relevant.all(axis=1) & everyone).sum()) / union if union else None
    values = []
    for i, j in itertools.combinations(range(len(labels.names)), 2):
        both = labels.judged[:, i] & labels.judged[:, j]
        union = int(((relevant[:, i] | relevant[:, j]) & both).sum())
        if union:
            values.append(int((relevant[:, i] & relevant[:, j] & both).sum()) / union)
    return float(np.mean(values)) if values else None


def pairwise(items, statistic, **parameters) -> dict[tuple, float | None]:
    """`statistic` for every pair of assessors, on the items both judged: {(a, b): value}."""
    labels = Labels.of(items)
    result = {}
    for a, b in itertools.combinations(labels.names, 2):
        both = labels.pair(a, b)
        result[(a, b)] = statistic(both, **parameters) if len(both.grades) else None
    return result


def _keyed(pairs: Mapping[tuple, object]) -> dict[str, object]:
    return {f"{a}|{b}": value for (a, b), value in pairs.items()}


def _comparisons(labels: Labels, cats: list[int], binary: Labels) -> dict[str, object]:
    """Pairwise statistics between assessors, graded and binary, keyed "a|b"."""
    return {
        "percent_agreement": _keyed(pairwise(labels, percent_agreement)),
        "cohen_kappa": _keyed(pairwise(labels, cohen_kappa, categories=cats)),
        "cohen_kappa_quadratic": _keyed(pairwise(labels, cohen_kappa, weights="quadratic", categories=cats)),
        "binary_cohen_kappa": _keyed(pairwise(binary, cohen_kappa, categories=[0, 1])),
        "confusion": _keyed(
            {
                (a, b): confusion_matrix(labels, (a, b), cats).tolist()
                for a, b in itertools.combinations(labels.names, 2)
            }
        ),
    }


def _against_consensus(labels: Labels, reference: Sequence[int | None], cats: list[int], threshold: int) -> dict:
    with_reference = labels.with_reference(reference)
    binary = with_reference.binary(threshold)
    report = {}
    for name in labels.names:
        both = with_reference.pair(name, REFERENCE)
        report[str(name)] = {
            "items": len(both.grades),
            "percent_agreement": percent_agreement(both) if len(both.grades) else None,
            "cohen_kappa": cohen_kappa(both, categories=cats) if len(both.grades) else None,
            "cohen_kappa_quadratic": cohen_kappa(both, "quadratic", cats) if len(both.grades) else None,
            "binary_cohen_kappa": cohen_kappa(binary.pair(name, REFERENCE), categories=[0, 1])
            if len(both.grades)
            else None,
            "confusion": confusion_matrix(both, categories=cats).tolist(),
        }
    return report


def against_reference(
    items, reference: Sequence[int | None], *, categories: Sequence[int] | None = None, threshold: int = 1
) -> dict:
    """Each assessor of `items` against `reference` labels aligned with them (the consensus), as `agreement_report`
    gives it under "against_consensus": for sources measured against a consensus they are not part of (advisory
    machine judges), without counting them in the agreement among the assessors."""
    labels = Labels.of(items)
    if not labels.names:
        return {}
    return _against_consensus(labels, reference, labels.categories(categories).tolist(), threshold)


def agreement_report(
    items,
    *,
    categories: Sequence[int] | None = None,
    threshold: int = 1,
    reference: Sequence[int | None] | None = None,
) -> dict:
    """Every statistic on the graded labels and on the binary view, with the parameters that produced it; the
    assessor x assessor comparisons with their confusion matrices; and, given `reference` labels aligned with the
    items (the consensus), each assessor against them."""
    labels = Labels.of(items)
    cats = labels.categories(categories).tolist()
    binary = labels.binary(threshold)
    two = len(labels.names) == 2
    graded = {
        "items": len(labels.grades),
        "assessors": len(labels.names),
        "percent_agreement": percent_agreement(labels),
        "percent_agreement_within_1": percent_agreement(labels, tolerance=1),
        "all_agree": percent_agreement(labels, definition="all_agree"),
        "fleiss_kappa": fleiss_kappa(labels, cats),
        "gwet_ac1": gwet_ac1(labels, cats),
        "krippendorff_alpha_nominal": krippendorff_alpha(labels, "nominal"),
        "krippendorff_alpha_ordinal": krippendorff_alpha(labels, "ordinal"),
        "krippendorff_alpha_interval": krippendorff_alpha(labels, "interval"),
    }
    if two:
        graded["cohen_kappa"] = cohen_kappa(labels, categories=cats)
        graded["cohen_kappa_linear"] = cohen_kappa(labels, "linear", cats)
        graded["cohen_kappa_quadratic"] = cohen_kappa(labels, "quadratic", cats)
    binary_report = {
        "percent_agreement": percent_agreement(binary),
        "fleiss_kappa": fleiss_kappa(binary, [0, 1]),
        "gwet_ac1": gwet_ac1(binary, [0, 1]),
        "krippendorff_alpha_nominal": krippendorff_alpha(binary, "nominal"),
        "overlap": overlap(labels, threshold),
    }
    if two:
        binary_report["cohen_kappa"] = cohen_kappa(binary, categories=[0, 1])
    comparisons = _comparisons(labels, cats, binary)
    report = {
        "parameters": {
            "categories": cats,
            "threshold": threshold,
            "fleiss": "Fleiss 1971, per-item rater counts (see fleiss_kappa)",
            "pairs": "statistics between two assessors use only the items both judged",
        },
        "graded": graded,
        "binary": binary_report,
        "assessors": [str(name) for name in labels.names],
        "pairwise": comparisons,
    }
    if reference is not None:
        report["against_consensus"] = _against_consensus(labels, reference, cats, threshold)
    return report
