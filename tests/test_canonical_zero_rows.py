"""Canonical forms of networks with zero incoming rows (exactnet/symmetry.py, "Zero incoming rows";
proofs/lemmas/orbit.md, "Zero rows"): an element of the orbit, the same for every element of the
orbit, hence a fixed point, on networks with zero rows, silent neurons fed only by zero rows, zero
columns and ties; and, without zero rows, the same form as before.
"""

from __future__ import annotations

import random

from flint import fmpq
from hypothesis import given, strategies as st

from exactnet import symmetry
from exactnet.errors import UndecidedError
from exactnet.network import Network
from exactnet.randnet import random_network
from exactnet.strategies import architectures, networks, points
from exactnet.symmetry import (
    canonical_form,
    canonical_map,
    has_zero_rows,
    permute_layer,
    random_orbit_element,
    same_orbit,
    scale_layer,
    zero_row_counts,
)

Q0 = fmpq(0)


def _lists(net: Network) -> list[tuple[list[list[fmpq]], list[fmpq]]]:
    return [([list(r) for r in L.weights], list(L.biases)) for L in net.layers]


def _is_zero_row(layers, l: int, i: int) -> bool:
    """Neuron ``i`` of hidden layer ``l`` (from 1) has incoming row ``(w, b) = 0``."""
    W, b = layers[l - 1]
    return b[i] == 0 and all(v == 0 for v in W[i])


def with_zero_rows(net: Network, rng: random.Random, p_zero: float = 0.35) -> Network:
    """``net`` with some incoming rows zeroed (at least one), some biases and outgoing columns
    zeroed, and some neurons made silent without a zero row (bias 0, weights only from zero
    rows): every case of the canonical form's silent neurons."""
    layers = _lists(net)
    hidden = [(l, i) for l in range(1, net.depth) for i in range(net.architecture[l])]
    forced = rng.choice(hidden)
    for l, i in hidden:
        W, b = layers[l - 1]
        if (l, i) == forced or rng.random() < p_zero:
            W[i], b[i] = [Q0] * len(W[i]), Q0
        elif rng.random() < 0.2:
            b[i] = Q0
    for l in range(2, net.depth + 1):
        W, b = layers[l - 1]
        for i in range(len(W[0])):
            if rng.random() < 0.15:
                for r in W:
                    r[i] = Q0
        zero = [i for i in range(len(W[0])) if _is_zero_row(layers, l - 1, i)]
        if l < net.depth and zero:
            for k in range(len(W)):
                if rng.random() < 0.25:  # silent, fed only by zero rows (may itself be a zero row)
                    W[k] = [v if i in zero else Q0 for i, v in enumerate(W[k])]
                    b[k] = Q0
    out = Network.from_lists(layers)
    assert has_zero_rows(out)
    return out


def moved(net: Network, perms: list[list[int]], scales: list[list[fmpq]]) -> Network:
    """``g.net`` for the permutation ``perms[l-1]`` and then the positive scales ``scales[l-1]`` of
    every hidden layer ``l``."""
    out = net
    for l in range(1, net.depth):
        out = scale_layer(permute_layer(out, l, perms[l - 1]), l, scales[l - 1])
    return out


@st.composite
def zero_row_cases(draw):
    """``(net, g.net)``: a small network with zero incoming rows (ties likely: weights from
    {-2..2}/{1,2}) and an element of its orbit."""
    net = draw(networks(architectures(max_hidden_layers=3, max_width=4, max_output=2), max_num=2, max_den=2))
    net = with_zero_rows(net, random.Random(draw(st.integers(0, 2**32 - 1))))
    positive = st.builds(fmpq, st.integers(1, 6), st.integers(1, 6))
    perms = [draw(st.permutations(range(n))) for n in net.architecture[1:-1]]
    scales = [draw(st.lists(positive, min_size=n, max_size=n)) for n in net.architecture[1:-1]]
    return net, moved(net, perms, scales)


@given(zero_row_cases(), st.data())
def test_zero_row_canonical_form_is_an_orbit_invariant_and_a_fixed_point(case, data):
    net, other = case
    c = canonical_form(net)
    assert canonical_form(c) == c  # idempotent
    assert canonical_form(other) == c  # orbit invariant
    assert zero_row_counts(c) == zero_row_counts(net)
    x = data.draw(points(net.input_dim))
    assert c.evaluate(x) == net.evaluate(x)
    assert same_orbit(net, other) is True  # never Undecided for one orbit any more


