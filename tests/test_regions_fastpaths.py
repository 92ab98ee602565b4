"""The region engine's written-out fast paths against the generic code they replace.

Every fast path must give *the same* answer (not merely an equally valid one): the same float
proposals, the same vertices in the same order, the same facet witnesses, the same cells.
"""

from __future__ import annotations

import gc
import itertools
import random
import time

import pytest
from flint import fmpq, fmpz_mat
from hypothesis import given, settings
from hypothesis import strategies as st

from exactnet import lp, regions, regions2d
from exactnet.errors import LimitError
from exactnet.randnet import random_network
from exactnet.regions import compute_regions


def _rows(rng, m, n, degenerate):
    R = [[rng.randint(-6, 6) for _ in range(n + 1)] for _ in range(m)]
    if degenerate and m > 3:
        R[1] = list(R[0])  # a repeated row
        R[2] = [2 * v for v in R[0][:n]] + [R[0][n] + 1]  # a parallel one
        R[3] = [0] * (n + 1)  # a zero row
    return R


@pytest.mark.parametrize("n", [3, 4])
@pytest.mark.parametrize("seed", range(12))
def test_vertex_keys_written_out_match_generic(n, seed):
    rng = random.Random(seed)
    for degenerate in (False, True):
        R = _rows(rng, rng.randint(n, 9), n, degenerate)
        fast = regions._vertex_keys3(R) if n == 3 else regions._vertex_keys4(R)
        assert list(fast) == list(regions._vertex_keys(R, n))


def test_vertex_keys_box_corners():
    # the unit cube [-1, 1]^3: 8 vertices; the 4-cube: 16
    for n in (3, 4):
        R = []
        for i in range(n):
            e = [0] * n
            e[i] = 1
            R.append(e + [1])
            R.append([-v for v in e] + [1])
        keys = regions._vertex_keys3(R) if n == 3 else regions._vertex_keys4(R)
        assert len(keys) == 2**n
        assert list(keys) == list(regions._vertex_keys(R, n))


