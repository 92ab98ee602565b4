"""Hand-made degenerate networks: every degeneracy of the issue, with exact expected answers."""

from __future__ import annotations

from flint import fmpq

from exactnet.network import Network
from exactnet.regions import compute_regions, polygon_area

Q0 = fmpq(0)


def _net(W1, b1, W2=None, b2=None, more=()):
    n = len(W1)
    layers = [(W1, b1)] + list(more)
    if W2 is None:
        width = len(layers[-1][1])
        W2, b2 = [[1] * width], [0]
    layers.append((W2, b2))
    return Network.from_lists(layers)


def _pats(rc):
    return sorted(c.pattern for c in rc.cells)


def test_three_lines_through_one_point():
    # x = 0, y = 0, x + y = 0 all through the origin: 6 unbounded cells, 1 vertex, none bounded
    rc = compute_regions(_net([[1, 0], [0, 1], [1, 1]], [0, 0, 0]))
    assert len(rc.cells) == 6
    assert rc.vertex_set() == {(Q0, Q0)}
    assert not any(c.bounded for c in rc.cells)
    assert rc.breakpoints().check_balancing()["failed"] == []


def test_coincident_hyperplanes():
    # the same line twice (one with the opposite orientation, one rescaled)
    rc = compute_regions(_net([[1, 1], [2, 2], [-1, -1]], [1, 2, -1]))
    assert len(rc.cells) == 2
    for c in rc.cells:
        assert len(c.constraints) == 1


def test_parallel_hyperplanes():
    # x = 0, x = 1, x = 2: four strips, no vertex, all unbounded
    rc = compute_regions(_net([[1, 0], [1, 0], [2, 0]], [0, -1, -4]))
    assert len(rc.cells) == 4 and not rc.vertex_set()
    assert not any(c.bounded for c in rc.cells)
    # x = 0, x = 1 and x = 1 again (2x - 2): three strips
    rc2 = compute_regions(_net([[1, 0], [1, 0], [2, 0]], [0, -1, -2]))
    assert len(rc2.cells) == 3


def test_dead_and_always_active():
    # second-layer neuron 0 reads relu(x) with a positive weight and positive bias: always active;
    # neuron 1 reads relu(x) with negative weight and negative bias: dead
    net = Network.from_lists([([[1, 0]], [0]), ([[2], [-3]], [1, -1]), ([[1, 1]], [0])])
    rc = compute_regions(net)
    assert _pats(rc) == [((0,), (1, 0)), ((1,), (1, 0))]


def test_zero_row_neuron_identically_zero():
    # neuron 1 has a zero row and zero bias: identically zero everywhere (pattern 0)
    net = _net([[1, 0], [0, 0]], [0, 0])
    rc = compute_regions(net)
    assert len(rc.cells) == 2
    for c in rc.cells:
        assert c.pattern[0][1] == 0
        assert (1, 1) in c.zero
        assert net.pattern(c.interior_point) == c.pattern


def test_constant_neurons():
    net = _net([[0, 0], [0, 0], [1, 0]], [3, -2, 0])
    rc = compute_regions(net)
    assert _pats(rc) == [((1, 0, 0),), ((1, 0, 1),)]


def test_neuron_zero_on_a_cell_only():
    # layer 2 neuron = relu(x) - relu(x) + 0 ... reads only h1 = relu(x): zero on x < 0
    net = Network.from_lists([([[1, 0]], [0]), ([[1]], [0]), ([[1]], [0])])
    rc = compute_regions(net)
    assert _pats(rc) == [((0,), (0,)), ((1,), (1,))]
    c0 = next(c for c in rc.cells if c.pattern == ((0,), (0,)))
    assert (2, 0) in c0.zero


def test_bent_hyperplane_through_vertex():
    # lines x=0 and y=0; layer-2 neuron x + y - relu(x)...: its bent line passes through the origin
    net = Network.from_lists([([[1, 0], [0, 1], [-1, 0], [0, -1]], [0, 0, 0, 0]), ([[1, -1, -1, 1]], [0]), ([[1]], [0])])
    rc = compute_regions(net, box=(-1, 1))
    assert sum((polygon_area(c.vertices) for c in rc.cells), Q0) == 4
    assert (Q0, Q0) in rc.vertex_set()
    for c in rc.cells:
        assert net.pattern(c.interior_point) == c.pattern


def test_one_dimensional():
    net = _net([[1], [1], [-2]], [0, -1, 2])  # breakpoints 0, 1, 1 (coincident)
    rc = compute_regions(net)
    assert len(rc.cells) == 3
    assert sorted(rc.vertex_set()) == [(Q0,), (fmpq(1),)]
