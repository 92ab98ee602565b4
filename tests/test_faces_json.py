"""Vertices, edges, invisible faces and linear regions in the regions / complex JSON documents.

The documents are read back from their JSON text (rationals as strings) and checked against
the cells' H-representations with independent brute-force computations: vertices from every
``n0``-subset of a cell's facets, segments from the pairwise rank criterion, rays from the
extreme rays of the recession cone, linear regions from exact evaluation of the network.
"""

from __future__ import annotations

import itertools
import json
import random

import pytest
from flint import fmpq, fmpq_mat
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exactnet.cli import main as cli_main
from exactnet.faces import _cell_edges_2d, cell_edges, complex_faces
from exactnet.network import Network
from exactnet.netio import save_network
from exactnet.qq import parse_q
from exactnet.randnet import random_network
from exactnet.regions import compute_regions
from exactnet.regions_json import dumps_complex, dumps_regions

Q0 = fmpq(0)
SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ------------------------------------------------------------------ helpers
def _q(v):
    return [parse_q(x) for x in v]


def _dot(a, x):
    return sum((ai * xi for ai, xi in zip(a, x)), Q0)


def _rank(rows, n):
    return fmpq_mat([list(r) for r in rows]).rank() if rows else 0


def _key(v):
    return tuple(v)


def _docs(net, box=None):
    rc = compute_regions(net, box=box)
    reg = json.loads(dumps_regions(rc))
    cx = json.loads(dumps_complex(rc))
    return rc, reg, cx


def _cons(cell):
    return [(_q(k["normal"]), parse_q(k["offset"])) for k in cell["constraints"]]


def _brute_vertices(cons, n):
    """Every vertex of ``{a.x + c >= 0}``: solutions of ``n`` facets of rank ``n``, feasible."""
    out = set()
    for sub in itertools.combinations(cons, n):
        A = fmpq_mat([list(a) for a, _ in sub])
        if A.rank() < n:
            continue
        x = A.solve(fmpq_mat([[-c] for _, c in sub]))
        v = tuple(x[i, 0] for i in range(n))
        if all(_dot(a, v) + c >= 0 for a, c in cons):
            out.add(v)
    return out


def _null(rows, n):
    """The null vector of ``n - 1`` rows by cofactors (generalized cross product), or None when
    their rank is below ``n - 1``: a different method from exactnet.faces' elimination."""
    A = [list(r) for r in rows]
    d = [(-1) ** j * fmpq_mat([r[:j] + r[j + 1:] for r in A]).det() for j in range(n)]
    return d if any(d) else None


def _same_dir(d, e):
    """Positive multiples of each other?"""
    n = len(d)
    return _rank([d, e], n) == 1 and _dot(d, e) > 0


def _brute_edges(cons, n, verts):
    """Segments (pairs of vertices), rays (vertex, direction) and lines (point-free: number of
    lines) of one cell, by the rank criterion on tight sets and the recession cone's rays."""
    tight = {v: [k for k, (a, c) in enumerate(cons) if _dot(a, v) + c == 0] for v in verts}
    segs = set()
    for v, w in itertools.combinations(verts, 2):
        common = set(tight[v]) & set(tight[w])
        if _rank([cons[k][0] for k in common], n) == n - 1:
            segs.add(frozenset((v, w)))
    cone = []
    for sub in itertools.combinations(range(len(cons)), n - 1):
        d = _null([cons[k][0] for k in sub], n)
        if d is None:
            continue
        for s in (d, [-x for x in d]):
            if all(_dot(a, s) >= 0 for a, _ in cons) and not any(_same_dir(s, e) for e in cone):
                cone.append(s)
    rays = []
    for v in verts:
        for d in cone:
            on = [cons[k][0] for k in tight[v] if _dot(cons[k][0], d) == 0]
            if _rank(on, n) == n - 1:
                rays.append((v, d))
    return segs, rays


