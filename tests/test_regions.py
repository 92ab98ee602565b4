"""Activation regions: counts, coverage, exact evaluation, invariance, brute-force oracle."""

from __future__ import annotations

import itertools
import random
from math import comb

import pytest
from flint import fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

from exactnet.errors import LimitError, ValueRangeError
from exactnet.examples import example
from exactnet.lp import maximize
from exactnet.network import Network
from exactnet.randnet import random_network
from exactnet.regions import cell_containing, compute_regions, polygon_area, slice_network
from exactnet.symmetry import permute_layer, scale_neuron

Q0 = fmpq(0)


def _generic_one_layer(d: int, n: int, seed: int) -> Network:
    """Random one-hidden-layer network; re-drawn until its hyperplanes are in general position."""
    rng = random.Random(seed)
    while True:
        W = [[fmpq(rng.randint(-40, 40), rng.randint(1, 7)) for _ in range(d)] for _ in range(n)]
        b = [fmpq(rng.randint(-40, 40), rng.randint(1, 7)) for _ in range(n)]
        if _general_position(W, b, d):
            return Network.from_lists([(W, b), ([[1] * n], [0])])


def _general_position(W, b, d) -> bool:
    from flint import fmpq_mat

    n = len(W)
    for k in range(1, min(n, d + 1) + 1):
        for sub in itertools.combinations(range(n), k):
            A = fmpq_mat([list(W[i]) + [b[i]] for i in sub])
            if A.rank() < k:
                return False
            if k <= d and fmpq_mat([list(W[i]) for i in sub]).rank() < k:
                return False
    return True


@pytest.mark.parametrize("d,n", [(1, 5), (2, 6), (3, 5), (4, 5)])
@pytest.mark.parametrize("seed", [0, 1])
def test_general_position_count(d, n, seed):
    net = _generic_one_layer(d, n, seed)
    rc = compute_regions(net)
    assert len(rc.cells) == sum(comb(n, i) for i in range(d + 1))


def _check_cells(net, rc):
    for c in rc.cells:
        signs = net.signs(c.interior_point)
        for l, layer in enumerate(signs, start=1):
            for i, sg in enumerate(layer):
                assert (sg == 0) == ((l, i) in c.zero)  # zero only where identically zero
        assert net.pattern(c.interior_point) == c.pattern
        A, off = net.local_affine(c.pattern)
        assert A == c.gradient and list(off) == list(c.offset)
        for k in c.constraints:
            assert sum((a * x for a, x in zip(k.normal, c.interior_point)), Q0) + k.offset > 0
    assert len({c.pattern for c in rc.cells}) == len(rc.cells)


@pytest.mark.parametrize("seed", range(4))
def test_box_areas_sum_to_box(seed):
    net = random_network((2, 4, 3, 1), seed=seed)
    rc = compute_regions(net, box=(-3, 5))
    _check_cells(net, rc)
    total = sum((polygon_area(c.vertices) for c in rc.cells), Q0)
    assert total == fmpq(64)
    assert all(c.bounded for c in rc.cells)


@given(st.integers(0, 10**6), st.sampled_from([(2, 3, 2, 1), (1, 3, 3, 2), (3, 3, 2, 1), (2, 2, 2, 2, 1)]))
@settings(max_examples=15)
def test_evaluation_matches_cell_affine_map(seed, arch):
    net = random_network(arch, seed=seed)
    rc = compute_regions(net)
    _check_cells(net, rc)
    rng = random.Random(seed)
    for _ in range(20):
        x = [fmpq(rng.randint(-300, 300), rng.randint(1, 30)) for _ in range(arch[0])]
        if not net.is_generic_point(x):
            continue
        c = rc.cells[cell_containing(rc, x)]
        want = net.evaluate(x)
        got = [sum((c.gradient[o, j] * x[j] for j in range(arch[0])), Q0) + c.offset[o] for o in range(arch[-1])]
        assert got == want
        for k in c.constraints:
            assert sum((a * v for a, v in zip(k.normal, x)), Q0) + k.offset >= 0


