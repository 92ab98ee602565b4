"""Reduction to an exactly equivalent network (issue 7, part 2).

Every result is checked against the input with :func:`exactnet.equivalence.equivalent`
(exact, region based) and with exact evaluation at sample points (independent oracle).
"""

from __future__ import annotations

import argparse
import json

import pytest
from flint import fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

from exactnet.cli_reduce import register
from exactnet.equivalence import equivalent, random_points
from exactnet.examples import example
from exactnet.netio import load_network, save_network
from exactnet.network import Network
from exactnet.randnet import random_network
from exactnet.reduce import reduce_network
from exactnet.strategies import architectures, networks


def _same_on_samples(a, b):
    return all(a.evaluate(p) == b.evaluate(p) for p in random_points(a.input_dim, 40, seed=99))


def _check(net):
    r = reduce_network(net)
    small = r.network
    assert small.num_hidden <= net.num_hidden and small.depth <= net.depth
    assert small.num_parameters <= net.num_parameters
    assert _same_on_samples(net, small)
    assert equivalent(net, small).equivalent
    again = reduce_network(small)
    assert again.steps == [] and again.network == small  # idempotent
    return r


@settings(max_examples=25)
@given(networks(arch=architectures(max_input=2, max_hidden_layers=2, max_width=3), max_num=2, max_den=1))
def test_reduce_is_equivalent_smaller_and_idempotent(net):
    _check(net)


def test_examples_are_already_reduced():
    for name in "ABCD":
        assert reduce_network(example(name)).steps == []


def test_identity_pair_becomes_linear():
    two = Network.from_lists([([[1], [-1]], [0, 0]), ([[1, -1]], [0])])
    r = _check(two)
    assert r.network.architecture == (1, 1)


def test_dead_unused_duplicate_and_pairs():
    net = Network.from_lists([
        (
            [[1, 0], [2, 0], [0, 1], [0, -1], [1, 1], [0, 0], [3, -1]],
            [1, 2, 0, 0, 0, 5, 1],
        ),
        ([[1, 1, 2, -2, 0, 1, 4]], [0]),
    ])
    # duplicates 0/1, opposite affine pair 2/3 (2 y), unused 4, constant 5, and neuron 6
    r = _check(net)
    kinds = {k for k, _, _ in r.steps}
    assert {"duplicate", "unused", "constant"} <= kinds
    assert r.network.num_hidden <= 4


def test_pairs_of_a_layer_merge_to_rank():
    # three affine pairs; scalar output: linear part of rank 1, 6 pair neurons -> 2
    rows = []
    for w in ([1, 0], [0, 1], [1, 1]):
        rows += [w, [-a for a in w]]
    rows.append([1, -1])
    net = Network.from_lists([(rows, [0] * 7), ([[1, -1, 2, -2, 3, -3, 1]], [0])])
    assert _check(net).network.num_hidden == 3
    # two outputs: linear part [[2, 1], [1, 2]] of rank 2, 6 pair neurons -> 4
    out = [[1, -1, 0, 0, 1, -1, 1], [0, 0, 1, -1, 1, -1, 0]]
    net = Network.from_lists([(rows, [0] * 7), (out, [0, 0])])
    assert _check(net).network.num_hidden == 5


def test_dead_deep_neuron_and_stably_active_layer():
    dead = Network.from_lists([([[1, 0], [0, 1]], [0, 0]), ([[-1, -1], [1, 1]], [-1, 0]), ([[5, 1]], [0])])
    r = _check(dead)
    assert ("dead", 2, [0]) in r.steps
    active = Network.from_lists([([[1, 0], [0, 1], [1, -1]], [0, 0, 0]), ([[1, 1, 0], [0, 2, 3]], [1, 0]), ([[1, -1]], [0])])
    r = _check(active)
    assert r.network.depth == 2


def test_all_dead_gives_constant():
    net = Network.from_lists([([[1, 0]], [0]), ([[-1]], [-1]), ([[3]], [fmpq(7, 2)])])
    r = _check(net)
    assert r.network.architecture == (2, 1)
    assert r.network.evaluate([5, 5]) == [fmpq(7, 2)]


@pytest.mark.parametrize("seed", range(4))
def test_random_deep(seed):
    _check(random_network((2, 3, 3, 1), seed, max_num=2, max_den=1))


def test_cli(tmp_path, capsys):
    two = Network.from_lists([([[1], [-1]], [0, 0]), ([[1, -1]], [0])])
    src, dst = tmp_path / "n.json", tmp_path / "small.json"
    save_network(two, str(src))
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(["reduce", str(src), "-o", str(dst), "--json"])
    assert args.func(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["reduced_architecture"] == [1, 1]
    assert load_network(str(dst)).architecture == (1, 1)


def test_several_constant_neurons_fold_together():
    # regression: two constant first-layer neurons must both reach the next bias
    net = Network.from_lists([([[0], [0], [1]], [1, 1, 0]), ([[1, 1, -1]], [0])])
    r = _check(net)
    assert r.network.evaluate([fmpq(-5)]) == [fmpq(2)]


@settings(max_examples=30)
@given(networks(arch=architectures(max_input=2, max_hidden_layers=3, max_width=4)))
def test_cheap_reduce_preserves_the_function(net):
    from exactnet.reduce import cheap_reduce

    small = cheap_reduce(net)
    assert small.num_hidden <= net.num_hidden
    assert _same_on_samples(net, small)


def test_cli_certificate_verifies(tmp_path, capsys):
    pytest.importorskip("exactnet.certificate")
    from exactnet.certificate import check_certificate_text

    net = Network.from_lists([([[1, 0], [0, 1]], [0, 0]), ([[-1, -1], [1, 1]], [-1, 0]), ([[5, 1]], [0])])
    src, dst, cert = tmp_path / "n.json", tmp_path / "small.json", tmp_path / "r.cert"
    save_network(net, str(src))
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(["reduce", str(src), "-o", str(dst), "--certificate", str(cert)])
    assert args.func(args) == 0
    r = check_certificate_text(cert.read_text(), network=net)
    assert r.verified and r.conclusion == "EQUIVALENT"
    assert load_network(str(dst)).num_hidden < net.num_hidden


def test_composition_never_adds_parameters():
    # a layer of one affine pair between wide layers: composing it would multiply parameters
    n = 6
    first = [[int(i == j) for j in range(n)] for i in range(n)]
    pair = [[1] * n, [-1] * n]
    wide = [[1, -1] for _ in range(n)]
    net = Network.from_lists([(first, [0] * n), (pair, [0, 0]), (wide, [0] * n), ([[1] * n], [0])])
    r = _check(net)
    assert r.network.num_parameters <= net.num_parameters
