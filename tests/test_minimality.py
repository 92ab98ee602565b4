"""Minimal width of one-hidden-layer functions (issue 7, part 3).

Upper bound: the returned network is checked exactly equivalent (inside minimal_shallow and
again here). Lower bound: an independent brute force over small integer grids of narrower
networks (a sanity check of the lemma, not its proof).
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings

from exactnet.equivalence import equivalent
from exactnet.errors import ShapeError
from exactnet.examples import example
from exactnet.minimality import minimal_shallow
from exactnet.network import Network
from exactnet.randnet import random_network
from exactnet.shallow import shallow_equivalent
from exactnet.strategies import networks


def _grid_realisable(f, width, vals=(-1, 0, 1)):
    n = f.input_dim
    rows = list(itertools.product(vals, repeat=n + 1))
    for neurons in itertools.combinations_with_replacement(rows, width):
        W = [list(r[:n]) for r in neurons]
        b = [r[n] for r in neurons]
        for V in itertools.product(vals, repeat=width):
            g0 = Network.from_lists([(W, b), ([list(V)], [0])])
            d = f.evaluate([0] * n)[0] - g0.evaluate([0] * n)[0]
            g = Network.from_lists([(W, b), ([list(V)], [d])])
            if shallow_equivalent(f, g).equivalent:
                return True
    return False


def test_known_values():
    assert minimal_shallow(example("A")).neurons == 3
    two = Network.from_lists([([[1], [-1]], [0, 0]), ([[1, -1]], [0])])  # x
    r = minimal_shallow(two)
    assert (r.neurons, r.pairs) == (2, 1)
    absx = Network.from_lists([([[1], [-1]], [0, 0]), ([[1, 1]], [0])])  # |x|: one class, mode F
    assert minimal_shallow(absx).modes == ("F",) and minimal_shallow(absx).neurons == 2
    ry = Network.from_lists([([[1, 0], [0, 1], [0, -1]], [0, 0, 0]), ([[1, 1, -1]], [0])])  # relu(x) + y
    assert minimal_shallow(ry).neurons == 3
    const = Network.from_lists([([[0, 0]], [1]), ([[2]], [1])])
    assert minimal_shallow(const).neurons == 0


def test_lower_bounds_against_grid_brute_force():
    absx = Network.from_lists([([[1], [-1]], [0, 0]), ([[1, 1]], [0])])
    assert minimal_shallow(absx).neurons == 2 and not _grid_realisable(absx, 1)
    ry = Network.from_lists([([[1, 0], [0, 1], [0, -1]], [0, 0, 0]), ([[1, 1, -1]], [0])])
    assert minimal_shallow(ry).neurons == 3 and not _grid_realisable(ry, 2)
    assert _grid_realisable(ry, 3)


@settings(max_examples=25)
@given(networks(arch=(2, 4, 1), max_num=2, max_den=1))
def test_realisation_is_equivalent_and_not_larger(net):
    r = minimal_shallow(net)
    assert r.neurons <= net.num_hidden
    assert r.network.num_hidden == max(r.neurons, 1)
    assert equivalent(r.network, net).equivalent


def test_vector_output():
    net = random_network((3, 4, 2), 1)
    r = minimal_shallow(net)
    assert equivalent(r.network, net).equivalent and r.neurons <= 4


def test_deep_refused():
    with pytest.raises(ShapeError):
        minimal_shallow(random_network((2, 2, 2, 1), 0))