def check_regions_doc(net, rc, doc):
    """Every law about ``vertices`` / ``edges`` of an ``exactnet-regions/1`` document."""
    n = rc.network.input_dim
    assert doc["faces_complete"] is True
    cells = doc["cells"]
    verts = [tuple(_q(v["point"])) for v in doc["vertices"]]
    assert len(set(verts)) == len(verts) and verts == sorted(verts)
    assert doc["summary"]["vertices"] == len(verts)
    vid = {v: i for i, v in enumerate(verts)}
    listing = [set() for _ in cells]
    for i, v in enumerate(doc["vertices"]):
        p = verts[i]
        assert v["cells"] == sorted(set(v["cells"])) and v["cells"]
        for c in v["cells"]:
            listing[c].add(i)
            cons = _cons(cells[c])
            assert all(_dot(a, p) + k >= 0 for a, k in cons)
            # on the boundary, tight on at least n independent facets: a vertex of the cell
            assert _rank([a for a, k in cons if _dot(a, p) + k == 0], n) == n
    # each cell's vertex set (brute force, the engine's corners, the bounded cells' JSON
    # vertices) equals the set of vertices listing it
    for ci, cell in enumerate(cells):
        cons = _cons(cell)
        brute = _brute_vertices(cons, n)
        assert {vid[v] for v in brute} == listing[ci]
        assert {vid[tuple(v)] for v in rc.cells[ci].corners} == listing[ci]
        if cell["bounded"]:
            assert {vid[tuple(_q(v))] for v in cell["vertices"]} == listing[ci]
    if n < 2:
        assert "edges" not in doc
        return
    edges = doc["edges"]
    seg_of = [set() for _ in cells]
    rays_of = [[] for _ in cells]
    lines_of = [0] * len(cells)
    for e in edges:
        assert e["cells"] == sorted(set(e["cells"])) and e["cells"]
        if len(e["vertices"]) == 2:
            i, j = e["vertices"]
            assert i < j and "direction" not in e
            for c in e["cells"]:
                assert c in doc["vertices"][i]["cells"] and c in doc["vertices"][j]["cells"]
                seg_of[c].add(frozenset((verts[i], verts[j])))
        elif len(e["vertices"]) == 1:
            (i,) = e["vertices"]
            d = _q(e["direction"])
            assert all(x.q == 1 for x in d)
            for c in e["cells"]:
                assert c in doc["vertices"][i]["cells"]
                rays_of[c].append((verts[i], d))
        else:
            p, d = _q(e["point"]), _q(e["direction"])
            assert next(x for x in d if x) > 0
            for c in e["cells"]:
                cons = _cons(cells[c])
                assert all(_dot(a, d) == 0 for a, _ in cons)
                assert all(_dot(a, p) + k >= 0 for a, k in cons)
                assert _rank([a for a, k in cons if _dot(a, p) + k == 0], n) == n - 1
                lines_of[c] += 1
    for ci, cell in enumerate(cells):
        cons = _cons(cell)
        verts_c = [verts[i] for i in sorted(listing[ci])]
        segs, rays = _brute_edges(cons, n, verts_c)
        assert seg_of[ci] == segs
        assert len(rays_of[ci]) == len(rays)
        for v, d in rays:
            assert any(w == v and _same_dir(d, e) for w, e in rays_of[ci])
        normals = [a for a, _ in cons]
        if verts_c or _rank(normals, n) != n - 1:
            assert lines_of[ci] == 0
        else:
            assert lines_of[ci] >= 1
        # the general tangent-cone method agrees with the planar one
        if n == 2:
            assert _edge_set(rc.cells[ci], cell_edges(rc.cells[ci], 2)) == _edge_set(rc.cells[ci], _cell_edges_2d(rc.cells[ci]))


def _edge_set(cell, found):
    out = set()
    for kind, a, b in found:
        if kind == "segment":
            out.add((kind, frozenset((cell.corners[a], cell.corners[b]))))
        elif kind == "ray":
            out.add((kind, cell.corners[a], tuple(b)))
        else:
            out.add((kind, tuple(a), tuple(b)))
    return out


def check_edges_match_faces_2d(rc, reg, cx):
    """2-D: the edges with two cells are exactly the codimension-1 faces of the complex; the
    edges with one cell lie on the box boundary."""
    verts = [tuple(_q(v["point"])) for v in reg["vertices"]]
    vid = {v: i for i, v in enumerate(verts)}
    faces = set()
    for f in cx["faces"]:
        fv = sorted(vid[tuple(_q(v))] for v in f["vertices"])
        faces.add((tuple(fv), tuple(sorted(f["cells"]))))
    two = set()
    for e in reg["edges"]:
        if len(e["cells"]) == 2:
            two.add((tuple(e["vertices"]), tuple(e["cells"])))
        else:
            assert len(e["cells"]) == 1 and rc.box is not None and len(e["vertices"]) == 2
            p, q = (verts[i] for i in e["vertices"])
            assert any(p[k] == q[k] and p[k] in rc.box for k in range(2))
    assert two == faces


