"""Exact equivalence of networks of any architectures (issue 7, part 1).

Oracles: exact evaluation at many rational points (a necessary condition for EQUIVALENT,
never presented as a proof) and the witness itself for NOT-EQUIVALENT.
"""

from __future__ import annotations

import argparse
import json
import random

import pytest
from flint import fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

from exactnet.cli_equiv import register, result_to_json
from exactnet.difference import difference_network, pad_network
from exactnet.equivalence import equivalent, random_points
from exactnet.errors import ShapeError
from exactnet.examples import example
from exactnet.netio import save_network
from exactnet.network import Network
from exactnet.randnet import random_network
from exactnet.strategies import architectures, networks
from exactnet.symmetry import random_orbit_element


def _agree_on_samples(a, b, n=60, box=None, c=1):
    for p in random_points(a.input_dim, n, seed=12345, box=box):
        if a.evaluate(p) != [c * v for v in b.evaluate(p)]:
            return False
    return True


def _check_result(a, b, res, box=None):
    if res.equivalent:
        assert _agree_on_samples(a, b, box=box)
    else:
        w = res.witness
        assert all(isinstance(x, fmpq) for x in w)
        if box is not None:
            assert all(box[0] <= x <= box[1] for x in w)
        assert a.evaluate(w) == res.outputs
        assert b.evaluate(w) == res.other_outputs
        assert res.outputs != res.other_outputs
        assert res.max_difference > 0


# ------------------------------------------------------------- difference network
@settings(max_examples=25)
@given(st.data())
def test_difference_network_computes_f_minus_g(data):
    a = data.draw(networks(arch=architectures(max_input=2, min_hidden_layers=0, max_hidden_layers=3)))
    arch_b = data.draw(architectures(min_input=a.input_dim, max_input=a.input_dim, min_hidden_layers=0,
                                     max_hidden_layers=3))
    b = data.draw(networks(arch=arch_b[:-1] + (a.output_dim,)))
    c = data.draw(st.sampled_from([fmpq(1), fmpq(3, 2)]))
    h = difference_network(a, b, c)
    assert h.depth == max(a.depth, b.depth)
    for p in random_points(a.input_dim, 10, seed=1):
        assert h.evaluate(p) == [u - c * v for u, v in zip(a.evaluate(p), b.evaluate(p))]


@pytest.mark.parametrize("hidden", [1, 2, 3])
def test_pad_preserves_function(hidden):
    lin = Network.from_lists([([[1, -2], [3, 0]], [1, fmpq(1, 2)])])
    shallow = random_network((2, 3, 2), 4)
    for net in (lin, shallow):
        if net.depth - 1 > hidden:
            continue
        p = pad_network(net, hidden)
        assert p.depth - 1 == hidden
        for x in random_points(2, 10, seed=2):
            assert p.evaluate(x) == net.evaluate(x)


def test_shape_mismatch_is_an_error():
    with pytest.raises(ShapeError):
        equivalent(random_network((2, 2, 1), 0), random_network((3, 2, 1), 0))
    with pytest.raises(ShapeError):
        equivalent(random_network((2, 2, 1), 0), random_network((2, 2, 2), 0))


# ------------------------------------------------------------- the cases
def test_perturbed_weight_is_not_equivalent():
    net = random_network((2, 4, 3, 1), 7)
    params = net.flatten()
    for k in (0, 5, len(params) - 3):
        q = list(params)
        q[k] += fmpq(1, 2**30)
        other = Network.unflatten(net.architecture, q)
        res = equivalent(net, other)
        assert not res.equivalent
        _check_result(net, other, res)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_orbit_element_is_equivalent(seed):
    net = random_network((2, 4, 3, 1), seed)
    other = random_orbit_element(net, seed)
    for simplify in (True, False):
        res = equivalent(net, other, simplify=simplify)
        assert res.equivalent and res.cells is not None
        _check_result(net, other, res)
    assert res.cells > 0


