"""Any name a user types for a measure, in ir_measures' spelling or trec_eval's, to the measures it denotes."""

from __future__ import annotations

import functools
import re

from measures.names import Measure, MeasureNameError, ir_style
from measures.trec_names import is_trec_style, trec_output_name, trec_style


def parse_measures(name: str) -> list[Measure]:
    """Parses one name into the measures it denotes (several for trec_eval families given without a cutoff)."""
    return list(_parsed(name.strip()))


# The names trec_eval prints (`P_5`, `ndcg_cut_10`, `iprec_at_recall_0.10`), which people copy from its output:
# the family, an underscore, one cutoff or level.
_PRINTED = re.compile(r"(?P<family>.+?)_(?P<value>\d+(?:\.\d+)?)")


@functools.lru_cache(maxsize=4096)  # every recompute parses its collection's measures; measures are immutable
def _parsed(name: str) -> tuple[Measure, ...]:
    if is_trec_style(name):
        return tuple(trec_style(name))
    printed = _PRINTED.fullmatch(name)
    if printed and is_trec_style(f"{printed['family']}.{printed['value']}"):
        return tuple(trec_style(f"{printed['family']}.{printed['value']}"))
    return (ir_style(name),)


def parse_measure(name: str) -> Measure:
    """Parses a name that denotes exactly one measure."""
    measures = parse_measures(name)
    if len(measures) != 1:
        raise MeasureNameError(f"{name!r} denotes {len(measures)} measures; give one cutoff")
    return measures[0]


def output_name(measure: Measure) -> str:
    """The name trec_eval prints for this measure (`P_5`, `ndcg_cut_10`): the one it was parsed from when it came
    from a trec_eval name, else its family's; the canonical name if trec_eval has none."""
    return measure.trec_name or trec_output_name(measure)
