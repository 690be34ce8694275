"""trec_eval's measure names: each family's parameter form, the names it prints, its print order and nicknames.

trec_eval reads `-m NAME.PARAMS` in one of four forms, and so do we:
- cutoffs (`P.5,7,3`): whole numbers read as C's atol reads them (`23.4` is 23), sorted, positive, no repeats;
  printed `P_3`, `P_5`, `P_7`;
- fractional cutoffs (`iprec_at_recall..10,.20`, `Rprec_mult.5.0,0.2`): sorted, no repeats; printed `%3.2f`;
- numbers (`utility.2,-1,0,0`, `11pt_avg..25,.5,.75`, `set_F.0.5`, `relstring.20`): in order; printed as typed,
  `utility_2,-1,0,0`;
- pairs (`ndcg.1=3,2=9,4=4.5`, `rbp.p=0.95`): a gain per relevance level, and `p` for rbp; printed as typed.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass

from measures.gains import gain_map_text
from measures.names import Measure, MeasureNameError, check_cutoff, check_params
from measures.registry import FAMILIES

P_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
IPREC_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
RPREC_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)
SUCCESS_CUTOFFS = (1, 5, 10)
UNJ_CUTOFFS = (5, 10, 20)


@dataclass(frozen=True)
class TrecName:
    family: str | None  # None: printed by the command line itself (runid, num_q, relstring)
    form: str = "none"  # none | cutoffs | fractions | numbers | pairs
    defaults: tuple = ()  # the cutoffs a bare name expands to
    numbers: Callable[[list[float], str], dict] | None = None  # the family's parameters from `numbers` values
    pair_params: tuple = ()  # names other than relevance levels a `pairs` form accepts


def _set_f(values: list[float], text: str) -> dict:
    return {"x": values[0]}


def _utility(values: list[float], text: str) -> dict:
    if len(values) != 4:
        raise MeasureNameError(f"utility.{text}: give four coefficients, e.g. utility.1,-1,0,0")
    return dict(zip("abcd", values, strict=True))


def _levels(values: list[float], text: str) -> dict:
    return {"levels": ",".join(f"{v:g}" for v in sorted(values))}


# In trec_eval's print order (its te_trec_measures table); unj, new in 10.0, comes last.
TREC_NAMES: dict[str, TrecName] = {
    "runid": TrecName(None),
    "num_q": TrecName(None),
    "num_ret": TrecName("NumRet"),
    "num_rel": TrecName("NumRel"),
    "num_rel_ret": TrecName("NumRelRet"),
    "map": TrecName("AP"),
    "gm_map": TrecName("GMAP"),
    "Rprec": TrecName("Rprec"),
    "bpref": TrecName("Bpref"),
    "recip_rank": TrecName("RR"),
    "iprec_at_recall": TrecName("IPrec", "fractions", IPREC_LEVELS),
    "P": TrecName("P", "cutoffs", P_CUTOFFS),
    "relstring": TrecName(None, "numbers"),
    "recall": TrecName("R", "cutoffs", P_CUTOFFS),
    "infAP": TrecName("infAP"),
    "gm_bpref": TrecName("GMBpref"),
    "Rprec_mult": TrecName("RprecMult", "fractions", RPREC_MULTIPLES),
    "utility": TrecName("Utility", "numbers", numbers=_utility),
    "11pt_avg": TrecName("11pt_avg", "numbers", numbers=_levels),
    "binG": TrecName("binG"),
    "G": TrecName("G", "pairs"),
    "ndcg": TrecName("nDCG", "pairs"),
    "ndcg_rel": TrecName("nDCGRel", "pairs"),
    "Rndcg": TrecName("Rndcg", "pairs"),
    "ndcg_cut": TrecName("nDCG", "cutoffs", P_CUTOFFS),
    "map_cut": TrecName("AP", "cutoffs", P_CUTOFFS),
    "relative_P": TrecName("RelP", "cutoffs", P_CUTOFFS),
    "success": TrecName("Success", "cutoffs", SUCCESS_CUTOFFS),
    "set_P": TrecName("SetP"),
    "set_relative_P": TrecName("SetRelP"),
    "set_recall": TrecName("SetR"),
    "set_map": TrecName("SetAP"),
    "set_F": TrecName("TrecSetF", "numbers", numbers=_set_f),
    "num_nonrel_judged_ret": TrecName("NumNonRelJudgedRet"),
    "rbp": TrecName("TrecRBP", "pairs", pair_params=("p",)),
    "rbp_resid": TrecName("TrecRBPResid", "pairs", pair_params=("p",)),
    "unj": TrecName("Unjudged", "cutoffs", UNJ_CUTOFFS),
}
TREC_ORDER = {name: index for index, name in enumerate(TREC_NAMES)}

OFFICIAL = ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank"]
OFFICIAL += ["iprec_at_recall", "P"]
NICKNAMES = {
    "official": OFFICIAL,
    "all_trec": [name for name in TREC_NAMES],
    "set": [
        *["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall"],
        *["set_relative_P", "set_map", "set_F"],
    ],
}
TREC_DEFAULT = [name for name in OFFICIAL if TREC_NAMES[name].family]  # the official set's measures

_ATOL = re.compile(r"^\s*([+-]?\d+)")
_NUMBER = re.compile(r"^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$")


def is_trec_style(name: str) -> bool:
    base = name.partition(".")[0]
    return base in TREC_NAMES and "(" not in name and "@" not in name


def _whole(text: str, name: str) -> int:
    match = _ATOL.match(text)
    if not match:
        raise MeasureNameError(f"{name!r}: cutoff {text!r} is not a number")
    return int(match[1])


def _real(text: str, name: str) -> float:
    if not _NUMBER.match(text):
        raise MeasureNameError(f"{name!r}: {text!r} is not a number")
    return float(text)


def _sorted_unique(values: list, name: str) -> list:
    values = sorted(values)
    if any(a == b for a, b in itertools.pairwise(values)):
        raise MeasureNameError(f"{name!r}: duplicate cutoffs")
    return values


def _pairs(trec: TrecName, text: str, name: str) -> dict:
    entries = text.split(",")
    params: dict = {}
    gains: dict[int, float] = {}
    for entry in entries:
        key, sep, value = entry.partition("=")
        if not sep or not key or "=" in value:
            raise MeasureNameError(f"{name!r}: malformed pair parameters in {text!r} (expected level=gain,...)")
        if key in trec.pair_params:
            params[key] = _real(value, name)
        elif re.fullmatch(r"[+-]?\d+", key):
            gains[int(key)] = _real(value, name)
        else:
            allowed = " or ".join(["a relevance level", *trec.pair_params])
            raise MeasureNameError(f"{name!r}: {key!r} is not {allowed}")
    if gains:
        if "gains" not in FAMILIES[trec.family].params:
            raise MeasureNameError(f"{name!r}: {name.partition('.')[0]} takes no gains")
        params["gains"] = gain_map_text(gains)
    return params


def _measure(family: str, cutoff, params: dict, printed: str | None, name: str) -> Measure:
    spec = FAMILIES[family]
    kept = tuple(sorted((k, v) for k, v in params.items() if v != spec.params[k]))
    check_params(spec, kept, name)
    return Measure(family, check_cutoff(spec, cutoff, name), kept, printed)


def trec_style(name: str) -> list[Measure]:
    """The measures a trec_eval name denotes, each carrying the name trec_eval prints for it."""
    base, dot, text = name.partition(".")
    trec = TREC_NAMES[base]
    if trec.family is None:
        raise MeasureNameError(f"{name!r} is printed by `python -m evaluation` only; it is not a measure")
    if dot and not text:
        raise MeasureNameError(f"{name!r}: improper measure parameter (nothing after the dot)")
    if trec.form == "cutoffs":
        cutoffs = _sorted_unique([_whole(v, name) for v in text.split(",")], name) if text else list(trec.defaults)
        if cutoffs[0] <= 0:
            raise MeasureNameError(f"{name!r}: cutoffs must be positive")
        return [_measure(trec.family, c, {}, f"{base}_{c}", name) for c in cutoffs]
    if trec.form == "fractions":
        cutoffs = _sorted_unique([_real(v, name) for v in text.split(",")], name) if text else list(trec.defaults)
        return [_measure(trec.family, c, {}, f"{base}_{c:3.2f}", name) for c in cutoffs]
    printed = f"{base}_{text}" if text else base
    if trec.form == "numbers":
        params = trec.numbers([_real(v, name) for v in text.split(",")], text) if text else {}
        return [_measure(trec.family, None, params, printed, name)]
    if trec.form == "pairs":
        return [_measure(trec.family, None, _pairs(trec, text, name) if text else {}, printed, name)]
    if text:
        raise MeasureNameError(f"{name!r}: trec_eval measure {base} takes no parameters")
    return [_measure(trec.family, None, {}, base, name)]


def relstring_length(name: str) -> int:
    """relstring.N: the number of ranks relstring prints (10 by default), truncated as trec_eval truncates it."""
    text = name.partition(".")[2]
    return max(int(_real(text.split(",")[0], name)), 0) if text else 10


def _family_name(measure: Measure) -> str | None:
    spec = measure.spec
    if measure.cutoff is not None:
        return spec.trec_cut
    return spec.trec


def trec_base(measure: Measure) -> str | None:
    """The trec_eval family name a measure is printed under (`ndcg_cut` for nDCG@10), None if trec_eval has none."""
    return _family_name(measure)


def _printed_params(measure: Measure) -> str | None:
    """The parameter text trec_eval would print after the family name, or None if it has no such form."""
    params = dict(measure.params)
    extra = set(params) - {"gains", "p", "x", "a", "b", "c", "d", "levels"}
    if extra:
        return None
    family = measure.family
    if family == "TrecSetF":
        return f"{params['x']:g}"
    if family == "Utility":
        return ",".join(f"{measure.param(k):g}" for k in "abcd")
    if family == "11pt_avg":
        return params.get("levels")
    pairs = [f"p={params['p']:g}"] if "p" in params else []
    if "gains" in params:
        pairs.append(params["gains"])
    return ",".join(pairs) or None


def trec_output_name(measure: Measure) -> str:
    base = _family_name(measure)
    if base is None:
        return str(measure)
    if measure.params:
        text = _printed_params(measure) if measure.cutoff is None else None
        return f"{base}_{text}" if text else str(measure)
    if measure.cutoff is None:
        return base
    if measure.spec.cutoff in ("fraction", "multiple"):
        return f"{base}_{measure.cutoff:3.2f}"
    return f"{base}_{int(measure.cutoff)}"


_FORM_OF_FAMILY = {trec.family: trec.form for trec in TREC_NAMES.values() if trec.family}


def printed_name(measure: Measure, trec_eval: int) -> str:
    """The name a given trec_eval version prints: 9.0.x prints a measure taking numbers or pairs (set_F.0.5,
    ndcg.1=3) under its bare family name; 10.0 appends the parameters as they were typed."""
    name = measure.trec_name or trec_output_name(measure)
    base = trec_base(measure)
    takes_text = _FORM_OF_FAMILY.get(measure.family) in ("numbers", "pairs")
    if trec_eval == 9 and base and measure.cutoff is None and takes_text:
        return base
    return name