def test_relu_identity_against_linear():
    two = Network.from_lists([([[1], [-1]], [0, 0]), ([[1, -1]], [0])])
    lin = Network.from_lists([([[1]], [0])])
    assert lin.architecture == (1, 1)
    assert equivalent(two, lin).equivalent
    assert equivalent(lin, two).equivalent
    off = Network.from_lists([([[1]], [fmpq(1, 3)])])
    res = equivalent(two, off)
    assert not res.equivalent
    _check_result(two, off, res)


def _max_shallow():
    # max(a, b) = a + relu(b - a) = relu(a) - relu(-a) + relu(b - a)
    return Network.from_lists([([[1, 0], [-1, 0], [-1, 1]], [0, 0, 0]), ([[1, -1, 1]], [0])])


def _max_deep():
    # max(a, b) = relu(a - b) + b, with b carried as relu(b) - relu(-b), two hidden layers
    l1 = ([[1, -1], [0, 1], [0, -1]], [0, 0, 0])
    l2 = ([[1, 0, 0], [0, 1, 0], [0, 0, 1]], [0, 0, 0])
    return Network.from_lists([l1, l2, ([[1, 1, -1]], [0])])


def test_max_networks_of_different_depths():
    a, b = _max_shallow(), _max_deep()
    assert a.depth != b.depth
    assert equivalent(a, b).equivalent
    mn = Network.from_lists([([[1, 0], [-1, 0], [1, -1]], [0, 0, 0]), ([[1, -1, -1]], [0])])  # min(a, b)
    res = equivalent(mn, b)
    assert not res.equivalent
    _check_result(mn, b, res)


def test_example_a_against_flipped_form():
    a = example("A")
    flipped = Network.from_lists([([[-1, 0], [0, -1], [1, 1]], [0, 0, -1]), ([[1, 1, 1]], [1])])
    assert equivalent(a, flipped).equivalent  # opposite affine pairs: no complex needed
    res = equivalent(a, flipped, simplify=False)
    assert res.equivalent and res.cells > 0
    wrong = Network.from_lists([([[-1, 0], [0, -1], [1, 1]], [0, 0, -1]), ([[1, 1, 1]], [0])])
    res = equivalent(a, wrong)
    assert not res.equivalent
    _check_result(a, wrong, res)


def test_difference_only_far_away_needs_the_regions():
    # g = f + relu(x1 - 1000): random points never see it, the region complex must
    f = random_network((2, 3, 1), 5)
    rows = [list(r) for r in f.weights(1)] + [[1, 0]]
    g = Network.from_lists([(rows, list(f.biases(1)) + [-1000]), ([list(f.weights(2)[0]) + [1]], list(f.biases(2)))])
    for simplify in (True, False):  # shallow invariants / region complex
        res = equivalent(f, g, simplify=simplify)
        assert not res.equivalent
        _check_result(f, g, res)
        assert res.witness[0] > 1000
    assert res.cells is not None
    # on a box the two agree
    box = (fmpq(-1), fmpq(1))
    assert equivalent(f, g, box=box).equivalent


def test_box_witness_inside_box():
    f = Network.from_lists([([[1]], [0]), ([[1]], [0])])  # relu(x)
    g = Network.from_lists([([[1]], [-1]), ([[1]], [0])])  # relu(x - 1)
    box = (fmpq(-3), fmpq(-1))
    assert equivalent(f, g, box=box).equivalent
    box = (fmpq(-1), fmpq(2))
    res = equivalent(f, g, box=box)
    assert not res.equivalent
    _check_result(f, g, res, box=box)


@settings(max_examples=20)
@given(st.data())
def test_random_pairs_agree_with_sampling_oracle(data):
    arch = data.draw(architectures(max_input=2, max_hidden_layers=2, max_width=3))
    a = data.draw(networks(arch=arch))
    mode = data.draw(st.sampled_from(["orbit", "other", "perturb"]))
    if mode == "orbit":
        b = random_orbit_element(a, data.draw(st.integers(0, 100)))
    elif mode == "other":
        arch_b = data.draw(architectures(min_input=a.input_dim, max_input=a.input_dim, max_hidden_layers=2))
        b = data.draw(networks(arch=arch_b[:-1] + (a.output_dim,)))
    else:
        q = list(a.flatten())
        q[data.draw(st.integers(0, len(q) - 1))] += fmpq(1, 7)
        b = Network.unflatten(a.architecture, q)
    res = equivalent(a, b)
    _check_result(a, b, res)
    if mode == "orbit":
        assert res.equivalent
    assert equivalent(a, b, simplify=False).equivalent == res.equivalent


