"""Rule deep-n (proofs/lemmas/deep3_identifiability.md, "More width-2 layers"): IDENTIFIABLE for
(2, 2, ..., 2, n, n', m) with at least four hidden layers.

* certificates of the documented family verify and ``certify`` agrees, also on an orbit copy;
* mutants of a certificate are rejected (one per part of the body, a wrong rule, a point outside
  ``C_L``);
* the premises of the level-by-level argument hold on networks the rule was not designed with:
  Lemma P^L (a) at level 2 (inside ``C_1``, one active level-2 neuron makes ``f`` a cylinder), a
  network's own kinks never refute its own levels, and in a cell of its own lines inside ``C_1`` but
  outside ``C_2`` its kink lines are all parallel (the case of Step 1 (b) below the last level);
* an independent exact fibre search finds no fibre point outside the orbit of a certified network
  (and does find one once a flip set is planted in the same network);
* IDENTIFIABLE never comes with a structural detector or a rank below ``D - N``.
"""

from __future__ import annotations

import functools
import random

import pytest
from flint import fmpq

from exactnet.certificate import check_certificate_text, write_certificate
from exactnet.certify import certify
from exactnet.deep3_identifiable import (_faces, _kink_points, _refutes, certify_deep3, covers_architecture,
                                         deep3_identifiable_body, family_network, level_forms, width2_levels)
from exactnet.fdim import functional_dimension
from exactnet.fibre_search import is_non_orbit_fibre_point, search_fibre
from exactnet.network import Network
from exactnet.randnet import random_network
from exactnet.symmetry import random_orbit_element
from exactnet.symmetry_rules import find_rules

CERTIFIED = (20, 41)  # family_network(seed, n3=3, levels=2), (2, 2, 2, 2, 3, 1): seeds the rule certifies


def _dot(r, x):
    return r[0] * x[0] + r[1] * x[1] + r[2]


@functools.cache
def _body(seed):
    net = family_network(seed, n3=3, levels=2)
    res = deep3_identifiable_body(net)
    assert res.body is not None, res.reason
    return net, res.body


def _checked(net, body):
    return check_certificate_text(write_certificate("IDENTIFIABLE", net, body), network=net)


def test_scope():
    assert [width2_levels(a) for a in ((2, 2, 2, 1), (2, 2, 3, 2, 1), (2, 2, 2, 2, 3, 1), (2, 2, 2, 2, 2, 2, 1),
                                       (2, 2, 3, 2, 2, 1), (3, 2, 2, 2, 2, 1), (3, 3, 2, 2, 1))] == [0, 1, 2, 3, 0, 2, 0]
    assert not covers_architecture((2, 2, 3, 2, 2, 1))
    assert deep3_identifiable_body(random_network((2, 2, 3, 2, 2, 1), 0)).body is None


@pytest.mark.parametrize("seed", CERTIFIED)
def test_family_certificates_verify_and_certify_agrees(seed):
    net, body = _body(seed)
    assert body[0] == "rule deep-n" and net.architecture == (2, 2, 2, 2, 3, 1)
    chk = _checked(net, body)
    assert chk.verified and chk.conclusion == "IDENTIFIABLE"
    res = certify(net)
    assert res.verdict == "IDENTIFIABLE" and res.details["rule"] == "deep-n"


def test_an_orbit_copy_is_certified_too():
    net, _ = _body(CERTIFIED[0])
    other = random_orbit_element(net, random.Random(5))
    res = certify_deep3(other)
    assert res.verdict == "IDENTIFIABLE", res.reason
    assert check_certificate_text(res.certificate, network=other).verified


