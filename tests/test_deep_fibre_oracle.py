"""Soundness oracle for deep networks (issue 6): an independent exact fibre search.

(a) the oracle finds the known hidden symmetries (flip sets in every layer, width-one
    reflections, stably active / dead neurons, hidden hyperplanes, proportional neurons,
    zero outgoing weights, a flip that is affine only on the reachable set), and its
    exhaustive grid agrees with its search and with ``certify``'s witnesses;
(b) whenever ``certify`` says IDENTIFIABLE for a seeded random small deep network, the
    oracle finds no fibre point outside the orbit (with a non-vacuity sub-test);
(c) whenever the oracle finds a fibre point outside the orbit, ``certify`` does not say
    IDENTIFIABLE.
"""

from __future__ import annotations

import functools

import pytest
from flint import fmpq

from exactnet.certify import certify
from exactnet.equivalence import equivalent, random_points
from exactnet.examples import example
from exactnet.fibre_search import grid_fibre, is_non_orbit_fibre_point, search_fibre
from exactnet.network import Network
from exactnet.randnet import random_network
from exactnet.symmetry import random_orbit_element, same_orbit, scale_neuron

Q = fmpq

C_W1 = [[1, Q(1, 3)], [Q(-1, 2), 1]]
C_B1 = [Q(1, 5), Q(-2, 7)]


def _net(*layers) -> Network:
    return Network.from_lists(list(layers))


# Known hidden symmetries: name -> (network, the move that must find it on its own).
KNOWN = {
    "A: flip of all three first-layer neurons": (example("A"), "flip"),
    "A inside a deep net: layer-1 flip set": (
        _net(([[1, 0], [0, 1], [-1, -1]], [0, 0, 1]), ([[1, 1, 1], [-1, -1, -1]], [-2, 3]), ([[1, 2]], [0])),
        "flip",
    ),
    "layer-2 flip set": (
        _net((C_W1, C_B1), ([[1, 0], [0, 1], [-1, -1]], [-1, Q(-1, 2), 2]), ([[1, 1, 1]], [0])),
        "flip",
    ),
    "layer-3 flip set (three hidden layers)": (
        _net(
            (C_W1, C_B1),
            ([[Q(3, 2), -1], [Q(1, 4), -2]], [Q(-1, 3), Q(1, 2)]),
            ([[1, 0], [0, 1], [-1, -1]], [-1, Q(-1, 2), 2]),
            ([[1, 1, 1]], [0]),
        ),
        "flip",
    ),
    "flip affine only on the reachable set (M != 0)": (
        _net(
            ([[1, 0], [0, 1], [0, 0]], [0, 0, -1]),
            ([[1, 0, 1], [0, 1, 0], [-1, -1, 0]], [-1, Q(-1, 2), 2]),
            ([[1, 1, 1]], [0]),
        ),
        "flip",
    ),
    "B: width-one reflection": (example("B"), "reflect"),
    "B with a > 0 > c: hidden first hyperplane": (
        _net(([[1, 2]], [1]), ([[2]], [-3]), ([[5]], [-1])),
        "shift",
    ),
    "B with a, c > 0: stably active second neuron": (
        _net(([[1, 2]], [1]), ([[2]], [3]), ([[5]], [-1])),
        "shift",
    ),
    "D: stably active neuron (2,2)": (example("D"), "shift"),
    "dead neuron by structure": (
        _net((C_W1, C_B1), ([[Q(3, 2), -1], [Q(-1, 4), -2]], [Q(-1, 3), Q(-1, 2)]), ([[2, Q(-3, 2)]], [Q(1, 7)])),
        "solve",
    ),
    "dead on the reachable set only": (
        _net(([[1, 0], [1, 0]], [0, 5]), ([[1, -1], [1, Q(1, 2)]], [-1, -1]), ([[2, Q(-3, 2)]], [Q(1, 7)])),
        "solve",
    ),
    "proportional first-layer neurons": (
        _net(([[1, Q(1, 3)], [2, Q(2, 3)]], [Q(1, 5), Q(2, 5)]), ([[Q(3, 2), -1], [Q(1, 4), -2]], [Q(-1, 3), Q(1, 2)]),
             ([[2, Q(-3, 2)]], [Q(1, 7)])),
        "solve",
    ),
    "zero outgoing weight": (
        _net((C_W1, C_B1), ([[Q(3, 2), -1], [Q(1, 4), -2]], [Q(-1, 3), Q(1, 2)]), ([[2, 0]], [Q(1, 7)])),
        "flip",
    ),
    "joint strip shift of two first-layer neurons (n0 = 1)": (
        _net(([[-1], [1]], [0, 0]), ([[1, 1]], [-1]), ([[-1]], [-1])),
        "shift",
    ),
}


