"""Exact sign proofs of fdim (branch and bound, exact LP multipliers) against the region complex oracle."""

import random

import pytest
from flint import fmpq

from exactnet.fdim import (
    _exact_multipliers,
    functional_dimension,
    prove_constant_signs,
    prove_never_coactive,
    sign_facts,
    structural_kernel,
    stacked_jacobian,
)
from exactnet.network import Network
from exactnet.randnet import random_network
from exactnet.regions import compute_regions

pytest.importorskip("scipy")


def _cell_points(cx):
    for c in cx.cells:
        yield list(c.interior_point)
        for v in c.corners or ():
            yield list(v)


def _hidden(net):
    return [(l, i) for l in range(2, net.depth) for i in range(net.architecture[l])]


CASES = [((2, 3, 3, 1), s) for s in range(6)] + [((2, 3, 3, 3, 1), s) for s in range(6)] + \
    [((2, 4, 2, 3, 1), s) for s in range(4)]


@pytest.mark.parametrize("arch,seed", CASES)
def test_proved_signs_hold_on_every_cell(arch, seed):
    net = random_network(arch, seed=seed, max_num=5, max_den=2)
    cx = compute_regions(net, certificate=False)
    pts = list(_cell_points(cx))
    hid = _hidden(net)
    dead, active, wit = prove_constant_signs(net, hid, hid, budget=20.0)
    for x in pts:
        z = net.preactivations(x)
        for l, i in dead:
            assert z[l - 1][i] <= 0
        for l, i in active:
            assert z[l - 1][i] >= 0
    for x in wit:  # a witness shows the candidate's other sign
        assert any(net.preactivations(x)[l - 1][i] != 0 for l, i in hid)
    # completeness on these small cases: a neuron of constant sign on the cells is mostly proved
    const = {(l, i) for l, i in hid
             if all(net.preactivations(x)[l - 1][i] <= 0 for x in pts)}
    assert dead <= const


@pytest.mark.parametrize("arch,seed", CASES[:10])
def test_proved_never_coactive_pairs_hold_on_every_cell(arch, seed):
    net = random_network(arch, seed=seed, max_num=5, max_den=2)
    cx = compute_regions(net, certificate=False)
    pairs = [((l, i), (l - 1, j)) for l in range(2, net.depth) for i in range(net.architecture[l])
             for j in range(net.architecture[l - 1])]
    dd, aa, _, _ = sign_facts(net)
    proved, _ = prove_never_coactive(net, pairs, dd, aa, budget=20.0)
    for c in cx.cells:
        z = net.preactivations(list(c.interior_point))
        for (l, i), (l2, j) in proved:
            assert not (z[l - 1][i] > 0 and z[l2 - 1][j] > 0)


def test_exact_multipliers_refuse_a_false_bound():
    # maximize v0 subject to v0 >= 0 (row 0) and 1 - v0 >= 0 (row 1): the sup is 1, not <= 0
    G = [[fmpq(1)], [fmpq(-1)]]
    g = [fmpq(0), fmpq(1)]
    assert _exact_multipliers(G, g, [fmpq(1)], fmpq(0), [1], False) is None
    # ... but v0 - 1 <= 0 is proved by the multiplier 1 on row 1
    assert _exact_multipliers(G, g, [fmpq(1)], fmpq(-1), [1], False) == [fmpq(1)]
    # an empty set {v >= 1, -v >= 0}: Farkas multipliers (1/2, 1/2)
    assert _exact_multipliers([[fmpq(1)], [fmpq(-1)]], [fmpq(-1), fmpq(0)], [fmpq(0)], fmpq(0), [0, 1], True)


def test_deep_dead_neuron_is_proved_and_lowers_the_bound():
    # z_(3,1) = h2_1 - h2_2 with h2_1 = relu(x1) and h2_2 = relu(x1) + 1: always -1, mixed-sign weights.
    net = Network.from_lists([
        ([[1, 0], [0, 1]], [0, 0]),
        ([[1, 0], [1, 0]], [0, 1]),
        ([[1, -1], [1, 1]], [0, 0]),
        ([[1, 1]], [0]),
    ])
    dd, aa, _, _ = sign_facts(net)
    assert (3, 0) not in dd  # mixed signs: not visible from the weights
    dead, active, _ = prove_constant_signs(net, [(3, 0)], [], budget=20.0)
    assert (3, 0) in dead
    r = functional_dimension(net, use_regions=False)
    r2 = functional_dimension(net, use_regions=True, prove_signs=False)
    assert r2.status == "exact" and r.functional_dimension == r2.functional_dimension
    r3 = functional_dimension(net, use_regions=False, prove_signs=False)
    assert r2.functional_dimension <= r.upper_bound < r3.upper_bound  # the proof lowered the proved bound
    assert any(d["name"] == "(3,1)" and d["reason"] == "dead" and d["scope"] == "proved-lp" for d in r.deficient)


