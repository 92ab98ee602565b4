"""Rule deep-3 (proofs/lemmas/deep3_identifiability.md): IDENTIFIABLE for (2, 2, n2, n3, m).

* certificates of the documented family verify and ``certify`` agrees, also on orbit copies;
* mutants of a certificate are rejected;
* the premises of the theorem hold on networks the rule was not designed with (Lemma P on
  ``theta`` itself: a cell with one active first-layer neuron is a cylinder; the refutations of
  Step 1 never refute a network's own first layer);
* an independent exact fibre search finds no fibre point outside the orbit of a certified
  network (and does find one once a flip set is planted in the same family);
* IDENTIFIABLE never comes with a structural detector or a rank below ``D - N``.
"""

from __future__ import annotations

import functools
import random

import pytest
from flint import fmpq

from exactnet.certificate import check_certificate_text, write_certificate
from exactnet.certify import certify
from exactnet.deep3_identifiable import (_faces, _kink_points, _refutes, certify_deep3, collapse,
                                         deep3_identifiable_body, family_network)
from exactnet.fdim import functional_dimension
from exactnet.fibre_search import is_non_orbit_fibre_point, search_fibre
from exactnet.network import Network
from exactnet.randnet import random_network
from exactnet.symmetry import random_orbit_element
from exactnet.symmetry_rules import find_rules

CERTIFIED = (0, 16, 46)  # family seeds the rule certifies (about 1 in 7 of the family)


@functools.cache
def _body(seed):
    net = family_network(seed)
    res = deep3_identifiable_body(net)
    assert res.body is not None, res.reason
    return net, res.body


def _checked(net, body):
    return check_certificate_text(write_certificate("IDENTIFIABLE", net, body), network=net)


@pytest.mark.parametrize("seed", CERTIFIED)
def test_family_certificates_verify_and_certify_agrees(seed):
    net, body = _body(seed)
    assert body[0] == "rule deep-3"
    chk = _checked(net, body)
    assert chk.verified and chk.conclusion == "IDENTIFIABLE"
    res = certify(net)
    assert res.verdict == "IDENTIFIABLE" and res.details["rule"] == "deep-3"


def test_orbit_copies_are_certified_too():
    net, _ = _body(46)
    rng = random.Random(3)
    for _ in range(3):
        other = random_orbit_element(net, rng)
        res = certify_deep3(other)
        assert res.verdict == "IDENTIFIABLE", res.reason
        assert check_certificate_text(res.certificate, network=other).verified


def _mutants(net, body):
    idx = {k: [i for i, l in enumerate(body) if l.startswith(k)] for k in ("bend", "obstruct", "anchor", "step")}
    yield "no bends", [l for l in body if not l.startswith("bend")]
    yield "half the bends", [l for i, l in enumerate(body) if not (l.startswith("bend") and i % 2)]
    if idx["obstruct"]:
        yield "no obstruction", [l for l in body if not l.startswith("obstruct")]
    yield "no steps", [l for l in body if not l.startswith(("step", "jump"))]
    yield "rule deep-2", ["rule deep-2"] + body[1:]
    a = body[idx["anchor"][0]].split()
    # the anchor's first point moved outside C+ along the first coordinate (x < -c1)
    t = net.biases(1)[0]
    yield "anchor outside C+", body[:idx["anchor"][0]] + [" ".join(["anchor", str(-t - 1)] + a[2:])] + \
        body[idx["anchor"][0] + 1:]


@pytest.mark.parametrize("seed", CERTIFIED[:2])
def test_mutants_are_rejected(seed):
    net, body = _body(seed)
    codes = {"no bends": "E_COVER", "half the bends": "E_COVER", "no obstruction": "E_COVER",
             "no steps": "E_INCOMPLETE", "rule deep-2": "E_DEPTH", "anchor outside C+": "E_ANCHOR"}
    for name, bad in _mutants(net, body):
        chk = _checked(net, bad)
        assert not chk.verified and f" {codes[name]}: " in chk.lines[1], (name, chk.lines)


def test_the_certificate_is_about_its_network():
    net, body = _body(46)
    layers = [(net.weights(l), net.biases(l)) for l in range(1, 5)]
    W3 = [list(r) for r in layers[2][0]]
    W3[0][0] += fmpq(1, 3)
    other = Network.from_lists(layers[:2] + [(W3, layers[2][1])] + layers[3:])
    assert not _checked(other, body).verified


def test_outside_scope():
    for arch in ((3, 2, 2, 2, 1), (2, 3, 2, 2, 1), (2, 2, 2, 1), (2, 2, 3, 2, 2, 1)):
        assert deep3_identifiable_body(random_network(arch, 0)).body is None
    net, body = _body(46)
    deep2 = random_network((2, 2, 2, 1), 35, max_num=4, max_den=3)
    assert not _checked(deep2, body).verified  # deep-3 lines on a network of another architecture


