"""Rules deep-3 and deep-n with an input wider than 2 (Lemma R of proofs/lemmas/deep3_identifiability.md,
"Wider input"): ``theta`` of ``(n0, 2, ..., 2, n, n', m)`` is identifiable when its restriction to the first
coordinate plane on which the first layer has rank 2 is.

Networks are *lifts* of width-2-input networks: first layer ``W1 R`` for a ``2 x n0`` matrix ``R`` of rank 2,
so that ``f_lift(x) = f(R x)``.

* lifts of certified networks are certified (also an orbit copy), and the checker verifies them; so is a
  random network of the survey, not designed for the rule;
* the checker takes the first pair of columns of rank 2 and nothing else of W1: a body for the restriction
  verifies for every lift with that restriction (Hypothesis: any further columns; and a lift whose first
  pair of rank 2 is (0, 2)); bodies in other coordinates are rejected; a first hidden layer of width 3 and a first
  layer of rank 1 are refused (E_DEPTH);
* the converse of Lemma R, checked by an oracle: a hidden symmetry of a width-2-input network lifts to a
  fibre point of the lift outside its orbit (exact equivalence, canonical forms), and such lifts are never
  certified;
* the exact fibre search finds a flip set planted in a certified lift, and nothing in the certified lifts
  themselves (a weak check: it proposes no candidate there).
"""

from __future__ import annotations

import functools
import random
from fractions import Fraction as F

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exactnet.certificate import check_certificate_text, write_certificate
from exactnet.certify import certify
from exactnet.deep3_identifiable import (certify_deep3, covers_architecture, deep3_identifiable_body,
                                         family_network, plane_restriction)
from exactnet.fibre_search import is_non_orbit_fibre_point, search_fibre
from exactnet.network import Network
from exactnet.randnet import random_network
from exactnet.survey import sample_seed
from exactnet.symmetry import random_orbit_element

# the width-2-input networks the rules certify: deep-3 (seed 46, examples/identifiable_2-2-2-2-1.json) and
# deep-n (seed 20 with n3 = 3, levels = 2, examples/identifiable_2-2-2-2-3-1.json)
BASES = {"deep-3": (46, {}), "deep-n": (20, {"n3": 3, "levels": 2})}


def lift(net: Network, R) -> Network:
    """``net`` (input width 2) with first layer ``W1 R``: computes ``x -> net(R x)``."""
    W1 = [[F(str(v)) for v in r] for r in net.weights(1)]
    W = [[sum(r[k] * F(R[k][c]) for k in range(2)) for c in range(len(R[0]))] for r in W1]
    return Network.from_lists([(W, net.biases(1))] + [(net.weights(l), net.biases(l)) for l in range(2, net.depth + 1)])


@functools.cache
def _base(rule):
    seed, kw = BASES[rule]
    net = family_network(seed, **kw)
    body = deep3_identifiable_body(net).body
    assert body is not None and body[0] == f"rule {rule}"
    return net, body


def _checked(net, body):
    return check_certificate_text(write_certificate("IDENTIFIABLE", net, body), network=net)


def test_scope_and_restriction():
    assert covers_architecture((3, 2, 2, 2, 1)) and covers_architecture((5, 2, 2, 3, 3, 1))
    assert not covers_architecture((3, 3, 2, 2, 1)) and not covers_architecture((1, 2, 2, 2, 1))
    net = lift(_base("deep-3")[0], [[1, 0, 2], [0, 0, 1]])  # columns 0, 1 of rank 1: the plane is (0, 2)
    sub = plane_restriction(net)
    rng = random.Random(0)
    for _ in range(20):
        y = [F(rng.randint(-40, 40), rng.randint(1, 5)) for _ in range(2)]
        assert sub.evaluate(y) == net.evaluate([y[0], 0, y[1]])
    flat = lift(_base("deep-3")[0], [[1, 2, 3], [2, 4, 6]])  # rank 1
    assert plane_restriction(flat) is None
    assert "rank below 2" in deep3_identifiable_body(flat).reason


@pytest.mark.parametrize("rule,R", [("deep-3", [[1, "1/2", 2], [-1, 1, "-1/3"]]),
                                    ("deep-3", [[0, 0, 1, 2], [1, 3, 0, -1]]),
                                    ("deep-n", [[2, 1, -1], [1, 1, 3]])])
def test_lifts_of_certified_networks_are_certified(rule, R):
    net = lift(_base(rule)[0], R)
    res = certify(net)
    assert res.verdict == "IDENTIFIABLE" and res.details["rule"] == rule and "Lemma R" in res.reason, res.reason
    chk = check_certificate_text(res.certificate, network=net)
    assert chk.verified and chk.conclusion == "IDENTIFIABLE"
    copy = random_orbit_element(net, random.Random(3))
    res2 = certify_deep3(copy)
    assert res2.verdict == "IDENTIFIABLE" and check_certificate_text(res2.certificate, network=copy).verified


