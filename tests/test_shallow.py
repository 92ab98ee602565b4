"""One hidden layer: invariants, equivalence with witnesses, verdicts and their certificates."""

import argparse
import json
import random

import pytest
from flint import fmpq

from exactnet.cert_shallow import certificate_for
from exactnet.cli_shallow import equiv_result, register
from exactnet.errors import UndecidedError
from exactnet.examples import example
from exactnet.netio import save_network
from exactnet.network import Network
from exactnet.randnet import random_network
from exactnet.shallow import (decide_shallow, find_flip_set, flip_vectors, invariants, orbit_key,
                              shallow_equivalent)
from exactnet.symmetry import canonical_form, random_orbit_element, same_orbit
from proofs.check import check_text


def _check(net, v):
    return check_text(certificate_for(net, v))


def _pts(n0, k=20, seed=0):
    rng = random.Random(seed)
    return [[fmpq(rng.randint(-30, 30), rng.randint(1, 7)) for _ in range(n0)] for _ in range(k)]


def _net(W, b, V, d):
    return Network.from_lists([(W, b), (V, d)])


def test_example_A_flip_all_three():
    A = example("A")
    v = decide_shallow(A)
    assert v.verdict == "HIDDEN-SYMMETRY" and v.mechanism == "flip-set"
    expected = _net([[-1, 0], [0, -1], [1, 1]], [0, 0, -1], [[1, 1, 1]], [1])
    assert v.other == expected
    assert shallow_equivalent(A, v.other).equivalent
    assert A.evaluate_batch(_pts(2)) == v.other.evaluate_batch(_pts(2))
    assert not same_orbit(A, v.other) and canonical_form(A) != canonical_form(v.other)
    assert _check(A, v)[:2] == (0, "s VERIFIED HIDDEN-SYMMETRY")


def test_perturbed_A_is_identifiable():
    net = _net([[1, 0], [0, 1], [-1, -1]], [0, 0, 1], [[1, 2, fmpq(3, 2)]], [0])
    v = decide_shallow(net)
    assert v.verdict == "IDENTIFIABLE" and v.body[0] == "rule shallow-1"
    assert _check(net, v)[:2] == (0, "s VERIFIED IDENTIFIABLE")


@pytest.mark.parametrize("seed", range(12))
def test_orbit_elements_share_invariants_and_key(seed):
    net = random_network(random.Random(seed).choice([(1, 3, 1), (2, 4, 2), (3, 5, 3)]), seed)
    g = random_orbit_element(net, seed)
    assert invariants(g) == invariants(net) and orbit_key(g) == orbit_key(net)
    assert shallow_equivalent(net, g) == (True, None)


@pytest.mark.parametrize("seed", range(12))
def test_inequivalent_pairs_get_a_real_witness(seed):
    arch = random.Random(seed).choice([(1, 2, 1), (2, 3, 1), (2, 3, 2), (3, 2, 3)])
    a, b = random_network(arch, seed, max_num=3, max_den=2), random_network(arch, seed + 100, max_num=3, max_den=2)
    res = shallow_equivalent(a, b)
    if res.equivalent:
        assert a.evaluate_batch(_pts(arch[0])) == b.evaluate_batch(_pts(arch[0]))
    else:
        assert a.evaluate(list(res.witness)) != b.evaluate(list(res.witness))


def test_witness_for_a_tiny_difference_and_an_affine_difference():
    a = _net([[1, 0], [1, 1]], [0, 0], [[1, 1]], [0])
    b = _net([[1, 0], [1, 1]], [0, 0], [[1, 1]], [fmpq(1, 1000)])
    res = shallow_equivalent(a, b)
    assert not res.equivalent and a.evaluate(list(res.witness)) != b.evaluate(list(res.witness))
    # same kinks, one class moved out of the way: the difference lives near one hyperplane
    c = _net([[1, 0], [1, 1]], [0, 0], [[1, 1]], [0])
    e = _net([[1, 0], [2, 2]], [0, fmpq(1, 10**6)], [[1, fmpq(1, 2)]], [0])
    res = shallow_equivalent(c, e)
    assert not res.equivalent and c.evaluate(list(res.witness)) != e.evaluate(list(res.witness))


