"""The checker framework proofs/check.py against exactnet (an independent implementation)."""

import json
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactnet.certificate import (check_certificate_text, load_checker, locally_identifiable_body,
                                  not_equivalent_body, write_certificate)
from exactnet.errors import CertificateError
from exactnet.examples import example
from exactnet.netjson import dumps_network
from exactnet.network import Network
from exactnet.qq import q_str, q_to_fraction
from exactnet.strategies import architectures, networks, rationals

fw = load_checker()
F = Fraction


def _net(n):
    return fw.Net(list(n.architecture), [[[q_to_fraction(v) for v in r] for r in L.weights] for L in n.layers],
                  [[q_to_fraction(v) for v in L.biases] for L in n.layers])


@given(rationals(max_num=10**6, max_den=10**6))
def test_q_roundtrip_of_canonical(v):
    assert fw.q(q_str(v)) == q_to_fraction(v)


@pytest.mark.parametrize("tok", ["1/1", "2/4", "-0", "0/3", "+1", "01", "1.0", "0.5", "1e3", "1_000", " 1",
                                 "1/0", "1/-2", "--1", "", "\u0661", "1/", "/2", "-1/01"])
def test_q_refuses_non_canonical(tok):
    with pytest.raises(fw.Malformed):
        fw.q(tok)


def test_q_digit_limit_and_ints():
    fw.q("9" * fw.MAX_DIGITS)
    with pytest.raises(fw.Malformed) as e:
        fw.q("9" * (fw.MAX_DIGITS + 1))
    assert e.value.code == "E_LIMIT"
    assert fw.ints(["0", "12"]) == [0, 12]
    for bad in (["-1"], ["01"], ["1/2"]):
        with pytest.raises(fw.Malformed):
            fw.ints(bad)


@settings(max_examples=40, deadline=None)
@given(networks(arch=architectures(max_output=2)), st.data())
def test_forward_local_affine_in_region_agree_with_exactnet(net, data):
    x = [data.draw(rationals()) for _ in range(net.input_dim)]
    pre, out = fw.forward(_net(net), [q_to_fraction(v) for v in x])
    assert pre == [[q_to_fraction(v) for v in z] for z in net.preactivations(x)]
    assert out == [q_to_fraction(v) for v in net.evaluate(x)]
    pat = [p for layer in net.pattern(x) for p in layer]
    forms = fw.local_affine(_net(net), pat)
    A, c = net.local_affine(net.pattern(x))
    assert [g for g, _ in forms[-1]] == [[q_to_fraction(v) for v in r] for r in A.tolist()]
    assert [cc for _, cc in forms[-1]] == [q_to_fraction(v) for v in c]
    assert fw.in_region(_net(net), pat, [[q_to_fraction(v) for v in x]])
    if net.is_generic_point(x) and pat:
        flipped = [1 - pat[0]] + pat[1:]
        assert not fw.in_region(_net(net), flipped, [[q_to_fraction(v) for v in x]])


def test_in_region_on_segments_of_example_a():
    a = _net(example("A"))
    assert fw.in_region(a, [1, 1, 0], [[F(1), F(1)], [F(2), F(3)]])
    assert not fw.in_region(a, [1, 1, 0], [[F(1), F(1)], [F(1, 4), F(1, 4)]])  # crosses x1 + x2 = 1


def test_network_json_binding_strict_numbers():
    a = example("A")
    text = write_certificate("LOCALLY-IDENTIFIABLE", a, locally_identifiable_body(a, [[1, 2]]))
    obj = json.loads(dumps_network(a))
    obj["layers"][0]["biases"] = [0, "0.0", "2/2"]  # ints, decimals, unreduced p/q are exact numbers
    rc, _, diags = fw.check_text(text, json.dumps(obj))
    assert "E_NETWORK_MISMATCH" not in "".join(diags)
    obj["layers"][0]["biases"] = [0, 0, 1.0]
    assert fw.check_text(text, json.dumps(obj))[0] == 3
    obj["layers"][0]["biases"] = [0, 0, "3/2"]
    rc, v, diags = fw.check_text(text, json.dumps(obj))
    assert (rc, v) == (1, "s NOT VERIFIED") and "E_NETWORK_MISMATCH" in diags[0]
    assert fw.check_text(text, "{not json")[0] == 3
    assert fw.check_text(text, json.dumps({"format": "other"}))[0] == 3


def test_writer_refuses_bad_input_and_check_result():
    a, b = example("A"), example("C")
    with pytest.raises(CertificateError):
        write_certificate("NOPE", a, [])
    with pytest.raises(CertificateError):
        write_certificate("NOT-EQUIVALENT", a, [])
    with pytest.raises(CertificateError):
        write_certificate("REGIONS", a, ["a  b"])
    r = check_certificate_text(write_certificate("NOT-EQUIVALENT", a, not_equivalent_body(a, b, [0, 0]), other=b))
    assert (r.exit_code, r.verified, r.conclusion) == (0, True, "NOT-EQUIVALENT")
    ok, conclusion, lines = r
    assert ok and lines == ["s VERIFIED NOT-EQUIVALENT"]
    bad = check_certificate_text(write_certificate("NOT-EQUIVALENT", a, not_equivalent_body(a, a, [0, 0]), other=a))
    assert not bad.verified and "E_EQUAL" in bad.lines[1]