def _mutants(net, body):
    yield "no bends", "E_COVER", [l for l in body if not l.startswith("bend")]
    if any(l.startswith("obstruct") for l in body):
        yield "no obstruction", "E_COVER", [l for l in body if not l.startswith("obstruct")]
    yield "no steps", "E_INCOMPLETE", [l for l in body if not l.startswith(("step", "jump"))]
    yield "rule deep-3", "E_DEPTH", ["rule deep-3"] + body[1:]
    yield "rule deep-2", "E_DEPTH", ["rule deep-2"] + body[1:]
    # the bend points on the level-2 lines removed: the cover by 2L + n lines is no longer forced
    level2 = level_forms(net, 2)[1]
    yield "no level-2 bends", "E_COVER", [l for l in body if not (l.startswith("bend") and any(
        _dot(r, [fmpq(v) for v in l.split()[1:3]]) == 0 for r in level2))]
    # the anchor's first point moved into C_1 but outside C_2 (on the far side of a level-2 line)
    i = next(i for i, l in enumerate(body) if l.startswith("anchor"))
    a = body[i].split()
    x = [fmpq(a[1]), fmpq(a[2])]
    t1, t2 = level_forms(net, 2)[:2]
    for k in range(1, 400):
        y = [x[0] - fmpq(k, 4), x[1]]
        if all(_dot(r, y) > 0 for r in t1) and not all(_dot(r, y) > 0 for r in t2):
            break
    else:
        pytest.fail("no point in C_1 outside C_2 on this line")
    yield "anchor outside C_2", "E_ANCHOR", body[:i] + [" ".join(["anchor", str(y[0]), str(y[1])] + a[3:])] + \
        body[i + 1:]


@pytest.mark.parametrize("seed", CERTIFIED)
def test_mutants_are_rejected(seed):
    net, body = _body(seed)
    for name, code, bad in _mutants(net, body):
        chk = _checked(net, bad)
        assert not chk.verified and f" {code}: " in chk.lines[1], (name, chk.lines)


def test_the_certificate_is_about_its_network():
    net, body = _body(CERTIFIED[0])
    other, _ = _body(CERTIFIED[1])
    assert not _checked(other, body).verified


def _random_level2_net(seed):
    rng = random.Random(seed)
    arch = (2, 2, 2, rng.randint(1, 3), rng.randint(1, 3), rng.randint(1, 2))
    return random_network(arch, seed, max_num=4, max_den=3)


def test_lemma_pl_one_active_level2_neuron_gives_a_cylinder():
    """Lemma P^L (a) at level 2 on random networks: inside C_1, where exactly one level-2 neuron is
    active, f is constant along that neuron's line (exact evaluation at random points)."""
    tested = 0
    for seed in range(16):
        net = _random_level2_net(seed)
        rng = random.Random(seed)
        t1, t2 = level_forms(net, 2)[:2]
        for j in range(2):
            w, wo = t2[j], t2[1 - j]
            d = [-w[1], w[0]]
            for _ in range(60):
                x = [fmpq(rng.randint(-40, 40), rng.randint(1, 4)) for _ in range(2)]
                step = fmpq(rng.randint(-6, 6), rng.randint(1, 3))
                y = [x[i] + step * d[i] for i in range(2)]
                if all(_dot(r, p) > 0 for r in t1 for p in (x, y)) and all(
                        _dot(w, p) > 0 and _dot(wo, p) < 0 for p in (x, y)):
                    assert net.evaluate(x) == net.evaluate(y)
                    tested += 1
    assert tested > 30