_rat = st.fractions(min_value=-6, max_value=6, max_denominator=4)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(_rat, _rat), min_size=1, max_size=3), st.sampled_from(sorted(BASES)))
def test_a_body_verifies_for_every_lift_with_the_same_restriction(cols, rule):
    """Columns 0, 1 of ``R`` are the identity, so the restriction is the base network whatever the other
    columns are: its body verifies for the lift (the checker looks at nothing else of W1)."""
    base, body = _base(rule)
    R = [[1, 0] + [c[0] for c in cols], [0, 1] + [c[1] for c in cols]]
    net = lift(base, R)
    assert plane_restriction(net).evaluate(["1/3", "-2"]) == base.evaluate(["1/3", "-2"])
    assert _checked(net, body).verified


@pytest.mark.parametrize("rule", sorted(BASES))
def test_a_body_in_other_coordinates_is_rejected(rule):
    base, body = _base(rule)
    for R in ([[0, 1, 1], [1, 0, 1]],  # restriction: the base with its two inputs swapped
              [[2, 0, 0], [0, 1, 0]]):  # restriction: the base with x_0 scaled
        chk = _checked(lift(base, R), body)
        assert not chk.verified and " E_BEND: " in chk.lines[1], chk.lines  # its bend points are not bends
    # columns 0 and 1 of rank 1: the restriction is to the plane (0, 2), which is the base again
    assert _checked(lift(base, [[1, 3, 0], [0, 0, 1]]), body).verified
    # a rank-1 first layer: nothing to restrict to, and the input is not 2-dimensional
    chk = _checked(lift(base, [[1, 2, 3], [2, 4, 6]]), body)
    assert not chk.verified and " E_DEPTH: " in chk.lines[1]


def test_a_first_hidden_layer_of_width_3_is_refused():
    """(3,3,2,2,1): W1 has rank 2 on columns (0, 1), but the restriction has first hidden width 3 (Lemma R needs
    width 2); the checker refuses any body with E_DEPTH."""
    base, body = _base("deep-3")
    layers = [(base.weights(l), base.biases(l)) for l in range(1, base.depth + 1)]
    W1 = [[1, 0, 2], [0, 1, 1], [1, 1, 3]]
    W2 = [list(r) + [0] for r in layers[1][0]]
    net = Network.from_lists([(W1, [6, 9, 1]), (W2, layers[1][1])] + layers[2:])
    chk = _checked(net, body)
    assert not chk.verified and " E_DEPTH: " in chk.lines[1]


def test_hidden_symmetries_lift_and_lifts_are_never_certified():
    """The converse of Lemma R (its closing remark), checked by an oracle: theta'_2 in the fibre of theta_2
    outside its orbit gives lift(theta'_2) in the fibre of lift(theta_2) outside its orbit."""
    R = [[1, "1/2", -2], [-1, 3, "1/3"]]
    seen = 0
    for seed in range(40):
        net2 = random_network((2, 2, 2, 2, 1), seed, max_num=5, max_den=3)
        res2 = certify(net2)
        if res2.verdict != "HIDDEN-SYMMETRY":
            continue
        net, other = lift(net2, R), lift(res2.other, R)
        assert is_non_orbit_fibre_point(net, other), seed
        assert certify(net).verdict != "IDENTIFIABLE", seed
        seen += 1
        if seen == 6:
            break
    assert seen == 6


def test_the_fibre_search_finds_a_planted_flip_set_and_nothing_in_certified_lifts():
    """A flip set planted in the last hidden layer of a certified lift (W3[1] = -W3[0] with another bias, equal
    output weights) is found by the exact fibre search, and certify does not say IDENTIFIABLE; the same search
    finds nothing in the certified lifts (it proposes no candidate there: a weak check)."""
    R = [[1, 2, -1], [0, 1, 1]]
    net = lift(_base("deep-3")[0], R)
    layers = [(net.weights(l), net.biases(l)) for l in range(1, net.depth + 1)]
    W3, b3, W4 = [list(r) for r in layers[2][0]], list(layers[2][1]), [list(r) for r in layers[3][0]]
    W3[1], b3[1], W4[0][1] = [-v for v in W3[0]], b3[0] + 1, W4[0][0]
    planted = Network.from_lists(layers[:2] + [(W3, b3), (W4, layers[3][1])])
    assert certify(planted).verdict != "IDENTIFIABLE"
    res = search_fibre(planted)
    assert res.found and is_non_orbit_fibre_point(planted, res.found[0].other)
    for rule in sorted(BASES):
        net = lift(_base(rule)[0], R)
        assert certify_deep3(net).verdict == "IDENTIFIABLE"
        assert not search_fibre(net, first_only=False).found


def test_a_random_network_of_the_survey_is_certified():
    """Not designed for the rule: sample 179 of ``exactnet survey --arch 3,2,2,2,1 --seed 0`` (about 1 in 200
    random (3,2,2,2,1) networks is certified)."""
    net = random_network((3, 2, 2, 2, 1), sample_seed(0, 179), max_num=9, max_den=5)
    res = certify(net)
    assert res.verdict == "IDENTIFIABLE" and "Lemma R" in res.reason, res.reason
    assert check_certificate_text(res.certificate, network=net).verified
    assert not search_fibre(net, first_only=False).found  # weak: no candidate is proposed here
