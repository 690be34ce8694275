"""The registry: every measure family with its parameters, cutoff rule, aggregation, trec_eval name and definition.

A family's documentation is its compute function's docstring, so the formula lives in one place.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from . import graded, ranked, sets

P_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
IPREC_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
NDCG_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
SUCCESS_CUTOFFS = (1, 5, 10)

DCG_CHOICES = ("log2", "exp-log2", "jk")


@dataclass(frozen=True)
class Family:
    name: str
    compute: Callable
    cutoff: str = "none"  # none | optional | required | fraction
    params: dict = field(default_factory=dict)
    choices: dict = field(default_factory=dict)
    aggregate: str = "mean"  # mean | sum | gmean
    trec: str | None = None  # trec_eval's name, when trec_eval has the measure
    trec_param: str | None = None  # a parameter trec_eval takes after the dot instead of a cutoff
    trec_cut: str | None = None  # trec_eval's name for the measure at a cutoff, when it differs from `trec`
    source: str = "trec_eval 9.0.x"

    @property
    def doc(self) -> str:
        return " ".join((self.compute.__doc__ or "").split())


@dataclass(frozen=True)
class TrecName:
    family: str
    default_cutoffs: tuple | None = None  # cutoffs a bare name expands to; None: takes no cutoff
    fixed_params: tuple = ()
    param: str | None = None
    param_default: object = None
    param_in: Callable | None = None


REL = {"rel": 1}
_SETS = {"rel": 1, "N": None}

_families = [
    Family("P", ranked.precision, "required", REL, trec="P", trec_cut="P"),
    Family("R", ranked.recall, "required", REL, trec="recall", trec_cut="recall"),
    Family("AP", ranked.average_precision, "optional", REL, trec="map", trec_cut="map_cut"),
    Family("GMAP", ranked.geometric_ap, "none", REL, aggregate="gmean", trec="gm_map"),
    Family("Rprec", ranked.r_precision, "none", REL, trec="Rprec"),
    Family("RR", ranked.reciprocal_rank, "optional", REL, trec="recip_rank"),
    Family("Bpref", ranked.bpref, "none", REL, trec="bpref"),
    Family("GMBpref", ranked.geometric_bpref, "none", REL, aggregate="gmean", trec="gm_bpref"),
    Family("RelP", ranked.relative_precision, "required", REL, trec="relative_P", trec_cut="relative_P"),
    Family("SetRelP", ranked.set_relative_precision, "none", REL, trec="set_relative_P"),
    Family("SetAP", ranked.set_average_precision, "none", REL, trec="set_map"),
    Family(
        "NumNonRelJudgedRet", ranked.num_nonrel_judged_ret, "none", REL, aggregate="sum", trec="num_nonrel_judged_ret"
    ),
    Family("infAP", ranked.inferred_ap, "none", REL, trec="infAP"),
    Family("Success", ranked.success, "required", REL, trec="success", trec_cut="success"),
    Family("IPrec", ranked.interpolated_precision, "fraction", REL, trec="iprec_at_recall", trec_cut="iprec_at_recall"),
    Family("11pt_avg", ranked.eleven_point_average, "none", REL, trec="11pt_avg"),
    Family("Judged", ranked.judged, "optional", source="ir_measures"),
    Family("NumRet", ranked.num_ret, "none", aggregate="sum", trec="num_ret"),
    Family("NumRel", ranked.num_rel, "none", REL, aggregate="sum", trec="num_rel"),
    Family("NumRelRet", ranked.num_rel_ret, "none", REL, aggregate="sum", trec="num_rel_ret"),
    Family("MinAP", ranked.minimum_ap, "none", REL, source="hand-worked (tests/evaluation/test_measures_worked_*)"),
    Family(
        "CG",
        graded.cumulative_gain,
        "optional",
        {"dcg": "log2"},
        {"dcg": DCG_CHOICES},
        source="Järvelin & Kekäläinen 2002",
    ),
    Family("DCG", graded.dcg, "optional", {"dcg": "log2"}, {"dcg": DCG_CHOICES}, source="Järvelin & Kekäläinen 2002"),
    Family("nDCG", graded.ndcg, "optional", {"dcg": "log2"}, {"dcg": DCG_CHOICES}, trec="ndcg", trec_cut="ndcg_cut"),
    Family("ERR", graded.err, "optional", {"gmax": None}, source="Chapelle et al. 2009"),
    Family("RBP", graded.rbp, "optional", {"p": 0.8, "rel": 1}, source="Moffat & Zobel 2008"),
    Family("RBPResidual", graded.rbp_residual, "optional", {"p": 0.8}, source="Moffat & Zobel 2008"),
    Family("SetP", sets.set_precision, "optional", REL, trec="set_P"),
    Family("SetR", sets.set_recall, "optional", REL, trec="set_recall"),
    Family("SetF", sets.f_measure, "optional", {"beta": 1.0, "rel": 1}, source="van Rijsbergen 1979 (true beta)"),
    Family("F", sets.f_measure, "optional", {"beta": 1.0, "rel": 1}, source="van Rijsbergen 1979 (true beta)"),
    Family("TrecSetF", sets.trec_set_f, "none", {"x": 1.0, "rel": 1}, trec="set_F", trec_param="x"),
    Family("E", sets.e_measure, "optional", {"beta": 1.0, "rel": 1}, source="van Rijsbergen 1979"),
    Family("Fallout", sets.fallout, "optional", _SETS, source="contingency table"),
    Family("Specificity", sets.specificity, "optional", _SETS, source="contingency table"),
    Family("NPV", sets.negative_predictive_value, "optional", _SETS, source="contingency table"),
    Family("Prevalence", sets.prevalence, "optional", _SETS, source="contingency table"),
    Family("Accuracy", sets.accuracy, "optional", _SETS, source="contingency table"),
    Family("BalancedAccuracy", sets.balanced_accuracy, "optional", _SETS, source="contingency table"),
    Family("ErrorRate", sets.error_rate, "optional", _SETS, source="contingency table"),
    Family("MissRate", sets.miss_rate, "optional", _SETS, source="contingency table"),
    Family("FDR", sets.false_discovery_rate, "optional", _SETS, source="contingency table"),
    Family("FOR", sets.false_omission_rate, "optional", _SETS, source="contingency table"),
    Family("ThreatScore", sets.threat_score, "optional", _SETS, source="contingency table"),
    Family("PrevalenceThreshold", sets.prevalence_threshold, "optional", _SETS, source="Balayla 2020"),
    Family("MCC", sets.matthews_correlation, "optional", _SETS, source="Matthews 1975"),
    Family("FowlkesMallows", sets.fowlkes_mallows, "optional", _SETS, source="Fowlkes & Mallows 1983"),
    Family("Informedness", sets.informedness, "optional", _SETS, source="Youden 1950"),
    Family("Markedness", sets.markedness, "optional", _SETS, source="Powers 2011"),
]

FAMILIES: dict[str, Family] = {f.name: f for f in _families}

TREC_NAMES: dict[str, TrecName] = {
    "P": TrecName("P", P_CUTOFFS),
    "recall": TrecName("R", P_CUTOFFS),
    "map": TrecName("AP"),
    "map_cut": TrecName("AP", P_CUTOFFS),
    "gm_map": TrecName("GMAP"),
    "Rprec": TrecName("Rprec"),
    "recip_rank": TrecName("RR"),
    "bpref": TrecName("Bpref"),
    "gm_bpref": TrecName("GMBpref"),
    "relative_P": TrecName("RelP", P_CUTOFFS),
    "set_relative_P": TrecName("SetRelP"),
    "set_map": TrecName("SetAP"),
    "num_nonrel_judged_ret": TrecName("NumNonRelJudgedRet"),
    "infAP": TrecName("infAP"),
    "success": TrecName("Success", SUCCESS_CUTOFFS),
    "iprec_at_recall": TrecName("IPrec", IPREC_LEVELS),
    "11pt_avg": TrecName("11pt_avg"),
    "num_ret": TrecName("NumRet"),
    "num_rel": TrecName("NumRel"),
    "num_rel_ret": TrecName("NumRelRet"),
    "ndcg": TrecName("nDCG"),
    "ndcg_cut": TrecName("nDCG", NDCG_CUTOFFS),
    "set_P": TrecName("SetP"),
    "set_recall": TrecName("SetR"),
    "set_F": TrecName("TrecSetF", param="x", param_default=1.0, param_in=float),
}

# trec_eval's default measure set (its "official" measures), in its print order.
TREC_DEFAULT = [
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
]
