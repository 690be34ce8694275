"""Decimal numbers read from fixed-width ASCII byte strings with array operations, bit for bit as strtod (and so
trec_eval and Python's `float`) reads them.

A plain decimal (`-12.5`, `0.0031`, `100.79157932889396`) is its digits as an integer m over 10**f. Its double is
m / 10**f correctly rounded, which array arithmetic gives exactly in two cases:

- up to 15 digits, m and 10**f are exact doubles, and IEEE division of exact operands is correctly rounded
  (Clinger's fast path);
- up to 19 digits (every double's shortest form has at most 17), m and 10**f are exact in x87's 80-bit long double,
  whose division rounds once to 64 bits; rounding that to the double's 53 bits is correct unless the long double
  lies exactly halfway between two doubles, where the true quotient may sit just to either side. Those rare values
  (about one in two thousand), like exponents, longer numbers, `inf` or anything odd, go to numpy's parser.
"""

from __future__ import annotations

import numpy as np

_POWERS_OF_TEN = 10.0 ** np.arange(16)
_EXACT_DIGITS = 15  # every integer below 10**15 is a double, as is every power of ten up to 10**22
_LONG_DIGITS = 19  # every integer below 10**19 fits the long double's 64-bit significand, as does 10**19
_LONG_POWERS = np.array([10**k for k in range(_LONG_DIGITS + 1)], dtype=np.uint64).astype(np.longdouble)
_HALFWAY = 0x400  # the 11 significand bits a double drops, when they say "exactly halfway"
_FAST_WIDTH = 32  # longer tokens are rarely plain decimals of 19 digits: not worth a pass per character


def parse_decimals(strings: np.ndarray) -> np.ndarray:
    """Floats of a fixed-width ASCII bytes array (NUL padded); ValueError if one is not a number."""
    count, width = len(strings), strings.dtype.itemsize
    if count == 0 or width > _FAST_WIDTH:
        return strings.astype(np.float64)
    columns = np.ascontiguousarray(strings.view(np.uint8).reshape(count, width).T)  # one row per character position
    digit = columns - np.uint8(48)  # wraps below '0', so one comparison finds the digits
    is_digit, is_dot = digit < 10, columns == 46
    first = columns[0]
    allowed = is_digit | is_dot | (columns == 0)
    allowed[:1] |= (first == 45) | (first == 43)  # a sign may lead
    mantissa = np.zeros(count, dtype=np.uint64)
    digits = np.zeros(count, dtype=np.intp)
    decimals = np.zeros(count, dtype=np.intp)
    dots = np.zeros(count, dtype=np.intp)
    for position in range(width):
        here = is_digit[position]
        mantissa = np.where(here, mantissa * np.uint64(10) + digit[position], mantissa)  # exact below 10**19
        digits += here
        dots += is_dot[position]
        decimals += here & (dots > 0)
    plain = allowed.all(axis=0) & (dots <= 1) & (digits > 0) & (digits <= _LONG_DIGITS)
    values = mantissa.astype(np.float64) / _POWERS_OF_TEN[np.minimum(decimals, _EXACT_DIGITS)]  # right if short
    undecided = ~(plain & (digits <= _EXACT_DIGITS))
    long = np.flatnonzero(plain & (digits > _EXACT_DIGITS))
    if len(long) and EXTENDED_PRECISION:
        values[long], halfway = _long_quotient(mantissa[long], decimals[long])
        undecided[long[~halfway]] = False
    np.negative(values, out=values, where=first == 45)
    if undecided.any():
        values[undecided] = strings[undecided].astype(np.float64)  # signed by the parser: after the negation
    return values


def _long_quotient(mantissa: np.ndarray, decimals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(m / 10**f rounded to double, whether that rounding was from exactly halfway and so may be wrong)."""
    quotient = mantissa.astype(np.longdouble) / _LONG_POWERS[decimals]
    raw = quotient.view(np.uint8).reshape(len(quotient), -1)[:, :8]  # x87 layout: 64-bit significand first
    significand = np.ascontiguousarray(raw).view("<u8").ravel()
    return quotient.astype(np.float64), (significand & np.uint64(0x7FF)) == _HALFWAY


def _extended_precision_works() -> bool:
    """Whether long doubles are x87's 80-bit format, dividing at full precision (a library may have set the FPU
    to round to 53 bits): checked on quotients a 53-bit division gets wrong."""
    if np.finfo(np.longdouble).nmant != 63 or np.dtype(np.longdouble).itemsize not in (12, 16):
        return False
    tokens = ["100.79157932889396", "0.30000000000000004", "9007199254740992.999", "9007199254740993.001"]
    mantissa = np.array([int(t.replace(".", "")) for t in tokens], dtype=np.uint64)
    decimals = np.array([len(t) - t.index(".") - 1 for t in tokens])
    values, halfway = _long_quotient(mantissa, decimals)
    return not halfway.any() and values.tolist() == [float(t) for t in tokens]


EXTENDED_PRECISION = _extended_precision_works()