def _facet_screen_full_product(cons, p, wit):
    """The former implementation: every candidate against every constraint in one fmpz_mat
    product, candidates in constraint order (projection first, then the remembered witness)."""
    from math import lcm

    n = len(p)
    m = len(cons)
    R = [c[3][0] for c in cons]
    Tp = 1
    for x in p:
        if int(x.q) != 1:
            Tp = lcm(Tp, int(x.q))
    P = [int(x.p) * (Tp // int(x.q)) for x in p]
    cols, owners = [], []
    for k, r in enumerate(R):
        g = sum(v * v for v in r[:n])
        if not g:
            continue
        sk = r[n] * Tp + sum(a * x for a, x in zip(r, P))
        cols.append([x * g - sk * a for x, a in zip(P, r)] + [Tp * g])
        owners.append(k)
        w = wit.get(cons[k][2]) if wit else None
        if w is not None:
            Tw = 1
            for x in w:
                if int(x.q) != 1:
                    Tw = lcm(Tw, int(x.q))
            cols.append([int(x.p) * (Tw // int(x.q)) for x in w] + [Tw])
            owners.append(k)
    out = [None] * m
    if not cols:
        return out
    V = (fmpz_mat(R) * fmpz_mat(n + 1, len(cols), [col[i] for i in range(n + 1) for col in cols])).tolist()
    for j, k in enumerate(owners):
        if out[k] is not None or V[k][j] != 0:
            continue
        if all(V[i][j] > 0 for i in range(m) if i != k):
            out[k] = tuple(fmpq(x, cols[j][n]) for x in cols[j][:n])
    return out


@pytest.mark.parametrize("arch, box", [((3, 5, 5, 1), (-1, 1)), ((3, 6, 1), None), ((4, 4, 4, 1), (-1, 1))])
def test_facet_screen_matches_full_product(monkeypatch, arch, box):
    seen = []
    orig = regions._facet_screen

    def spy(cons, p, wit):
        out = orig(cons, p, wit)
        seen.append(out == _facet_screen_full_product(cons, p, wit))
        return out

    monkeypatch.setattr(regions, "_facet_screen", spy)
    compute_regions(random_network(arch, seed=2), box=box)
    assert seen and all(seen)


@pytest.mark.parametrize("seed", range(6))
def test_float_lp3_same_proposals_as_generic(seed):
    rng = random.Random(seed)
    for _ in range(40):
        m = rng.randint(3, 10)
        A = [[rng.uniform(-1, 1) for _ in range(3)] for _ in range(m)]
        x0 = [rng.uniform(-0.2, 0.2) for _ in range(3)]
        b = [-sum(a * x for a, x in zip(r, x0)) + rng.uniform(0.01, 1) for r in A]  # x0 strictly inside
        c = [rng.uniform(-1, 1) for _ in range(3)]
        assert lp._float_lp3(c, A, b, x0) == lp._float_lp_generic(c, A, b, x0)


_NETS_2D = [
    ((2, 6, 6, 1), None, {}),
    ((2, 5, 5, 2), (-1, 1), {}),
    ((2, 4, 4, 4, 3), None, {}),
    # degenerate: small integer weights (parallel and coincident lines, lines through
    # corners, dead and constant neurons)
    ((2, 6, 6, 1), None, {"max_num": 1, "max_den": 1}),
    ((2, 5, 5, 3), (-1, 1), {"max_num": 1, "max_den": 1}),
    ((2, 4, 4, 4, 2), None, {"max_num": 2, "max_den": 1}),
    ((2, 3), None, {}),  # no hidden layer
]


@pytest.mark.parametrize("arch, box, kw", _NETS_2D)
def test_cells_2d_match_leaf_by_leaf_finishing(arch, box, kw):
    """:func:`regions2d.cells_2d` (one pass over the corners, caches, integer angle order,
    output map accumulated along the subdivision) against :func:`regions2d.finish_cell` +
    :func:`regions2d.gradient_of` (the product ``[d W | d b] [M; 0 0 D]`` per leaf) +
    rational angle order."""
    net = random_network(arch, seed=3, **kw)
    rc = compute_regions(net, box=box)
    qbox = None if box is None else (fmpq(box[0]), fmpq(box[1]))
    leaves, ints = regions2d.compute_cells_2d(net, qbox, None, None, None, time.monotonic())
    assert len(leaves) == len(rc.cells)
    for leaf, cell in zip(leaves, rc.cells):
        point, recs, wit, fin, bounded = regions2d.finish_cell(leaf, ints, True)
        assert cell.interior_point == point
        assert cell.bounded == (bounded or box is not None)
        assert [(k.normal, k.offset, k.witness) for k in cell.constraints] == [
            regions2d.rec_exact(r) + (wit[id(r)],) for r in recs
        ]
        corners = [(fmpq(v[0], v[2]), fmpq(v[1], v[2])) for v in fin]
        if corners:
            b = 0
            for k in range(1, len(corners)):
                if regions._angle_cmp(corners[k], corners[b], point) < 0:
                    b = k
            corners = corners[b:] + corners[:b]
        assert list(cell.corners) == corners
        G, offs = regions2d.gradient_of(leaf, ints)
        assert cell.gradient == G and cell.offset == offs


def test_gc_state_restored():
    net = random_network((2, 4, 4, 1), seed=0)
    assert gc.isenabled()
    compute_regions(net)
    assert gc.isenabled()
    with pytest.raises(LimitError):
        compute_regions(net, max_cells=1)
    assert gc.isenabled()
    gc.disable()
    try:
        compute_regions(net)
        assert not gc.isenabled()
    finally:
        gc.enable()


@given(
    st.integers(-(10**30), 10**30),
    st.integers(-(10**30), 10**30),
    st.integers(1, 10**25),
    st.lists(st.tuples(st.integers(-60, 60), st.integers(-60, 60), st.integers(-(10**8), 10**8)), max_size=5),
)
@settings(max_examples=400, deadline=None)
def test_simplify_int_matches_definition(sx, sy, den, recs):
    """The dyadic interior point from one division (shifts per ``k``) is the one of the
    definition: the first ``k`` whose rounding of ``(sx, sy) / den`` is strictly inside."""
    assert regions2d._simplify_int(sx, sy, den, recs) == regions2d._simplify_int_ref(sx, sy, den, recs)


@given(st.integers(1, 10**6), st.data())
@settings(max_examples=200, deadline=None)
def test_simplify_int_matches_definition_near_interior(den, data):
    """The same law where it matters: a point strictly inside a polygon around it, so that
    some ``k`` is accepted (often after several rejected ones)."""
    sx = data.draw(st.integers(-(10**9), 10**9))
    sy = data.draw(st.integers(-(10**9), 10**9))
    recs = []
    for _ in range(data.draw(st.integers(1, 5))):
        a = data.draw(st.integers(-40, 40))
        b = data.draw(st.integers(-40, 40))
        slack = data.draw(st.integers(1, 10**4))  # h(point) = slack / den > 0
        recs.append((a * den, b * den, slack - a * sx - b * sy))
    # h(x, y) = a den x + b den y + c with (x, y) = (sx, sy) / den: h = slack / den
    got = regions2d._simplify_int(sx, sy, den, recs)
    assert got == regions2d._simplify_int_ref(sx, sy, den, recs)
    u, v, s = got[1]
    assert all(r[0] * u + r[1] * v + r[2] * s > 0 for r in recs)


def _collect(monkeypatch, name):
    calls = []
    orig = getattr(regions2d, name)

    def spy(*args):
        calls.append(args)
        return orig(*args)

    monkeypatch.setattr(regions2d, name, spy)
    return calls, orig


@pytest.mark.parametrize("arch, box, kw", _NETS_2D[:6])
def test_angle_first_corner_by_runs_matches_scan(monkeypatch, arch, box, kw):
    """The first corner found at the start of the ``[0, pi)`` run is the one the full
    comparison scan finds, on every leaf (bounded and unbounded cells)."""
    calls, orig = _collect(monkeypatch, "_angle_key_first")
    rc = compute_regions(random_network(arch, seed=5, **kw), box=box)
    for cell in rc.cells:  # (the corners are put in angle order when first asked)
        cell.corners
    assert calls
    for args in calls:
        assert orig(*args) == regions2d._angle_key_first_scan(*args)


@pytest.mark.parametrize("arch, box, kw", _NETS_2D[:6])
@pytest.mark.parametrize("numpy_path", [True, False])
def test_next_batch_matches_node_by_node(monkeypatch, arch, box, kw, numpy_path):
    """:func:`regions2d._next_batch` (one NumPy product for all sub-nodes of a cell, or its
    Python-integer fallback) against :func:`regions2d._layer_G` + :func:`regions2d._signs_on`
    node by node: the same rows and scale up to their gcd, and the same signs."""
    calls, orig = _collect(monkeypatch, "_next_batch")
    net = random_network(arch, seed=7, **kw)
    compute_regions(net, box=box)
    assert calls
    for Wd, Gr, D, nodes in calls:
        if not numpy_path:
            Wd = (Wd[0], Wd[1], None, Wd[3])
        got = orig(Wd, Gr, D, nodes)
        assert len(got) == len(nodes)
        for (V, bits), (G, S, mins, maxs) in zip(nodes, got):
            M = [Gr[i] if b else [0, 0, 0] for i, b in enumerate(bits)]
            G0, S0, _, _ = regions2d._layer_G(Wd, M, D)
            assert [fmpq(x, S) for r in G for x in r] == [fmpq(x, S0) for r in G0 for x in r]
            assert (G, S) == regions2d._reduced(G0, S0)
            mins0, maxs0 = regions2d._signs_on(G0, None, V)
            assert [(a > 0) - (a < 0) for a in mins] == [(a > 0) - (a < 0) for a in mins0]
            assert [(a > 0) - (a < 0) for a in maxs] == [(a > 0) - (a < 0) for a in maxs0]


def test_makers_equal_the_dataclass_constructors():
    c = regions._mk_constraint((fmpq(1), fmpq(-2)), fmpq(3), (1, 0), None, (fmpq(0), fmpq(1, 2)), None)
    assert c == regions.Constraint((fmpq(1), fmpq(-2)), fmpq(3), (1, 0), None, (fmpq(0), fmpq(1, 2)), None)
    assert type(c) is regions.Constraint and repr(c).startswith("Constraint(normal=")
    rc = compute_regions(random_network((2, 3, 1), seed=1))
    for cell in rc.cells:
        names = [f for f in regions.Cell.__dataclass_fields__]
        assert cell == regions.Cell(*[getattr(cell, f) for f in names])


@pytest.mark.parametrize("arch, box, kw", _NETS_2D)
def test_inlined_constructors_build_the_same_objects(arch, box, kw):
    """The planar engine builds ``Constraint`` objects inline (as ``regions._mk_constraint_rec``
    does, also when a pseudo-corner replaces a facet's witness) and its nodes by
    ``regions2d._mk_node`` instead of ``_Cell(...)``: the same objects, the same instance dict
    order."""
    net = random_network(arch, seed=11, **kw)
    rc = compute_regions(net, box=box)
    names = list(regions.Constraint.__dataclass_fields__)
    for cell in rc.cells:
        for k in cell.constraints:
            ref = regions.Constraint(k.normal, k.offset, k.neuron, None, k.witness, k.box_side)
            assert type(k) is regions.Constraint and k == ref and repr(k) == repr(ref)
            assert list(vars(k)) == names
    args = ([(1, 0, 1)], [None], ((1,),), (), {}, (0,), None, 3, (1, 2, 3), [[1, 2, 3]], [1])
    a, b = regions2d._Cell(*args), regions2d._mk_node(*args)
    assert type(b) is regions2d._Cell
    assert all(getattr(a, f) is getattr(b, f) for f in regions2d._Cell.__slots__)
    a, b = regions2d._Cell(*args[:8]), regions2d._mk_node(*args[:8])
    assert all(getattr(a, f) is getattr(b, f) for f in regions2d._Cell.__slots__)


def test_next_batch_big_corners_take_the_python_path():
    """Corners beyond int64 (or products beyond the bound) are tested in Python integers:
    the same answer as node by node."""
    net = random_network((2, 3, 4, 1), seed=2)
    ints = regions2d._int_layers(net)
    Wd = ints[1]
    Gr = [[3, -1, 2], [0, 5, -7], [1, 1, 1]]
    big = 2**70 + 3
    nodes = [
        ([(big, 1, 1), (-big, 2, 1), (0, -big, 1)], [1, 0, 1]),
        ([(1, 0, 0), (0, 1, 0), (-1, -1, 1)], [1, 1, 1]),
        ([(2**40, 2**41, 3), (-(2**40), 5, 1), (7, -(2**41), 1)], [0, 1, 1]),
    ]
    got = regions2d._next_batch(Wd, Gr, 1, nodes)
    for (V, bits), (G, S, mins, maxs) in zip(nodes, got):
        M = [Gr[i] if b else [0, 0, 0] for i, b in enumerate(bits)]
        G0, S0, _, _ = regions2d._layer_G(Wd, M, 1)
        assert (G, S) == regions2d._reduced(G0, S0)
        m0, x0 = regions2d._signs_on(G, None, V)
        assert (mins, maxs) == (m0, x0)


@pytest.mark.parametrize("arch, seed", [((2, 4, 3, 1), 1), ((2, 5, 5, 2), 3), ((2, 3, 3, 3, 1), 7)])
def test_2d_without_vertices_has_the_same_complex(arch, seed):
    # vertices=False only hides the vertex lists: the breakpoint complex (built from the corners in
    # 2-D) and the summary are those of the default run. It raised "gradient difference across a
    # face is not a multiple of its normal" when the corners were skipped too.
    from exactnet.breakpoints import breakpoint_complex
    from exactnet.randnet import random_network

    net = random_network(arch, seed=seed, max_num=3, max_den=2)
    plain, full = regions.compute_regions(net, vertices=False), regions.compute_regions(net)
    assert all(c.vertices is None for c in plain.cells)
    s_plain, s_full = plain.summary(), full.summary()
    assert s_plain["vertices"] is None and s_full["vertices"] is not None
    assert {k: v for k, v in s_plain.items() if k != "vertices"} == {k: v for k, v in s_full.items() if k != "vertices"}
    key = lambda bc: sorted((f.cells, f.neuron, tuple(f.normal), f.offset, tuple(f.jump)) for f in bc.faces)
    assert key(breakpoint_complex(plain)) == key(breakpoint_complex(full))
