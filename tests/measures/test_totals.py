"""Exact running totals: a run's aggregate moved one topic at a time equals the one summed from scratch, bit for bit."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from measures import totals

values = st.lists(st.one_of(st.none(), st.floats(min_value=0, max_value=1e6, allow_nan=False)), max_size=40)


@given(kept=values, dropped=values, kind=st.sampled_from(["mean", "sum", "gmean"]))
def test_adding_and_removing_values_in_any_order_ends_where_summing_the_kept_ones_does(kept, dropped, kind):
    total, defined = 0, 0
    for value in [*dropped, *kept]:  # everything arrives ...
        total, defined = total + totals.term(kind, value), defined + (value is not None)
    for value in reversed(dropped):  # ... then the dropped values leave, through the text form each time
        total = totals.decode(totals.encode(total)) - totals.term(kind, value)
        defined -= value is not None
    assert totals.finish(kind, total, defined) == totals.aggregate_exactly(kind, kept)


@given(st.lists(st.floats(min_value=-1e300, max_value=1e300, allow_nan=False), min_size=1, max_size=40))
def test_the_exact_total_rounds_to_math_fsum(numbers):
    assert totals.finish("sum", sum(totals.term("sum", v) for v in numbers), len(numbers)) == math.fsum(numbers)


def test_a_mean_leaves_out_undefined_values_and_is_undefined_with_none_left():
    assert totals.aggregate_exactly("mean", [0.25, None, 0.75]) == 0.5
    assert totals.aggregate_exactly("mean", [None]) is None


def test_the_geometric_mean_floors_zero_at_trec_evals_1e_5():
    assert totals.aggregate_exactly("gmean", [0.0, 1.0]) == math.exp(math.log(1e-5) / 2)


def test_text_form_round_trips_negative_and_zero_totals():
    for total in (0, -(3 << 900), (5 << 1074) + 1, -1):
        assert totals.decode(totals.encode(total)) == total
