"""The weighted breakpoint complex of ``f``: codimension-1 faces, jumps, balancing.

Input: a :class:`~exactnet.regions.RegionComplex`. Every facet of a cell lies on a
hyperplane; two cells ``i`` and ``j`` on opposite sides of the same hyperplane ``H`` share
a codimension-1 face when their facets on ``H`` meet in an ``(n0-1)``-dimensional set:

* ``n0 = 2``: the facets are intervals of the line ``H`` (from the cells' exact corners and
  the side the facet witness lies on); a face is a positive-length overlap;
* otherwise: an exact LP (:mod:`exactnet.lp`) inside ``H`` maximizes ``t`` with every other
  constraint of both cells ``>= t``; the face exists iff the optimum is positive, and the
  optimizer is a relative-interior point of the face.

The face's normal ``n`` is the hyperplane's normal scaled so that its first nonzero entry
is ``+-1`` ... with sign ``+1``; ``cells = (minus, plus)`` where ``plus`` lies on
``n.x + c >= 0``. The jump ``J`` (length ``m``) is defined by
``grad f(plus) - grad f(minus) = J (x) n`` and checked exactly (continuity of ``f`` forces
the gradient difference to be a multiple of ``n``; a failure raises). ``J = 0``: the face is
*invisible*. Linear regions: cells merged across invisible faces (union-find).

Balancing (``n0 = 2``): at every vertex not on the box boundary, with ``u_F`` the direction
from the vertex into the edge ``F`` scaled so that ``rot90(u_F) = +-n_F``, ``sum_F J_F u_F = 0``
(``J`` does not depend on the orientation of ``n``: flipping ``n`` swaps plus and minus) (equivalently the gradient differences around the vertex
telescope to zero). For ``n0 > 2`` the same law is checked at the codimension-2 cells found as
ridges of the cells, projected to their 2-D normal plane (see
:meth:`BreakpointComplex._check_cycles`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from flint import fmpq

from .errors import ExactnetError
from .lp import maximize

__all__ = ["Face", "BreakpointComplex", "breakpoint_complex", "normalize_hyperplane"]

Q0 = fmpq(0)
Q1 = fmpq(1)
Q2 = fmpq(2)


@dataclass(frozen=True)
class Face:
    """A codimension-1 face between cells ``cells = (minus, plus)``."""

    cells: tuple
    neuron: tuple | None
    normal: tuple
    offset: fmpq
    jump: tuple
    visible: bool
    point: tuple
    vertices: tuple | None


def normalize_hyperplane(normal, offset):
    """Scale so that the first nonzero entry of ``normal`` is 1; also return the sign used."""
    for a in normal:
        if a:
            s = 1 / abs(a)
            sign = 1 if a > 0 else -1
            f = s * sign
            return tuple(x * f for x in normal), offset * f, sign
    raise ExactnetError("zero normal")


def _dot(a, x):
    acc = Q0
    for ai, xi in zip(a, x):
        if ai and xi:
            acc += ai * xi
    return acc


class BreakpointComplex:
    """Faces of a region complex with their jumps."""

    def __init__(self, rc, faces):
        self.rc = rc
        self.faces = faces

    def visible_faces(self):
        return [f for f in self.faces if f.visible]

    def invisible_faces(self):
        return [f for f in self.faces if not f.visible]

    def linear_regions(self) -> int:
        parent = list(range(len(self.rc.cells)))

        def find(a):
            while parent[a] != a:
                parent[a] = parent[parent[a]]
                a = parent[a]
            return a

        for f in self.faces:
            if not f.visible:
                a, b = find(f.cells[0]), find(f.cells[1])
                if a != b:
                    parent[a] = b
        return len({find(i) for i in range(len(parent))})

    def check_balancing(self) -> dict:
        """Verify balancing at every interior codimension-2 cell (vertices in 2-D).

        Returns ``{"checked": k, "failed": [points...], "dimension_supported": bool}``.
        """
        n = self.rc.network.input_dim
        if n != 2:
            return self._check_cycles()
        box = self.rc.box
        at = {}
        for f in self.faces:
            for v in f.vertices or ():
                key = (int(v[0].p), int(v[0].q), int(v[1].p), int(v[1].q))  # fmpq hashing is slow
                ent = at.get(key)
                if ent is None:
                    at[key] = (v, [f])
                else:
                    ent[1].append(f)
        failed = []
        checked = 0
        m = self.rc.network.output_dim
        for v, fs in at.values():
            if box is not None and any(c == box[0] or c == box[1] for c in v):
                continue
            checked += 1
            tot = [[Q0, Q0] for _ in range(m)]
            for f in fs:
                a, b = f.normal
                u = (-b, a)
                if _dot(u, [f.point[0] - v[0], f.point[1] - v[1]]) < 0:
                    u = (b, -a)
                for o in range(m):
                    j = f.jump[o]  # the weight does not depend on the normal's orientation
                    tot[o][0] += j * u[0]
                    tot[o][1] += j * u[1]
            if any(x for row in tot for x in row):
                failed.append(v)
        return {"checked": checked, "failed": failed, "dimension_supported": True}

    def _check_cycles(self, max_ridges: int | None = 2000) -> dict:
        """``n0 >= 3``: balancing at the codimension-2 cells found as ridges of the cells.

        For a cell and two of its facets with independent normals ``b1, b2`` an exact LP in
        the flat ``A = {h_1 = h_2 = 0}`` finds a point ``q`` with every other facet of the cell
        ``> 0`` (the ridge is ``(n0-2)``-dimensional). ``q`` is used only when it is generic:
        every face whose closure contains ``q`` has its normal in ``span(b1, b2)`` (its
        hyperplane contains ``A``), so near ``q`` the complex is ``A`` times a planar fan in the
        normal plane ``span(b1, b2)``. There each face ``F`` is a ray with direction ``u_F``
        (the vector of the plane orthogonal to ``n_F`` pointing to ``F``'s relative-interior
        point) and the condition is ``sum_F eps_F J_F (x) n_F = 0`` with ``eps_F = +1`` when a
        counter-clockwise turn (in the coordinates ``b1, b2``) crosses ``F`` from its minus to
        its plus cell: the gradient changes around ``q`` add up to zero. (In the plane this is
        ``-rot90`` of the planar form ``sum J_F u_F = 0``.) Each codimension-2 cell is checked
        once (keyed by its flat and the faces at ``q``); non-generic points are counted in
        ``skipped``; ``points`` lists ``(q, b1, b2, number of faces at q)`` per checked cell. Box sides are not faces, so ridges on the box boundary are not checked.
        """
        n = self.rc.network.input_dim
        if n == 1:
            return {"checked": 0, "failed": [], "dimension_supported": True, "skipped": 0}
        cells = self.rc.cells
        m = self.rc.network.output_dim
        seen = set()
        checked = skipped = 0
        failed = []
        box = self.rc.box
        points: list = []
        by_cell: dict = {}
        for fi, f in enumerate(self.faces):
            for c in f.cells:
                by_cell.setdefault(c, []).append(fi)

        def faces_at(ci, q):
            # the cells around a codimension-2 cell are connected through the faces at q
            found, todo, done = set(), [ci], {ci}
            while todo:
                c = todo.pop()
                for fi in by_cell.get(c, ()):
                    if fi in found or not _face_contains(cells, self.faces[fi], q):
                        continue
                    found.add(fi)
                    for d in self.faces[fi].cells:
                        if d not in done:
                            done.add(d)
                            todo.append(d)
            return sorted(found)

        for ci, cell in enumerate(cells):
            cons = [k for k in cell.constraints if k.neuron is not None]
            for x in range(len(cons)):
                for y in range(x + 1, len(cons)):
                    if max_ridges is not None and checked + skipped >= max_ridges:
                        return {"checked": checked, "failed": failed, "dimension_supported": True, "skipped": skipped,
                                "points": points}
                    k1, k2 = cons[x], cons[y]
                    q = _ridge_point(cell, k1, k2, n)
                    if q is None or (box is not None and any(v == box[0] or v == box[1] for v in q)):
                        continue
                    at = faces_at(ci, q)
                    key = (normalize_hyperplane(k1.normal, k1.offset)[:2], normalize_hyperplane(k2.normal, k2.offset)[:2])
                    key = (tuple(sorted(key, key=str)), tuple(at))
                    if key in seen:
                        continue
                    seen.add(key)
                    res = _balance_at(self.faces, at, q, k1.normal, k2.normal, cells, m)
                    if res is None:
                        skipped += 1
                    else:
                        checked += 1
                        points.append((q, k1.normal, k2.normal, len(at)))
                        if not res:
                            failed.append(q)
        return {"checked": checked, "failed": failed, "dimension_supported": True, "skipped": skipped, "points": points}


def _ridge_point(cell, k1, k2, n):
    """A point of the flat ``k1 = k2 = 0`` with every other constraint of ``cell`` > 0, or None."""
    a, b = k1.normal, k2.normal
    piv = None
    for r in range(n):
        for s in range(r + 1, n):
            if a[r] * b[s] - a[s] * b[r]:
                piv = (r, s)
                break
        if piv:
            break
    if piv is None:
        return None
    r, s = piv
    det = a[r] * b[s] - a[s] * b[r]
    free = [k for k in range(n) if k not in piv]

    def solve(y):  # x_r, x_s from the two equations with the free coordinates y
        ra = -k1.offset - sum((a[k] * v for k, v in zip(free, y)), Q0)
        rb = -k2.offset - sum((b[k] * v for k, v in zip(free, y)), Q0)
        return (ra * b[s] - a[s] * rb) / det, (a[r] * rb - ra * b[r]) / det

    # x = x0 + sum_k y_k e_k + (dependence of x_r, x_s on y_k): affine in y
    x0r, x0s = solve([Q0] * len(free))
    cols = []
    for j in range(len(free)):
        e = [Q0] * len(free)
        e[j] = Q1
        xr, xs = solve(e)
        cols.append((xr - x0r, xs - x0s))
    rows, offs = [], []
    for k in cell.constraints:
        if k is k1 or k is k2:
            continue
        c0 = k.offset + k.normal[r] * x0r + k.normal[s] * x0s
        row = [k.normal[free[j]] + k.normal[r] * cols[j][0] + k.normal[s] * cols[j][1] for j in range(len(free))]
        rows.append(row + [-Q1])
        offs.append(c0)
    if not rows:
        y = [Q0] * len(free)
    else:
        rows.append([Q0] * len(free) + [-Q1])
        offs.append(Q1)
        y0 = [Q0] * len(free)
        t0 = min(offs[:-1] + [Q1]) - 1
        res = maximize([Q0] * len(free) + [Q1], rows, offs, y0 + [t0])
        if res[0] != "optimal" or not res[2] > 0:
            return None
        y = list(res[1][:-1])
    x = [Q0] * n
    for j, k in enumerate(free):
        x[k] = y[j]
    x[r], x[s] = solve(y)
    return tuple(x)


def _face_contains(cells, f, q):
    """Is ``q`` in the closure of the face (on its hyperplane, in both closed cells)?"""
    if _dot(f.normal, q) + f.offset != 0:
        return False
    return all(_dot(k.normal, q) + k.offset >= 0 for c in f.cells for k in cells[c].constraints)


def _balance_at(faces, at, q, b1, b2, cells, m):
    """True/False: does ``sum eps_F J_F (x) n_F`` vanish at the generic point ``q``; None if
    ``q`` is not generic (a face at ``q`` whose normal is not in ``span(b1, b2)``)."""
    n = len(q)
    tot = [[Q0] * n for _ in range(m)]
    if not at:
        return None
    for fi in at:
        f = faces[fi]
        nf = f.normal
        c1, c2 = _dot(nf, b1), _dot(nf, b2)
        # n_F in span(b1, b2)?  solve n_F = al b1 + be b2 on two coordinates, check all
        g11, g12, g22 = _dot(b1, b1), _dot(b1, b2), _dot(b2, b2)
        det = g11 * g22 - g12 * g12
        al = (c1 * g22 - c2 * g12) / det
        be = (g11 * c2 - g12 * c1) / det
        if any(al * u + be * v != w for u, v, w in zip(b1, b2, nf)):
            return None
        u1, u2 = c2, -c1  # coordinates of a vector of the plane orthogonal to n_F
        U = [u1 * x + u2 * y for x, y in zip(b1, b2)]
        side = _dot(U, [p - x for p, x in zip(f.point, q)])
        if side == 0:
            return None
        if side < 0:
            u1, u2 = -u1, -u2
        vel = [-u2 * x + u1 * y for x, y in zip(b1, b2)]  # counter-clockwise velocity at u
        eps = 1 if _dot(nf, vel) > 0 else -1
        for o in range(m):
            j = f.jump[o] * eps
            if j:
                for k in range(n):
                    tot[o][k] += j * nf[k]
    return not any(v for row in tot for v in row)


def _jump(G_plus, G_minus, normal, m):
    r = next(k for k, a in enumerate(normal) if a)
    J = []
    for o in range(m):
        J.append((G_plus[o, r] - G_minus[o, r]) / normal[r])
    for o in range(m):
        for k, a in enumerate(normal):
            if G_plus[o, k] - G_minus[o, k] != J[o] * a:
                raise ExactnetError("gradient difference across a face is not a multiple of its normal")
    return tuple(J)


def _facet_interval(cell, con, nrm, off):
    """2-D: the facet of ``cell`` on the line as an interval of ``u.x`` (None = infinite)."""
    u = (-nrm[1], nrm[0])
    ts = sorted(_dot(u, v) for v in cell.corners if _dot(nrm, v) + off == 0)
    tw = _dot(u, con.witness)
    if len(ts) >= 2 and ts[0] != ts[-1]:
        return ts[0], ts[-1]
    ts = ts[:1]
    if len(ts) == 1:
        return (ts[0], None) if tw > ts[0] else (None, ts[0])
    return None, None


def _line_point(nrm, off, t):
    # point x with nrm.x + off = 0 and u.x = t, u = (-n1, n0); nrm.nrm = |n|^2
    nn = nrm[0] * nrm[0] + nrm[1] * nrm[1]
    # x = -off * nrm / nn + t * u / nn
    u = (-nrm[1], nrm[0])
    return tuple((-off * nrm[k] + t * u[k]) / nn for k in range(2))


def _face_2d(ia, ib, nrm, off):
    a0, a1 = ia
    b0, b1 = ib
    lo = a0 if b0 is None else (b0 if a0 is None else max(a0, b0))
    hi = a1 if b1 is None else (b1 if a1 is None else min(a1, b1))
    if lo is not None and hi is not None and not lo < hi:
        return None
    if lo is None and hi is None:
        t = Q0
    elif lo is None:
        t = hi - 1
    elif hi is None:
        t = lo + 1
    else:
        t = (lo + hi) / Q2
    verts = tuple(_line_point(nrm, off, s) for s in (lo, hi) if s is not None)
    return _line_point(nrm, off, t), verts


def _overlaps_2d(rc, plus, minus, nrm, off):
    """Pairs of facets (plus side, minus side) on one line whose intervals overlap.

    The facets of one side have disjoint relative interiors (the cells' interiors are
    disjoint), so after sorting both lists by their lower end one merge pass finds every
    overlapping pair (``None`` ends are infinite)."""

    def ivs(side):
        out = []
        for i, k in side:
            a = _facet_interval(rc.cells[i], rc.cells[i].constraints[k], nrm, off)
            out.append((a, i, k))
        out.sort(key=lambda t: (0, 0) if t[0][0] is None else (1, t[0][0]))
        return out

    P, M = ivs(plus), ivs(minus)
    p = q = 0
    while p < len(P) and q < len(M):
        a, i, ki = P[p]
        b, j, kj = M[q]
        lo_ok = a[1] is None or b[0] is None or b[0] < a[1]
        hi_ok = b[1] is None or a[0] is None or a[0] < b[1]
        if lo_ok and hi_ok:
            yield i, ki, j, kj, a, b
        # advance the interval that ends first (ties: both ends are passed by either)
        if a[1] is None:
            q += 1
        elif b[1] is None or a[1] < b[1]:
            p += 1
        elif b[1] < a[1]:
            q += 1
        else:
            p += 1
            q += 1


def _face_lp(ci, cj, ki, kj, nrm, off, n):
    r = next(k for k, a in enumerate(nrm) if a)
    # x_r = -(off + sum_{s != r} nrm_s x_s) / nrm_r
    others = [k for k in range(n) if k != r]

    def restrict(a, c):
        f = a[r] / nrm[r]
        return [a[s] - f * nrm[s] for s in others], c - f * off

    rows, offs = [], []
    for cell, kk in ((ci, ki), (cj, kj)):
        for idx, con in enumerate(cell.constraints):
            if idx == kk:
                continue
            a, c = restrict(con.normal, con.offset)
            rows.append(a + [-Q1])
            offs.append(c)
    if n == 1:
        x = (-off / nrm[0],)
        return (x, (x,)) if all(c >= 0 for c in offs) else None
    rows.append([Q0] * (n - 1) + [-Q1])
    offs.append(Q1)
    w = ci.constraints[ki].witness
    x0 = [w[s] for s in others]
    slack = min([_dot(a[:-1], x0) + c for a, c in zip(rows[:-1], offs[:-1])] + [Q1])
    t0 = slack - 1
    res = maximize([Q0] * (n - 1) + [Q1], rows, offs, x0 + [t0])
    if res[0] != "optimal" or not res[2] > 0:
        return None
    y = res[1]
    x = [Q0] * n
    for s, k in enumerate(others):
        x[k] = y[s]
    x[r] = -(off + sum((nrm[k] * x[k] for k in others), Q0)) / nrm[r]
    return tuple(x), None


def breakpoint_complex(rc) -> BreakpointComplex:
    """Compute the faces, neighbours and jumps of ``rc`` (fills ``Constraint.neighbour``)."""
    n = rc.network.input_dim
    m = rc.network.output_dim
    groups: dict = {}
    for i, cell in enumerate(rc.cells):
        for k, con in enumerate(cell.constraints):
            if con.neuron is None:
                continue
            nrm, off, sign = normalize_hyperplane(con.normal, con.offset)
            key = tuple((int(x.p), int(x.q)) for x in nrm) + ((int(off.p), int(off.q)),)
            grp = groups.get(key)
            if grp is None:
                grp = groups[key] = (nrm, off, [], [])
            grp[2 if sign > 0 else 3].append((i, k))
    faces = []
    neigh: dict = {}
    for nrm, off, plus, minus in groups.values():
        if n == 2:
            for i, ki, j, kj, a, b in _overlaps_2d(rc, plus, minus, nrm, off):
                ci, cj = rc.cells[i], rc.cells[j]
                got = _face_2d(a, b, nrm, off)
                if got is None:
                    continue
                point, verts = got
                J = _jump(ci.gradient, cj.gradient, nrm, m)
                faces.append(Face((j, i), ci.constraints[ki].neuron, nrm, off, J, any(J), point, verts))
                neigh.setdefault((i, ki), []).append(j)
                neigh.setdefault((j, kj), []).append(i)
            continue
        for i, ki in plus:
            ci = rc.cells[i]
            for j, kj in minus:
                cj = rc.cells[j]
                if n == 2:
                    a, b = iv[(i, ki)], iv[(j, kj)]
                    # cheap exact rejection of disjoint intervals before building the face
                    if (a[1] is not None and b[0] is not None and not b[0] < a[1]) or (
                        b[1] is not None and a[0] is not None and not a[0] < b[1]
                    ):
                        continue
                    got = _face_2d(a, b, nrm, off)
                else:
                    got = _face_lp(ci, cj, ki, kj, nrm, off, n)
                if got is None:
                    continue
                point, verts = got
                J = _jump(ci.gradient, cj.gradient, nrm, m)
                faces.append(Face((j, i), ci.constraints[ki].neuron, nrm, off, J, any(J), point, verts))
                neigh.setdefault((i, ki), []).append(j)
                neigh.setdefault((j, kj), []).append(i)
    for i, cell in enumerate(rc.cells):
        cons = tuple(
            type(con)(con.normal, con.offset, con.neuron, min(neigh[(i, k)]) if (i, k) in neigh else None, con.witness, con.box_side)
            for k, con in enumerate(cell.constraints)
        )
        rc.cells[i] = dataclasses.replace(cell, constraints=cons)
    return BreakpointComplex(rc, faces)
