"""Exact functional dimension: examples of theory.md 5-6, independent rank oracles, orbit invariance, deficient neurons."""

import json
import random
import subprocess
import sys

import pytest
from flint import fmpq, fmpq_mat, fmpz_mat
from hypothesis import given, settings
from hypothesis import strategies as st

from exactnet.examples import example
from exactnet.fdim import (
    functional_dimension,
    generic_random_points,
    neighbour_points,
    stacked_jacobian,
    structural_kernel,
    zero_incoming_rows,
)
from exactnet.modrank import certified_rank, integer_rows, minor_is_nonzero, rank_mod_p
from exactnet.network import Network
from exactnet.randnet import random_network
from exactnet.strategies import networks
from exactnet.symmetry import random_orbit_element


def _oracle_rank(net, count=60, seed=123):
    """Independent: fmpq_mat rank of the stacked Jacobian at many exact random generic points."""
    rng = random.Random(seed)
    rows = []
    got = 0
    while got < count:
        x = [fmpq(rng.randint(-400, 400), rng.randint(1, 40)) for _ in range(net.input_dim)]
        if net.is_generic_point(x):
            rows.extend(net.parameter_jacobian(x).tolist())
            got += 1
    return fmpq_mat(rows).rank()


# ------------------------------------------------------------------ examples
def test_example_a_rank_is_d_minus_n():
    r = functional_dimension(example("A"))
    assert (r.parameters, r.hidden_neurons) == (13, 3)
    assert r.functional_dimension == 10 == r.bound
    assert r.status == "exact" and r.locally_identifiable
    assert r.rank.method == "minor=bound"  # sampled points reached D - N: the complex was not needed
    assert r.deficient == []


def test_example_c_rank_11():
    r = functional_dimension(example("C"))
    assert r.functional_dimension == 11 == r.bound and r.locally_identifiable


def test_example_d_rank_10_names_stably_active_neuron():
    r = functional_dimension(example("D"))
    assert r.bound == 11
    assert r.functional_dimension == 10 and r.status == "exact"
    assert not r.locally_identifiable
    active = [d for d in r.deficient if d["reason"] == "stably-active"]
    assert [(d["layer"], d["index"], d["name"]) for d in active] == [(2, 1, "(2,2)")]
    assert r.upper_bound == 10  # the bias shift of (2,2) is a proved kernel direction


def test_one_one_one():
    net = Network.from_lists([([[2]], [-1]), ([[3]], [1])])
    r = functional_dimension(net)
    assert r.parameters == 4 and r.functional_dimension == 3 and r.status == "exact"


@pytest.mark.parametrize("arch,seed", [((2, 3, 1), 1), ((3, 2, 1), 2), ((1, 4, 1), 3), ((2, 4, 1), 5)])
def test_generic_shallow_formula(arch, seed):
    net = random_network(arch, seed=seed, max_num=9, max_den=5)
    n0, n = arch[0], arch[1]
    r = functional_dimension(net)
    assert r.deficient == []  # these seeded draws are generic (no dead, active, zero rows or columns)
    assert r.functional_dimension == n * (n0 + 1) + 1 == r.bound


# --------------------------------------------------------------- dead / active
def test_dead_first_layer_neuron_drops_rank():
    # neuron (1,2): w = 0, b = -1, dead everywhere; its 2+1 incoming and 1 outgoing coordinates die.
    net = Network.from_lists([([[1, 2], [0, 0], [-1, 1]], [1, -1, 3]), ([[2, 5, -1]], [0])])
    r = functional_dimension(net)
    assert r.status == "exact"
    names = {(d["name"], d["reason"]) for d in r.deficient}
    assert ("(1,2)", "dead") in names
    # generic (2,2,1) part: 2*3+1 = 7; the dead neuron adds nothing
    assert r.functional_dimension == 7 < r.bound == 10


