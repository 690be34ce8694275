"""Each measure's aggregate is an entry of the one registry, and each entry combines as trec_eval does."""

from __future__ import annotations

import math

import pytest

from measures.aggregates import AGGREGATES, aggregate_of
from measures.registry import FAMILIES
from measures.totals import aggregate_exactly


def test_every_measure_names_a_registered_aggregate():
    assert {family.aggregate for family in FAMILIES.values()} <= set(AGGREGATES)
    with pytest.raises(KeyError):
        aggregate_of("median")


def test_a_mean_a_count_and_a_geometric_mean_combine_as_trec_eval_does():
    values = [0.5, 0.0, 0.25]
    assert aggregate_exactly("mean", values) == 0.25
    assert aggregate_exactly("sum", [3, 4, 5]) == 12
    floored = math.exp((math.log(0.5) + math.log(1e-5) + math.log(0.25)) / 3)  # a zero floored at 1e-5
    assert aggregate_exactly("gmean", values) == pytest.approx(floored, rel=1e-15)
    assert aggregate_of("sum").summed and aggregate_of("gmean").log_scale and not aggregate_of("mean").log_scale
