"""Set-based measures on the retrieved set (the whole ranking, or its top k) against a collection of N documents.

TP = relevant retrieved, FP = retrieved non-relevant (unjudged included), FN = relevant not retrieved,
TN = N - TP - FP - FN. A zero denominator gives NaN ("undefined"), never an exception. Measures that need TN
need the collection size N (the measure's `N` parameter, else the batch's collection size).
"""

from __future__ import annotations

import numpy as np

from measures.batch import RankedBatch, safe_divide

NAN = float("nan")


def contingency(batch: RankedBatch, m) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    level = batch.level_of(m)
    column = batch.column(m.cutoff)
    tp = batch.relevant_through(level, column).astype(np.float64)
    retrieved = (column + 1).astype(np.float64)
    fp = retrieved - tp
    fn = batch.num_rel(level) - tp
    size = m.param("N") if "N" in m.spec.params else None
    size = batch.collection_size if size is None else size
    tn = np.full(batch.rows, NAN) if size is None else float(size) - tp - fp - fn
    return tp, fp, fn, tn


def _undefined(numerator, denominator):
    return safe_divide(numerator, denominator, undefined=NAN)


def set_precision(batch, m):
    """TP / (TP + FP); trec_eval set_P gives 0 for an empty retrieved set."""
    tp, fp, _, _ = contingency(batch, m)
    return safe_divide(tp, tp + fp)


def set_recall(batch, m):
    """TP / (TP + FN); trec_eval set_recall gives 0 when there is no relevant document."""
    tp, _, fn, _ = contingency(batch, m)
    return safe_divide(tp, tp + fn)


def _f_beta(batch, m, beta_squared: float):
    tp, fp, fn, _ = contingency(batch, m)
    p, r = safe_divide(tp, tp + fp), safe_divide(tp, tp + fn)
    # 0 when nothing relevant is retrieved (P = R = 0), as trec_eval's set_F reports it.
    return safe_divide((beta_squared + 1.0) * p * r, beta_squared * p + r)


def f_measure(batch, m):
    """F_beta = (1 + b^2) P R / (b^2 P + R) with the true beta (F1, F0.5, F2)."""
    beta = float(m.param("beta"))
    return _f_beta(batch, m, beta * beta)


def trec_set_f(batch, m):
    """trec_eval's set_F.x: (x + 1) P R / (x P + R), where x plays the role of beta squared."""
    return _f_beta(batch, m, float(m.param("x")))


def e_measure(batch, m):
    """van Rijsbergen's E = 1 - F_beta."""
    return 1.0 - f_measure(batch, m)


def _ratio(numerator_fn, denominator_fn, doc: str):
    def measure(batch, m):
        tp, fp, fn, tn = contingency(batch, m)
        return _undefined(numerator_fn(tp, fp, fn, tn), denominator_fn(tp, fp, fn, tn))

    measure.__doc__ = doc
    return measure


fallout = _ratio(lambda tp, fp, fn, tn: fp, lambda tp, fp, fn, tn: fp + tn, "FP / (FP + TN)")
specificity = _ratio(lambda tp, fp, fn, tn: tn, lambda tp, fp, fn, tn: tn + fp, "Inverse recall: TN / (TN + FP)")
negative_predictive_value = _ratio(
    lambda tp, fp, fn, tn: tn, lambda tp, fp, fn, tn: tn + fn, "Inverse precision: TN / (TN + FN)"
)
prevalence = _ratio(lambda tp, fp, fn, tn: tp + fn, lambda tp, fp, fn, tn: tp + fp + fn + tn, "(TP + FN) / N")
accuracy = _ratio(lambda tp, fp, fn, tn: tp + tn, lambda tp, fp, fn, tn: tp + fp + fn + tn, "(TP + TN) / N")
error_rate = _ratio(lambda tp, fp, fn, tn: fp + fn, lambda tp, fp, fn, tn: tp + fp + fn + tn, "(FP + FN) / N")
miss_rate = _ratio(lambda tp, fp, fn, tn: fn, lambda tp, fp, fn, tn: fn + tp, "FN / (FN + TP)")
false_discovery_rate = _ratio(lambda tp, fp, fn, tn: fp, lambda tp, fp, fn, tn: fp + tp, "FP / (FP + TP)")
false_omission_rate = _ratio(lambda tp, fp, fn, tn: fn, lambda tp, fp, fn, tn: fn + tn, "FN / (FN + TN)")
threat_score = _ratio(lambda tp, fp, fn, tn: tp, lambda tp, fp, fn, tn: tp + fn + fp, "TP / (TP + FN + FP)")


def _rates(batch, m):
    tp, fp, fn, tn = contingency(batch, m)
    tpr, tnr = _undefined(tp, tp + fn), _undefined(tn, tn + fp)
    ppv, npv = _undefined(tp, tp + fp), _undefined(tn, tn + fn)
    return tp, fp, fn, tn, tpr, tnr, ppv, npv


def balanced_accuracy(batch, m):
    """(TPR + TNR) / 2"""
    *_, tpr, tnr, _, _ = _rates(batch, m)
    return (tpr + tnr) / 2.0


def informedness(batch, m):
    """Youden's J: TPR + TNR - 1"""
    *_, tpr, tnr, _, _ = _rates(batch, m)
    return tpr + tnr - 1.0


def markedness(batch, m):
    """PPV + NPV - 1"""
    *_, ppv, npv = _rates(batch, m)
    return ppv + npv - 1.0


def fowlkes_mallows(batch, m):
    """sqrt(PPV * TPR)"""
    _, _, _, _, tpr, _, ppv, _ = _rates(batch, m)
    return np.sqrt(ppv * tpr)


def prevalence_threshold(batch, m):
    """(sqrt(TPR (1 - TNR)) + TNR - 1) / (TPR + TNR - 1); undefined when TPR + TNR = 1."""
    *_, tpr, tnr, _, _ = _rates(batch, m)
    return _undefined(np.sqrt(tpr * (1.0 - tnr)) + tnr - 1.0, tpr + tnr - 1.0)


def matthews_correlation(batch, m):
    """(TP TN - FP FN) / sqrt((TP+FP)(TP+FN)(TN+FP)(TN+FN))"""
    tp, fp, fn, tn = contingency(batch, m)
    return _undefined(tp * tn - fp * fn, np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)))


def utility(batch, m):
    """trec_eval utility.a,b,c,d: a * TP + b * FP + c * FN + d * TN over the whole ranking, TN from the collection
    size N (0 when not given, as trec_eval's -N default); by default TP - FP."""
    level = batch.level_of(m)
    found = batch.relevant_through(level, batch.column(None)).astype(np.int64)
    retrieved = batch.n.astype(np.int64)
    relevant = batch.num_rel(level).astype(np.int64)
    size = int(batch.collection_size or 0) if m.param("d") != 0 else 0
    return (
        m.param("a") * found.astype(np.float64)
        + m.param("b") * (retrieved - found).astype(np.float64)
        + m.param("c") * (relevant - found).astype(np.float64)
        + m.param("d") * (size + found - retrieved - relevant).astype(np.float64)
    )
