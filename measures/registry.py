"""The registry: every measure family with its parameters, cutoff rule, aggregation, trec_eval name and definition.

A family's documentation is its compute function's docstring, so the formula lives in one place.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from measures import gain_measures, graded, ranked, sets

DCG_CHOICES = ("log2", "exp-log2", "jk")


@dataclass(frozen=True)
class Family:
    name: str
    compute: Callable
    cutoff: str = "none"  # none | optional | required | fraction (a recall level) | multiple (of R)
    params: dict = field(default_factory=dict)
    choices: dict = field(default_factory=dict)
    aggregate: str = "mean"  # mean | sum | gmean
    trec: str | None = None  # trec_eval's name, when trec_eval has the measure
    trec_cut: str | None = None  # trec_eval's name for the measure at a cutoff, when it differs from `trec`
    source: str = "trec_eval 9.0.x"
    check: Callable | None = None  # raises ValueError for parameter combinations the family cannot compute
    missing_topic_value: float | None = None  # what -c's missing topics score when trec_eval overrides the formula

    @property
    def doc(self) -> str:
        return " ".join((self.compute.__doc__ or "").split())


REL = {"rel": 1}
GAINS = {"gains": ""}  # a gain map, "level=gain,..." (gains.py); empty: each level's gain is the level
TREC_10 = "trec_eval 10.0"
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
    # -c's missing topics: trec_eval ranks one non-relevant document there (its "bogus ranking", so that nothing is
    # 0 / 0), which makes their interpolated precision 0, where an empty ranking's 0 / 0 start gives NaN.
    Family(
        "IPrec",
        ranked.interpolated_precision,
        "fraction",
        REL,
        trec="iprec_at_recall",
        trec_cut="iprec_at_recall",
        missing_topic_value=0.0,
    ),
    Family(
        "11pt_avg",
        ranked.eleven_point_average,
        "none",
        {"rel": 1, "levels": ""},
        trec="11pt_avg",
        missing_topic_value=0.0,
    ),
    Family("RprecMult", ranked.r_precision_multiple, "multiple", REL, trec="Rprec_mult", trec_cut="Rprec_mult"),
    Family("Unjudged", ranked.unjudged, "required", trec="unj", trec_cut="unj", source=TREC_10),
    Family(
        "Utility",
        sets.utility,
        "none",
        {"a": 1.0, "b": -1.0, "c": 0.0, "d": 0.0, "rel": 1},
        trec="utility",
        missing_topic_value=0.0,
    ),
    Family("nDCGRel", gain_measures.ndcg_rel, "none", GAINS, trec="ndcg_rel"),
    Family("Rndcg", gain_measures.rndcg, "none", {**GAINS, "rel": 1}, trec="Rndcg"),
    Family("G", gain_measures.g_measure, "none", GAINS, trec="G"),
    Family("binG", gain_measures.bin_g, "none", REL, trec="binG"),
    Family("TrecRBP", gain_measures.trec_rbp, "none", {"p": 0.9, **GAINS}, trec="rbp", source=TREC_10),
    Family("TrecRBPResid", gain_measures.trec_rbp_residual, "none", {"p": 0.9}, trec="rbp_resid", source=TREC_10),
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
    Family(
        "nDCG",
        graded.ndcg,
        "optional",
        {"dcg": "log2", **GAINS},
        {"dcg": DCG_CHOICES},
        trec="ndcg",
        trec_cut="ndcg_cut",
        check=graded.check_ndcg,
    ),
    Family("ERR", graded.err, "optional", {"gmax": None}, source="Chapelle et al. 2009"),
    Family("RBP", graded.rbp, "optional", {"p": 0.8, "rel": 1}, source="Moffat & Zobel 2008"),
    Family("RBPResidual", graded.rbp_residual, "optional", {"p": 0.8}, source="Moffat & Zobel 2008"),
    Family("SetP", sets.set_precision, "optional", REL, trec="set_P"),
    Family("SetR", sets.set_recall, "optional", REL, trec="set_recall"),
    Family("SetF", sets.f_measure, "optional", {"beta": 1.0, "rel": 1}, source="van Rijsbergen 1979 (true beta)"),
    Family("F", sets.f_measure, "optional", {"beta": 1.0, "rel": 1}, source="van Rijsbergen 1979 (true beta)"),
    Family("TrecSetF", sets.trec_set_f, "none", {"x": 1.0, "rel": 1}, trec="set_F"),
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