def _brute_force_patterns(net: Network) -> set:
    """Every pattern whose open region is nonempty, by one exact LP per pattern (independent of
    the subdivision): maximize t with every signed local pre-activation >= t, t <= 1."""
    n = net.input_dim
    widths = net.architecture[1:-1]
    found = set()
    for bits in itertools.product((0, 1), repeat=sum(widths)):
        pat, k = [], 0
        for w in widths:
            pat.append(tuple(bits[k : k + w]))
            k += w
        rows, offs = [], []
        A = [[fmpq(int(i == j)) for j in range(n)] for i in range(n)]
        c = [Q0] * n
        ok = True
        for l, p in enumerate(pat, start=1):
            W, b = net.weights(l), net.biases(l)
            zA = [[sum((W[i][j] * A[j][r] for j in range(len(A))), Q0) for r in range(n)] for i in range(len(W))]
            zc = [sum((W[i][j] * c[j] for j in range(len(c))), Q0) + b[i] for i in range(len(W))]
            for i, on in enumerate(p):
                if not any(zA[i]) and zc[i] == 0:
                    ok = ok and not on  # identically zero on the region: bit 0, no constraint
                    continue
                s = 1 if on else -1
                rows.append([s * v for v in zA[i]] + [fmpq(-1)])
                offs.append(s * zc[i])
            A = [zA[i] if p[i] else [Q0] * n for i in range(len(W))]
            c = [zc[i] if p[i] else Q0 for i in range(len(W))]
        if not ok:
            continue
        rows.append([Q0] * n + [fmpq(-1)])
        offs.append(fmpq(1))
        x0 = [Q0] * n
        t0 = min([o for o in offs] + [fmpq(0)]) - 1
        res = maximize([Q0] * n + [fmpq(1)], rows, offs, x0 + [t0])
        if res[0] == "optimal" and res[2] > 0:
            found.add(tuple(pat))
    return found


@given(st.integers(0, 10**6), st.sampled_from([(2, 3, 2, 1), (1, 2, 3, 1), (3, 3, 2, 1), (2, 2, 2, 2, 1)]))
@settings(max_examples=12)
def test_brute_force_oracle(seed, arch):
    net = random_network(arch, seed=seed, max_num=4, max_den=3)
    rc = compute_regions(net)
    assert {c.pattern for c in rc.cells} == _brute_force_patterns(net)


@pytest.mark.parametrize("seed", range(3))
def test_grid_sampling_oracle(seed):
    net = random_network((2, 4, 4, 1), seed=seed)
    rc = compute_regions(net, box=(-4, 4))
    pats = {c.pattern for c in rc.cells}
    for i in range(-40, 41):
        for j in range(-40, 41):
            x = [fmpq(i, 10) + fmpq(1, 997), fmpq(j, 10) + fmpq(1, 1009)]
            if net.is_generic_point(x):
                assert net.pattern(x) in pats


def _relabelled(rc, perm_by_layer):
    out = set()
    for c in rc.cells:
        out.add(tuple(tuple(p[perm[k]] for k in range(len(p))) for p, perm in zip(c.pattern, perm_by_layer)))
    return out


@pytest.mark.parametrize("seed", range(3))
def test_invariance_under_orbit(seed):
    net = random_network((2, 3, 3, 1), seed=seed)
    rng = random.Random(seed)
    perm1 = list(range(3))
    perm2 = list(range(3))
    rng.shuffle(perm1)
    rng.shuffle(perm2)
    other = permute_layer(permute_layer(net, 1, perm1), 2, perm2)
    other = scale_neuron(scale_neuron(other, 1, 0, fmpq(7, 3)), 2, 1, fmpq(1, 5))
    a = compute_regions(net)
    b = compute_regions(other)
    assert len(a.cells) == len(b.cells)
    # new neuron k is old neuron perm[k]: permute the old patterns
    assert _relabelled(a, [perm1, perm2]) == {c.pattern for c in b.cells}
    assert a.summary() == b.summary()
    ga = sorted(str(c.gradient) + str([str(v) for v in c.offset]) for c in a.cells)
    gb = sorted(str(c.gradient) + str([str(v) for v in c.offset]) for c in b.cells)
    assert ga == gb


def test_example_c_vertex():
    rc = compute_regions(example("C"))
    assert (fmpq(-46, 735), fmpq(187, 735)) in rc.vertex_set()


def test_no_hidden_layer():
    net = Network.from_lists([([[1, 2]], [3])])
    rc = compute_regions(net)
    assert len(rc.cells) == 1 and not rc.cells[0].bounded


def test_slice_matches_composed_network():
    net = random_network((4, 4, 3, 1), seed=3)
    P = ([0, 0, 0, 0], [1, 0, 1, 0], [0, 1, 0, -1])
    rc = compute_regions(net, slice_=P)
    sub = slice_network(net, *P)
    assert rc.network == sub
    _check_cells(sub, rc)
    with pytest.raises(ValueRangeError):
        compute_regions(net, slice_=([0] * 4, [1] * 4, [2] * 4))


def test_limits():
    net = random_network((2, 8, 8, 1), seed=1)
    with pytest.raises(LimitError):
        compute_regions(net, max_cells=5)
    with pytest.raises(LimitError):
        compute_regions(net, timeout=0)


# ---------------------------------------------------------------- certificate and CLI
import json
import os
import subprocess
import sys
from fractions import Fraction

from exactnet.cert_regions import regions_certificate_body

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from proofs.check import CheckError, Net  # noqa: E402
from proofs.kind_regions import verify_net  # noqa: E402


class _Bad(Exception):
    pass


def _fail(kind, code, ln, msg):
    raise _Bad(kind, code)


def verify(Ws, bs, body, fail):
    """The checker's REGIONS verification of ``body`` for the Fraction layers: the number of cells, or fail(...)."""
    try:
        return len(verify_net(Net.of(Ws, bs), body)[1])
    except CheckError as e:
        fail(type(e).__name__.lower(), e.code, e.lineno, e.msg)  # 'reject' or 'malformed'


