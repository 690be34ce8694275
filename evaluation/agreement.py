"""Inter-assessor agreement, pure (no Django): percent agreement, Cohen's and Fleiss' kappa, Krippendorff's alpha,
Gwet's AC1 and Voorhees' overlap, plus confusion and pairwise matrices.

An item is a mapping assessor -> grade; an assessor who did not judge the item is simply absent. Statistics that are
undefined for the data (one assessor, nothing pairable, zero expected disagreement) return None, never a made-up
number. Run `python -m evaluation.agreement JUDGMENTS` for a JSON report.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Iterable, Mapping, Sequence

import numpy as np

Item = Mapping[Hashable, int]


def _items(items: Iterable[Item] | Mapping[Hashable, Item]) -> list[Item]:
    return list(items.values()) if isinstance(items, Mapping) else list(items)


def _categories(items: Sequence[Item], categories: Sequence[int] | None) -> list[int]:
    if categories is not None:
        return list(categories)
    return sorted({grade for item in items for grade in item.values()})


def _none_if_nan(value: float) -> float | None:
    return None if value is None or not np.isfinite(value) else float(value)


def assessors(items: Iterable[Item] | Mapping[Hashable, Item]) -> list:
    return sorted({a for item in _items(items) for a in item}, key=str)


def percent_agreement(items, definition: str = "pairwise", tolerance: int = 0) -> float | None:
    """`pairwise`: the mean, over items judged by at least two assessors, of the share of assessor pairs whose grades
    differ by at most `tolerance`. `all_agree`: the share of such items on which every pair agrees."""
    shares = []
    for item in _items(items):
        grades = list(item.values())
        if len(grades) < 2:
            continue
        pairs = [abs(a - b) <= tolerance for a, b in itertools.combinations(grades, 2)]
        shares.append(all(pairs) if definition == "all_agree" else sum(pairs) / len(pairs))
    if definition not in ("pairwise", "all_agree"):
        raise ValueError(f"definition must be 'pairwise' or 'all_agree', not {definition!r}")
    return float(np.mean(shares)) if shares else None


def _two_raters(items: Sequence[Item], raters) -> tuple[Hashable, Hashable]:
    if raters is not None:
        return tuple(raters)
    names = assessors(items)
    if len(names) != 2:
        raise ValueError(f"Cohen's kappa compares two assessors; these items have {len(names)}: name two with raters=")
    return names[0], names[1]


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
    items = _items(items)
    first, second = _two_raters(items, raters)
    both = [(item[first], item[second]) for item in items if first in item and second in item]
    cats = _categories([{0: a, 1: b} for a, b in both], categories)
    index = {c: i for i, c in enumerate(cats)}
    matrix = np.zeros((len(cats), len(cats)), dtype=np.int64)
    for a, b in both:
        matrix[index[a], index[b]] += 1
    return matrix


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


def _count_table(items: Sequence[Item], categories: Sequence[int] | None) -> np.ndarray:
    cats = _categories(items, categories)
    index = {c: i for i, c in enumerate(cats)}
    table = np.zeros((len(items), len(cats)), dtype=np.float64)
    for row, item in enumerate(items):
        for grade in item.values():
            table[row, index[grade]] += 1
    return table


def fleiss_kappa(items, categories: Sequence[int] | None = None) -> float | None:
    """Fleiss' kappa (1971) for any number of assessors per item.

    With a varying number of assessors, each item's agreement P_i = (sum_j n_ij^2 - n_i) / (n_i (n_i - 1)) uses its
    own n_i, items with fewer than two grades are left out, P_bar is the plain mean of P_i, and the chance term
    P_e = sum_j p_j^2 pools the category proportions over all grades of the kept items. With a constant number of
    assessors this is exactly Fleiss' formula (and statsmodels' fleiss_kappa).
    """
    items = [item for item in _items(items) if len(item) >= 2]
    if not items:
        return None
    table = _count_table(items, categories)
    per_item = table.sum(axis=1)
    agreement = ((table * table).sum(axis=1) - per_item) / (per_item * (per_item - 1))
    proportions = table.sum(axis=0) / table.sum()
    chance = float((proportions**2).sum())
    return _none_if_nan((agreement.mean() - chance) / (1.0 - chance)) if chance < 1.0 else None


def gwet_ac1(items, categories: Sequence[int] | None = None) -> float | None:
    """Gwet's AC1 (Gwet 2008) for several assessors with missing grades: (p_a - p_e) / (1 - p_e), where p_a is the
    mean pairwise agreement over items with >= 2 grades and p_e = sum_k pi_k (1 - pi_k) / (Q - 1), pi_k the mean
    over items of the share of the item's grades in category k, Q the number of categories."""
    all_items = [item for item in _items(items) if item]
    cats = _categories(all_items, categories)
    if len(cats) < 2 or not all_items:
        return None
    table = _count_table(all_items, cats)
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