@pytest.mark.parametrize("seed", range(6))
def test_own_kinks_never_refute_own_levels(seed):
    """Step 1 on networks the rule was not designed with: at each level a network's own kinks inside
    C_(i-1) never refute its own pair (active quadrant C_i); in a cell of its own lines inside C_1 but
    outside C_2 its kink lines are all parallel; inside C_2, at most n' of them per cell."""
    net = _random_level2_net(200 + seed)
    forms = level_forms(net, 2)
    if any(r[0] * s[1] - r[1] * s[0] == 0 for r, s in (forms[0], forms[1])):
        return
    norm = [[tuple(v / next(c for c in r if c != 0) for v in r) for r in t] for t in forms[:2]]
    kinks = _kink_points(net, _faces(net))
    own = [r for t in forms for r in t]
    for i in range(2):
        before = [r for t in forms[:i] for r in t]
        u = tuple(1 if next(c for c in r if c != 0) > 0 else -1 for r in forms[i])
        for y, g, _ in kinks:
            if all(_dot(r, y) > 0 for r in before):
                assert not _refutes(y, norm[i][0], norm[i][1], u, g)
    cells: dict = {}
    for y, _, h in kinks:
        if all(_dot(r, y) > 0 for r in forms[0]) and all(_dot(r, y) != 0 for r in own):
            cells.setdefault(tuple(_dot(r, y) > 0 for r in own), set()).add(h)
    for key, hs in cells.items():
        if all(key[2:4]):  # inside C_2: a one-hidden-layer function with n' neurons on the cell
            assert len(hs) <= net.architecture[4]
        else:  # inside C_1, outside C_2: f is a function of one affine function on the cell
            assert len({(h[0] / h[1] if h[1] else None) for h in hs}) <= 1


def test_independent_fibre_search_finds_nothing_for_certified_networks():
    for seed in CERTIFIED:
        res = search_fibre(_body(seed)[0], first_only=False)
        assert not res.found, (seed, res.found)


def test_the_fibre_search_is_not_vacuous_on_the_family():
    """A flip set planted in the fourth layer of a certified member (rows W4[1] = -W4[0] with another
    bias, equal output weights) is found by the same search, and certify does not say IDENTIFIABLE."""
    net, _ = _body(CERTIFIED[0])
    layers = [(net.weights(l), net.biases(l)) for l in range(1, net.depth + 1)]
    W4, b4 = [list(r) for r in layers[3][0]], list(layers[3][1])
    W5 = [list(r) for r in layers[4][0]]
    W4[1], b4[1], W5[0][1] = [-v for v in W4[0]], b4[0] + 1, W5[0][0]
    planted = Network.from_lists(layers[:3] + [(W4, b4), (W5, layers[4][1])])
    assert certify(planted).verdict != "IDENTIFIABLE"
    res = search_fibre(planted)
    assert res.found and is_non_orbit_fibre_point(planted, res.found[0].other)


@pytest.mark.parametrize("seed", CERTIFIED[:1])
def test_identifiable_never_with_detectors_or_low_rank(seed):
    net, _ = _body(seed)
    assert not find_rules(net)
    fd = functional_dimension(net)
    assert fd.functional_dimension == net.num_parameters - net.num_hidden and fd.locally_identifiable


# Five hidden layers (L = 3): a network found by a variant of the family (second- and third-level
# lines at distance 5..7 and 2..3 from the origin); the checker's middle level (i = 2 of 3) is used.
FIVE = [([[1, 0], [0, 1]], [9, 10]), ([[1, "-1/4"], ["1/2", 1]], ["-3/2", "-19/2"]),
        ([[1, "-1/4"], ["1/2", 1]], ["-7/4", "-9/2"]), ([[1, -1], [-1, 2]], [0, -5]),
        ([[1, 3], [3, "3/2"], [1, 2]], [-5, -5, -3]), ([[1, 2, 2]], [0])]


def test_five_hidden_layers():
    net = Network.from_lists(FIVE)
    assert width2_levels(net.architecture) == 3
    res = certify(net)
    assert res.verdict == "IDENTIFIABLE" and res.details["rule"] == "deep-n", res.reason
    assert check_certificate_text(res.certificate, network=net).verified
    lines = deep3_identifiable_body(net).body
    level3 = level_forms(net, 3)[2]
    for name, code, bad in (
            ("no level-3 bends", "E_COVER", [l for l in lines if not (l.startswith("bend") and any(
                _dot(r, [fmpq(v) for v in l.split()[1:3]]) == 0 for r in level3))]),
            ("rule deep-3", "E_DEPTH", ["rule deep-3"] + lines[1:])):
        chk = _checked(net, bad)
        assert not chk.verified and f" {code}: " in chk.lines[1], (name, chk.lines)
    assert not search_fibre(net, first_only=False).found