def test_relu_identity_opposite_pair_is_affine():
    # relu(x) - relu(-x) = x: equals a network with a dead neuron and output bias adjusted
    a = _net([[1], [-1]], [0, 0], [[1, -1]], [0])
    b = _net([[0], [1]], [-1, 0], [[5, 0]], [0])
    assert not shallow_equivalent(a, b).equivalent
    assert invariants(a).classes == () and invariants(a).A == ((1,),)


MECH = [
    ("zero-incoming-row", _net([[0, 0], [1, 2]], [3, 1], [[1, 2]], [0])),
    ("zero-outgoing-weights", _net([[1, 0], [1, 2]], [3, 1], [[0, 2]], [0])),
    ("proportional-neurons", _net([[1, 1], [2, 2], [0, 1]], [1, 2, 0], [[1, 3, 1]], [0])),
    ("invisible-class", _net([[1, 1], [-2, -2], [0, 1]], [1, -2, 0], [[2, -1, 1]], [0])),
    ("flip-set", _net([[1, 0], [0, 1], [-1, -1], [3, 1]], [0, 0, 1, 1], [[1, 1, 1, 1]], [0])),
]


@pytest.mark.parametrize("mech,net", MECH, ids=[m for m, _ in MECH])
def test_each_mechanism_gives_a_checked_theta_prime(mech, net):
    v = decide_shallow(net)
    assert v.verdict == "HIDDEN-SYMMETRY" and v.mechanism == mech
    assert shallow_equivalent(net, v.other).equivalent
    assert net.evaluate_batch(_pts(2)) == v.other.evaluate_batch(_pts(2))
    assert orbit_key(net) != orbit_key(v.other)
    assert _check(net, v)[:2] == (0, "s VERIFIED HIDDEN-SYMMETRY")


def test_visible_opposite_pair_alone_is_identifiable():
    # relu(x) + 2 relu(-x) = 3 relu(x) - 2x: the linear term needs both neurons (Theorem 4)
    net = _net([[1], [-1]], [0, 0], [[1, 2]], [0])
    v = decide_shallow(net)
    assert v.verdict == "IDENTIFIABLE" and v.body == ["rule shallow-2"]
    assert _check(net, v)[:2] == (0, "s VERIFIED IDENTIFIABLE")


def test_vector_output_flip_set_needs_every_output():
    # flip set for output 1 only is no flip set: u_j are matrices V_j w_j^T
    W, b = [[1, 0], [0, 1], [-1, -1]], [0, 0, 1]
    one = _net(W, b, [[1, 1, 1], [1, 2, 3]], [0, 0])
    assert find_flip_set(flip_vectors(one), range(3)) is None
    assert decide_shallow(one).verdict == "IDENTIFIABLE"
    both = _net(W, b, [[1, 1, 1], [2, 2, 2]], [0, 0])
    assert decide_shallow(both).verdict == "HIDDEN-SYMMETRY"


@pytest.mark.parametrize("arch", [(10, 32, 3), (2, 16, 1), (4, 12, 2)])
def test_random_certificates_verify(arch):
    for s in range(3):
        net = random_network(arch, s)
        v = decide_shallow(net)
        if v.verdict != "UNDECIDED":
            assert _check(net, v)[0] == 0