def check_complex_doc(net, rc, cx):
    """Invisible faces and linear regions of an ``exactnet-complex/1`` document."""
    faces = cx["faces"]
    invisible = [i for g in cx["invisible_faces"] for i in g["faces"]]
    assert sorted(invisible) == sorted(set(invisible))
    assert set(invisible) == {i for i, f in enumerate(faces) if not f["visible"]}
    neurons = [tuple(g["neuron"]) for g in cx["invisible_faces"]]
    assert neurons == sorted(set(neurons))
    for g in cx["invisible_faces"]:
        for i in g["faces"]:
            assert faces[i]["neuron"] == g["neuron"]
            assert all(parse_q(x) == 0 for x in faces[i]["jump"])
    for f in faces:
        assert f["visible"] == any(parse_q(x) != 0 for x in f["jump"])
    regions = cx["linear_regions"]
    assert cx["summary"]["linear_regions"] == len(regions)
    region_of = {}
    for r, reg in enumerate(regions):
        assert reg["cells"] == sorted(reg["cells"])
        for c in reg["cells"]:
            assert c not in region_of
            region_of[c] = r
    assert sorted(region_of) == list(range(len(rc.cells)))  # every cell in exactly one region
    # affine maps recomputed by exact evaluation of the network at each cell's interior point
    maps = []
    for c in rc.cells:
        x = c.interior_point
        G = net_gradient(rc.network, x)
        fx = rc.network.evaluate(x)
        off = [fx[o] - _dot(G[o], x) for o in range(len(fx))]
        maps.append((tuple(map(tuple, G)), tuple(off)))
    for r, reg in enumerate(regions):
        want = (tuple(tuple(_q(row)) for row in reg["gradient"]), tuple(_q(reg["offset"])))
        for c in reg["cells"]:
            assert maps[c] == want
    for f in faces:
        a, b = f["cells"]
        if f["visible"]:
            assert region_of[a] != region_of[b]
        else:
            assert region_of[a] == region_of[b]
    return maps, region_of


def net_gradient(net, x):
    G = net.gradient(x)
    return [[G[o, j] for j in range(G.ncols())] for o in range(G.nrows())]


def oracle_regions_2d(rc, reg, maps):
    """Linear regions by brute force in 2-D: cells joined through a shared edge (from the
    regions document, not from the breakpoint complex) when their evaluated maps agree."""
    parent = list(range(len(rc.cells)))

    def find(a):
        while parent[a] != a:
            a = parent[a]
        return a

    for e in reg["edges"]:
        for a, b in itertools.combinations(e["cells"], 2):
            if maps[a] == maps[b]:
                parent[find(a)] = find(b)
    groups = {}
    for i in range(len(rc.cells)):
        groups.setdefault(find(i), []).append(i)
    return sorted(sorted(g) for g in groups.values())


def check_all(net, box=None):
    rc, reg, cx = _docs(net, box)
    check_regions_doc(net, rc, reg)
    maps, _ = check_complex_doc(net, rc, cx)
    if rc.network.input_dim == 2:
        check_edges_match_faces_2d(rc, reg, cx)
        assert oracle_regions_2d(rc, reg, maps) == [r["cells"] for r in cx["linear_regions"]]
        if box is not None:
            # Euler: V - E + F = 1 for the bounded cells tiling the box (a disc)
            assert len(reg["vertices"]) - len(reg["edges"]) + len(reg["cells"]) == 1
    return rc, reg, cx


def _net(W1, b1, more=(), out=None):
    layers = [(W1, b1)] + list(more)
    width = len(layers[-1][1])
    layers.append(out if out is not None else ([[1] * width], [0]))
    return Network.from_lists(layers)


# ------------------------------------------------------------------ random networks
@given(st.integers(0, 10**6), st.sampled_from([(2, 3, 2, 1), (2, 4, 3, 1), (2, 2, 2, 2, 1), (2, 3, 2, 2)]),
       st.sampled_from([None, (-2, 2), (-1, 3)]))
@SETTINGS
def test_random_2d(seed, arch, box):
    check_all(random_network(arch, seed=seed), box)


@given(st.integers(0, 10**6), st.sampled_from([(2, 3, 2, 1), (2, 3, 3, 1)]), st.sampled_from([None, (-1, 1)]))
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_random_2d_small_integers(seed, arch, box):
    # weights in {-2..2}: many coincidences (lines through vertices, zero neurons, dead neurons)
    check_all(random_network(arch, seed=seed, max_num=2, max_den=1), box)


@given(st.integers(0, 10**6), st.sampled_from([(3, 3, 1), (3, 3, 2, 1), (3, 4, 1)]), st.sampled_from([None, (-1, 1)]))
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_random_3d(seed, arch, box):
    check_all(random_network(arch, seed=seed), box)


@given(st.integers(0, 10**6), st.sampled_from([(3, 3, 2, 1), (3, 4, 1)]))
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_random_3d_small_integers(seed, arch):
    check_all(random_network(arch, seed=seed, max_num=1, max_den=1), (-1, 1))