def test_dead_deep_neuron_found_from_the_complex():
    # (2,2,2,1): neuron (2,1) has incoming weights of mixed sign but is negative everywhere.
    net = Network.from_lists([
        ([[1, 0], [-1, 0]], [0, 0]),  # h = (relu(x1), relu(-x1)), never both positive
        ([[1, 1], [1, -1]], [-100, 1]),  # (2,1): |x1| - 100 is positive far out: NOT dead
        ([[1, 1]], [0]),
    ])
    r = functional_dimension(net)
    assert not any(d["name"] == "(2,1)" and d["reason"] == "dead" for d in r.deficient)
    net2 = net.replace_layer(2, [[1, -1], [1, -1]], [-1, 1])  # (2,1): x1 - 1 on x1 > 0, -x1... check below
    r2 = functional_dimension(net2)
    # whatever the complex says must agree with exact evaluation at its own points
    for d in r2.deficient:
        if d["reason"] in ("dead", "stably-active") and d["scope"] == "all-regions":
            for x in r2.points:
                z = net2.preactivations(x)[d["layer"] - 1][d["index"]]
                assert (z > 0) == (d["reason"] == "stably-active")


def test_stably_active_kernel_vector_really_in_kernel():
    net = example("D")
    vecs, found = structural_kernel(net)
    assert [f["name"] for f in found] == ["(2,2)"]
    rows = stacked_jacobian(net, generic_random_points(net, 40, seed=5, spread=3.0))
    J = fmpq_mat(rows)
    V = fmpq_mat(vecs).transpose()
    assert (J * V).tolist() == [[0] * V.ncols() for _ in range(J.nrows())]
    assert fmpq_mat(vecs).rank() == len(vecs) == 5


# ------------------------------------------------------------ independent oracles
@pytest.mark.parametrize("arch,seed", [((2, 3, 1), 7), ((2, 2, 2, 1), 8), ((2, 3, 2, 2), 9), ((3, 2, 2, 1), 10)])
def test_rank_agrees_with_fmpq_oracle(arch, seed):
    net = random_network(arch, seed=seed)
    r = functional_dimension(net)
    oracle = _oracle_rank(net, count=3 * net.num_parameters)
    assert oracle <= r.functional_dimension  # fdim is the rank over ALL regions
    assert r.status == "exact"


@pytest.mark.parametrize("name", ["A", "C", "D"])
def test_examples_agree_with_dense_oracle(name):
    net = example(name)
    assert _oracle_rank(net, count=200, seed=3) == functional_dimension(net).functional_dimension


def test_rank_of_own_rows_agrees_with_sympy():
    sympy = pytest.importorskip("sympy")
    for name in "ACD":
        net = example(name)
        r = functional_dimension(net)
        rows = stacked_jacobian(net, r.points)
        M = sympy.Matrix([[sympy.Rational(int(v.p), int(v.q)) for v in row] for row in rows])
        assert M.rank() == r.functional_dimension


def test_selected_minor_is_nonzero_over_q():
    net = example("C")
    r = functional_dimension(net)
    ir = integer_rows(stacked_jacobian(net, r.points))
    assert len(r.rank.rows) == r.functional_dimension
    assert minor_is_nonzero(ir, r.rank.rows, r.rank.cols)


@settings(max_examples=25)
@given(st.integers(1, 8), st.integers(1, 8), st.integers(0, 8), st.integers(0, 10**6))
def test_modrank_matches_fmpz_rank(m, n, k, seed):
    rng = random.Random(seed)
    k = min(k, m, n)
    B = fmpz_mat([[rng.randint(-5, 5) for _ in range(k)] for _ in range(m)]) if k else fmpz_mat(m, 0)
    C = fmpz_mat([[rng.randint(-5, 5) for _ in range(n)] for _ in range(k)]) if k else fmpz_mat(0, n)
    A = (B * C) if k else fmpz_mat(m, n)
    rows = [[fmpq(int(v), rng.randint(1, 4)) for v in row] for row in A.tolist()]
    exact = fmpq_mat(rows).rank()
    res = certified_rank(rows, n)
    assert res.rank == exact and res.exact
    ir = integer_rows(rows)
    r, R, C2 = rank_mod_p(ir, n, 101)
    assert r <= exact  # a small prime may lose rank, never gain it
    assert minor_is_nonzero(ir, res.rows, res.cols) or res.rank == 0