def test_forged_certificates_are_rejected():
    from exactnet.cert_shallow import frame
    A = example("A")
    # IDENTIFIABLE for example A: the exhaustive step finds the flip set
    code, _, diag = check_text(frame("IDENTIFIABLE", A, ["rule shallow-1", "exclude exhaustive"]))
    assert code == 1 and "E_FLIP_SET" in diag[0]
    code, _, diag = check_text(frame("IDENTIFIABLE", A, ["rule shallow-1", "exclude independent"]))
    assert code == 1 and "E_DEPENDENT" in diag[0]
    code, _, diag = check_text(frame("IDENTIFIABLE", A, ["rule shallow-1", "exclude positive 1 1"]))
    assert code == 1 and "E_NOT_POSITIVE" in diag[0]
    code, _, diag = check_text(frame("IDENTIFIABLE", A, ["rule shallow-1"]))
    assert code == 1 and "E_INCOMPLETE" in diag[0]
    code, _, diag = check_text(frame("IDENTIFIABLE", A, ["rule deep-9"]))
    assert code == 1 and "E_RULE_UNKNOWN" in diag[0]
    # theta' in the orbit, and theta' not equivalent
    g = random_orbit_element(A, 3)
    body = ["mechanism flip-set", "equivalence shallow-invariants"]
    code, _, diag = check_text(frame("HIDDEN-SYMMETRY", A, body, g))
    assert code == 1 and "E_ORBIT" in diag[0]
    wrong = _net([[-1, 0], [0, -1], [1, 1]], [0, 0, -1], [[1, 1, 1]], [2])
    code, _, diag = check_text(frame("HIDDEN-SYMMETRY", A, body, wrong))
    assert code == 1 and "E_NOT_EQUIVALENT" in diag[0]
    code, _, diag = check_text(frame("HIDDEN-SYMMETRY", A, ["mechanism x", "equivalence magic"], wrong))
    assert code == 2 and "E_METHOD" in diag[0]
    # a replayed flip rule is accepted as the equivalence too
    v = decide_shallow(A)
    code, line, _ = check_text(frame("HIDDEN-SYMMETRY", A, ["mechanism flip-set", "equivalence rule flip 1 0 1 2"], v.other))
    assert (code, line) == (0, "s VERIFIED HIDDEN-SYMMETRY")
    # an identifiable certificate with one number of phi changed is rejected or still valid by the rule
    net = random_network((10, 32, 3), 0)
    v = decide_shallow(net)
    assert v.verdict == "IDENTIFIABLE" and v.body[1].startswith("exclude positive")
    toks = v.body[1].split(" ")
    toks[2] = "-1000000"
    code, _, diag = check_text(frame("IDENTIFIABLE", net, [v.body[0], " ".join(toks)] + v.body[2:]))
    assert code == 1 and "E_NOT_POSITIVE" in diag[0]


def _run(argv):
    p = argparse.ArgumentParser()
    register(p.add_subparsers())
    args = p.parse_args(argv)
    return args.func(args)


def test_cli_equiv(tmp_path, capsys):
    A = example("A")
    other = decide_shallow(A).other
    pa, pb, pc = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    save_network(A, pa)
    save_network(other, pb)
    save_network(_net([[1, 0], [0, 1], [-1, -1]], [0, 0, 1], [[1, 2, 1]], [0]), pc)
    assert _run(["equiv", str(pa), str(pb), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"equivalent": True}
    assert _run(["equiv", str(pa), str(pc), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["equivalent"] is False and out["outputs"] != out["other_outputs"]
    x = [fmpq(*map(int, (s + "/1").split("/")[:2])) for s in out["witness"]]
    assert [str(v) for v in A.evaluate(x)] == out["outputs"]
    with pytest.raises(UndecidedError, match="deep equivalence"):
        equiv_result(example("C"), example("C"))


def test_equivalence_across_hidden_widths():
    A = example("A")
    wider = _net([[1, 0], [0, 1], [-1, -1], [0, 0]], [0, 0, 1, -3], [[1, 1, 1, 7]], [0])
    assert shallow_equivalent(A, wider).equivalent
    shifted = _net([[1, 0], [0, 1], [-1, -1], [0, 0]], [0, 0, 1, 3], [[1, 1, 1, 7]], [0])
    res = shallow_equivalent(A, shifted)
    assert not res.equivalent and A.evaluate(list(res.witness)) != shifted.evaluate(list(res.witness))