@pytest.mark.parametrize("d,n", [(2, 4), (3, 4)])
def test_general_position_counts(d, n):
    # one hidden layer in general position: C(n, d) vertices; every line (2-D) or every line
    # of two planes (3-D) is cut by the other hyperplanes into segments and two rays
    rng = random.Random(d * 100 + n)
    while True:
        W = [[fmpq(rng.randint(-30, 30), rng.randint(1, 7)) for _ in range(d)] for _ in range(n)]
        b = [fmpq(rng.randint(-30, 30), rng.randint(1, 7)) for _ in range(n)]
        net = _net(W, b)
        rc, reg, _ = check_all(net)
        if len(rc.cells) == sum(__import__("math").comb(n, i) for i in range(d + 1)):
            break
    from math import comb

    assert len(reg["vertices"]) == comb(n, d)
    lines = comb(n, d - 1)
    pieces = n - d + 2  # each line meets the other n - d + 1 hyperplanes once
    segs = [e for e in reg["edges"] if len(e["vertices"]) == 2]
    rays = [e for e in reg["edges"] if len(e["vertices"]) == 1]
    assert len(rays) == 2 * lines and len(segs) == lines * (pieces - 2)
    for e in reg["edges"]:
        assert len(e["cells"]) == 2 * (d - 1)


# ------------------------------------------------------------------ degenerate networks
def test_three_lines_through_one_point():
    net = _net([[1, 0], [0, 1], [1, 1]], [0, 0, 0])
    rc, reg, cx = check_all(net)
    assert reg["vertices"] == [{"point": ["0", "0"], "cells": list(range(6))}]
    assert len(reg["edges"]) == 6 and all(len(e["vertices"]) == 1 and len(e["cells"]) == 2 for e in reg["edges"])
    rc, reg, cx = check_all(net, (-1, 1))
    # corners (4) + where x = 0 and y = 0 leave the box (4) + the origin; x + y = 0 ends at corners
    assert len(reg["vertices"]) == 9
    origin = next(v for v in reg["vertices"] if v["point"] == ["0", "0"])
    assert len(origin["cells"]) == 6


def test_coincident_hyperplanes():
    net = _net([[1, 1], [2, 2], [-1, -1]], [1, 2, -1])
    rc, reg, cx = check_all(net)
    assert reg["vertices"] == []
    assert reg["edges"] == [{"vertices": [], "point": ["0", "-1"], "direction": ["1", "-1"], "cells": [0, 1]}]
    check_all(net, (-2, 2))


def test_parallel_hyperplanes():
    net = _net([[1, 0], [1, 0], [2, 0]], [0, -1, -4])
    rc, reg, cx = check_all(net)
    assert reg["vertices"] == [] and len(reg["edges"]) == 3
    assert sorted(e["point"][0] for e in reg["edges"]) == ["0", "1", "2"]
    assert all(e["direction"] == ["0", "1"] for e in reg["edges"])
    check_all(net, (-3, 3))


def test_dead_and_zero_neurons():
    # layer-2 neuron 0 always active, neuron 1 dead; a neuron with a zero row and bias
    net = Network.from_lists([([[1, 0], [0, 0]], [0, 0]), ([[2, 0], [-3, 0]], [1, -1]), ([[1, 1]], [0])])
    rc, reg, cx = check_all(net)
    assert reg["vertices"] == [] and len(reg["edges"]) == 1
    rc, reg, cx = check_all(net, (-1, 1))
    assert len(reg["vertices"]) == 6


def test_all_dead_single_cell():
    net = _net([[0, 0], [0, 0]], [-1, -2], more=[([[1, 1]], [-1])])
    rc = compute_regions(net)
    assert len(rc.cells) == 1 and not rc.cells[0].constraints
    rc, reg, cx = check_all(net)  # the whole plane: no vertex, no edge
    assert reg["vertices"] == [] and reg["edges"] == []
    rc, reg, cx = check_all(net, (-1, 1))
    assert len(reg["vertices"]) == 4 and len(reg["edges"]) == 4


def test_neuron_zero_on_a_cell_and_invisible_faces():
    # h1 = relu(x), h2 = relu(x - 1); f = h1 - h1 (invisible everywhere) + relu(h2): the face x = 0
    # is invisible, x = 1 visible; the second layer neuron reading h1 - h1 is zero everywhere
    net = Network.from_lists([([[1, 0], [1, 0]], [0, -1]), ([[1, -1], [0, 1]], [0, 0]), ([[0, 1]], [0])])
    rc, reg, cx = check_all(net)
    assert len(cx["linear_regions"]) == 2
    inv = cx["invisible_faces"]
    assert len(inv) == 1 and len(inv[0]["faces"]) == 1