def krippendorff_alpha(items, level: str = "nominal") -> float | None:
    """Krippendorff's alpha from the coincidence matrix (Krippendorff 2011, "Computing Krippendorff's alpha"):
    alpha = 1 - (n - 1) sum o_ck d_ck / sum n_c n_k d_ck over the values actually used; items with fewer than two
    grades are not pairable and are left out. `level` picks the distance: nominal, ordinal, interval or ratio."""
    items = [item for item in _items(items) if len(item) >= 2]
    if not items:
        return None
    values = np.array(sorted({g for item in items for g in item.values()}), dtype=np.float64)
    index = {v: i for i, v in enumerate(values.tolist())}
    coincidence = np.zeros((len(values), len(values)))
    for item in items:
        counts = np.zeros(len(values))
        for grade in item.values():
            counts[index[float(grade)]] += 1
        coincidence += (np.outer(counts, counts) - np.diag(counts)) / (len(item) - 1)
    marginals = coincidence.sum(axis=1)
    n = marginals.sum()
    distance = _distance(values, marginals, level)
    expected = (np.outer(marginals, marginals) * distance).sum()
    if expected == 0:
        return None
    return _none_if_nan(1.0 - (n - 1) * (coincidence * distance).sum() / expected)


def overlap(items, threshold: int = 1) -> float | None:
    """Voorhees' overlap: |A & B| / |A | B| of the items each assessor of a pair judged relevant (grade >= threshold),
    over the items both judged, averaged over assessor pairs with a non-empty union."""
    items = _items(items)
    values = []
    for a, b in itertools.combinations(assessors(items), 2):
        both = [item for item in items if a in item and b in item]
        relevant_a = {i for i, item in enumerate(both) if item[a] >= threshold}
        relevant_b = {i for i, item in enumerate(both) if item[b] >= threshold}
        union = relevant_a | relevant_b
        if union:
            values.append(len(relevant_a & relevant_b) / len(union))
    return float(np.mean(values)) if values else None


def binarised(items, threshold: int) -> list[dict]:
    """The binary view of graded items: 1 where grade >= threshold, else 0."""
    return [{a: int(g >= threshold) for a, g in item.items()} for item in _items(items)]


def pairwise(items, statistic, **parameters) -> dict[tuple, float | None]:
    """`statistic` for every pair of assessors, on the items both judged: {(a, b): value}."""
    items = _items(items)
    result = {}
    for a, b in itertools.combinations(assessors(items), 2):
        both = [{a: item[a], b: item[b]} for item in items if a in item and b in item]
        result[(a, b)] = statistic(both, **parameters) if both else None
    return result


def agreement_report(items, *, categories: Sequence[int] | None = None, threshold: int = 1) -> dict:
    """Every statistic on the graded labels and on the binary view, with the parameters that produced it."""
    items = _items(items)
    cats = _categories(items, categories)
    names = assessors(items)
    graded = {
        "items": len(items),
        "assessors": len(names),
        "percent_agreement": percent_agreement(items),
        "percent_agreement_within_1": percent_agreement(items, tolerance=1),
        "all_agree": percent_agreement(items, definition="all_agree"),
        "fleiss_kappa": fleiss_kappa(items, cats),
        "gwet_ac1": gwet_ac1(items, cats),
        "krippendorff_alpha_nominal": krippendorff_alpha(items, "nominal"),
        "krippendorff_alpha_ordinal": krippendorff_alpha(items, "ordinal"),
        "krippendorff_alpha_interval": krippendorff_alpha(items, "interval"),
    }
    if len(names) == 2:
        graded["cohen_kappa"] = cohen_kappa(items, categories=cats)
        graded["cohen_kappa_linear"] = cohen_kappa(items, "linear", cats)
        graded["cohen_kappa_quadratic"] = cohen_kappa(items, "quadratic", cats)
    binary = binarised(items, threshold)
    binary_report = {
        "percent_agreement": percent_agreement(binary),
        "fleiss_kappa": fleiss_kappa(binary, [0, 1]),
        "gwet_ac1": gwet_ac1(binary, [0, 1]),
        "krippendorff_alpha_nominal": krippendorff_alpha(binary, "nominal"),
        "overlap": overlap(items, threshold),
    }
    if len(names) == 2:
        binary_report["cohen_kappa"] = cohen_kappa(binary, categories=[0, 1])
    return {
        "parameters": {
            "categories": cats,
            "threshold": threshold,
            "fleiss": "Fleiss 1971, per-item rater counts (see fleiss_kappa)",
        },
        "graded": graded,
        "binary": binary_report,
        "pairwise_cohen_kappa": {f"{a}|{b}": v for (a, b), v in pairwise(items, cohen_kappa, categories=cats).items()},
    }


if __name__ == "__main__":
    from .agreement_cli import main

    raise SystemExit(main())
