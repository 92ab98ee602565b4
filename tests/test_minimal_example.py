"""Example B is minimal (two kink lines need two neurons) and not identifiable (reflection)."""

from flint import fmpq

from exactnet.examples import example
from exactnet.symmetry import canonical_form
from exactnet.symmetry_rules import Rule, apply_rule


def _on_line(t, s):
    """The point with x1 + 2 x2 + 1 = t and x2 = s."""
    return [t - 1 - 2 * s, s]


def test_three_affine_pieces_along_t():
    f = example("B")
    for s in (fmpq(0), fmpq(-3, 7), fmpq(5, 2)):
        vals = {t: f.evaluate(_on_line(t, s))[0] for t in [fmpq(k, 4) for k in range(-8, 15)]}
        for t, v in vals.items():
            expect = fmpq(14) if t <= 0 else (14 - 10 * t if t <= fmpq(3, 2) else fmpq(-1))
            assert v == expect
        # the slopes on both sides of each line differ: the kinks are real
        assert (vals[fmpq(0)] - vals[fmpq(-1, 4)]) != (vals[fmpq(1, 4)] - vals[fmpq(0)])
        assert (vals[fmpq(3, 2)] - vals[fmpq(5, 4)]) != (vals[fmpq(7, 4)] - vals[fmpq(3, 2)])


def test_reflection_is_outside_the_orbit():
    b = example("B")
    other = apply_rule(b, Rule("reflect", 1))
    assert other.weights(1)[0][0] < 0 < b.weights(1)[0][0]
    assert canonical_form(other) != canonical_form(b)
