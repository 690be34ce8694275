"""One parser for measure names, in the ir_measures style (`nDCG@10`, `P(rel=2)@5`) and trec_eval's (`ndcg_cut.10`).

A parsed name is a `Measure`: a family from the registry, an optional cutoff and a sorted tuple of parameters.
trec_eval names may expand to several measures (`P` is P at 5, 10, 15, 20, 30, 100, 200, 500 and 1000).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .registry import FAMILIES, TREC_NAMES, Family


class MeasureNameError(ValueError):
    """A measure name that does not parse, or names an unknown family or parameter."""


@dataclass(frozen=True, order=True)
class Measure:
    family: str
    cutoff: float | None = None
    params: tuple[tuple[str, object], ...] = ()

    @property
    def spec(self) -> Family:
        return FAMILIES[self.family]

    def param(self, name: str):
        for key, value in self.params:
            if key == name:
                return value
        return self.spec.params[name]

    def __str__(self) -> str:
        text = self.family
        if self.params:
            text += "(" + ",".join(f"{k}={_format_value(v)}" for k, v in self.params) + ")"
        if self.cutoff is not None:
            text += "@" + _format_number(self.cutoff)
        return text

    @property
    def trec_output_name(self) -> str:
        """The name trec_eval prints for this measure (`P_5`, `ndcg_cut_10`), or the canonical name if it has none."""
        spec = self.spec
        if spec.trec is None or (self.params and not spec.trec_param):
            return str(self)
        if spec.trec_param:
            return spec.trec  # trec_eval prints set_F whatever its parameter
        if self.cutoff is None:
            return spec.trec
        if spec.trec_cut is None:
            return str(self)
        if self.family == "IPrec":
            return f"{spec.trec_cut}_{self.cutoff:.2f}"
        return f"{spec.trec_cut}_{_format_number(self.cutoff)}"


def _format_number(value) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return str(value)


def _format_value(value) -> str:
    return f"'{value}'" if isinstance(value, str) else _format_number(value)


_IR_STYLE = re.compile(r"^(?P<family>[A-Za-z][A-Za-z0-9_]*)(?:\((?P<params>[^()]*)\))?(?:@(?P<cutoff>[0-9.eE+-]+))?$")


def _number(text: str, what: str) -> float | int:
    try:
        value = float(text)
    except ValueError:
        raise MeasureNameError(f"{what}: expected a number, got {text!r}") from None
    return int(value) if value.is_integer() and "." not in text else value


def _parse_param(family: Family, raw: str, name: str) -> tuple[str, object]:
    if "=" not in raw:
        raise MeasureNameError(f"{name!r}: parameter {raw!r} is not of the form key=value")
    key, text = (part.strip() for part in raw.split("=", 1))
    if key not in family.params:
        allowed = ", ".join(sorted(family.params)) or "none"
        raise MeasureNameError(f"{name!r}: {family.name} has no parameter {key!r} (allowed: {allowed})")
    default = family.params[key]
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        value: object = text[1:-1]
    elif isinstance(default, str):
        value = text
    else:
        value = _number(text, f"{name!r} parameter {key}")
    if isinstance(default, str) and family.choices.get(key) and value not in family.choices[key]:
        raise MeasureNameError(f"{name!r}: {key} must be one of {', '.join(family.choices[key])}, not {value!r}")
    return key, value


def _check_cutoff(family: Family, cutoff, name: str):
    if cutoff is None:
        if family.cutoff == "required":
            raise MeasureNameError(f"{name!r}: {family.name} needs a cutoff, e.g. {family.name}@10")
        return None
    if family.cutoff == "none":
        raise MeasureNameError(f"{name!r}: {family.name} takes no cutoff")
    if family.cutoff == "fraction":
        if not 0 <= cutoff <= 1:
            raise MeasureNameError(f"{name!r}: recall level must be between 0 and 1")
        return float(cutoff)
    if cutoff != int(cutoff) or cutoff < 1:
        raise MeasureNameError(f"{name!r}: cutoff must be a positive integer")
    return int(cutoff)


def _ir_style(name: str) -> Measure:
    match = _IR_STYLE.match(name.replace(" ", ""))
    if not match or match["family"] not in FAMILIES:
        raise MeasureNameError(f"unknown measure {name!r}; see `python -m evaluation --list-measures`")
    family = FAMILIES[match["family"]]
    params = []
    if match["params"]:
        params = [_parse_param(family, raw, name) for raw in match["params"].split(",") if raw.strip()]
    cutoff = _number(match["cutoff"], f"{name!r} cutoff") if match["cutoff"] else None
    cutoff = _check_cutoff(family, cutoff, name)
    # Parameters equal to their defaults are dropped so that equal measures have one canonical form.
    params = tuple(sorted((k, v) for k, v in params if v != family.params[k]))
    return Measure(family.name, cutoff, params)


def _trec_style(name: str) -> list[Measure]:
    base, _, rest = name.partition(".")
    trec = TREC_NAMES[base]
    family = FAMILIES[trec.family]
    if trec.param:
        values = [_number(v, name) for v in rest.split(",")] if rest else [trec.param_default]
        convert = trec.param_in or (lambda v: v)
        return [
            Measure(
                family.name,
                None,
                tuple(sorted((k, v) for k, v in [(trec.param, convert(value))] if v != family.params[k])),
            )
            for value in values
        ]
    if not rest:
        cutoffs = trec.default_cutoffs or (None,)
    else:
        if trec.default_cutoffs is None:
            raise MeasureNameError(f"{name!r}: trec_eval measure {base} takes no parameters")
        cutoffs = tuple(_number(v, name) for v in rest.split(",") if v)
    return [Measure(family.name, _check_cutoff(family, c, name), tuple(sorted(trec.fixed_params))) for c in cutoffs]


def parse_measures(name: str) -> list[Measure]:
    """Parses one name into the measures it denotes (several for trec_eval families given without a cutoff)."""
    name = name.strip()
    base = name.partition(".")[0]
    if base in TREC_NAMES and (name == base or "." in name) and "(" not in name and "@" not in name:
        return _trec_style(name)
    return [_ir_style(name)]


def parse_measure(name: str) -> Measure:
    """Parses a name that denotes exactly one measure."""
    measures = parse_measures(name)
    if len(measures) != 1:
        raise MeasureNameError(f"{name!r} denotes {len(measures)} measures; give one cutoff")
    return measures[0]