def test_three_planes_through_one_line_3d():
    # x = 0, y = 0, x + y = 0 in R^3: six wedges around the z axis, their only edge
    net = _net([[1, 0, 0], [0, 1, 0], [1, 1, 0]], [0, 0, 0])
    rc, reg, cx = check_all(net)
    assert reg["vertices"] == []
    assert reg["edges"] == [{"vertices": [], "point": ["0", "0", "0"], "direction": ["0", "0", "1"],
                             "cells": list(range(6))}]
    check_all(net, (-1, 1))


def test_non_simple_vertex_3d():
    # four planes through the origin
    net = _net([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]], [0, 0, 0, 0])
    rc, reg, cx = check_all(net)
    assert len(reg["vertices"]) == 1 and all(len(e["vertices"]) == 1 for e in reg["edges"])
    check_all(net, (-1, 1))


def test_parallel_planes_3d_no_edges():
    net = _net([[1, 0, 0], [2, 0, 0]], [0, -1])
    rc, reg, cx = check_all(net)
    assert reg["vertices"] == [] and reg["edges"] == []


def test_one_dimensional_input():
    net = random_network((1, 3, 2, 1), seed=3)
    rc, reg, cx = check_all(net)
    assert "edges" not in reg
    assert all(1 <= len(v["cells"]) <= 2 for v in reg["vertices"])
    rc, reg, cx = check_all(net, (-5, 5))
    assert len(reg["vertices"]) == len(reg["cells"]) + 1


def test_no_vertex_enumeration_above_four():
    net = random_network((5, 2, 1), seed=0)
    rc = compute_regions(net)
    doc = json.loads(dumps_regions(rc))
    assert doc["faces_complete"] is False and "vertices" not in doc and "edges" not in doc
    assert doc["summary"]["vertices"] is None
    assert complex_faces(rc).complete is False


def test_cli_documents_keep_old_keys(tmp_path):
    netf = tmp_path / "n.json"
    save_network(random_network((2, 3, 2, 1), seed=5), str(netf))
    r, c = tmp_path / "r.json", tmp_path / "c.json"
    assert cli_main(["regions", str(netf), "-o", str(r), "--quiet"]) == 0
    assert cli_main(["complex", str(netf), "-o", str(c), "--quiet"]) == 0
    reg, cx = json.loads(r.read_text()), json.loads(c.read_text())
    assert reg["format"] == "exactnet-regions/1" and cx["format"] == "exactnet-complex/1"
    assert set(reg) >= {"architecture", "box", "slice", "cells", "summary", "vertices", "edges", "faces_complete"}
    assert set(cx) >= {"faces", "balancing", "summary", "invisible_faces", "linear_regions"}
    assert list(reg)[-1] == "summary"


@given(st.integers(0, 10**6), st.sampled_from([None, (-1, 1)]))
@settings(max_examples=10, deadline=None)
def test_planar_cyclic_shortcut_matches_full_scan(seed, box):
    # the planar edges use the facets' cyclic order only as a hint: shuffled or reversed facets
    # (hint wrong or reversed) give the same edges as the engine's order
    import dataclasses

    rc = compute_regions(random_network((2, 4, 3, 1), seed=seed, max_num=3, max_den=2), box=box)
    rng = random.Random(seed)
    for cell in rc.cells:
        want = _edge_set(cell, _cell_edges_2d(cell))
        for cons in (tuple(reversed(cell.constraints)), tuple(rng.sample(cell.constraints, len(cell.constraints)))):
            other = dataclasses.replace(cell, constraints=cons)
            assert _edge_set(other, _cell_edges_2d(other)) == want


def test_slice_faces_in_slice_coordinates():
    # a 3-D network on a 2-D slice: vertices and edges in the coordinates (s, t) of the slice
    net = random_network((3, 3, 2, 1), seed=7)
    sl = ([0, 0, 0], [1, 0, 1], [0, 1, -1])
    for box in (None, (-2, 2)):
        rc = compute_regions(net, box=box, slice_=sl)
        reg, cx = json.loads(dumps_regions(rc)), json.loads(dumps_complex(rc))
        assert reg["slice"] is not None and all(len(v["point"]) == 2 for v in reg["vertices"])
        check_regions_doc(rc.network, rc, reg)
        check_complex_doc(rc.network, rc, cx)
        check_edges_match_faces_2d(rc, reg, cx)
        if box is not None:
            assert len(reg["vertices"]) - len(reg["edges"]) + len(reg["cells"]) == 1