# ------------------------------------------------------------------- laws
@settings(max_examples=15)
@given(networks(arch=st.sampled_from([(1, 2, 1), (2, 2, 1), (2, 1, 2, 1), (1, 2, 2, 2)]), max_num=4, max_den=3),
       st.integers(0, 1000))
def test_invariant_under_orbit_and_bounded(net, seed):
    r = functional_dimension(net)
    if zero_incoming_rows(net):
        assert r.status == "undefined"
        return
    other = random_orbit_element(net, seed)
    r2 = functional_dimension(other)
    assert r.status == r2.status
    if r.status == "undefined":  # a deep neuron vanishing on all of R^n0
        assert r.points == []
        return
    assert r.functional_dimension <= r.upper_bound <= r.bound
    assert r.status == "exact"  # the complete complex of these small networks
    assert r.functional_dimension == r2.functional_dimension
    # the computed value is the rank of its own rows (independent fmpq elimination)
    rows = stacked_jacobian(net, r.points)
    if rows:
        assert fmpq_mat(rows).rank() == r.functional_dimension


def test_neighbour_points_stay_in_region():
    net = example("C")
    p = [fmpq(1, 3), fmpq(-2, 7)]
    assert net.is_generic_point(p)
    nb = neighbour_points(net, p)
    assert len(nb) == 2 and all(net.pattern(q) == net.pattern(p) and net.is_generic_point(q) for q in nb)


def test_fallback_is_labelled_lower_bound_unless_at_bound():
    r = functional_dimension(example("C"), use_regions=False)
    assert r.point_source == "random-generic" and not r.complete
    assert r.functional_dimension == 11 and r.status == "exact"  # reached D - N: exact
    net = Network.from_lists([([[1, 2], [0, 0], [-1, 1]], [1, 1, 3]), ([[2, 5, -1]], [0])])
    # (1,2) is constant 1: stably active (structural), so the proved upper bound is below D - N
    r2 = functional_dimension(net, use_regions=False)
    assert r2.upper_bound < r2.bound
    assert r2.status == ("exact" if r2.functional_dimension == r2.upper_bound else "lower-bound")


def test_cli_fdim_json(tmp_path):
    from exactnet.netio import save_network

    p = tmp_path / "d.json"
    save_network(example("D"), str(p))
    out = subprocess.run([sys.executable, "-m", "exactnet", "fdim", str(p), "--json"],
                         capture_output=True, text=True, check=True)
    j = json.loads(out.stdout)
    assert j["functional_dimension"] == 10 and j["bound"] == 11
    assert j["parameters"] == 15 and j["hidden_neurons"] == 4 and j["locally_identifiable"] is False
    assert any(d["name"] == "(2,2)" for d in j["deficient_neurons"])


@pytest.mark.parametrize("budget", ["0", "-1", "nan", "inf", "ten"])
def test_cli_fdim_rejects_a_bad_lp_budget(tmp_path, budget):
    from exactnet.netio import save_network

    p = tmp_path / "d.json"
    save_network(example("D"), str(p))
    out = subprocess.run([sys.executable, "-m", "exactnet", "fdim", str(p), "--lp-budget", budget],
                         capture_output=True, text=True)
    assert out.returncode == 2 and out.stdout == ""
    assert "--lp-budget" in out.stderr and "Traceback" not in out.stderr


def test_cli_fdim_lp_budget_reaches_the_prover(tmp_path, monkeypatch):
    from exactnet import cli, fdim
    from exactnet.netio import save_network

    seen = []
    real = fdim.functional_dimension

    def spy(net, **kw):
        seen.append(kw.get("sign_budget"))
        return real(net, **kw)

    monkeypatch.setattr(fdim, "functional_dimension", spy)
    p = tmp_path / "d.json"
    save_network(example("D"), str(p))
    assert cli.main(["fdim", str(p), "--json", "--lp-budget", "2.5"]) == 0
    assert seen == [2.5]


