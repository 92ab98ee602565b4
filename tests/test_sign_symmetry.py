"""Neurons dead or stably active on the whole input space without a structural reason: certify
answers HIDDEN-SYMMETRY with a checked common complex (exactnet.sign_symmetry), checked here
against independent oracles (the region complex's patterns, exact evaluation, canonical forms)."""

import random

import pytest
from flint import fmpq

from exactnet.certificate import check_certificate_text
from exactnet.certify import certify
from exactnet.fdim import sign_facts
from exactnet.network import Network
from exactnet.randnet import random_network
from exactnet.regions import compute_regions
from exactnet.sign_symmetry import constant_sign_candidates, find_sign_symmetry, preactivation_signs
from exactnet.symmetry import same_orbit
from exactnet.symmetry_rules import find_rules

pytest.importorskip("scipy")

Q = fmpq


def _net(z1_row, z1_bias):
    """(2,3,2,1): h = relu(x1), relu(x1 + 1), relu(x2); z1 given; z2 = h3 - h1 + 1; y = z1 + 2 z2."""
    return Network.from_lists([
        ([[1, 0], [1, 0], [0, 1]], [0, 1, 0]),
        ([z1_row, [-1, 0, 1]], [z1_bias, 1]),
        ([[1, 2]], [0]),
    ])


DEAD = _net([1, -1, 0], Q(-1, 2))     # z1 = relu(x1) - relu(x1 + 1) - 1/2 <= -1/2: dead, mixed signs
ACTIVE = _net([-1, 1, 0], Q(0))       # z1 = relu(x1 + 1) - relu(x1) in [0, 1]: stably active
FAR = _net([1, 0, 0], Q(-10 ** 6))    # z1 = relu(x1) - 10^6: positive only for x1 > 10^6
# z1 = relu(-x1) - relu(x1) - 1/2 > 0 only where x1 < -1/2, where relu(x1) = 0: (1,1), (2,1) never both active
PAIR = Network.from_lists([([[1, 0], [-1, 0], [0, 1]], [0, 0, 0]), ([[-1, 1, 0], [1, 0, 1]], [Q(-1, 2), -1]),
                           ([[1, 2]], [0])])


def _random_points(n0, count, seed):
    rng = random.Random(seed)
    return [[Q(rng.randint(-400, 400), rng.randint(1, 9)) for _ in range(n0)] for _ in range(count)]


def _assert_proved_hidden_symmetry(net, res, mechanism):
    assert res.verdict == "HIDDEN-SYMMETRY" and res.mechanism == mechanism, res.reason
    chk = check_certificate_text(res.certificate, network=net)
    assert chk.verified and chk.conclusion == "HIDDEN-SYMMETRY"
    for x in _random_points(net.input_dim, 200, 1):  # oracle: exact evaluation
        assert net.evaluate(x) == res.other.evaluate(x)
    assert not same_orbit(net, res.other)


@pytest.mark.parametrize("net,mechanism", [(DEAD, "dead-neuron"), (ACTIVE, "stably-active-neuron"),
                                           (PAIR, "never-coactive-pair")])
def test_no_structural_rule_but_certified(net, mechanism):
    assert not list(find_rules(net))
    dead, active = sign_facts(net)[:2]
    assert (2, 0) not in dead | active  # not structural
    _assert_proved_hidden_symmetry(net, certify(net), mechanism)


def test_the_pair_move_lowers_the_weight_and_raising_it_would_not_do():
    hit = find_sign_symmetry(PAIR)
    assert (hit.kind, hit.layer, hit.index, hit.partner) == ("pair", 2, 0, 0)
    assert hit.other.weights(2)[0][0] == PAIR.weights(2)[0][0] - 1
    raised = PAIR.replace_layer(2, [[Q(1), Q(1), Q(0)], [Q(1), Q(0), Q(1)]], PAIR.biases(2))
    assert raised.evaluate([Q(1), Q(0)]) != PAIR.evaluate([Q(1), Q(0)])  # z1 = 1/2 there: switched on


def test_sample_misses_a_far_region_and_the_lp_refutes_it():
    hit = find_sign_symmetry(FAR)
    assert hit is None or (hit.layer, hit.index) != (2, 0)
    assert FAR.preactivations([Q(10 ** 6 + 1), Q(0)])[1][0] > 0
    res = certify(FAR)
    assert res.mechanism not in ("dead-neuron",) or "(2,1)" not in res.reason


