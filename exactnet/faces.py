"""Vertices and edges of a region complex, with their incident cells, decided exactly.

Input: a :class:`~exactnet.regions.RegionComplex` whose cells carry their corners (every
vertex of the closed cell, bounded or not: ``Cell.corners``, computed by the engine when
``n0 <= 4`` by default). Everything is exact: ``fmpq``, or Python integers after scaling a
constraint or a point by a positive common denominator (``n0 >= 3``); no float is used.

**Vertices.** A vertex of the complex is a vertex (0-dimensional face) of at least one cell;
its incident cells are the cells that have it as a vertex. So a cell's vertex set is exactly
the set of vertices that list it. Inside a box the box corners and the points where bent
hyperplanes meet the box boundary are vertices like any other (the box sides are facets of
the cells).

**Edges** (``n0 >= 2``): the 1-dimensional faces of the cells. Let ``P = {x : a_k . x + c_k
>= 0}`` be a cell (irredundant facets, full-dimensional) and ``T(v)`` the facets tight at a
vertex ``v``. The edges of ``P`` through ``v`` are ``v + R_+ d`` cut by ``P`` for the extreme
rays ``d`` of the tangent cone ``K = {d : a_k . d >= 0, k in T(v)}`` (``K`` is pointed since
``v`` is a vertex, so ``rank A_T(v) = n0``): ``d`` spans the null space of some ``n0 - 1``
rows of ``A_T(v)`` of rank ``n0 - 1`` and ``A_T(v) d`` has one sign (this also covers
non-simple vertices, with more than ``n0`` facets through them). Following ``d`` from ``v``,
the first facet with ``a_k . d < 0`` stops it at ``v + t d``, ``t = min (a_k . v + c_k) /
(-a_k . d)``, which must be another vertex of ``P`` (checked; an inconsistency raises
:class:`~exactnet.errors.ExactnetError`): a *segment*; when no facet stops it, a *ray*.
Every edge of a pointed polyhedron contains a vertex, so all of them are found. In 2-D this
amounts to: an edge per facet, a segment between its two tight vertices, a ray from its only
tight vertex, or a full line.

A cell without vertices has a nontrivial lineality space ``L`` (the null space of its facet
normals). When ``dim L = 1`` its 1-dimensional faces are *lines* ``x + R d``: for every set of
``n0 - 1`` facets of rank ``n0 - 1`` the point of their flat with coordinate ``r = 0`` (``r``
the first nonzero coordinate of ``d``) is tested against all facets. When ``dim L >= 2`` the
cell has no edge at all (its smallest faces have dimension ``>= 2``).

Edges are identified across cells by their exact geometry: a segment by its two vertex
indices, a ray by its vertex and its primitive integer direction, a line by its canonical
point and its primitive integer direction with first nonzero entry positive. Each edge lists
the cells of which it is a face.

Order: vertices sorted lexicographically by coordinates; edges sorted by kind (segments,
rays, lines), then by vertex indices, direction and point; every cell list ascending.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from math import gcd, lcm
from typing import NamedTuple

from flint import fmpq, fmpq_mat

from .errors import ExactnetError
from .regions import _dot

__all__ = ["Edge", "ComplexFaces", "complex_faces"]

Q0 = fmpq(0)


class Edge(NamedTuple):
    """A 1-dimensional face: ``kind`` is ``"segment"`` (``vertices = (i, j)``, ``i < j``),
    ``"ray"`` (``vertices = (i,)``, ``direction``) or ``"line"`` (``vertices = ()``,
    ``point`` and ``direction``); ``cells`` the cells having it as a face (ascending).
    (A named tuple: one per edge, built much faster than a frozen dataclass.)"""

    kind: str
    vertices: tuple
    direction: tuple | None
    point: tuple | None
    cells: tuple


@dataclass(frozen=True)
class ComplexFaces:
    """Vertices (points with their cells) and edges of a region complex.

    ``complete`` is False when the engine did not enumerate the cells' vertices (by default
    for ``n0 > 4``): then ``vertices`` and ``edges`` are empty and mean nothing. ``edges`` is
    None for ``n0 = 1`` (the 1-dimensional faces are the cells themselves)."""

    complete: bool
    vertices: list
    vertex_cells: list
    edges: list | None


def _key(v) -> tuple:
    # fmpq hashing is slow: integers as the dictionary key of a point
    if len(v) == 2:
        x, y = v
        return (int(x.p), int(x.q), int(y.p), int(y.q))
    return tuple((int(x.p), int(x.q)) for x in v)


def _primitive(d) -> tuple:
    """The primitive integer vector with the direction of the vector ``d != 0`` (rationals or
    integers)."""
    if all(isinstance(x, int) for x in d):
        ints = list(d)
    else:
        d = [fmpq(x) for x in d]
        den = lcm(*(int(x.q) for x in d))
        ints = [int(x.p) * (den // int(x.q)) for x in d]
    g = gcd(*ints)
    if g == 0:
        raise ExactnetError("zero direction")
    return tuple(v // g for v in ints)


def _int_row(normal, offset) -> tuple:
    """``(a_1, ..., a_n, c)`` in integers: the constraint times the positive lcm of its
    denominators (same half-space, same hyperplane)."""
    vals = list(normal) + [offset]
    den = lcm(*(int(x.q) for x in vals))
    return tuple(int(x.p) * (den // int(x.q)) for x in vals)


def _hom(v) -> tuple:
    """``(X_1, ..., X_n, T)``: the point ``X / T`` with ``T`` the lcm of the denominators, which
    makes the integer vector primitive (a canonical key of the point)."""
    T = lcm(*(int(x.q) for x in v)) if v else 1
    return tuple(int(x.p) * (T // int(x.q)) for x in v) + (T,)


def _idot(a, x) -> int:
    acc = 0
    for ai, xi in zip(a, x):
        if ai and xi:
            acc += ai * xi
    return acc


def _null_vector(rows, n: int):
    """A primitive integer vector spanning the null space of ``rows`` (``n - 1`` integer rows
    of length ``n``), or None when their rank is below ``n - 1``."""
    if n == 2:
        (a, b), = rows
        d = (-b, a)
    elif n == 3:
        (a, b, c), (e, f, g) = rows
        d = (b * g - c * f, c * e - a * g, a * f - b * e)
    else:
        R, rank = fmpq_mat([list(r) for r in rows]).rref()
        if rank != n - 1:
            return None
        pivots = [next(j for j in range(n) if R[i, j]) for i in range(rank)]
        free = next(j for j in range(n) if j not in pivots)
        d = [Q0] * n
        d[free] = fmpq(1)
        for i, j in enumerate(pivots):
            d[j] = -R[i, free]
    if not any(d):
        return None
    return _primitive(d)


def _tangent_rays(normals, tight, n: int) -> list:
    """Extreme rays of the pointed cone ``{d : normals[k] . d >= 0, k in tight}`` (integer
    normals; primitive integer rays)."""
    out = {}
    rows = [normals[k] for k in tight]
    for sub in itertools.combinations(range(len(rows)), n - 1):
        d = _null_vector([rows[k] for k in sub], n)
        if d is None or d in out:
            continue
        neg = pos = False
        for r in rows:
            s = _idot(r, d)
            if s > 0:
                pos = True
            elif s < 0:
                neg = True
            if pos and neg:
                break
        if pos and neg:
            continue
        if neg:
            d = tuple(-x for x in d)
        out[d] = True
    return list(out)


def _canonical_line(flat_rows, d, n: int):
    """The point of the line ``{x : a . x + c = 0, (a, c) in flat_rows}`` (direction ``d``)
    whose coordinate ``r`` is 0, ``r`` the first nonzero coordinate of ``d``."""
    r = next(i for i, x in enumerate(d) if x)
    others = [i for i in range(n) if i != r]
    A = fmpq_mat([[a[i] for i in others] for a, _ in flat_rows])
    b = fmpq_mat([[-c] for _, c in flat_rows])
    y = A.solve(b)
    x = [Q0] * n
    for j, i in enumerate(others):
        x[i] = y[j, 0]
    return tuple(x)


def _cell_lines(cell, n: int) -> list:
    """``(point, direction)`` of the 1-dimensional faces of a cell without vertices (empty
    unless its lineality space is a line)."""
    normals = [k.normal for k in cell.constraints]
    if n < 2 or not normals or fmpq_mat([list(a) for a in normals]).rank() != n - 1:
        return []
    found = {}
    cons = [(k.normal, k.offset) for k in cell.constraints]
    for sub in itertools.combinations(range(len(cons)), n - 1):
        rows = [cons[k] for k in sub]
        d = _null_vector([_int_row(a, c)[:n] for a, c in rows], n)
        if d is None:
            continue
        first = next(x for x in d if x)
        if first < 0:
            d = tuple(-x for x in d)
        p = _canonical_line(rows, d, n)
        key = _key(p)
        if key in found:
            continue
        if all(_dot(a, p) + c >= 0 for a, c in cons):
            found[key] = (p, d)
    return list(found.values())


def cell_edges(cell, n: int) -> list:
    """The edges of one cell: ``("segment", i, j)``, ``("ray", i, d)`` and ``("line", p, d)``
    with ``i, j`` indices into ``cell.corners``, ``d`` primitive integer directions, ``p`` a
    point.

    The general tangent-cone method of the module docstring, for every ``n >= 2``; the
    regions JSON uses it for ``n0 >= 3`` and :func:`_cell_edges_2d` in the plane (the tests
    compare both)."""
    corners = cell.corners
    if not corners:
        return [("line", p, d) for p, d in _cell_lines(cell, n)]
    # exact integer arithmetic: rows scaled by positive integers, points as (X, T)
    rows = [_int_row(k.normal, k.offset) for k in cell.constraints]
    A = [r[:n] for r in rows]
    C = [r[n] for r in rows]
    hom = [_hom(v) for v in corners]
    index = {h: i for i, h in enumerate(hom)}
    out = []
    seen = set()
    for i, h in enumerate(hom):
        X, T = h[:n], h[n]
        slack = [_idot(a, X) + c * T for a, c in zip(A, C)]  # T D_k times the true slack
        tight = [k for k, sl in enumerate(slack) if sl == 0]
        if len(tight) < n:
            raise ExactnetError(f"corner {corners[i]} of a cell is tight on only {len(tight)} facets")
        for d in _tangent_rays(A, tight, n):
            # the edge leaves v = X / T along d and stops at the first facet with a . d < 0,
            # at t = slack_k / (T (-a_k . d)) (the factor D_k cancels): compare s / m exactly
            bs = bm = None
            for k, a in enumerate(A):
                ad = _idot(a, d)
                if ad < 0:
                    sl = slack[k]
                    if bs is None or sl * bm < bs * -ad:
                        bs, bm = sl, -ad
            if bs is None:
                out.append(("ray", i, d))
                continue
            W = [x * bm + bs * y for x, y in zip(X, d)] + [T * bm]  # v + t d = W[:n] / W[n]
            g = gcd(*W)
            j = index.get(tuple(w // g for w in W))
            if j is None:
                w = tuple(fmpq(x, W[n]) for x in W[:n])
                raise ExactnetError(f"the edge from {corners[i]} along {d} ends at {w}, not a vertex of the cell")
            if (min(i, j), max(i, j)) not in seen:
                seen.add((min(i, j), max(i, j)))
                out.append(("segment", i, j))
    return out


def _cyclic_facets(rows, corners):
    """Bounded 2-D cell whose facets and corners are both in cyclic order (as the planar engine
    gives them): the two corners of every facet found with about ``3m`` exact tightness tests
    instead of ``m^2``, or None (then the caller scans every pair).

    Only a hint is trusted for *where to look*: facet 0's corners are found by a full scan;
    facet ``k`` is then expected on the next corners in one of the two directions, and each
    expected corner is tested exactly. A facet of a polygon holds at most two vertices, so two
    tight corners are all of them; any failed test returns None."""
    m = len(corners)
    if m < 3 or len(rows) != m:
        return None

    def tight(k, i):
        a0, a1, c = rows[k]
        x, y = corners[i % m]
        return a0 * x + a1 * y + c == 0

    first = [i for i in range(m) if tight(0, i)]
    if len(first) != 2:
        return None
    i0, i1 = first
    if i1 - i0 == m - 1:  # the pair wraps around: (m-1, 0)
        i0, i1 = i1, i0
    elif i1 - i0 != 1:
        return None
    # facet 1 follows facet 0 in the corners' direction (shares i1) or against it (shares i0)
    if tight(1, i1 + 1) and tight(1, i1):
        step, start = 1, i0
    elif tight(1, i0 - 1) and tight(1, i0):
        step, start = -1, i1
    else:
        return None
    out = [[i0 % m, i1 % m]]
    for k in range(1, m):
        a, b = start + step * k, start + step * (k + 1)
        if k > 1 and not (tight(k, a) and tight(k, b)):
            return None
        out.append([a % m, b % m])
    return out


def _cell_edges_2d(cell) -> list:
    """``n0 = 2``: one edge per facet (a polygon's facets are its edges)."""
    corners = cell.corners
    if not corners:
        return [("line", p, d) for p, d in _cell_lines(cell, 2)]
    out = []
    cons = cell.constraints
    rows = [(con.normal[0], con.normal[1], con.offset) for con in cons]
    on_facet = _cyclic_facets(rows, corners) if cell.bounded else None
    if on_facet is None:
        on_facet = [[] for _ in cons]
        for i, (x, y) in enumerate(corners):
            for k, (a0, a1, c) in enumerate(rows):
                if a0 * x + a1 * y + c == 0:
                    on_facet[k].append(i)
    for k, con in enumerate(cons):
        on = on_facet[k]
        if len(on) == 2:
            out.append(("segment", on[0], on[1]))
        elif len(on) == 1:
            a = con.normal
            d = _primitive((-a[1], a[0]))
            # the ray stays in the tangent cone at the vertex (the other facet tight there)
            if any(_dot(cons[j].normal, d) < 0 for j in range(len(cons)) if j != k and on[0] in on_facet[j]):
                d = (-d[0], -d[1])
            out.append(("ray", on[0], d))
        elif not on:
            a = con.normal
            d = _primitive((-a[1], a[0]))
            if d[0] < 0 or (d[0] == 0 and d[1] < 0):
                d = (-d[0], -d[1])
            out.append(("line", _canonical_line([(a, con.offset)], d, 2), d))
        else:
            raise ExactnetError(f"a facet of a 2-D cell holds {len(on)} vertices")
    return out


def complex_faces(rc) -> ComplexFaces:
    """Vertices and edges of ``rc`` with their incident cells (see the module docstring)."""
    n = rc.network.input_dim
    if not getattr(rc, "has_vertices", True):
        return ComplexFaces(False, [], [], None if n < 2 else [])
    points: dict = {}
    cells_of: dict = {}
    corner_keys = []
    for ci, cell in enumerate(rc.cells):
        keys = [_key(v) for v in cell.corners]
        corner_keys.append(keys)
        for k, v in zip(keys, cell.corners):
            cs = cells_of.get(k)
            if cs is None:
                points[k] = v
                cells_of[k] = [ci]
            elif cs[-1] != ci:  # cells are visited in order: the lists come out ascending
                cs.append(ci)
    order = sorted(points, key=lambda k: points[k])
    vid = {k: i for i, k in enumerate(order)}
    vertices = [points[k] for k in order]
    vertex_cells = [tuple(cells_of[k]) for k in order]
    if n < 2:
        return ComplexFaces(True, vertices, vertex_cells, None)
    edges: dict = {}
    for ci, cell in enumerate(rc.cells):
        found = _cell_edges_2d(cell) if n == 2 else cell_edges(cell, n)
        keys = corner_keys[ci]
        for kind, a, b in found:
            if kind == "segment":
                i, j = vid[keys[a]], vid[keys[b]]
                key = ("segment", (min(i, j), max(i, j)), None, None)
            elif kind == "ray":
                key = ("ray", (vid[keys[a]],), b, None)
            else:
                key = ("line", (), b, a)
            cs = edges.get(key)
            if cs is None:
                edges[key] = [ci]
            elif cs[-1] != ci:
                cs.append(ci)
    kinds = {"segment": 0, "ray": 1, "line": 2}
    out = [
        Edge(kind, verts, d, p, tuple(cs))
        for (kind, verts, d, p), cs in sorted(
            edges.items(), key=lambda it: (kinds[it[0][0]], it[0][1], it[0][2] or (), it[0][3] or ())
        )
    ]
    return ComplexFaces(True, vertices, vertex_cells, out)
