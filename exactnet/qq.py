"""Exact rationals: the one module where numbers enter and leave exactnet.

Everything inside exactnet computes with python-flint's ``fmpq``. This module is
the border: it parses user text (integers, ``p/q``, decimals such as ``"0.25"``
which is exactly ``1/4``), converts ``int`` and ``fractions.Fraction``, prints the
canonical spelling ``-?(0|[1-9][0-9]*)(/[1-9][0-9]*)?`` and turns floats into
rationals *only when asked*, in one of two documented modes:

* ``"exact"``: the float's own binary value (``0.1`` becomes
  ``3602879701896397/36028797018963968``);
* ``"decimal"``: the shortest decimal that round-trips (``0.1`` becomes ``1/10``).

A Python float passed anywhere else is an error: floats never decide anything.

>>> q_str(parse_q("0.25"))
'1/4'
>>> q_str(to_q(Fraction(-6, 4)))
'-3/2'
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from fractions import Fraction
from typing import Iterable, Literal, Sequence

from flint import fmpq, fmpz

from .errors import FormatError, ShapeError, ValueRangeError

__all__ = [
    "fmpq",
    "fmpz",
    "MAX_DIGITS",
    "FloatMode",
    "parse_q",
    "to_q",
    "from_float",
    "exact_spelling",
    "SHOW_CHARS",
    "check_float_mode",
    "q_str",
    "q_to_fraction",
    "q_to_float",
    "parse_vector",
    "parse_box",
    "is_canonical",
    "common_denominator",
    "Q0",
    "Q1",
]

#: Largest number of digits accepted in one number (numerator, denominator or
#: decimal digits together). Longer input is refused with ValueRangeError so that a
#: hostile file cannot make the parser allocate without bound.
MAX_DIGITS = 4000

FloatMode = Literal["exact", "decimal"]

Q0 = fmpq(0)
Q1 = fmpq(1)

_CANON = re.compile(r"-?(0|[1-9][0-9]*)(/[1-9][0-9]*)?\Z")
_INT = re.compile(r"[+-]?[0-9]+\Z")
_FRAC = re.compile(r"([+-]?[0-9]+)/([0-9]+)\Z")
_DEC = re.compile(r"([+-]?)([0-9]*)\.([0-9]*)\Z")


def _check_digits(text: str, original: str) -> None:
    # ``text`` is ASCII (parse_q checks first): count its digits in C, not per character in Python
    digits = sum(map(text.count, "0123456789"))
    if digits > MAX_DIGITS:
        raise ValueRangeError(
            f"number with {digits} digits exceeds the limit of {MAX_DIGITS} digits: {original[:20]}..."
        )


def parse_q(text: str) -> fmpq:
    """Parse an integer, ``p/q`` or a plain decimal (``-1.25``) exactly.

    Only ASCII digits, an optional sign, one ``/`` or one ``.`` are accepted; no
    exponents, spaces, underscores, ``inf`` or ``nan``.

    >>> parse_q("-3/6")
    -1/2
    >>> parse_q("1e3")
    Traceback (most recent call last):
    ...
    exactnet.errors.FormatError: not a rational number: '1e3' (write an integer, p/q or a decimal like 0.25)
    """
    if not isinstance(text, str):
        raise FormatError(f"expected a string holding a rational, got {type(text).__name__}")
    s = text
    if not s.isascii():
        raise FormatError(f"not a rational number: {text!r} (non-ASCII characters)")
    _check_digits(s, text)
    m = _INT.match(s)
    if m:
        return fmpq(int(s))
    m = _FRAC.match(s)
    if m:
        den = int(m.group(2))
        if den == 0:
            raise ValueRangeError(f"division by zero in {text!r}")
        return fmpq(int(m.group(1)), den)
    m = _DEC.match(s)
    if m and (m.group(2) or m.group(3)):
        sign = -1 if m.group(1) == "-" else 1
        whole = int(m.group(2) or "0")
        frac = m.group(3)
        num = whole * 10 ** len(frac) + int(frac or "0")
        return fmpq(sign * num, 10 ** len(frac))
    raise FormatError(
        f"not a rational number: {text!r} (write an integer, p/q or a decimal like 0.25)"
    )


def is_canonical(text: str) -> bool:
    """True when ``text`` is the canonical spelling of a reduced rational."""
    if not _CANON.match(text) or text == "-0":
        return False
    q = parse_q(text)
    return q_str(q) == text


def to_q(value: object) -> fmpq:
    """Convert an ``int``, ``Fraction``, ``fmpq``, ``fmpz`` or string to ``fmpq``.

    Floats are refused: use :func:`from_float` and choose a mode.
    """
    if isinstance(value, fmpq):
        return value
    if isinstance(value, bool):
        raise FormatError("a boolean is not a number")
    if isinstance(value, int):
        if value.bit_length() > MAX_DIGITS * 3322 // 1000 + 1:
            raise ValueRangeError(f"integer with more than {MAX_DIGITS} digits exceeds the limit")
        return fmpq(value)
    if isinstance(value, fmpz):
        return fmpq(value)
    if isinstance(value, Fraction):
        return fmpq(value.numerator, value.denominator)
    if isinstance(value, str):
        return parse_q(value)
    if isinstance(value, float):  # also numpy.float64 (a subclass; its repr is "np.float64(...)")
        v = float(value)
        if not math.isfinite(v):
            raise FormatError(f"the float {v!r} is not a finite number")
        spelled = exact_spelling(repr(v))  # a float's repr has at most 17 digits: never None
        like = f"like {spelled}" if spelled.startswith('"') else f"({spelled})"
        raise FormatError(
            f"the float {v!r} is not exact; write it as a string {like} or \"p/q\", "
            "or convert explicitly with a float mode ('exact' or 'decimal')"
        )
    # numpy integer scalars and similar integer-like objects
    if hasattr(value, "__index__"):
        try:
            return fmpq(int(value.__index__()))
        except TypeError:  # e.g. a NumPy array of floats or of several numbers
            pass
    raise FormatError(f"cannot read a rational from {type(value).__name__}")


#: Longest exact spelling quoted in a message (:func:`exact_spelling`); longer ones are described.
SHOW_CHARS = 40


def exact_spelling(text: str) -> str | None:
    """How to write the decimal number ``text`` (a float literal, with or without exponent) exactly
    in a form :func:`parse_q` reads, for error messages: a quoted string (``1e-05`` gives
    ``"0.00001"``), or a description of one when it is longer than :data:`SHOW_CHARS`; None when
    the exact value has more than :data:`MAX_DIGITS` digits (no spelling is accepted).

    >>> exact_spelling("1e-05"), exact_spelling("2.50"), exact_spelling("-3E2")
    ('"0.00001"', '"2.50"', '"-300"')
    """
    try:
        d = Decimal(text)  # float literals (JSON's grammar, Python's repr) are Decimal literals
    except ArithmeticError:
        raise FormatError(f"not a decimal number: {text[:40]!r}") from None
    if not d.is_finite():
        raise FormatError(f"{text!r} is not a finite number: it has no exact spelling")
    sign, digit_tuple, exp = d.as_tuple()
    assert isinstance(exp, int)
    digits = "".join(map(str, digit_tuple)).lstrip("0") or "0"
    minus = "-" if sign and digits != "0" else ""
    n_digits = len(digits) + abs(exp)
    # digits each spelling needs (parse_q counts all digits of a string against MAX_DIGITS)
    as_fraction = len(digits) + 1 - exp if exp < 0 else n_digits  # p/q with q = 10^-exp
    as_decimal = max(len(digits), -exp) + 1 if exp < 0 else n_digits  # 0.000ddd or ddd.ddd
    if digits != "0" and min(as_fraction, as_decimal) > MAX_DIGITS:
        return None
    if digits == "0":
        return '"0"'
    if "e" not in text.lower():  # a plain decimal already: the same characters, quoted
        return f'"{text}"' if len(text) <= SHOW_CHARS else "the same digits in double quotes"
    if exp < 0 and as_fraction > MAX_DIGITS:  # only the decimal fits
        return (f"a plain decimal: its {len(digits)} significant digits with the decimal point {-exp} places "
                "from the right (zeros after the point as needed)")
    if len(digits) > SHOW_CHARS:
        return (f'"p/q" with p its {len(digits)} significant digits and q a 1 followed by {-exp} zeros' if exp < 0
                else f"its {len(digits)} significant digits followed by {exp} zeros")
    if exp >= 0:
        spelled = minus + digits + "0" * exp if n_digits <= SHOW_CHARS else ""
        return f'"{spelled}"' if spelled else f'the string "{minus}{digits}" with {exp} zeros appended'
    spelled = format(d.normalize(), "f") if n_digits <= SHOW_CHARS else ""
    if spelled.endswith(".0"):
        spelled = spelled[:-2]
    return (f'"{spelled}"' if spelled
            else f'"{minus}{digits}/" followed by a 1 and {-exp} zeros (the fraction {minus}{digits}/10^{-exp})')


def check_float_mode(mode: object) -> None:
    """Refuse a float mode other than None, ``"exact"`` or ``"decimal"``."""
    if mode not in (None, "exact", "decimal"):
        raise ValueRangeError(f"unknown float mode {mode!r}: use 'exact' or 'decimal'")


def from_float(value: float, mode: FloatMode) -> fmpq:
    """Convert a float, explicitly: ``exact`` (binary value) or ``decimal`` (shortest repr).

    >>> q_str(from_float(0.1, "decimal"))
    '1/10'
    >>> q_str(from_float(0.5, "exact"))
    '1/2'
    """
    x = float(value)
    if math.isnan(x) or math.isinf(x):
        raise ValueRangeError(f"{x!r} is not a finite number")
    if mode == "exact":
        n, d = x.as_integer_ratio()
        return fmpq(n, d)
    if mode == "decimal":
        return parse_q(_float_repr_to_plain(repr(x)))
    raise ValueRangeError(f"unknown float mode {mode!r}: use 'exact' or 'decimal'")


def _float_repr_to_plain(r: str) -> str:
    """Turn repr(float) (maybe with an exponent) into a plain decimal string."""
    if "e" not in r and "E" not in r:
        return r
    f = Fraction(r)  # repr of a finite float is a valid decimal literal
    return f"{f.numerator}/{f.denominator}" if f.denominator != 1 else str(f.numerator)


def common_denominator(values: Iterable[fmpq]) -> int:
    """The least common denominator of exact rationals (1 for none)."""
    d = 1
    for v in values:
        q = int(v.q)
        if q != 1:
            d = math.lcm(d, q)
    return d


def q_str(q: fmpq) -> str:
    """Canonical spelling of a rational: ``-?(0|[1-9][0-9]*)(/[1-9][0-9]*)?``."""
    q = to_q(q)
    return str(q)


def q_to_fraction(q: fmpq) -> Fraction:
    """The same number as a ``fractions.Fraction``."""
    return Fraction(int(q.p), int(q.q))


def q_to_float(q: fmpq) -> float:
    """Nearest float, for display and plots only: never for decisions."""
    return int(q.p) / int(q.q)


def parse_vector(text: str, length: int | None = None) -> list[fmpq]:
    """Parse ``"1/2,-3,0.25"`` into a list of rationals, optionally of a given length."""
    parts = [p.strip() for p in text.split(",")]
    if not text.strip() or any(p == "" for p in parts):
        raise FormatError(f"expected comma-separated rationals, got {text!r}")
    vec = [parse_q(p) for p in parts]
    if length is not None and len(vec) != length:
        raise ShapeError(f"expected {length} comma-separated numbers, got {len(vec)} in {text!r}")
    return vec


def vector_strs(vec: Iterable[fmpq]) -> list[str]:
    """Canonical strings of a vector of rationals."""
    return [q_str(v) for v in vec]


__all__.append("vector_strs")


def parse_box(box) -> tuple[fmpq, fmpq] | None:
    """``None`` or the pair ``(lo, hi)`` (the box ``[lo, hi]^n0``, the same bounds for every
    coordinate) as rationals with ``lo < hi``.

    FormatError: not a pair (a number, a string, a mapping) or a bound that is not an exact
    rational; ShapeError: a sequence of length other than 2 (per-coordinate bounds are not
    supported); ValueRangeError: ``lo >= hi``.
    """
    if box is None:
        return None
    if isinstance(box, (str, bytes, dict)) or not hasattr(box, "__len__") or not hasattr(box, "__getitem__"):
        raise FormatError(f"box must be a pair (lo, hi), got {type(box).__name__}")
    if len(box) != 2:
        raise ShapeError(f"box must be a pair (lo, hi) for all coordinates, got {len(box)} elements")
    lo, hi = to_q(box[0]), to_q(box[1])
    if not lo < hi:
        raise ValueRangeError(f"box needs lo < hi, got [{lo}, {hi}]")
    return lo, hi
