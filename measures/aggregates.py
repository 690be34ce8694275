"""How a measure's per-topic values become the run's value, kept with the measure as ir_measures keeps it
(`Family.aggregate` names one of these): the arithmetic mean, a sum (counts, which trec_eval prints as integers), or
the geometric mean (GMAP: the mean of the values' logs, each floored at trec_eval's 1e-5, exponentiated). Every
reader of a measure's aggregate asks its entry here, never compares the name. Pure: no Django."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from measures.ranked import GMAP_FLOOR


@dataclass(frozen=True)
class Aggregate:
    name: str
    summed: bool = False  # a count: the run's value is the sum over topics, printed as an integer
    log_scale: bool = False  # combined on the log scale (a geometric mean); trec_eval lists it in the summary only

    @property
    def arithmetic(self) -> bool:
        """The run's value is the plain mean of its topics' values (what an interval for a mean is of)."""
        return not self.summed and not self.log_scale

    def scaled(self, value: float) -> float:
        """A topic's value on the scale the aggregate combines on."""
        return math.log(max(value, GMAP_FLOOR)) if self.log_scale else value

    def scaled_array(self, values: np.ndarray) -> np.ndarray:
        return np.log(np.maximum(values, GMAP_FLOOR)) if self.log_scale else values

    def unscaled(self, mean: float) -> float:
        """The run's value from the mean on the combining scale."""
        return math.exp(mean) if self.log_scale else mean


AGGREGATES = {
    aggregate.name: aggregate
    for aggregate in (Aggregate("mean"), Aggregate("sum", summed=True), Aggregate("gmean", log_scale=True))
}


def aggregate_of(name: str) -> Aggregate:
    """The named aggregate; KeyError for a name no measure uses."""
    return AGGREGATES[name]