@pytest.mark.parametrize("name,rank", [("A", 10), ("C", 11)])
def test_locally_identifiable_examples_with_minor(name, rank):
    from exactnet import fdim

    net = example(name)
    res = fdim.functional_dimension(net)
    assert net.num_parameters - net.num_hidden == rank == res.functional_dimension
    body = locally_identifiable_body(net, res.points, list(res.rank.rows), list(res.rank.cols))
    assert check_certificate_text(write_certificate("LOCALLY-IDENTIFIABLE", net, body), network=net).verified


def test_dead_neuron_cannot_be_certified():
    dead = Network.from_lists([([[1, 0], [0, 1], [0, 0]], [0, 0, -1]), ([[1, 1, 1]], [0])])
    pts = [[1, 2], [2, 1], [-1, 1], [1, -1], [-1, -2], [3, 1], [1, 3], [2, 2], [3, 3], [5, 1]]
    r = check_certificate_text(write_certificate("LOCALLY-IDENTIFIABLE", dead, locally_identifiable_body(dead, pts)))
    assert not r.verified and "E_RANK_LOW" in r.lines[1]
    zero = Network.from_lists([([[1, 0], [0, 0]], [0, 0]), ([[1, 1]], [0])])
    r = check_certificate_text(write_certificate("LOCALLY-IDENTIFIABLE", zero, locally_identifiable_body(zero, pts)))
    assert not r.verified and "E_ZERO_ROW" in r.lines[1]


def test_unsupported_kind_is_rejected_not_verified(monkeypatch):
    a = example("A")
    monkeypatch.setattr(fw, "KINDS", fw.KINDS + ("FANTASY",))
    text = write_certificate("REGIONS", a, ["x 1"]).replace("REGIONS", "FANTASY")
    import hashlib
    lines = text[:-1].split("\n")
    lines[-1] = "end " + hashlib.sha256("".join(s + "\n" for s in lines[:-1]).encode()).hexdigest()
    rc, v, diags = fw.check_text("\n".join(lines) + "\n")
    assert (rc, v) == (1, "s NOT VERIFIED") and "E_UNSUPPORTED" in diags[0]


def test_eliminate_against_flint():
    import random

    from flint import fmpq, fmpq_mat

    from proofs.kind_locally_identifiable import eliminate

    rng = random.Random(1)
    for _ in range(200):
        n, k = rng.randint(1, 5), rng.randint(1, 5)
        M = [[F(rng.randint(-2, 2), rng.randint(1, 3)) for _ in range(k)] for _ in range(n)]
        fm = fmpq_mat(n, k, [fmpq(x.numerator, x.denominator) for r in M for x in r])
        r, d = eliminate(M)
        assert r == fm.rank()
        if n == k:
            assert d == F(int(fm.det().p), int(fm.det().q))


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_rank_mod_p_against_flint(data):
    """The checker's rank modulo 2^61 - 1 against python-flint's exact rank (an independent
    implementation): never above it, equal on small random matrices, 0 when p divides a denominator."""
    import random

    from flint import fmpq, fmpq_mat

    from proofs.check import rank_mod

    rng = random.Random(data.draw(st.integers(0, 10**6)))
    n, k = rng.randint(1, 7), rng.randint(1, 7)
    M = [[F(rng.randint(-3, 3), rng.randint(1, 4)) if rng.random() < 0.7 else F(0) for _ in range(k)]
         for _ in range(n)]
    if n > 2:  # a dependent row now and then
        M[-1] = [a - 2 * b for a, b in zip(M[0], M[1])]
    exact = fmpq_mat(n, k, [fmpq(x.numerator, x.denominator) for r in M for x in r]).rank()
    assert rank_mod(M) == exact
    p = (1 << 61) - 1
    assert rank_mod([[F(p), F(0)], [F(0), F(1)]]) == 1 < 2 == fmpq_mat([[p, 0], [0, 1]]).rank()
    assert rank_mod([[F(1, p)]]) == 0


def test_no_hint_certificate_verifies_when_the_modular_rank_falls_short(monkeypatch):
    """The modular rank is a shortcut: when it is below R the checker computes the exact rank."""
    import proofs.kind_locally_identifiable as kli
    from exactnet import fdim

    net = example("C")
    res = fdim.functional_dimension(net)
    text = write_certificate("LOCALLY-IDENTIFIABLE", net, locally_identifiable_body(net, res.points))
    assert "\ndet " not in text and check_certificate_text(text, network=net).verified
    monkeypatch.setattr(kli, "rank_mod", lambda M: 0)
    assert check_certificate_text(text, network=net).verified


