"""Exact rationals: parsing, canonical spelling, float modes."""

from fractions import Fraction

import pytest
from flint import fmpq
from hypothesis import given, strategies as st

from exactnet.errors import FormatError, ShapeError, ValueRangeError
from exactnet.qq import MAX_DIGITS, from_float, is_canonical, parse_q, parse_vector, q_str, to_q


@pytest.mark.parametrize(
    "text,expected",
    [("0", "0"), ("-0", "0"), ("12", "12"), ("-3/6", "-1/2"), ("0.25", "1/4"), ("-.5", "-1/2"),
     ("3.", "3"), ("+7", "7"), ("10/5", "2"), ("0.000", "0")],
)
def test_parse_and_canonical(text, expected):
    assert q_str(parse_q(text)) == expected


@pytest.mark.parametrize("text", ["1e3", " 1/2", "1/2 ", "1_000", "abc", "", "١٢", "inf", "nan", "1/-2", ".", "1//2", "0x10"])
def test_parse_rejects(text):
    with pytest.raises(FormatError):
        parse_q(text)


def test_division_by_zero_and_size_limit():
    with pytest.raises(ValueRangeError):
        parse_q("1/0")
    with pytest.raises(ValueRangeError):
        parse_q("1" * (MAX_DIGITS + 1))
    with pytest.raises(ValueRangeError):
        to_q(10 ** (MAX_DIGITS + 10))


def test_floats_are_refused_unless_a_mode_is_chosen():
    with pytest.raises(FormatError):
        to_q(0.5)
    assert from_float(0.1, "exact") == fmpq(3602879701896397, 36028797018963968)
    assert from_float(0.1, "decimal") == fmpq(1, 10)
    assert from_float(1e-30, "decimal") == fmpq(1, 10**30)
    assert from_float(-2.5e20, "decimal") == fmpq(-250000000000000000000)
    for bad in (float("nan"), float("inf")):
        with pytest.raises(ValueRangeError):
            from_float(bad, "exact")
    with pytest.raises(ValueRangeError):
        from_float(0.5, "nearest")  # type: ignore[arg-type]


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_float_modes_roundtrip(x):
    assert float(Fraction(int(from_float(x, "exact").p), int(from_float(x, "exact").q))) == x
    d = from_float(x, "decimal")
    assert float(Fraction(int(d.p), int(d.q))) == x


@given(st.integers(-10**6, 10**6), st.integers(1, 10**6))
def test_canonical_spelling_roundtrip(p, q):
    s = q_str(fmpq(p, q))
    assert is_canonical(s)
    assert parse_q(s) == fmpq(p, q)
    assert to_q(Fraction(p, q)) == fmpq(p, q)


def test_is_canonical_rejects_other_spellings():
    for s in ["2/4", "-0", "1/1", "01", "0.5", "+1"]:
        assert not is_canonical(s)


def test_parse_vector():
    assert parse_vector("1/2,-3, 0.25") == [fmpq(1, 2), fmpq(-3), fmpq(1, 4)]
    with pytest.raises(ShapeError):
        parse_vector("1,2", 3)
    with pytest.raises(FormatError):
        parse_vector("1,,2")
