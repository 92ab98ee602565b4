"""The cleared-denominator batch evaluator agrees exactly with Network.evaluate."""

import pytest
from flint import fmpq
from hypothesis import given
from hypothesis import strategies as st

from exactnet.errors import FormatError, ShapeError
from exactnet.fasteval import ClearedNetwork, evaluate_batch_fast
from exactnet.network import Network
from exactnet.strategies import architectures, networks, points


@st.composite
def net_and_points(draw):
    arch = draw(architectures(max_input=3, max_hidden_layers=3, max_width=4, max_output=3))
    net = draw(networks(arch=arch, max_num=9, max_den=draw(st.sampled_from([1, 2, 7, 12]))))
    xs = draw(st.lists(points(arch[0], max_num=30, max_den=9), min_size=1, max_size=6))
    return net, xs


@given(net_and_points())
def test_agrees_with_evaluate(case):
    net, xs = case
    assert evaluate_batch_fast(net, xs) == [net.evaluate(x) for x in xs]


@given(net_and_points())
def test_agrees_with_evaluate_batch_and_is_reusable(case):
    net, xs = case
    cn = ClearedNetwork(net)
    assert cn.evaluate_batch(xs) == net.evaluate_batch(xs)
    assert cn.evaluate_batch(xs[:1]) == net.evaluate_batch(xs[:1])


@given(net_and_points())
def test_preactivations_batch_agrees_with_preactivations(case):
    """Every layer's pre-activations, points with unrelated denominators in one batch."""
    net, xs = case
    assert net.preactivations_batch(xs) == [net.preactivations(x) for x in xs]
    assert net.preactivations_batch([]) == []


def test_degenerate_networks():
    dead = Network.from_lists([([[0, 0], [0, 0]], [-1, 0]), ([[5, 7]], ["1/3"])])
    assert evaluate_batch_fast(dead, [[1, 2], ["-1/2", 0]]) == [[fmpq(1, 3)], [fmpq(1, 3)]]
    affine = Network.from_lists([([["1/2", "-1/3"]], ["1/6"])])  # no hidden layer
    assert evaluate_batch_fast(affine, [[1, 1], [0, "1/2"]]) == [affine.evaluate([1, 1]), affine.evaluate([0, "1/2"])]


def test_input_checks():
    net = Network.from_lists([([[1, 2]], [0])])
    assert evaluate_batch_fast(net, []) == []
    with pytest.raises(ShapeError):
        evaluate_batch_fast(net, [[1, 2, 3]])
    with pytest.raises(FormatError):
        evaluate_batch_fast(net, [[0.5, 1]])  # floats are never taken silently