def test_bounded_complex_gives_the_neuron_and_no_verdict():
    hit = find_sign_symmetry(DEAD, max_cells=1)
    assert hit is not None and hit.body is None and "complex" in hit.error and hit.name == "(2,1)"


def test_shallow_and_generic_networks_have_no_candidate():
    assert find_sign_symmetry(random_network((2, 5, 1), seed=0)) is None
    net = Network.from_lists([([[1, 0], [0, 1]], [0, 0]), ([[1, -1], [-1, 1]], [0, 0]), ([[1, 1]], [0])])
    assert constant_sign_candidates(net, preactivation_signs(net, [[Q(1), Q(0)], [Q(0), Q(1)]])) == ([], [])
    assert preactivation_signs(net, [[Q(1), Q(0)]]) == [[[1], [0]], [[1], [-1]]]


CASES = [((2, 3, 3, 1), s) for s in range(40)] + [((2, 2, 3, 2, 1), s) for s in range(20)] + \
    [((2, 4, 4, 1), s) for s in range(20)]


@pytest.mark.parametrize("arch,seed", CASES)
def test_every_reported_neuron_has_its_sign_on_every_cell(arch, seed):
    """Oracle: the exact region complex (a second algorithm) has the neuron's sign on every cell;
    theta' agrees with theta at random points and lies outside the orbit."""
    net = random_network(arch, seed=seed, max_num=5, max_den=2)
    hit = find_sign_symmetry(net)
    if hit is None:
        return
    cx = compute_regions(net, certificate=False)
    sign = -1 if hit.kind == "dead" else 1
    for c in cx.cells:  # the fact holds on every cell, at its interior point and at its corners
        for x in [c.interior_point, *(c.corners or ())]:
            z = net.preactivations(list(x))
            if hit.kind == "pair":
                assert z[hit.layer - 1][hit.index] <= 0 or z[hit.layer - 2][hit.partner] <= 0
            else:
                assert sign * z[hit.layer - 1][hit.index] >= 0
    for x in _random_points(net.input_dim, 60, seed):
        assert net.evaluate(x) == hit.other.evaluate(x)
    assert not same_orbit(net, hit.other)
    if hit.body is not None:
        from exactnet.equivalence import verify_equivalent_body

        verify_equivalent_body(net, hit.other, hit.body)
    if net.depth == 3:  # no global or local identifiability claim can co-occur with the symmetry
        from exactnet.deep_identifiable import certify_deep
        from exactnet.fdim import functional_dimension

        assert certify_deep(net).verdict != "IDENTIFIABLE"
        assert not functional_dimension(net).locally_identifiable


def test_the_oracle_cases_contain_hits_without_a_structural_reason():
    """The parametrised soundness test above is not vacuous: several of its hits need the LP."""
    kinds = []
    for a, s in CASES[:40]:
        net = random_network(a, seed=s, max_num=5, max_den=2)
        hit = find_sign_symmetry(net)
        if hit is not None and hit.body is not None and (hit.layer, hit.index) not in set().union(
                *sign_facts(net)[:2]):
            kinds.append(hit.kind)
    assert len(kinds) >= 3 and "pair" in kinds, kinds


def test_certify_says_which_neuron_when_the_complex_is_too_large(monkeypatch):
    import exactnet.equivalence as eq
    from exactnet.certify import _sign_symmetry
    from exactnet.errors import LimitError

    def too_large(*a, **k):
        raise LimitError("more than 20000 cells")

    monkeypatch.setattr(eq, "equivalent_body", too_large)
    res = _sign_symmetry(DEAD)
    assert res.verdict == "UNDECIDED" and res.certificate is None
    assert "(2,1) is dead" in res.reason and "20000 cells" in res.reason


def test_certify_reports_its_stages_in_order():
    from exactnet.certify import STAGES

    seen = []
    res = certify(DEAD, progress=seen.append)
    assert res.verdict == "HIDDEN-SYMMETRY"
    assert seen == [STAGES["_rule_symmetry"], STAGES["certify_deep"], STAGES["_sign_symmetry"],
                    "checking the certificate"]