def _assert_proved(net: Network, other: Network) -> None:
    """Re-decide a reported fibre point from scratch (not through the oracle's own filter)."""
    pts = random_points(net.input_dim, 30, seed=5)
    assert net.evaluate_batch(pts) == other.evaluate_batch(pts)
    assert equivalent(net, other).equivalent
    assert not same_orbit(net, other)


@pytest.mark.parametrize("name", list(KNOWN))
def test_known_symmetry_found(name):
    net, move = KNOWN[name]
    res = search_fibre(net)
    assert res.found, f"{name}: the oracle found no fibre point outside the orbit"
    _assert_proved(net, res.found[0].other)
    alone = search_fibre(net, moves=(move,))
    assert alone.found, f"{name}: the {move!r} move alone did not find it"
    _assert_proved(net, alone.found[0].other)
    assert certify(net).verdict != "IDENTIFIABLE"


def test_found_points_survive_the_orbit():
    """A fibre point of an orbit element g.theta is a fibre point of theta: the search on
    g.theta finds one too and it is outside theta's orbit."""
    net, _ = KNOWN["layer-2 flip set"]
    g = random_orbit_element(net, 3)
    res = search_fibre(g)
    assert res.found
    _assert_proved(net, res.found[0].other)


def test_decision_function():
    a = example("A")
    assert is_non_orbit_fibre_point(a, scale_neuron(a, 1, 0, 3)) is False  # orbit element
    flipped = search_fibre(a).found[0].other
    assert is_non_orbit_fibre_point(a, flipped) is True
    W = [list(r) for r in flipped.weights(2)]
    W[0][0] += 1
    assert is_non_orbit_fibre_point(a, flipped.replace_layer(2, W, flipped.biases(2))) is False


def test_first_only_false_collects_several():
    net, _ = KNOWN["D: stably active neuron (2,2)"]
    res = search_fibre(net, first_only=False)
    assert len(res.found) >= 2
    for f in res.found:
        _assert_proved(net, f.other)


# ------------------------------------------------------------------ exhaustive grid
@functools.lru_cache(maxsize=None)
def _grid(arch):
    return grid_fibre(arch, (-1, 0, 1))


