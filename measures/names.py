"""One parser for measure names, in the ir_measures style (`nDCG@10`, `P(rel=2)@5`) and trec_eval's (`ndcg_cut.10`).

A parsed name is a `Measure`: a family from the registry, an optional cutoff and a sorted tuple of parameters.
trec_eval names may expand to several measures (`P` is P at 5, 10, 15, 20, 30, 100, 200, 500 and 1000).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from measures.registry import FAMILIES, Family


class MeasureNameError(ValueError):
    """A measure name that does not parse, or names an unknown family or parameter."""


@dataclass(frozen=True, order=True)
class Measure:
    family: str
    cutoff: float | None = None
    params: tuple[tuple[str, object], ...] = ()
    # The name trec_eval prints for it, as it was asked for (`set_F_0.5`, `ndcg_1=3,2=9`); not part of its identity.
    trec_name: str | None = field(default=None, compare=False)

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


def check_params(family: Family, params: tuple, name: str) -> None:
    if family.check is not None:
        try:
            family.check(dict(params))
        except ValueError as error:
            raise MeasureNameError(f"{name!r}: {error}") from None


def check_cutoff(family: Family, cutoff, name: str):
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
    if family.cutoff == "multiple":
        if cutoff < 0:
            raise MeasureNameError(f"{name!r}: the multiple of R must not be negative")
        return float(cutoff)
    if cutoff != int(cutoff) or cutoff < 1:
        raise MeasureNameError(f"{name!r}: cutoff must be a positive integer")
    return int(cutoff)


def _split_params(text: str) -> list[str]:
    """Splits `a=1,gains='1=3,2=9'` at the commas outside quotes."""
    parts, current, quote = [], "", None
    for char in text:
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == ",":
            parts.append(current)
            current = ""
            continue
        current += char
    return [*parts, current]


def ir_style(name: str) -> Measure:
    """Parses an ir_measures-style name (`nDCG@10`, `P(rel=2)@5`) into its one measure."""
    match = _IR_STYLE.match(name.replace(" ", ""))
    if not match or match["family"] not in FAMILIES:
        raise MeasureNameError(f"unknown measure {name!r}")
    family = FAMILIES[match["family"]]
    params = []
    if match["params"]:
        params = [_parse_param(family, raw, name) for raw in _split_params(match["params"]) if raw.strip()]
    cutoff = _number(match["cutoff"], f"{name!r} cutoff") if match["cutoff"] else None
    cutoff = check_cutoff(family, cutoff, name)
    # Parameters equal to their defaults are dropped so that equal measures have one canonical form.
    params = tuple(sorted((k, v) for k, v in params if v != family.params[k]))
    check_params(family, params, name)
    return Measure(family.name, cutoff, params)