def test_large_rank_certificates_leave_out_the_minor_hint():
    """Above HINT_MAX_RANK the producer writes no determinant (its exact check took minutes)."""
    from exactnet import fdim
    from exactnet.randnet import random_network

    net = random_network((4, 8, 8, 1), seed=0)
    res = fdim.certify_local(net)
    assert net.num_parameters - net.num_hidden > fdim.HINT_MAX_RANK
    assert res.verdict == "LOCALLY-IDENTIFIABLE" and "\ndet " not in res.certificate
    assert check_certificate_text(res.certificate, network=net).verified


def test_main_usage_and_io(tmp_path, capsys):
    assert fw.main([]) == 3
    assert fw.main(["a", "b"]) == 3
    assert fw.main([str(tmp_path / "missing.cert")]) == 3
    p = tmp_path / "x.cert"
    a = example("A")
    p.write_text(write_certificate("LOCALLY-IDENTIFIABLE", a, locally_identifiable_body(a, [[1, 2]])))
    assert fw.main([str(p), "--network", str(tmp_path / "missing.json")]) == 3
    capsys.readouterr()
    assert fw.main([str(p)]) == 1
    assert capsys.readouterr().out.splitlines()[0] == "s NOT VERIFIED"


def test_main_turns_a_checker_failure_into_not_verified(tmp_path, capsys, monkeypatch):
    p = tmp_path / "x.cert"
    a = example("A")
    p.write_text(write_certificate("LOCALLY-IDENTIFIABLE", a, locally_identifiable_body(a, [[1, 2]])))

    def broken(*_):
        raise IndexError("list index out of range")
    monkeypatch.setattr(fw, "check_text", broken)
    assert fw.main([str(p)]) == 2
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "s NOT VERIFIED" and "E_INTERNAL" in out[1]


def test_cli_check_subcommand(tmp_path):
    import argparse

    from exactnet import cli_check

    a = example("A")
    res = __import__("exactnet.fdim", fromlist=["x"]).functional_dimension(a)
    p = tmp_path / "a.cert"
    p.write_text(write_certificate("LOCALLY-IDENTIFIABLE", a, locally_identifiable_body(a, res.points)))
    n = tmp_path / "a.json"
    n.write_text(dumps_network(a))
    parser = argparse.ArgumentParser()
    cli_check.register(parser.add_subparsers())
    args = parser.parse_args(["check", str(p), "--network", str(n)])
    assert args.func(args) == 0
    n.write_text(dumps_network(example("C")))
    assert args.func(parser.parse_args(["check", str(p), "--network", str(n)])) == 1


def _frame(kind, net_lines, body):
    """A certificate around ``net_lines`` (network block without digest) with correct digests."""
    import hashlib

    def dig(ls):
        return hashlib.sha256("".join(s + "\n" for s in ls).encode()).hexdigest()
    lines = ["exactnet certificate 1.0", f"kind {kind}", *net_lines, f"network-digest {dig(net_lines)}", *body,
             f"conclusion {kind}"]
    return "\n".join(lines + [f"end {dig(lines)}"]) + "\n"


@pytest.mark.parametrize("width", ["99999999999", "9" * 3000], ids=["11-digits", "3000-digits"])
def test_a_huge_declared_width_is_a_shape_error_not_an_internal_error(width):
    """The rows of a declared width are read lazily: the first line that does not fit is E_SHAPE
    (it once built a list of that many entries: MemoryError or OverflowError, E_INTERNAL)."""
    text = _frame("IDENTIFIABLE", ["network begin", f"arch 2 {width} 1", "w 1 2", "b 0", "w 1", "b 0",
                                   "network end"], ["rule shallow-2"])
    assert fw.check_text(text) == (2, "s NOT VERIFIED", ["c line 6 E_SHAPE: want w, 2 numbers"])


def test_shallow_2_on_an_affine_network_is_e_depth():
    text = _frame("IDENTIFIABLE", ["network begin", "arch 2 1", "w 1 2", "b 0", "network end"], ["rule shallow-2"])
    code, verdict, diags = fw.check_text(text)
    assert (code, verdict) == (1, "s NOT VERIFIED") and "E_DEPTH" in diags[0]


@pytest.mark.parametrize("net_text, needle", [
    ("[" * 100000 + "]" * 100000, "maximum recursion depth"),
    ('{"format": "exactnet-network/1", "layers": [{"weights": [[' + "1" * 5000 + ']], "biases": [0]}]}',
     "Exceeds the limit"),
], ids=["nesting", "digits"])
def test_network_files_python_cannot_parse_are_usage_errors(tmp_path, capsys, net_text, needle):
    """--network with nesting too deep for json, or an integer over Python's digit limit: exit 3,
    E_NETWORK_FILE (was E_INTERNAL), and no advice about interpreter settings in the message."""
    p, n = tmp_path / "x.cert", tmp_path / "net.json"
    a = example("A")
    p.write_text(write_certificate("LOCALLY-IDENTIFIABLE", a, locally_identifiable_body(a, [[1, 2]])))
    n.write_text(net_text)
    assert fw.main([str(p), "--network", str(n)]) == 3
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "s NOT VERIFIED" and "E_NETWORK_FILE" in out[1] and needle in out[1]
    assert "set_int_max_str_digits" not in out[1]