def _grid_checks(arch):
    rep = _grid(arch)
    assert rep.networks == 3 ** sum(arch[l] * (arch[l - 1] + 1) for l in range(1, len(arch)))
    assert rep.flagged, "the grid found no hidden symmetry at all"
    vals = set(rep.values)
    for key, other in rep.flagged.items():
        net = Network.unflatten(arch, key)
        assert equivalent(net, other).equivalent and not same_orbit(net, other)
        # the search must find something wherever the grid did
        assert search_fibre(net).found, f"grid fibre point of {key} missed by the search"
    # consistency with certify: a witness inside the grid means the grid flagged the network
    for params in list(rep.flagged)[:: max(1, len(rep.flagged) // 150)]:
        net = Network.unflatten(arch, params)
        c = certify(net)
        assert c.verdict != "IDENTIFIABLE"
    return rep, vals


def test_grid_2111():
    rep, vals = _grid_checks((2, 1, 1, 1))
    from exactnet.symmetry import has_zero_rows
    from exactnet.fibre_search import grid_networks

    for params in grid_networks((2, 1, 1, 1), rep.values):
        net = Network.unflatten((2, 1, 1, 1), params)
        if has_zero_rows(net):
            continue
        c = certify(net)
        if c.verdict == "HIDDEN-SYMMETRY" and set(c.other.flatten()) <= vals:
            assert tuple(params) in rep.flagged, f"certify's grid witness for {params} not in the grid's group"
        if c.verdict == "IDENTIFIABLE":  # pragma: no cover - width one is never identifiable
            assert tuple(params) not in rep.flagged


@pytest.mark.slow
@pytest.mark.parametrize("arch", [(1, 2, 1, 1), (1, 1, 2, 1)])
def test_grid_slow(arch):
    _grid_checks(arch)


# ------------------------------------------------------------------ random deep networks
ARCHS = [(2, 2, 2, 1), (2, 3, 2, 1), (3, 2, 2, 1), (2, 2, 2, 2)]
SEEDS = range(25)


@functools.lru_cache(maxsize=None)
def _survey():
    rows = []
    for arch in ARCHS:
        for seed in SEEDS:
            for kw in ({}, {"max_num": 2, "max_den": 1}):
                net = random_network(arch, seed, **kw)
                rows.append((arch, seed, kw, net, certify(net), search_fibre(net)))
    return rows


def test_identifiable_has_no_non_orbit_fibre_point():
    """(b) soundness: the oracle never refutes an IDENTIFIABLE verdict."""
    for arch, seed, kw, net, cert, res in _survey():
        if cert.verdict == "IDENTIFIABLE":
            assert not res.found, (
                f"{arch} seed {seed} {kw}: certified IDENTIFIABLE but {res.found[0].move} "
                f"({res.found[0].detail}) gives a proved fibre point outside the orbit"
            )


@pytest.mark.xfail(strict=False, reason="certify has no global theorem for deep networks yet (issue 6): "
                   "no IDENTIFIABLE verdict, so the soundness test above is still vacuous")
def test_identifiable_verdicts_exist():
    """Non-vacuity of (b): some of the random deep networks are certified IDENTIFIABLE."""
    n = sum(1 for *_, cert, _res in _survey() if cert.verdict == "IDENTIFIABLE")
    print(f"IDENTIFIABLE verdicts among {len(_survey())} random deep networks: {n}")
    assert n > 0


def test_oracle_hit_is_never_identifiable():
    """(c) whenever the oracle proves a fibre point outside the orbit, certify is not IDENTIFIABLE."""
    hits = 0
    for arch, seed, kw, net, cert, res in _survey():
        if res.found:
            hits += 1
            assert cert.verdict != "IDENTIFIABLE", f"{arch} seed {seed} {kw}"
    assert hits >= 10  # non-vacuous: dead, stably active and flip cases occur in this sample


def test_certify_witnesses_are_found_by_the_oracle():
    """Cross-check: certify's HIDDEN-SYMMETRY witnesses are proved fibre points by the oracle's
    own decision, and the search finds a fibre point for the same networks."""
    n = 0
    for arch, seed, kw, net, cert, res in _survey():
        if cert.verdict == "HIDDEN-SYMMETRY":
            n += 1
            assert is_non_orbit_fibre_point(net, cert.other) is True
            assert res.found, f"{arch} seed {seed} {kw}: certify found {cert.mechanism}, the search nothing"
    assert n >= 5


def test_depth_three_random():
    """Three hidden layers: every hit is proved and never meets IDENTIFIABLE."""
    for seed in range(8):
        for arch in [(1, 2, 2, 2, 1), (2, 2, 2, 2, 1)]:
            net = random_network(arch, seed, max_num=3, max_den=2)
            res = search_fibre(net)
            if res.found:
                _assert_proved(net, res.found[0].other)
                assert certify(net).verdict != "IDENTIFIABLE"