def test_zero_row_canonical_form_on_seeded_networks():
    """Several hundred seeded cases, deep ones and tied ones included; a random orbit element and
    the form itself give the same form."""
    rng = random.Random(5)
    archs = [(1, 2, 1), (1, 3, 1), (2, 3, 1), (1, 3, 3, 1), (2, 2, 2, 1), (1, 2, 3, 2, 1), (2, 4, 3, 2),
             (1, 4, 4, 1), (1, 2, 2, 2, 2, 1), (3, 3, 3, 3, 2)]
    silent_but_nonzero = 0
    for s in range(300):
        arch = archs[s % len(archs)]
        small = s % 2 == 0  # small integers: many ties
        base = random_network(arch, seed=s, max_num=2 if small else 4, max_den=1 if small else 3)
        net = with_zero_rows(base, rng)
        flags = symmetry._silent_flags(symmetry._rows(net))
        silent_but_nonzero += any(f and not _is_zero_row(_lists(net), l, i)
                                  for l, layer in enumerate(flags, start=1) for i, f in enumerate(layer))
        c = canonical_form(net)
        assert canonical_form(c) == c
        for k in range(3):
            assert canonical_form(random_orbit_element(net, rng, max_den=5)) == c
    assert silent_but_nonzero > 20  # the silent neurons without a zero row were exercised


def test_free_silent_groups_and_chains():
    """Silent neurons whose root columns are zero: a chain of zero rows joined by weights between
    silent neurons only (a free group: one common scale changes nothing) and a chain joined to the
    outputs; every scaling of them gives the same form."""
    # layer 1: neuron 0 anchored, neurons 1 and 2 zero rows; layer 2: neuron 0 anchored, neurons 1
    # and 2 silent, fed by zero rows 1 and 2; the outputs read one of them: the other pair is free
    for out_w in ([[1, 0, 5]], [[1, 7, 0]]):
        net = Network.from_lists([
            ([[2], [0], [0]], [1, 0, 0]),
            ([[3, 0, 0], [0, 4, 0], [0, 0, -6]], [-1, 0, 0]),
            (out_w, [0]),
        ])
        assert symmetry._silent_flags(symmetry._rows(net)) == [[False, True, True], [False, True, True]]
        c = canonical_form(net)
        assert canonical_form(c) == c
        rng = random.Random(1)
        for _ in range(20):
            assert canonical_form(random_orbit_element(net, rng, max_den=9)) == c
        assert all(abs(v) in (0, 1) for r in c.weights(2)[1:] for v in r)


def test_identical_zero_neurons_are_not_enumerated():
    """Ten identical zero neurons in a layer are one order, not 10! > TIE_LIMIT."""
    net = Network.from_lists([([[1]] + [[0]] * 10, [0] * 11), ([[1] * 11, [2] * 11], [0, 1]),
                              ([[1, 1]], [0])])
    c = canonical_form(net)
    assert canonical_form(c) == c
    assert canonical_form(random_orbit_element(net, 3)) == c


def test_the_zero_row_procedure_gives_the_old_form_without_zero_rows():
    """The procedure for zero rows, run on networks without one, gives exactly the form of
    ``canonical_form`` (which does not use it there): it generalises the old form."""
    rng = random.Random(2)
    nets = [random_network(arch, seed=s, max_num=m, max_den=d)
            for arch in ((2, 3, 1), (1, 3, 3, 1), (2, 2, 2, 2, 1), (1, 4, 2, 2))
            for s in range(15) for m, d in ((4, 3), (2, 1))]
    nets += [Network.from_lists([([[rng.choice((-1, 1)) for _ in range(1)] for _ in range(3)], [1, -1, 1]),
                                 ([[rng.choice((-1, 1, 2)) for _ in range(3)] for _ in range(3)], [1, 1, -1]),
                                 ([[1, 2, 3]], [0])]) for _ in range(20)]
    checked = 0
    for net in nets:
        if has_zero_rows(net):
            continue
        rows = symmetry._canon_silent(symmetry._rows(net), net.depth)
        assert symmetry._build(rows, net) == canonical_form(net)
        checked += 1
    assert checked > 100


def test_zero_row_maps_stay_sound():
    """orbit_map / canonical_map give nothing with zero rows; same_orbit never says True for two
    orbits (forms differ) nor False for one orbit."""
    z = Network.from_lists([([[0, 0], [1, 1]], [0, 1]), ([[2, 1]], [0])])
    z2 = Network.from_lists([([[0, 0], [1, 1]], [0, 1]), ([[-2, 1]], [0])])
    assert canonical_map(z) is None
    assert canonical_form(z) != canonical_form(z2)
    try:
        assert same_orbit(z, z2) is False
    except UndecidedError:
        pass
    assert same_orbit(z, random_orbit_element(z, 4)) is True