# ------------------------------------------------------------- scale
def test_scale_option():
    a = random_network((2, 3, 2, 1), 11)
    last = a.layers[-1]
    b = a.replace_layer(a.depth, [[v * fmpq(2, 3) for v in r] for r in last.weights], [v * fmpq(2, 3) for v in last.biases])
    assert not equivalent(a, b).equivalent
    res = equivalent(a, b, scale=True)
    assert res.equivalent and res.scale == fmpq(3, 2)
    neg = a.replace_layer(a.depth, [[-v for v in r] for r in last.weights], [-v for v in last.biases])
    if any(a.evaluate(p)[0] for p in random_points(2, 16, seed=1)):
        res = equivalent(a, neg, scale=True)
        assert not res.equivalent
    zero = Network.from_lists([([[0, 0]], [0])])
    res = equivalent(a, zero, scale=True)
    assert res.equivalent == _agree_on_samples(a, zero)


# ------------------------------------------------------------- CLI
def _run(argv):
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(argv)
    return args.func(args)


def test_cli_exit_codes_and_json(tmp_path, capsys):
    a = example("A")
    flipped = Network.from_lists([([[-1, 0], [0, -1], [1, 1]], [0, 0, -1]), ([[1, 1, 1]], [1])])
    wrong = Network.from_lists([([[-1, 0], [0, -1], [1, 1]], [0, 0, -1]), ([[1, 1, 1]], [0])])
    pa, pb, pc = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    save_network(a, str(pa)), save_network(flipped, str(pb)), save_network(wrong, str(pc))
    assert _run(["equiv", str(pa), str(pb), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "EQUIVALENT" and out["witness"] is None
    assert _run(["equiv", str(pa), str(pc), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    w = [fmpq(*map(int, (s + "/1").split("/")[:2])) for s in out["witness"]]
    assert [str(v) for v in a.evaluate(w)] == out["outputs"]
    assert [str(v) for v in wrong.evaluate(w)] == out["other_outputs"]
    assert _run(["equiv", str(pa), str(pc), "--box", "5,6"]) == 1  # differs by 1 everywhere
    assert _run(["equiv", str(pa), str(pb), "--box=-1,1", "--scale"]) == 0


# ------------------------------------------------------------- EQUIVALENT certificate body
from exactnet.equivalence import equivalent_body, verify_equivalent_body  # noqa: E402
from exactnet.errors import CertificateError  # noqa: E402
from exactnet.regions import compute_regions  # noqa: E402
from exactnet.cert_regions import regions_certificate_body  # noqa: E402


def _rejects(a, b, body):
    with pytest.raises(CertificateError) as e:
        verify_equivalent_body(a, b, body)
    return str(e.value).split(":")[0]


def test_equivalent_body_verifies_and_wrong_pairs_are_rejected():
    a = example("A")
    flipped = Network.from_lists([([[-1, 0], [0, -1], [1, 1]], [0, 0, -1]), ([[1, 1, 1]], [1])])
    wrong = Network.from_lists([([[-1, 0], [0, -1], [1, 1]], [0, 0, -1]), ([[1, 1, 1]], [0])])
    body = equivalent_body(a, flipped)
    assert verify_equivalent_body(a, flipped, body) == int(body[1].split()[1])
    assert _rejects(a, wrong, body) == "E_NONZERO"
    # a genuine REGIONS body of the (nonzero) difference of a and wrong: covering holds, maps do not vanish
    from exactnet.difference import difference_network

    forged = regions_certificate_body(compute_regions(difference_network(a, wrong)))
    assert _rejects(a, wrong, forged) == "E_NONZERO"
    # drop a cell: the covering fails
    cut = [ln for ln in body if not ln.startswith("cell 3 ")]
    assert _rejects(a, flipped, cut).startswith("E_")


def test_equivalent_body_other_depths_affine_and_box():
    assert verify_equivalent_body(_max_shallow(), _max_deep(), equivalent_body(_max_shallow(), _max_deep())) > 0
    two = Network.from_lists([([[1], [-1]], [0, 0]), ([[1, -1]], [0])])
    lin = Network.from_lists([([[1]], [0])])
    verify_equivalent_body(two, lin, equivalent_body(two, lin))
    verify_equivalent_body(lin, lin, equivalent_body(lin, lin))
    off = Network.from_lists([([[1]], [1])])
    assert _rejects(lin, off, ["domain all"]) == "E_NONZERO"
    f = Network.from_lists([([[1]], [0]), ([[1]], [0])])
    g = Network.from_lists([([[1]], [-1]), ([[1]], [0])])
    box = (fmpq(-3), fmpq(-1))
    body = equivalent_body(f, g, box=box)
    assert body[0] == "domain box -3 -1"
    verify_equivalent_body(f, g, body)
    whole = ["domain all"] + body[1:]
    assert _rejects(f, g, whole).startswith("E_")


@pytest.mark.parametrize("seed", [0, 1])
def test_equivalent_body_orbit_and_perturbation(seed):
    net = random_network((2, 3, 3, 1), seed)
    other = random_orbit_element(net, seed + 10)
    body = equivalent_body(net, other)
    verify_equivalent_body(net, other, body)
    q = list(other.flatten())
    q[-2] += fmpq(1, 2**30)
    assert _rejects(net, Network.unflatten(other.architecture, q), body).startswith("E_")


# ------------------------------------------------------------- full certificates through proofs/check.py
def _roundtrip(a, b, box=None):
    from exactnet.certificate import check_certificate_text

    res = equivalent(a, b, box=box, certificate=True)
    r = check_certificate_text(res.certificate_text)
    assert r.verified and r.conclusion == ("EQUIVALENT" if res.equivalent else "NOT-EQUIVALENT")
    return res, res.certificate_text


def test_certificates_verify_with_the_checker():
    pytest.importorskip("exactnet.certificate")
    from exactnet.certificate import check_certificate_text

    a = example("A")
    flipped = Network.from_lists([([[-1, 0], [0, -1], [1, 1]], [0, 0, -1]), ([[1, 1, 1]], [1])])
    wrong = Network.from_lists([([[-1, 0], [0, -1], [1, 1]], [0, 0, -1]), ([[1, 1, 1]], [0])])
    _, text = _roundtrip(a, flipped)
    _roundtrip(a, wrong)
    _roundtrip(_max_shallow(), _max_deep())
    _roundtrip(Network.from_lists([([[1], [-1]], [0, 0]), ([[1, -1]], [0])]), Network.from_lists([([[1]], [0])]))
    # swap in the wrong network (digest recomputed by the writer): the checker must reject
    from exactnet.certificate import write_certificate

    body = [ln for ln in text.splitlines() if ln.split(" ")[0] in
            ("domain", "cells", "cell", "point", "forced", "facet", "facet-box")]
    forged = write_certificate("EQUIVALENT", a, body, other=wrong)
    r = check_certificate_text(forged)
    assert not r.verified


def test_cli_writes_a_verified_certificate(tmp_path, capsys):
    pytest.importorskip("exactnet.certificate")
    from exactnet.certificate import check_certificate_text

    net = random_network((2, 3, 2, 1), 4)
    pa, pb, cert = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "eq.cert"
    save_network(net, str(pa)), save_network(random_orbit_element(net, 5), str(pb))
    assert _run(["equiv", str(pa), str(pb), "-o", str(cert)]) == 0
    r = check_certificate_text(cert.read_text(), network=net)
    assert r.verified and r.conclusion == "EQUIVALENT"


def test_network_against_its_reduced_form():
    from exactnet.reduce import reduce_network

    net = Network.from_lists([([[1, 0], [2, 0], [0, 1], [0, -1]], [1, 2, 0, 0]), ([[1, 1, 3, -3]], [0])])
    small = reduce_network(net).network
    assert small.num_hidden < net.num_hidden
    assert equivalent(net, small).equivalent and equivalent(small, net, simplify=False).equivalent
