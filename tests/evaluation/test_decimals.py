"""Scores are read by array arithmetic where that is exact and by numpy's parser elsewhere; either way each is the
double that strtod, trec_eval and Python's `float` read, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluation.measures import decimals
from evaluation.measures.decimals import parse_decimals


@pytest.fixture(params=["x87 long double", "no long double"])
def precision(request, monkeypatch):
    """Both ways 16 to 19 digits are read: by long-double division where the platform has it, else by numpy."""
    if request.param == "x87 long double" and not decimals.EXTENDED_PRECISION:
        pytest.skip("this platform's long double is not x87's 80-bit format")
    monkeypatch.setattr(decimals, "EXTENDED_PRECISION", request.param == "x87 long double")
    return request.param


def _bits(values) -> list[str]:
    return [float(v).hex() for v in values]


def _as_doubles(tokens: list[str]) -> list[float]:
    return parse_decimals(np.array([t.encode() for t in tokens])).tolist()


_DECIMAL_TOKENS = st.builds(
    lambda sign, whole, fraction, dot: sign + whole + (dot + fraction if dot else ""),
    st.sampled_from(["", "-", "+"]),
    st.text("0123456789", min_size=0, max_size=18),
    st.text("0123456789", min_size=0, max_size=18),
    st.sampled_from(["", "."]),
).filter(lambda token: any(c.isdigit() for c in token))


@settings(max_examples=400, deadline=None)
@given(st.lists(_DECIMAL_TOKENS | st.floats(allow_nan=False, allow_infinity=False).map(repr), min_size=1))
def test_scores_are_the_doubles_pythons_float_reads(tokens):
    """Plain decimals take the array fast path (up to 15 digits) and longer ones or exponents numpy's parser; both
    must give bit for bit the double that `float` (strtod, as trec_eval reads) gives, sign of zero included."""
    assert _bits(_as_doubles(tokens)) == _bits(float(t) for t in tokens)


def test_score_edge_forms_read_as_float_reads_them():
    tokens = ["-0", "0.", ".5", "+7", "000123.4500", "999999999999999", "9999999999999999", "1e-5", "-2.5E+3", "inf"]
    assert [x.hex() for x in _as_doubles(tokens)] == [float(t).hex() for t in tokens]


@pytest.mark.parametrize("token", [".", "-", "1.2.3", "1-2", "12a", "--1"])
def test_a_score_that_is_no_number_is_refused(token):
    with pytest.raises(ValueError):
        parse_decimals(np.array([b"1.5", token.encode()]))


def test_shortest_forms_of_random_doubles_read_back_exactly(precision):
    """What Python, numpy and most tools write: up to 17 significant digits, at every magnitude a score takes."""
    rng = np.random.default_rng(11)
    values = rng.random(60_000) * 10.0 ** rng.integers(-8, 12, 60_000) * rng.choice([-1, 1], 60_000)
    tokens = [repr(float(v)) for v in values if "e" not in repr(float(v))]
    assert len(tokens) > 40_000
    assert _bits(_as_doubles(tokens)) == _bits(float(t) for t in tokens)


def test_sixteen_to_nineteen_digits_read_exactly(precision):
    rng = np.random.default_rng(12)
    tokens = []
    for length in rng.integers(16, 20, 40_000).tolist():
        digits = "".join(rng.choice(list("0123456789"), length).tolist())
        dot = int(rng.integers(0, length + 1))
        tokens.append(digits[:dot] + "." + digits[dot:])
    assert _bits(_as_doubles(tokens)) == _bits(float(t) for t in tokens)


@pytest.mark.parametrize(
    "token",
    [
        "9007199254740993",  # 2**53 + 1: exactly halfway, ties to even (down)
        "9007199254740995",  # halfway, ties to even (up)
        "9007199254740993.001",  # just above halfway
        "9007199254740992.999",  # just below
        "4503599627370496.5",  # halfway at the next binade
        "0.1000000000000000055511151231257827",  # beyond 19 digits: numpy's parser
        "-18014398509481985",
    ],
)
def test_quotients_near_halfway_between_two_doubles_round_as_strtod_does(token, precision):
    assert _bits(_as_doubles([token, "1.5"])) == _bits([float(token), 1.5])
