"""Lower bounds on hidden neurons for any architecture (proofs/lemmas/minimal_deep_lower_bound.md).

Oracles: for one input and one hidden layer the kinks are exactly the visible classes of the
shallow invariants (an independent computation); the bound never exceeds the size of a network
that computes ``f`` (the input itself, or the exact one-hidden-layer minimum); the width table
is checked by enumerating every width tuple.
"""

import itertools
import math

import pytest
from flint import fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

from exactnet.errors import ShapeError
from exactnet.examples import example
from exactnet.minimality import deep_lower_bound, line_kinks, minimal_shallow, neurons_needed
from exactnet.network import Network
from exactnet.randnet import random_network
from exactnet.shallow import invariants


@pytest.mark.parametrize("seed", range(15))
def test_kinks_equal_visible_classes_in_one_dimension(seed):
    net = random_network((1, 5, 2), seed=seed, max_num=4, max_den=3)
    assert len(line_kinks(net, [0], [1])) == len(invariants(net).classes)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([(2, 3, 1), (2, 2, 2, 1), (1, 3, 3, 1), (3, 2, 2, 2, 1), (2, 4, 2)]),
       st.integers(0, 10**6), st.lists(st.integers(-5, 5), min_size=6, max_size=6))
def test_kink_count_respects_the_product_bound(arch, seed, coords):
    net = random_network(arch, seed=seed, max_num=5, max_den=3)
    n = arch[0]
    a, d = [fmpq(v, 3) for v in coords[:n]], [fmpq(v) for v in coords[3:3 + n]]
    if not any(d):
        d[0] = fmpq(1)
    B = len(line_kinks(net, a, d))
    assert B + 1 <= math.prod(w + 1 for w in arch[1:-1])
    lb = deep_lower_bound(net, count=4, seed=seed)
    assert lb.any_depth <= net.num_hidden
    assert lb.by_hidden_layers[net.depth - 1] <= net.num_hidden


@pytest.mark.parametrize("seed", range(10))
def test_never_above_the_exact_shallow_minimum(seed):
    net = random_network((2, 4, 1), seed=seed, max_num=4, max_den=3)
    lb = deep_lower_bound(net, count=8, seed=seed)
    exact = minimal_shallow(net).neurons
    assert lb.by_hidden_layers[1] <= exact
    assert lb.any_depth <= exact


def test_example_b_is_minimal_among_all_architectures():
    # proofs/lemmas/minimal_deep_example.md, Claim 2, now by the kink count
    lb = deep_lower_bound(example("B"))
    assert lb.any_depth == 2 == example("B").num_hidden


def test_deep_bound_beats_depth_free_reasoning():
    # tent-map composition: h -> 2 relu(h) - 4 relu(h - 1/2) three times (N = 6)
    layers = [([[1], [1]], [0, fmpq(-1, 2)])]
    layers += [([[2, -4], [2, -4]], [0, fmpq(-1, 2)])] * 2
    layers += [([[2, -4]], [0])]
    net = Network.from_lists(layers)
    lb = deep_lower_bound(net, lines=[([0], [1])])
    assert len(lb.kinks) >= 7
    assert lb.any_depth >= 3 and lb.by_hidden_layers[1] >= 7


@pytest.mark.parametrize("B", range(0, 40))
def test_neurons_needed_by_enumeration(B):
    for k in (1, 2, 3):
        best = min(sum(ws) for N in range(k, 45) for ws in itertools.product(range(1, N + 1), repeat=k)
                   if sum(ws) == N and math.prod(w + 1 for w in ws) >= B + 1)
        assert neurons_needed(B, k) == best
    assert neurons_needed(B) == min(N for N in range(0, 45) if 2 ** N >= B + 1)


def test_affine_and_bad_lines():
    lin = Network.from_lists([([[1, 2]], [3])])
    assert deep_lower_bound(lin).any_depth == 0
    with pytest.raises(ShapeError):
        line_kinks(example("A"), [0, 0], [0, 0])


def test_example_a_is_minimal_among_all_architectures():
    # three pairwise non-parallel full lines (Lemma 3) and three neurons in A itself
    lb = deep_lower_bound(example("A"))
    assert lb.reasons["directions"] == 3 and lb.normal_rank == 2
    assert lb.any_depth == 3 == example("A").num_hidden


@pytest.mark.parametrize("arch,seed", [((2, 3, 1), 1), ((2, 2, 2, 1), 2), ((3, 3, 2, 1), 3), ((2, 1, 3, 1), 4)])
def test_face_normals_within_the_first_layer(arch, seed):
    net = random_network(arch, seed=seed, max_num=4, max_den=3)
    lb = deep_lower_bound(net, count=6, seed=seed)
    assert lb.directions is not None
    assert lb.normal_rank <= arch[1]  # Lemma 2 for the network itself
    assert lb.normal_rank <= net.input_dim
    assert lb.any_depth <= net.num_hidden
    for k in range(1, 5):
        assert lb.by_hidden_layers[k] >= k


def test_width_one_chain_has_parallel_faces():
    # (2,1,1,1): every face is parallel to the first neuron's hyperplane (Lemma 3's deep case)
    counts = [len(deep_lower_bound(random_network((2, 1, 1, 1), seed=s, max_num=4, max_den=3),
                                   count=2).directions) for s in range(8)]
    assert max(counts) == 1