@pytest.mark.parametrize("arch,seed", [((2, 3, 3, 1), s) for s in range(8)] + [((2, 3, 3, 3, 1), s) for s in range(8)]
                         + [((2, 3, 3, 3, 1), s) for s in (11, 14, 25, 28)])
def test_sampled_exact_answers_agree_with_the_complex(arch, seed):
    net = random_network(arch, seed=seed, max_num=5, max_den=2)
    fast = functional_dimension(net, use_regions=False, seed=seed)
    ref = functional_dimension(net, use_regions=True, prove_signs=False, seed=seed + 1)
    if ref.status != "exact" or fast.status == "undefined":
        return
    if fast.status == "exact":
        assert fast.functional_dimension == ref.functional_dimension
    assert fast.functional_dimension <= ref.functional_dimension <= fast.upper_bound
    # every kernel vector behind the proved upper bound (structural and LP-proved) annihilates
    # the Jacobian at the complex's points
    vecs = fast.kernel_vectors
    assert len(vecs) >= net.num_hidden
    rows = stacked_jacobian(net, ref.points)
    for v in vecs:
        assert all(sum((a * b for a, b in zip(row, v)), fmpq(0)) == 0 for row in rows)


@pytest.mark.parametrize("arch,seed", [((2, 3, 3, 1), s) for s in range(6)] + [((2, 2, 3, 3, 1), s) for s in range(4)])
def test_proved_same_activation_triples_hold_and_their_vectors_annihilate(arch, seed):
    from exactnet.fdim import prove_same_where_active

    net = random_network(arch, seed=seed, max_num=5, max_den=2)
    L = net.depth
    n = net.architecture[L - 1]
    triples = [(a, b, j) for a in range(n) for b in range(a + 1, n) for j in range(net.architecture[L - 2])]
    dd, aa, _, _ = sign_facts(net)
    proved, _ = prove_same_where_active(net, triples, dd, aa, budget=20.0)
    cx = compute_regions(net, certificate=False)
    for c in cx.cells:
        z = net.preactivations(list(c.interior_point))
        for a, b, j in proved:
            if z[L - 3][j] > 0:
                assert not (z[L - 2][a] > 0 > z[L - 2][b] or z[L - 2][b] > 0 > z[L - 2][a])
    vecs, _ = structural_kernel(net, same_where_active=proved)
    pts = [list(c.interior_point) for c in cx.cells if net.is_generic_point(list(c.interior_point))]
    rows = stacked_jacobian(net, pts)
    for v in vecs[-len(proved):] if proved else []:
        assert all(sum((x * y for x, y in zip(row, v)), fmpq(0)) == 0 for row in rows)


# ------------------------------------------------------------ affine relations where a neuron is active
def _relation_net():
    # h1 = relu(x1); layer 2: relu(h1 - 1), relu(2 h1 - 3), relu(10 - h1); z_(3,1) = relu(h1 - 1) - 5 > 0
    # only for h1 > 6, where the first two are affine in h1: 2 a - b - 1 = 0 (a, b not stably active)
    return Network.from_lists([
        ([[1, 0]], [0]),
        ([[1], [2], [-1]], [-1, -3, 10]),
        ([[1, 0, 0], [1, 1, 1]], [-5, -1]),
        ([[1, 1]], [0]),
    ])


def test_relation_where_active_is_proved_and_closes_the_gap(gap_closed_by):
    import exactnet.fdim as F

    ref, fast, without = gap_closed_by(_relation_net(), 0, F, "prove_relations_where_active", ([], []))
    assert "1 affine relations" in fast.note
    assert without.upper_bound == ref.functional_dimension + 1


def test_proved_relations_hold_and_annihilate_on_every_cell():
    from exactnet.fdim import prove_relations_where_active, relation_candidates, relation_vectors

    net = _relation_net()
    pts = functional_dimension(net, use_regions=True, prove_signs=False).points  # every region, n0 + 1 each
    cands = relation_candidates(net, functional_dimension(net, use_regions=False).points)
    dd, aa, _, _ = sign_facts(net)
    proved, _ = prove_relations_where_active(net, cands, dd, aa, budget=20.0)
    assert proved
    rows = stacked_jacobian(net, pts)
    for v in relation_vectors(net, proved):
        assert all(sum((a * b for a, b in zip(row, v)), fmpq(0)) == 0 for row in rows)


@pytest.mark.parametrize("arch,seed", [((2, 3, 3, 1), s) for s in range(5)] + [((2, 2, 3, 3, 1), s) for s in range(5)])
def test_relations_on_random_networks_hold_on_every_cell(arch, seed):
    """Independent oracle: the complex. Proposals from a few sampled points (many false ones), and
    every relation the prover accepts holds at every cell's interior point and corner."""
    from exactnet.fdim import prove_relations_where_active, relation_candidates

    net = random_network(arch, seed=seed, max_num=5, max_den=2)
    rng = random.Random(seed)
    few = [[fmpq(rng.randint(-20, 20), rng.randint(1, 4)) for _ in range(2)] for _ in range(6)]
    few = [x for x in few if net.is_generic_point(x)]
    dd, aa, _, irr = sign_facts(net)
    cands = relation_candidates(net, few, skip=frozenset(dd | irr))
    proved, wit = prove_relations_where_active(net, cands, dd, aa, budget=20.0)
    cx = compute_regions(net, certificate=False)
    for x in _cell_points(cx):
        z = net.preactivations(x)
        for (l, i), c in proved:
            if z[l - 1][i] > 0:
                h = [max(t, 0) for t in z[l - 2]]
                assert sum((a * b for a, b in zip(c, h)), c[-1]) == 0
    for x in wit:  # a refutation is a point where the neuron is active and the relation fails
        assert any(net.preactivations(x)[l - 1][i] > 0 for (l, i), _ in cands)