def _fr(net):
    Ws = [[[Fraction(int(v.p), int(v.q)) for v in r] for r in L.weights] for L in net.layers]
    bs = [[Fraction(int(v.p), int(v.q)) for v in L.biases] for L in net.layers]
    return Ws, bs


def _body(rc):
    return [(k + 1, line.split()) for k, line in enumerate(regions_certificate_body(rc))]


@pytest.mark.parametrize(
    "net,box",
    [(example("C"), None), (example("C"), (-1, 1)), (example("D"), None), (example("B"), None),
     (random_network((3, 3, 3, 1), seed=5), (-2, 2)), (random_network((2, 4, 3, 2), seed=7), None)],
)
def test_certificate_verifies(net, box):
    rc = compute_regions(net, box=box)
    assert verify(*_fr(net), _body(rc), _fail) == len(rc.cells)


def test_certificate_mutants_rejected():
    net = random_network((2, 3, 3, 1), seed=11)
    rc = compute_regions(net)
    body = _body(rc)
    Ws, bs = _fr(net)
    # dropping a cell (its cell and point lines) must break the covering or the syntax
    idx = next(k for k, (_, t) in enumerate(body) if t[0] == "cell" and t[1] == "0")
    dropped = [b for k, b in enumerate(body) if k not in (idx, idx + 1)]
    with pytest.raises(_Bad):
        verify(Ws, bs, dropped, _fail)
    # a point moved onto a wrong side, a forced constant made negative, a forced line removed
    for k, (ln, t) in enumerate(body):
        if t[0] == "point":
            bad = list(body)
            bad[k] = (ln, t[:2] + ["1000000"] * (len(t) - 2))
            with pytest.raises(_Bad):
                verify(Ws, bs, bad, _fail)
            break
    forced = [k for k, (_, t) in enumerate(body) if t[0] == "forced"]
    if forced:
        k = forced[0]
        with pytest.raises(_Bad):
            verify(Ws, bs, body[:k] + body[k + 1 :], _fail)
        ln, t = body[k]
        with pytest.raises(_Bad):
            verify(Ws, bs, body[:k] + [(ln, t[:4] + ["-1"] + t[5:])] + body[k + 1 :], _fail)
    # a changed weight: some check must fail
    Ws2 = [[list(r) for r in W] for W in Ws]
    Ws2[0][0][0] += 1
    with pytest.raises(_Bad):
        verify(Ws2, bs, body, _fail)


def _run(*args, cwd):
    return subprocess.run([sys.executable, "-m", "exactnet", *args], capture_output=True, text=True, cwd=cwd)


def test_cli_regions_and_complex(tmp_path):
    from exactnet.netio import save_network

    netf = tmp_path / "c.json"
    save_network(example("C"), str(netf))
    r = _run("regions", str(netf), "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["format"] == "exactnet-regions/1" and doc["summary"]["cells"] == 9
    assert r.stderr == ""  # no progress bar when stderr is not a terminal
    assert "cells" not in doc  # --json alone gives the counts
    r = _run("regions", str(netf), "--json", "--cells", cwd=tmp_path)
    assert len(json.loads(r.stdout)["cells"]) == 9
    out = tmp_path / "r.json"
    r = _run("regions", str(netf), "--box", "-1,1", "-o", str(out), cwd=tmp_path)
    assert r.returncode == 0 and json.loads(out.read_text())["summary"]["bounded_cells"] == 9
    r = _run("complex", str(netf), "-o", str(tmp_path / "cx.json"), cwd=tmp_path)
    assert r.returncode == 0
    cx = json.loads((tmp_path / "cx.json").read_text())
    assert cx["balancing"]["failed"] == [] and cx["balancing"]["checked"] == 4
    bad = tmp_path / "no.json"
    r = _run("regions", str(netf), "--max-cells", "2", "-o", str(bad), cwd=tmp_path)
    assert r.returncode == 2 and "max-cells" in r.stderr and not bad.exists()
    r = _run("regions", str(netf), "--slice", "0,0;1,0;0,1", "--json", cwd=tmp_path)
    assert r.returncode == 0 and json.loads(r.stdout)["summary"]["cells"] == 9


@given(st.integers(0, 10**6), st.sampled_from([(2, 2, 2, 1), (1, 3, 2, 1), (3, 2, 2, 1), (2, 3, 2)]), st.booleans())
@settings(max_examples=10)
def test_full_certificate_roundtrip(seed, arch, boxed):
    from exactnet.cert_regions import regions_certificate
    from exactnet.certificate import check_certificate_text

    net = random_network(arch, seed=seed, max_num=4, max_den=3)
    rc = compute_regions(net, box=(-3, 2) if boxed else None)
    text = regions_certificate(rc)
    res = check_certificate_text(text, net)
    assert res.verified and res.conclusion == "REGIONS", res