def test_line_points_visit_every_interval_of_the_line():
    from exactnet.fdim import line_points

    net = random_network((2, 3, 3, 1), seed=11)
    a, d = [fmpq(1, 3), fmpq(-1, 2)], [fmpq(1), fmpq(2, 7)]
    pts = line_points(net, a, d)
    pats = [net.pattern(x) for x in pts]
    assert all(net.is_generic_point(x) for x in pts)
    # oracle: a dense exact scan of the line finds no pattern that line_points missed
    seen = set()
    for k in range(-4000, 4001):
        t = fmpq(k, 40)
        x = [ai + t * di for ai, di in zip(a, d)]
        if net.is_generic_point(x):
            seen.add(net.pattern(x))
    assert seen <= set(pats)
    # and the points are in order along the line with a pattern change between neighbours
    assert all(p != q for p, q in zip(pats, pats[1:]))


def test_zero_incoming_row_is_reported_and_bound_not_claimed():
    net = Network.from_lists([([[1, 1], [0, 0]], [1, 0]), ([[2, 3]], [1])])
    r = functional_dimension(net)
    assert any(d["name"] == "(1,2)" and d["reason"] == "zero-incoming-row" for d in r.deficient)
    assert not r.locally_identifiable
    # (1,2) vanishes at every input: no strictly generic point, the Jacobian exists nowhere
    assert r.status == "undefined" and r.functional_dimension is None and r.points == []
    assert all(not net.is_generic_point([fmpq(k), fmpq(1, 3)]) for k in range(-5, 6))


def _verified(chk):
    ok = getattr(chk, "verified", None)
    concl = getattr(chk, "conclusion", None)
    if ok is None:
        ok, concl = chk[0], chk[1]
    return ok, concl


@pytest.mark.parametrize("name", ["A", "C"])
def test_locally_identifiable_certificate_verifies(name):
    cert = pytest.importorskip("exactnet.certificate")
    from exactnet.fdim import certify_local

    net = example(name)
    res = certify_local(net)
    assert res.verdict == "LOCALLY-IDENTIFIABLE" and res.certificate
    ok, concl = _verified(cert.check_certificate_text(res.certificate, network=net))
    assert ok and concl == "LOCALLY-IDENTIFIABLE"
    # a certificate for the deficient example D cannot be produced
    assert certify_local(example("D")).verdict == "UNDECIDED"


@pytest.mark.parametrize("arch,seed", [((2, 3, 2), 3), ((2, 2, 2, 2), 4), ((3, 2, 2, 1), 10)])
def test_certificates_for_random_networks_verify_and_mutants_fail(arch, seed):
    cert = pytest.importorskip("exactnet.certificate")
    from exactnet.fdim import certify_local

    net = random_network(arch, seed=seed)
    res = certify_local(net)
    r = functional_dimension(net)
    assert (res.verdict == "LOCALLY-IDENTIFIABLE") == r.locally_identifiable
    if res.certificate is None:
        return
    ok, concl = _verified(cert.check_certificate_text(res.certificate, network=net))
    assert ok and concl == "LOCALLY-IDENTIFIABLE"
    # forge the determinant (digests recomputed by the writer): the checker must reject it
    lines = res.certificate.rstrip("\n").split("\n")
    body_start = next(i for i, l in enumerate(lines) if l.startswith("network-digest")) + 1
    body = lines[body_start:-2]
    det_line = next(i for i, l in enumerate(body) if l.startswith("det "))
    body[det_line] = "det 0"
    forged = cert.write_certificate("LOCALLY-IDENTIFIABLE", net, body)
    ok2, _ = _verified(cert.check_certificate_text(forged, network=net))
    assert not ok2


@pytest.mark.parametrize("arch", [(1, 1), (2, 2), (3, 1), (2, 4)])
def test_affine_network_without_hidden_layer(arch):
    """No hidden layer: f(x) = W x + b determines all D = m (n0 + 1) parameters, so the functional
    dimension is D (checked against the exact rank of the stacked Jacobian at independent points),
    and the LOCALLY-IDENTIFIABLE certificate verifies (once crashed: no activation masks to stack)."""
    from exactnet.certify import certify
    from proofs.check import check_text

    net = random_network(arch, seed=3)
    res = functional_dimension(net)
    assert res.functional_dimension == res.bound == net.num_parameters == _oracle_rank(net, count=8)
    out = certify(net)
    assert out.verdict == "LOCALLY-IDENTIFIABLE"
    assert check_text(out.certificate)[0] == 0