def _cylinder_checks(seed):
    """Lemma P (a) on random (2,2,n2,n3,m) networks: where exactly one first-layer neuron is active,
    f is constant along that neuron's line (exact evaluation at random points of the cell)."""
    rng = random.Random(seed)
    arch = (2, 2, rng.randint(1, 3), rng.randint(1, 3), rng.randint(1, 2))
    net = random_network(arch, seed)
    (w1, w2), (b1, b2) = net.weights(1), net.biases(1)
    tested = 0
    for j, (w, b) in enumerate(((w1, b1), (w2, b2))):
        wo, bo = ((w2, b2), (w1, b1))[j]
        d = [-w[1], w[0]]  # along the neuron's own line
        for _ in range(40):
            x = [fmpq(rng.randint(-60, 60), rng.randint(1, 6)) for _ in range(2)]
            step = fmpq(rng.randint(-9, 9), rng.randint(1, 4))
            y = [x[i] + step * d[i] for i in range(2)]
            t = lambda v, row, c: row[0] * v[0] + row[1] * v[1] + c  # noqa: E731
            if t(x, w, b) > 0 and t(y, w, b) > 0 and t(x, wo, bo) < 0 and t(y, wo, bo) < 0:
                assert net.evaluate(x) == net.evaluate(y)
                tested += 1
    return tested


def test_lemma_p_one_active_neuron_gives_a_cylinder():
    assert sum(_cylinder_checks(seed) for seed in range(12)) > 50  # and every check passed


@pytest.mark.parametrize("seed", range(8))
def test_refutations_never_refute_a_networks_own_first_layer(seed):
    """Step 1 (a) and (b) on networks the rule was not designed with: a network's own kink points
    never refute its own first layer (both neurons active on C+), and in each cell of its own lines
    inside C+ its kinks lie on at most n3 distinct lines."""
    rng = random.Random(100 + seed)
    net = random_network((2, 2, rng.randint(1, 3), rng.randint(1, 3), 1), seed, max_num=4, max_den=3)
    W1, b1 = net.weights(1), net.biases(1)
    if W1[0][0] * W1[1][1] - W1[0][1] * W1[1][0] == 0:
        return
    t = [list(W1[j]) + [b1[j]] for j in range(2)]
    sub = collapse(net)
    ks = [list(sub.weights(1)[k]) + [sub.biases(1)[k]] for k in range(sub.architecture[1])]
    kinks = _kink_points(net, _faces(net))
    lines = [tuple(v / next(c for c in r if c != 0) for v in r) for r in t]  # as the producer normalises
    dot = lambda r, x: r[0] * x[0] + r[1] * x[1] + r[2]  # noqa: E731
    sign_on_cplus = tuple(1 if next(c for c in r if c != 0) > 0 else -1 for r in t)  # a normalised line on C+
    for y, g, _ in kinks:
        assert not _refutes(y, lines[0], lines[1], sign_on_cplus, g)
    cells: dict = {}
    for y, _, h in kinks:
        if all(dot(r, y) > 0 for r in t) and all(dot(k, y) != 0 for k in ks):
            cells.setdefault(tuple(dot(k, y) > 0 for k in ks), set()).add(h)
    assert all(len(hs) <= net.architecture[3] for hs in cells.values())


def test_independent_fibre_search_finds_nothing_for_a_certified_network():
    net, _ = _body(46)
    for seed in CERTIFIED:
        res = search_fibre(family_network(seed), first_only=False)
        assert not res.found, (seed, res.found)


def test_the_fibre_search_is_not_vacuous_on_the_family():
    """A flip set planted in the third layer of a family member (rows W3[1] = -W3[0] with another bias,
    equal output weights: flipping both neurons changes f by a constant) is found by the same search,
    and certify does not say IDENTIFIABLE."""
    net = family_network(46)
    layers = [(net.weights(l), net.biases(l)) for l in range(1, 5)]
    W3, b3 = [list(r) for r in layers[2][0]], list(layers[2][1])
    W4 = [list(r) for r in layers[3][0]]
    W3[1] = [-v for v in W3[0]]  # h_2 = -h_1 + const, and equal output weights: W4 h_1 + W4 h_2 affine
    b3[1] = b3[0] + 1
    W4[0][1] = W4[0][0]
    planted = Network.from_lists(layers[:2] + [(W3, b3), (W4, layers[3][1])])
    assert certify(planted).verdict != "IDENTIFIABLE"
    res = search_fibre(planted)
    assert res.found and is_non_orbit_fibre_point(planted, res.found[0].other)


@pytest.mark.parametrize("seed", CERTIFIED)
def test_identifiable_never_with_detectors_or_low_rank(seed):
    net = family_network(seed)
    assert certify(net).verdict == "IDENTIFIABLE"
    assert not find_rules(net)
    fd = functional_dimension(net)
    assert fd.functional_dimension == net.num_parameters - net.num_hidden and fd.locally_identifiable
