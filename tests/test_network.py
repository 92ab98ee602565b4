"""The exact network model: shapes, evaluation, patterns, gradients and Jacobians."""

import random

import pytest
from flint import fmpq
from hypothesis import given, strategies as st

from exactnet.errors import ShapeError
from exactnet.examples import example
from exactnet.network import Layer, Network
from exactnet.randnet import random_network
from exactnet.strategies import architectures, networks, points


def brute_eval(net, x):
    h = list(x)
    for k, layer in enumerate(net.layers, start=1):
        z = [sum((w * v for w, v in zip(row, h)), fmpq(0)) + b for row, b in zip(layer.weights, layer.biases)]
        h = [max(v, fmpq(0)) for v in z] if k < net.depth else z
    return h


def test_counts_of_examples():
    a = example("A")
    assert a.architecture == (2, 3, 1)
    assert (a.num_parameters, a.num_hidden) == (13, 3)
    c = example("C")
    assert (c.num_parameters, c.num_hidden) == (15, 4)
    assert Network.from_lists([([[1]], [0]), ([[1]], [0])]).num_parameters == 4  # (1,1,1): D = 4


def test_example_a_values():
    a = example("A")
    assert a.evaluate(["1/2", "-3"]) == [fmpq(4)]
    assert a.evaluate([0, 0]) == [fmpq(1)]


def test_shape_errors():
    with pytest.raises(ShapeError):
        Network([])
    with pytest.raises(ShapeError):
        Network.from_lists([([[1, 2]], [0]), ([[1, 2]], [0])])  # does not chain
    with pytest.raises(ShapeError):
        Network.from_lists([([[1, 2], [1]], [0, 0])])  # ragged
    with pytest.raises(ShapeError):
        example("A").evaluate([1])


@given(networks(architectures(max_output=2)), st.data())
def test_batch_equals_pointwise_equals_brute(net, data):
    pts = [data.draw(points(net.input_dim)) for _ in range(3)]
    batch = net.evaluate_batch(pts)
    for p, out in zip(pts, batch):
        assert out == net.evaluate(p) == brute_eval(net, p)
    assert net.evaluate_batch_reference(pts) == batch


@given(networks(architectures(max_output=2)), st.data())
def test_flatten_unflatten(net, data):
    again = Network.unflatten(net.architecture, net.flatten())
    assert again == net
    assert len(net.flatten()) == net.num_parameters
    l = data.draw(st.integers(1, net.depth))
    i = data.draw(st.integers(0, net.architecture[l] - 1))
    j = data.draw(st.integers(0, net.architecture[l - 1] - 1))
    assert net.flatten()[net.parameter_index(l, i, j)] == net.weights(l)[i][j]
    assert net.flatten()[net.parameter_index(l, i, None)] == net.biases(l)[i]


def _generic_point(net, rng):
    for _ in range(200):
        x = [fmpq(rng.randint(-40, 40), rng.randint(1, 9)) for _ in range(net.input_dim)]
        if net.is_generic_point(x):
            return x
    return None


@given(networks(architectures(max_output=2)), st.integers(0, 10**6))
def test_parameter_jacobian_is_exact_finite_difference(net, seed):
    """Inside a region f is polynomial in theta of degree <= L per monomial; the pattern is
    locally constant, so a tiny exact step on one parameter changes f by J*step + O(step^2).
    We check with two steps: the second difference must vanish in the linear part exactly."""
    rng = random.Random(seed)
    x = _generic_point(net, rng)
    if x is None:
        return
    J = net.parameter_jacobian(x)
    theta = net.flatten()
    f0 = net.evaluate(x)
    for k in rng.sample(range(len(theta)), min(4, len(theta))):
        # f(theta + t e_k) is a polynomial in t of degree <= 1 in each parameter: it is affine in t
        # (each parameter appears at most linearly in every monomial) while the pattern is frozen.
        t = fmpq(1, 10**12)
        th = list(theta)
        th[k] += t
        moved = Network.unflatten(net.architecture, th)
        if moved.pattern(x) != net.pattern(x):
            continue
        f1 = moved.evaluate(x)
        for o in range(net.output_dim):
            assert (f1[o] - f0[o]) / t == J[o, k]


@given(networks(architectures(max_output=2)), st.integers(0, 10**6))
def test_gradient_matches_local_affine(net, seed):
    rng = random.Random(seed)
    x = _generic_point(net, rng)
    if x is None:
        return
    A, c = net.local_affine(net.pattern(x))
    out = net.evaluate(x)
    for o in range(net.output_dim):
        assert sum((A[o, j] * x[j] for j in range(net.input_dim)), fmpq(0)) + c[o] == out[o]
    assert net.gradient(x) == A


def test_networks_are_hashable_values():
    a, b = random_network("2,3,1", 1), random_network("2,3,1", 1)
    assert a == b and hash(a) == hash(b)
    assert random_network("2,3,1", 2) != a
    assert isinstance(a.layers[0], Layer)