# ------------------------------------------------------------ irrelevance through pairs, active where needed
def test_active_where_needed_closes_a_gap_the_complex_confirms(gap_closed_by):
    import exactnet.fdim as F

    net = random_network((2, 3, 3, 3, 1), 11)  # found by scanning seeds against the complex
    _, fast, _ = gap_closed_by(net, 11, F, "prove_active_where_needed", (frozenset(), []))
    assert "1 neurons active wherever a successor is" in fast.note


@pytest.mark.parametrize("arch,seed", [((2, 3, 3, 1), s) for s in range(4)] + [((2, 3, 3, 3, 1), s) for s in range(8)])
def test_active_where_needed_and_pair_irrelevance_hold_on_every_cell(arch, seed):
    """Oracle: the complex. Every proved fact holds at every cell; all kernel vectors annihilate the
    Jacobian at the complex's points (n0 + 1 per region)."""
    from exactnet.fdim import irrelevant_with_pairs, prove_active_where_needed

    net = random_network(arch, seed=seed, max_num=5, max_den=2)
    A, L = net.architecture, net.depth
    dd, aa, _, irr = sign_facts(net)
    pairs = [((l, i), (l - 1, j)) for l in range(2, L) for i in range(A[l]) for j in range(A[l - 1])]
    pco, _ = prove_never_coactive(net, pairs, dd, aa, budget=20.0)
    irr_x = irrelevant_with_pairs(net, irr, pco)
    cands = [(l, a) for l in range(1, L - 1) for a in range(A[l]) if (l, a) not in dd | aa | irr_x]
    need, wit = prove_active_where_needed(net, cands, dd, aa, irr_x, budget=20.0)
    cx = compute_regions(net, certificate=False)
    for x in _cell_points(cx):
        z = net.preactivations(x)
        for l, a in need:
            if z[l - 1][a] < 0:
                assert all(z[l][k] <= 0 for k in range(A[l + 1])
                           if net.weights(l + 1)[k][a] != 0 and (l + 1, k) not in irr_x)
    for x in wit:
        z = net.preactivations(x)
        assert any(z[l - 1][a] < 0 for l, a in cands)
    vecs, _ = structural_kernel(net, never_coactive=pco, active_where_needed=need)
    ref = functional_dimension(net, use_regions=True, prove_signs=False, seed=seed)
    if ref.status == "exact" and ref.complete:
        rows = stacked_jacobian(net, ref.points)
        for v in vecs:
            assert all(sum((a * b for a, b in zip(row, v)), fmpq(0)) == 0 for row in rows)


def test_a_neuron_whose_successors_are_never_active_with_it_is_irrelevant():
    from exactnet.fdim import irrelevant_with_pairs

    # h_(1,1) = relu(x1) feeds only z_(2,1) = relu(-x1) - 5 relu(x1) - 1, which is < 0 wherever x1 > 0
    net = Network.from_lists([
        ([[1, 0], [-1, 0], [0, 1]], [0, 0, 0]),
        ([[-5, 1, 0], [0, 1, 1]], [-1, 0]),
        ([[1, 1]], [0]),
    ])
    dd, aa, _, irr = sign_facts(net)
    assert (1, 0) not in irr
    pco, _ = prove_never_coactive(net, [((2, 0), (1, 0))], dd, aa, budget=20.0)
    assert irrelevant_with_pairs(net, irr, pco) - irr == {(1, 0)}
    vecs, found = structural_kernel(net, never_coactive=pco)
    assert any(d["name"] == "(1,1)" and d["reason"] == "no-path-to-output" and d["scope"] == "proved-lp"
               for d in found)
    ref = functional_dimension(net, use_regions=True, prove_signs=False)
    assert ref.status == "exact" and ref.complete
    rows = stacked_jacobian(net, ref.points)
    for v in vecs:
        assert all(sum((a * b for a, b in zip(row, v)), fmpq(0)) == 0 for row in rows)
    fast = functional_dimension(net, use_regions=False)
    assert fast.status == "exact" and fast.functional_dimension == ref.functional_dimension
    assert fast.upper_bound < structural_kernel_upper(net)


def structural_kernel_upper(net):
    from exactnet.fdim import _kernel_rank_lower
    return net.num_parameters - _kernel_rank_lower(structural_kernel(net)[0], net.num_parameters)
