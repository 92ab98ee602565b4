"""The crossing walk of the functional-dimension sampler (:func:`exactnet.fdim.crossing_points`).

The walk only proposes points (floats); what it may change is the proved lower bound, which
only grows with more strictly generic points. The tests check the proposals' geometry (a
point steps across its nearest wall), exactly, and that the walk raises the rank on the
network that motivated it.
"""

from __future__ import annotations

from flint import fmpq
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from exactnet.fdim import crossing_points, functional_dimension
from exactnet.network import Network
from exactnet.randnet import random_network
from exactnet.strategies import networks, points


def test_designed_line_crosses_the_two_nearest_walls():
    # f(x) = relu(x) + relu(x - 10) + relu(x - 20) on R: walls at 0, 10, 20; from x = 1 the
    # nearest walls are 0 (distance 1) and 10 (distance 9).
    net = Network.from_lists([([[1], [1], [1]], [0, -10, -20]), ([[1, 1, 1]], [0])])
    ys = crossing_points(net, [[fmpq(1)]], per_point=2)
    assert len(ys) == 2
    first, second = ys[0][0], ys[1][0]
    assert fmpq(-1, 2) <= first < 0  # x - (1 + delta) (x - 0), delta in {0.01, 0.1, 0.5}
    assert 10 < second <= fmpq(29, 2)  # x - (1 + delta) (x - 10)


def test_points_are_on_the_lattice():
    net = random_network((3, 4, 4, 1), seed=3)
    src = [[fmpq(k, 7), fmpq(-k, 3), fmpq(1, 2)] for k in range(1, 6)]
    ys = crossing_points(net, src, per_point=3, grid=1 << 10)
    assert 0 < len(ys) <= 15
    assert all(v.q <= 1 << 10 and (1 << 10) % int(v.q) == 0 for y in ys for v in y)


def _exact_nearest(net: Network, x):
    """Index of the nearest wall of a one-hidden-layer network at x (exact squared distances), or
    None on a tie for the nearest place."""
    W, b = net.weights(1), net.biases(1)
    d2 = []
    for row, bi in zip(W, b):
        n2 = sum((w * w for w in row), fmpq(0))
        z = sum((w * v for w, v in zip(row, x)), bi)
        d2.append(z * z / n2 if n2 != 0 else None)
    finite = sorted((d, i) for i, d in enumerate(d2) if d is not None)
    if not finite or (len(finite) > 1 and finite[0][0] == finite[1][0]):
        return None
    return finite[0][1]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3).flatmap(lambda n0: st.tuples(
    networks(arch=st.tuples(st.just(n0), st.integers(1, 4), st.just(1))), points(n0))))
def test_one_hidden_layer_step_flips_the_nearest_neuron(case):
    # Law: for one hidden layer every pre-activation is affine on R^n0, so the step
    # x - (1 + delta) z_i g_i / |g_i|^2 gives z_i(y) = -delta z_i(x) up to the rounding to the
    # 1/2^20 lattice: the nearest neuron's sign flips when |z_i(x)| is not tiny.
    net, x = case
    i = _exact_nearest(net, x)
    assume(i is not None)
    z = net.preactivations(x)[0][i]
    assume(abs(z) >= fmpq(1, 100))
    (y,) = crossing_points(net, [x], per_point=1)
    zy = net.preactivations(y)[0][i]
    assert zy * z < 0


def test_walk_raises_the_proved_lower_bound():
    # The motivating network: 763 Gaussian and line points reach rank 97 here (without the LP
    # facts, which are time-budgeted; switched off so that the test is deterministic).
    net = random_network((5, 5, 5, 5, 5, 5, 1), seed=2)
    base = functional_dimension(net, use_regions=False, prove_signs=False, walk_rounds=0)
    walked = functional_dimension(net, use_regions=False, prove_signs=False)
    assert walked.functional_dimension > base.functional_dimension
    assert walked.functional_dimension <= walked.upper_bound
    assert len(walked.points) > len(base.points)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_batch_genericity_filter_is_the_pointwise_one(data):
    """line_points filters its points in one batch (_strictly_generic); the points it keeps are exactly those
    with no hidden pre-activation 0. Small integer weights and points make zeros frequent."""
    from exactnet.fdim import _strict_pattern, _strictly_generic, line_points

    net = data.draw(networks(max_num=2, max_den=1))
    xs = data.draw(st.lists(points(net.input_dim, max_num=3, max_den=2), min_size=1, max_size=12))
    assert _strictly_generic(net, xs) == [x for x in xs if _strict_pattern(net, x) is not None]
    a, d = xs[0], [fmpq(1)] + [fmpq(0)] * (net.input_dim - 1)
    assert all(_strict_pattern(net, x) is not None for x in line_points(net, a, d))
