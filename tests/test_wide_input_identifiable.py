"""Rules deep-3 and deep-n with an input wider than 2 (Lemma R of proofs/lemmas/deep3_identifiability.md,
"Wider input"): ``theta`` of ``(n0, 2, ..., 2, n, n', m)`` is identifiable when its restriction to the first
coordinate plane on which the first layer has rank 2 is.

Networks are *lifts* of width-2-input networks: first layer ``W1 R`` for a ``2 x n0`` matrix ``R`` of rank 2,
so that ``f_lift(x) = f(R x)``.

* lifts of certified networks are certified (also an orbit copy), and the checker verifies them; so is a
  random network of the survey, not designed for the rule;
* the checker takes the first pair of columns of rank 2 and nothing else: a body verifies exactly when it is
  a body for that restriction (Hypothesis: any further columns; a body in swapped coordinates is rejected);
* the oracle direction of the lemma: a hidden symmetry of a width-2-input network lifts to a fibre point of
  the lift outside its orbit (exact equivalence, canonical forms), and such lifts are never certified;
* an independent fibre search finds nothing for certified lifts; a first layer of rank 1 is refused.
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
    swapped = lift(base, [[0, 1, 1], [1, 0, 1]])  # restriction: the base with its two inputs swapped
    assert not _checked(swapped, body).verified
    scaled = lift(base, [[2, 0, 0], [0, 1, 0]])  # restriction: the base with x_0 scaled
    assert not _checked(scaled, body).verified
    # a rank-1 first layer: nothing to restrict to, and the input is not 2-dimensional
    chk = _checked(lift(base, [[1, 2, 3], [2, 4, 6]]), body)
    assert not chk.verified and " E_DEPTH: " in chk.lines[1]


def test_hidden_symmetries_lift_and_lifts_are_never_certified():
    """The other direction of Lemma R, checked by an oracle: theta'_2 in the fibre of theta_2 outside its
    orbit gives lift(theta'_2) in the fibre of lift(theta_2) outside its orbit."""
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


def test_independent_fibre_search_finds_nothing_for_certified_lifts():
    for rule in sorted(BASES):
        net = lift(_base(rule)[0], [[1, 2, -1], [0, 1, 1]])
        assert certify_deep3(net).verdict == "IDENTIFIABLE"
        assert not search_fibre(net, first_only=False).found


def test_a_random_network_of_the_survey_is_certified():
    """Not designed for the rule: sample 179 of ``exactnet survey --arch 3,2,2,2,1 --seed 0`` (about 1 in 200
    random (3,2,2,2,1) networks is certified)."""
    net = random_network((3, 2, 2, 2, 1), sample_seed(0, 179), max_num=9, max_den=5)
    res = certify(net)
    assert res.verdict == "IDENTIFIABLE" and "Lemma R" in res.reason, res.reason
    assert check_certificate_text(res.certificate, network=net).verified
    assert not search_fibre(net, first_only=False).found
