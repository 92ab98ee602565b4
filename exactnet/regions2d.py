"""The planar (``n0 = 2``) region engine: exact polygon clipping in homogeneous integers.

Same subdivision as :mod:`exactnet.regions` (neuron by neuron in layer order, every neuron
first tested on the whole previous-layer cell), but each node carries its exact boundary
instead of an H-representation, so no LP and no redundancy removal is ever needed.

**Representation.** A closed convex polygon ``P`` of the plane (bounded or not) is the cone
``{(x, y, t) : t >= 0, a.x + c t >= 0 for every constraint}`` of ``R^3``; its section by the
unit sphere is a convex spherical polygon inside the hemisphere ``t >= 0``. A node stores the
cyclic (counter-clockwise) list of that polygon's corners as *integer* homogeneous vectors
``(X, Y, T)`` (``T > 0``: the point ``(X/T, Y/T)``; ``T = 0``: the direction ``(X, Y)`` at
infinity) and, per edge ``V[i] -> V[i+1]``, the constraint record it lies on (``None`` for
an arc of the line at infinity). Consecutive corners are never antipodal, so every edge is
the *short* great-circle arc between its ends and positive combinations of the two ends
span it. A corner whose two edges carry the same record is a *pseudo-corner* (a point in
the middle of a facet, or a direction in the middle of an arc at infinity); it is how
half-planes and strips (which have no vertex) fit the same scheme. The root is ``R^2``
(the four directions ``+-e1, +-e2``, all edges at infinity) or the box (four corners).

**Split test and clipping** (exact, integer). For an affine ``h`` (integer row ``(a0, a1,
c)``, a positive multiple of the true pre-activation) let ``H(V) = a0 X + a1 Y + c T``.
``h >= 0`` on ``P = conv(finite corners) + cone(directions)`` iff ``H >= 0`` at every
corner; so the neuron is forced when no corner has ``H < 0`` (or none ``H > 0``), and the
node is split otherwise (a full-dimensional convex set with points strictly on both sides
of a line meets both open half-planes in interior points). The two children come from one
Sutherland-Hodgman pass: corners are kept on their side, and the crossing point of an edge
``V -> W`` with ``H(V) H(W) < 0`` is ``|H(V)| W + |H(W)| V`` (a positive combination, so
on the edge, and ``H = 0`` there). When the new edge joins two directions at infinity they
are antipodal (the line meets infinity in ``+-(-a1, a0)`` only) and the finite foot point
``(-c a0, -c a1, a0^2 + a1^2)`` of the line is inserted as a pseudo-corner. Every vector
is divided by the gcd of its entries, so the integers stay as small as the geometry allows.

**Per-cell affine maps** are integer matrices too: with ``d_l`` the common denominator of
layer ``l``, ``h_(l-1)(x) = M (x, y, 1) / D`` gives the integer pre-activations
``G = [d_l W_l | d_l b_l] [M; 0 0 D]`` with scale ``S = d_l D``, divided by the gcd of
``S`` and ``G``. They and the whole-cell sign tests of the next layer are computed for all
sub-nodes of a cell at once (:func:`_next_batch`: one NumPy int64 product, used only when a
bound proves that no partial sum overflows; Python integers otherwise). At the last hidden
layer the output map's integer rows are accumulated along the subdivision instead (one row
update per neuron turning active). Rational values (``fmpq``) are built only for the
output: a record carries its rational normal and offset, corners and edge midpoints shared
by neighbouring leaves are converted once.

**Output.** The facets of a cell are exactly its edges' records (no redundancy test), each
with a relative-interior witness (an edge midpoint, a corner plus the edge's direction, or
a pseudo-corner); its vertices are the finite genuine corners (already in cyclic order);
it is bounded iff no corner is at infinity. The interior point is the average of the
finite corners plus the sum of the directions at infinity (a strictly positive combination
of all corners, which generate the cone, hence in the interior), rounded to a dyadic point when an
exact strict test on every facet allows. That rounding, the angle order of the corners around
the point and the facets' ``Constraint`` objects (their records and witnesses are found
eagerly) are built when a cell's ``interior_point``, ``constraints``, ``vertices`` or
``corners`` is first asked for (:class:`exactnet.regions._LazyCell`, :func:`_finish_point`):
the same values, and a run that never reads them (a count, a benchmark) does not pay for them. A forced neuron's certificate
``h = mu + sum lam_k h_k`` is computed only when asked (:func:`resolve_forced`): at a corner
``v`` minimizing ``h``, ``h - h(v)`` lies in the cone of the two incident facet normals
(the tangent cone argument), found by a 2x2 exact solve.
"""

from __future__ import annotations

import time
from itertools import accumulate as _accumulate
from itertools import chain as _chain
from operator import add as _add
from math import gcd, lcm

import numpy as np
from flint import fmpq, fmpq_mat, fmpz_mat

from .errors import LimitError

__all__ = ["compute_cells_2d", "resolve_forced"]

Q0 = fmpq(0)
Q2 = fmpq(2)
QH = fmpq(1, 2)


def _red3(X, Y, T):
    g = gcd(X, Y, T)
    if g > 1:
        return (X // g, Y // g, T // g)
    return (X, Y, T)


def _split(V, E, H, rpos, rneg):
    """Clip the polygon ``(V, E)`` by ``h >= 0`` and by ``h <= 0`` (``H`` = values at corners)."""
    PV, PE, NV, NE = [], [], [], []
    inf = False  # an end of the new edge at infinity (only then can it need a foot point)
    Hn = H[1:]
    Hn.append(H[0])
    Vn = V[1:]
    Vn.append(V[0])
    for v, e, hi, hj, w in zip(V, E, H, Hn, Vn):
        if hi > 0:
            PV.append(v)
            PE.append(e)
            if hj < 0:
                X = hi * w[0] - hj * v[0]
                Y = hi * w[1] - hj * v[1]
                T = hi * w[2] - hj * v[2]
                g = gcd(X, Y, T)  # (_red3 inlined)
                if g > 1:
                    x = (X // g, Y // g, T // g)
                else:
                    x = (X, Y, T)
                if not T:
                    inf = True
                PV.append(x)
                PE.append(rpos)
                NV.append(x)
                NE.append(e)
        elif hi < 0:
            NV.append(v)
            NE.append(e)
            if hj > 0:
                X = hj * v[0] - hi * w[0]
                Y = hj * v[1] - hi * w[1]
                T = hj * v[2] - hi * w[2]
                g = gcd(X, Y, T)
                if g > 1:
                    x = (X // g, Y // g, T // g)
                else:
                    x = (X, Y, T)
                if not T:
                    inf = True
                NV.append(x)
                NE.append(rneg)
                PV.append(x)
                PE.append(e)
        else:
            if not v[2]:
                inf = True
            PV.append(v)
            NV.append(v)
            if hj > 0:
                PE.append(e)
                NE.append(rneg)
            else:  # hj < 0 (hj == 0 would put an edge on the line, impossible for a split)
                NE.append(e)
                PE.append(rpos)
    if inf:
        _close(PV, PE, rpos)
        _close(NV, NE, rneg)
    return PV, PE, NV, NE


def _close(V, E, rec):
    """Insert the line's foot point when the new edge joins two (antipodal) directions."""
    i = E.index(rec)
    j = i + 1 if i + 1 < len(V) else 0
    if V[i][2] == 0 and V[j][2] == 0:
        a0, a1, c = rec[0], rec[1], rec[2]
        V.insert(i + 1, _red3(-c * a0, -c * a1, a0 * a0 + a1 * a1))
        E.insert(i + 1, rec)


_I64 = 1 << 62


def _int_layers(net):
    """Per layer: ``[d W | d b]`` as Python integer rows, ``d``, the same as a NumPy int64
    array (or ``None`` when an entry does not fit) and the largest absolute row sum.

    ``d`` is the least common denominator of the layer (``fmpq_mat.numer_denom``, one C call
    for the whole layer)."""
    out = []
    for layer in net.layers:
        # the rows [W | b] flat (one list, no row lists), their integer numerators as one list
        # of fmpz (entries()), cut into rows
        flat = []
        for r, b in zip(layer.weights, layer.biases):
            flat += r
            flat.append(b)
        nr = len(layer.biases)
        nc = len(flat) // nr if nr else 1
        N, d = fmpq_mat(nr, nc, flat).numer_denom()
        e = list(map(int, N.entries()))
        rows = [e[i : i + nc] for i in range(0, nr * nc, nc)]
        rsum = max((sum(map(abs, r)) for r in rows), default=0)
        arr = np.array(rows, dtype=np.int64) if rsum < _I64 else None
        out.append((rows, int(d), arr, rsum))
    return out


def _layer_G(Wd, M, D):
    """Integer pre-activations (rows ``[g0, g1, g2]``) for ``h = M (x, y, 1) / D``.

    Exact integer arithmetic either way: NumPy int64 (its integer matmul has no rounding)
    only when ``row sum |W| * max |M| < 2^62`` proves that no partial sum overflows, else
    ``fmpz_mat``. Also returns the NumPy array (or ``None``) and that bound on ``|G|``.
    """
    A = M + [[0, 0, D]]
    arr = Wd[2]
    if arr is not None:
        big = max(map(abs, _chain(*A)))  # >= D > 0
        if Wd[3] * big < _I64:
            R = arr @ np.array(A, dtype=np.int64)
            return R.tolist(), Wd[1] * D, R, Wd[3] * big
    R = (fmpz_mat(Wd[0]) * fmpz_mat(A)).tolist()
    return [[int(r[0]), int(r[1]), int(r[2])] for r in R], Wd[1] * D, None, None


def _G_py(rows, Gr, bits, D):
    """``[d W | d b] [M; 0 0 D]`` in Python integers for ``M`` the rows of ``Gr`` where
    ``bits`` is 1 (zero rows elsewhere): the same integers as :func:`_layer_G`."""
    G = []
    for row in rows:
        g0 = g1 = 0
        g2 = row[-1] * D
        for w, r, b in zip(row, Gr, bits):  # (one zip: cheaper than a list of the active rows)
            if b and w:
                g0 += w * r[0]
                g1 += w * r[1]
                g2 += w * r[2]
        G.append([g0, g1, g2])
    return G


def _signs_on(G, Garr, V, gbound=None):
    """Per row of ``G``: ``(min H, max H)`` over the corners ``V`` (exact; NumPy int64 only
    when ``3 max|G| max|V| < 2^62`` bounds every partial sum; ``gbound >= max|G|`` spares
    computing ``max|G|`` when it is enough)."""
    if Garr is not None:
        bv = max(map(abs, _chain(*V)))
        if gbound is None or 3 * gbound * bv >= _I64:
            gbound = int(np.abs(Garr).max()) if len(G) else 0
        if 3 * gbound * bv < _I64:
            Hm = Garr @ np.array(V, dtype=np.int64).T
            return Hm.min(axis=1).tolist(), Hm.max(axis=1).tolist()
    mins, maxs = [], []
    for g0, g1, g2 in G:
        H = [g0 * X + g1 * Y + g2 * T for X, Y, T in V]
        mins.append(min(H))
        maxs.append(max(H))
    return mins, maxs


def _reduced(G, S):
    """``(G / g, S / g)`` for ``g`` the gcd of ``S`` and the entries of ``G`` (lists)."""
    g = S
    for r in G:
        g = gcd(g, r[0], r[1], r[2])
        if g == 1:
            return G, S
    return [[r[0] // g, r[1] // g, r[2] // g] for r in G], S // g


def _next_batch(Wd, Gr, D, nodes):
    """The next layer's tests on every sub-node of one parent cell, in one NumPy batch.

    ``nodes``: ``(V, bits)`` per sub-node, whose map is ``h = M (x, y, 1) / D`` with ``M`` the
    rows of ``Gr`` (integers) of the active neurons. Returns per sub-node ``(G, S, mins, maxs)``:
    the next layer's integer pre-activations ``[d W | d b] [M; 0 0 D] / g`` (lists) and their
    scale ``S = d D / g``, divided by ``g``, the gcd of ``d D`` and all entries (so the
    integers are as small as the layer map allows), and per row ``min / max`` of ``H`` over
    the corners ``V`` (the same integers as :func:`_layer_G` + :func:`_signs_on` node by node,
    up to the positive factor ``g``). NumPy int64 only where a bound proves that no partial
    sum overflows: ``row sum |W| * max(|Gr|, D) >= |G|`` and ``3 max|G| max|V| >= |H|`` (both
    ``< 2^62``); otherwise the same in Python integers."""
    arr = Wd[2]
    S = Wd[1] * D
    nc = len(nodes)
    if nc == 1:  # one node (the root, an undivided cell): Python integers beat NumPy's overhead
        V, bits = nodes[0]
        G, Sg = _reduced(_G_py(Wd[0], Gr, bits, D), S)
        return [(G, Sg) + _signs_on(G, None, V)]
    big = max(D, max(map(abs, _chain(*Gr)), default=0))
    if arr is None or Wd[3] * big >= _I64:
        out = []
        for V, bits in nodes:
            z3 = [0, 0, 0]
            G, Sg = _reduced(_layer_G(Wd, [Gr[i] if b else z3 for i, b in enumerate(bits)], D)[0], S)
            out.append((G, Sg) + _signs_on(G, None, V))
        return out
    n = arr.shape[1] - 1
    B = np.fromiter(_chain.from_iterable(b for _, b in nodes), dtype=np.int64, count=nc * n).reshape(nc, n)
    Gall = (arr[None, :, :n] * B[:, None, :]) @ np.array(Gr, dtype=np.int64).reshape(n, 3)
    Gall[:, :, 2] += arr[:, n] * D
    # per node: g = gcd(S, entries); an all-zero G gives g = S (divide by 1, scale 1)
    gs = [gcd(S, x) for x in np.gcd.reduce(Gall.reshape(nc, -1), axis=1).tolist()]
    Ss = [S // g for g in gs]
    if any(g != 1 for g in gs):
        Gall //= np.array([g if g < _I64 else 1 for g in gs], dtype=np.int64)[:, None, None]
    Gl = Gall.tolist()
    gbound = Wd[3] * big
    ks = [len(V) for V, _ in nodes]
    nv = sum(ks)
    try:  # the corners as int64 (an entry beyond int64 raises: the Python path then)
        Va = np.fromiter(_chain.from_iterable(_chain.from_iterable(V for V, _ in nodes)), dtype=np.int64, count=3 * nv)
        bv = max(int(Va.max()), -int(Va.min()))
    except OverflowError:
        bv = _I64
    if 3 * gbound * bv >= _I64 and nc and Gall.size:
        gbound = int(np.abs(Gall).max())
    if 3 * gbound * bv < _I64:
        Va = Va.reshape(nv, 3)
        # H at every corner of every node: its node's rows (repeated) times the corner
        HH = np.matmul(np.repeat(Gall, ks, axis=0), Va[:, :, None])[:, :, 0]
        offs = list(_accumulate(ks[:-1], initial=0))
        mins = np.minimum.reduceat(HH, offs, axis=0).tolist()
        maxs = np.maximum.reduceat(HH, offs, axis=0).tolist()
        return [(Gl[c], Ss[c], mins[c], maxs[c]) for c in range(nc)]
    return [(Gl[c], Ss[c]) + _signs_on(Gl[c], None, nodes[c][0]) for c in range(nc)]


class _Cell:
    """A node of the subdivision (``bits``: the pattern so far, one tuple per layer; ``sides``
    and ``zero``: tuples as in :class:`exactnet.regions.Cell`)."""

    __slots__ = ("V", "E", "bits", "zero", "forced", "sides", "M", "D", "out", "Gr", "nb")

    def __init__(self, V, E, bits, zero, forced, sides, M, D, out=None, Gr=None, nb=None):
        self.V, self.E, self.bits, self.zero = V, E, bits, zero
        self.forced, self.sides, self.M, self.D = forced, sides, M, D
        self.out = out  # leaves: the output map's integer rows G (scale d_L D), flat (g0, g1, g2, ...)
        self.Gr, self.nb = Gr, nb  # leaves: M is built from these only when asked (leaf_M)


def _mk_node(V, E, bits, zero, forced, sides, M, D, out=None, Gr=None, nb=None, new=object.__new__, cls=_Cell):
    """``_Cell(V, E, bits, zero, forced, sides, M, D, out, Gr, nb)`` without the class call (a
    plain function call and slot stores: about 0.3 instead of 0.45 us, once per node)."""
    c = new(cls)
    c.V = V
    c.E = E
    c.bits = bits
    c.zero = zero
    c.forced = forced
    c.sides = sides
    c.M = M
    c.D = D
    c.out = out
    c.Gr = Gr
    c.nb = nb
    return c


def leaf_M(cell):
    """The leaf's last hidden layer map ``M`` (``h = M (x, y, 1) / D``): the rows of ``Gr``
    (the layer's integer pre-activations on the parent cell) of the active neurons."""
    if cell.M is None:
        z3 = [0, 0, 0]
        cell.M = [cell.Gr[i] if b else z3 for i, b in enumerate(cell.nb)]
    return cell.M


def _record(a0, a1, c, S, tag, inv=None):
    """A constraint record ``h = (a0 x + a1 y + c) / S >= 0`` (integers, ``S > 0``):
    ``(a0, a1, c, S, tag, neuron, box_side, normal, offset)`` with the rational ``normal`` and
    ``offset`` (built once per record: every record of a cut ends up on a facet of a leaf).
    ``inv``: ``fmpq(1, S)`` when at hand (``inv * a == fmpq(a, S)``, half the cost)."""
    if inv is None:
        inv = fmpq(1, S)
    if tag[0] == "box":
        return (a0, a1, c, S, tag, None, (tag[1], tag[2]), (inv * a0, inv * a1), inv * c)
    return (a0, a1, c, S, tag, tag, None, (inv * a0, inv * a1), inv * c)


def _root(box):
    if box is None:
        V = [(1, 0, 0), (0, 1, 0), (-1, 0, 0), (0, -1, 0)]
        return V, [None, None, None, None]
    lo, hi = box
    pl, ql, ph, qh = int(lo.p), int(lo.q), int(hi.p), int(hi.q)
    T = ql * qh
    a, b = pl * qh, ph * ql
    V = [_red3(a, a, T), _red3(b, a, T), _red3(b, b, T), _red3(a, b, T)]
    xlo = _record(ql, 0, -pl, ql, ("box", 0, 0))
    xhi = _record(-qh, 0, ph, qh, ("box", 0, 1))
    ylo = _record(0, ql, -pl, ql, ("box", 1, 0))
    yhi = _record(0, -qh, ph, qh, ("box", 1, 1))
    return V, [ylo, xhi, yhi, xlo]


def _incs(col, gi):
    """The output map's increment when a neuron turns active: ``w * gi`` for each output
    weight ``w`` in ``col`` (``gi``: the neuron's row of the layer's map), flat like ``out``."""
    g0, g1, g2 = gi
    if len(col) == 1:
        w = col[0]
        return (w * g0, w * g1, w * g2)
    return tuple([x for w in col for x in (w * g0, w * g1, w * g2)])


def compute_cells_2d(net, box, max_cells, timeout, progress, start):
    """Leaves of the subdivision: list of ``_Cell``.

    At the last hidden layer the output map's integer rows ``out`` (scale ``d_L D``) are
    accumulated along the subdivision: per parent cell once for the neurons active on the
    whole cell, then one row update per neuron that turns active on a sub-node (instead of
    the product ``[d_L W_L | d_L b_L] [M; 0 0 D]`` per leaf; the same integers)."""
    ints = _int_layers(net)
    V, E = _root(box)
    root = _Cell(V, E, (), (), {}, (), [[1, 0, 0], [0, 1, 0]], 1)
    if net.depth == 1:
        return [root], ints
    items = [(root, _next_batch(ints[0], root.M, 1, [(V, [1, 1])])[0])]
    Wout = ints[-1][0]
    one = len(Wout) == 1  # one output: a leaf's row update is three additions
    L = net.depth
    total = net.num_hidden
    done = 0
    for l in range(1, L):
        Wd = ints[l - 1]
        new_items = []
        tags = [(l, i) for i in range(net.architecture[l])]
        last = l == L - 1
        if last:
            ocols = [[wr[i] for wr in Wout] for i in range(net.architecture[l])]
        for cell, (G, S, mins, maxs) in items:
            nl = len(G)
            CV, CE = cell.V, cell.E
            bits = [0] * nl
            sides = [0] * nl
            zero = None  # a list of the cell's zero neurons and this layer's, when there are any
            forced = dict(cell.forced)  # copying a dict keeps the stored hashes of the tags
            cut = []
            for i, g, mn, mx, tag in zip(range(nl), G, mins, maxs, tags):
                if mn < 0:
                    if mx > 0:  # (never for a zero row g = (0, 0, g2): H = g2 T)
                        cut.append(i)
                        continue
                    if g[0] or g[1]:
                        # lazy: the record (-g, S) on the cell (built by resolve_forced if asked)
                        forced[tag] = ("lazy2", g, S, True, CV, CE)
                        continue
                elif g[0] or g[1]:
                    bits[i] = 1
                    forced[tag] = ("lazy2", g, S, False, CV, CE)
                    continue
                g2 = g[2]  # a zero row: h = g2 / S on the whole cell
                if g2 > 0:
                    bits[i] = 1
                elif g2 == 0:
                    if zero is None:
                        zero = list(cell.zero)
                    zero.append(tag)
                forced[tag] = ((), fmpq(abs(g2), S))
            # the next layer's map M / D: the rows of G for the active neurons (G and S are
            # already divided by their gcd, see _next_batch)
            Gr, D = G, S
            out = tuple(_chain(*_G_py(Wout, Gr, bits, D))) if last else None
            # sub-nodes: (V, E, bits, sides, forced-extra, output rows)
            nodes = [(CV, CE, bits, sides, {}, out)]
            inv = fmpq(1, S) if cut else None
            for i in cut:
                g0, g1, g2 = G[i]
                tag = tags[i]
                # the records of h >= 0 and of h <= 0 (as _record builds them, inlined)
                nq = (inv * g0, inv * g1)
                oq = inv * g2
                rpos = (g0, g1, g2, S, tag, tag, None, nq, oq)
                rneg = (-g0, -g1, -g2, S, tag, tag, None, (-nq[0], -nq[1]), -oq)
                incs = _incs(ocols[i], Gr[i]) if last else None
                nxt = []
                for nd in nodes:
                    NVv, NEe, nb, ns, nf, no = nd
                    # H at the corners and whether some value is < 0 / > 0 (one loop: no
                    # comprehension function call, no min / max pass)
                    H = []
                    neg = pos = False
                    for X, Y, T in NVv:
                        h = g0 * X + g1 * Y + g2 * T
                        H.append(h)
                        if h < 0:
                            neg = True
                        elif h > 0:
                            pos = True
                    if not neg:
                        nb[i] = 1
                        nf[tag] = ("lazy2", rpos, NVv, NEe)
                        if last:  # the output rows plus the neuron's increment
                            no = (no[0] + incs[0], no[1] + incs[1], no[2] + incs[2]) if one else tuple(map(_add, no, incs))
                            nd = (NVv, NEe, nb, ns, nf, no)
                        nxt.append(nd)
                    elif not pos:
                        nf[tag] = ("lazy2", rneg, NVv, NEe)
                        nxt.append(nd)
                    else:
                        PV, PE, QV, QE = _split(NVv, NEe, H, rpos, rneg)
                        b2, s2 = nb[:], ns[:]
                        nb[i] = 1
                        ns[i] = 1
                        s2[i] = 1
                        if last:
                            po = (no[0] + incs[0], no[1] + incs[1], no[2] + incs[2]) if one else tuple(map(_add, no, incs))
                        else:
                            po = None
                        nxt.append((PV, PE, nb, ns, nf, po))
                        nxt.append((QV, QE, b2, s2, nf.copy(), no))
                nodes = nxt
                if timeout is not None and time.monotonic() - start > timeout:
                    raise LimitError(f"timeout of {timeout} s reached while subdividing layer {l}")
            # pattern (one tuple per layer), sides and zero neurons as the tuples of the Cell
            cbits, csides, zt = cell.bits, cell.sides, (cell.zero if zero is None else tuple(zero))
            # a leaf's forced records: the cell's, then the neurons forced on the sub-node
            # (``forced | nf``: a new dict, in that order)
            if last:
                for NVv, NEe, nb, ns, nf, no in nodes:
                    new_items.append(_mk_node(NVv, NEe, cbits + (tuple(nb),), zt, forced | nf, csides + tuple(ns), None, D, no, Gr, nb))
            else:
                pre = _next_batch(ints[l], Gr, D, [(nd[0], nd[2]) for nd in nodes])
                for (NVv, NEe, nb, ns, nf, no), pr in zip(nodes, pre):
                    new_items.append((_mk_node(NVv, NEe, cbits + (tuple(nb),), zt, forced | nf, csides + tuple(ns), None, D), pr))
            if timeout is not None and time.monotonic() - start > timeout:
                raise LimitError(f"timeout of {timeout} s reached while subdividing layer {l}")
            if max_cells is not None and len(new_items) > max_cells and last:
                raise LimitError(f"more than {max_cells} cells (--max-cells)")
        items = new_items
        done += net.architecture[l]
        if max_cells is not None and len(items) > max_cells:
            raise LimitError(f"more than {max_cells} cells (--max-cells)")
        if progress is not None:
            progress(done, total, len(items))
    return items, ints


def _q2(v):
    return (fmpq(v[0], v[2]), fmpq(v[1], v[2]))


def finish_cell(cell, ints, want_v):
    """``(point, constraints, G, offsets, corners, bounded)`` of a leaf (rationals built here).

    ``constraints`` are ``(rec, witness)`` in edge order; ``corners`` the finite genuine
    corners in counter-clockwise order.
    """
    V, E = cell.V, cell.E
    k = len(V)
    fin, rays, recs, wit = [], [], [], {}
    for i in range(k):
        v, e = V[i], E[i]
        genuine = E[i - 1] is not e
        if v[2]:
            if genuine:
                fin.append(v)
            elif e is not None and id(e) not in wit:
                wit[id(e)] = _q2(v)  # a pseudo-corner: relative interior of its facet
        elif genuine:
            rays.append(v)
    seen = set()
    for i in range(k):
        e = E[i]
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        recs.append(e)
        if id(e) not in wit:
            v, w = V[i], V[i + 1 if i + 1 < k else 0]
            if v[2] and w[2]:
                t = 2 * v[2] * w[2]
                wit[id(e)] = (fmpq(v[0] * w[2] + w[0] * v[2], t), fmpq(v[1] * w[2] + w[1] * v[2], t))
            elif v[2]:
                wit[id(e)] = (fmpq(v[0] + w[0] * v[2], v[2]), fmpq(v[1] + w[1] * v[2], v[2]))
            else:
                wit[id(e)] = (fmpq(w[0] + v[0] * w[2], w[2]), fmpq(w[1] + v[1] * w[2], w[2]))
    # interior point: average of the finite corners + sum of the directions (all corners,
    # pseudo ones included: they generate the cone, so a positive combination is interior)
    allfin = [v for v in V if v[2]]
    if allfin:
        nf = len(allfin)
        den = 1
        for v in allfin:
            den = lcm(den, v[2])
        sx = sum(v[0] * (den // v[2]) for v in allfin)
        sy = sum(v[1] * (den // v[2]) for v in allfin)
        den *= nf
        for d in V:
            if d[2]:
                continue
            sx += d[0] * den
            sy += d[1] * den
        point = _simplify(sx, sy, den, recs)
    else:
        point = (Q0, Q0)
    return point, recs, wit, fin, all(v[2] for v in V)


def _finish_point(sx, sy, den, recs, wits, constraint, fin, fq, vok):
    """``(interior_point, constraints, vertices, corners)`` of a planar cell (built by
    :func:`cells_2d`, computed when first asked): the dyadic point near the centroid
    ``(sx, sy) / den`` (:func:`_simplify_int`), the facets ``constraint(record, witness)`` of
    the records ``recs`` and witnesses ``wits``, the corners' rationals ``fq`` (of the integer
    corners ``fin``, in counter-clockwise order) from the first in angle order around that
    point, and the vertices (the corners when ``vok``, else ``None``)."""
    point, pint = _simplify_int(sx, sy, den, recs)
    if fin:
        b = _angle_key_first(fin, pint[0], pint[1], pint[2]) if len(fin) > 1 else 0
        corners = tuple(fq[b:] + fq[:b]) if b else tuple(fq)
    else:
        corners = ()
    return point, tuple(map(constraint, recs, wits)), (corners if vok else None), corners


def _simplify(sx, sy, den, recs):
    """A dyadic point strictly inside every facet near ``(sx, sy) / den`` (else that point)."""
    for kk in range(31):
        s = 1 << kk
        u = (2 * sx * s + den) // (2 * den)
        v = (2 * sy * s + den) // (2 * den)
        ok = True
        for r in recs:
            if r[0] * u + r[1] * v + r[2] * s <= 0:
                ok = False
                break
        if ok:
            return (fmpq(u, s), fmpq(v, s))
    return (fmpq(sx, den), fmpq(sy, den))


def rec_exact(rec):
    """``(normal, offset)`` of a record as rationals."""
    S = rec[3]
    return (fmpq(rec[0], S), fmpq(rec[1], S)), fmpq(rec[2], S)


def resolve_forced(entry):
    """``(terms, mu)`` of a lazy planar forced record: ``h = mu + sum lam_k h_k``, all >= 0."""
    if len(entry) == 6:  # ("lazy2", g, S, negated, V, E): the record (+-g, S) on (V, E)
        _, g, S, neg, V, E = entry
        h = (-g[0], -g[1], -g[2], S) if neg else (g[0], g[1], g[2], S)
    else:  # ("lazy2", record, V, E)
        _, h, V, E = entry
    (ha0, ha1), hc = rec_exact(h)
    best, bi = None, -1
    for i, v in enumerate(V):
        if v[2]:
            val = ha0 * fmpq(v[0], v[2]) + ha1 * fmpq(v[1], v[2]) + hc
            if best is None or val < best:
                best, bi = val, i
    if bi < 0 or best < 0:
        raise LimitError("internal: forced neuron without a planar certificate")
    r1, r2 = E[bi - 1], E[bi]
    if r1 is None or r2 is None:
        raise LimitError("internal: finite corner on the line at infinity")
    (a0, a1), _ = rec_exact(r1)
    if r1 is r2 or r1[4] == r2[4]:
        lam = ha0 / a0 if a0 else ha1 / a1
        return (((r1[4], lam),) if lam else ()), best
    (b0, b1), _ = rec_exact(r2)
    det = a0 * b1 - a1 * b0
    l1 = (ha0 * b1 - ha1 * b0) / det
    l2 = (a0 * ha1 - a1 * ha0) / det
    terms = tuple((t, lam) for t, lam in ((r1[4], l1), (r2[4], l2)) if lam)
    return terms, best


def _angle_key_first(fin, px, py, pd):
    """Index of the corner of ``fin`` (integer homogeneous, ``T > 0``) that
    :func:`exactnet.regions._angle_cmp` puts first around the point ``(px, py) / pd``
    (``pd > 0``): the same comparison in integers (every difference is scaled by the positive
    ``T pd``, which changes no sign).

    ``fin`` lists a convex polygon's corners counter-clockwise and the point is interior, so
    their angles around it increase cyclically with one wrap: the half-plane classes (angle
    in ``[0, pi)`` or ``[pi, 2 pi)``) form one run each, and when both occur the first corner
    is where the ``[0, pi)`` run starts. Otherwise (one class only) the scan of
    :func:`_angle_key_first_scan` decides."""
    X, Y, T = fin[-1]
    ay = Y * pd - py * T
    prev = ay < 0 or (ay == 0 and X * pd - px * T <= 0)  # angle in [pi, 2 pi)
    for i, (X, Y, T) in enumerate(fin):
        ay = Y * pd - py * T
        h = ay < 0 or (ay == 0 and X * pd - px * T <= 0)
        if prev and not h:
            return i
        prev = h
    return _angle_key_first_scan(fin, px, py, pd)


def _angle_key_first_scan(fin, px, py, pd):
    """:func:`_angle_key_first` by comparing every corner with the best so far."""
    best = -1
    bh = bx = by = 0
    for k, (X, Y, T) in enumerate(fin):
        ax = X * pd - px * T
        ay = Y * pd - py * T
        h = 0 if (ay > 0 or (ay == 0 and ax > 0)) else 1
        if best < 0 or h < bh or (h == bh and ax * by - ay * bx > 0):
            best, bh, bx, by = k, h, ax, ay
    return best


def cells_2d(leaves, ints, box, want_v, widths, timeout, start, Cell, constraint, lazy_cell=None):
    """The :class:`exactnet.regions.Cell` of every leaf (exact rationals built here).

    Same values as :func:`finish_cell` + :func:`gradient_of` leaf by leaf (compared in
    ``tests/test_regions_fastpaths.py``), in one pass over the corners. Facets: a convex
    polygon's edges on one line are consecutive (cyclically), so an edge record starts a new
    facet where it differs from the previous edge's, except for the record of ``E[0]`` whose
    run may wrap around the end (it is the first facet). A pseudo-corner lies inside the run
    of the last facet started (or of the first one, when it wraps). Rational forms of corners
    and edge midpoints shared by several leaves are built once (cached by the corner's value
    / the values of the edge's two corners); records carry their own. ``Cell(*fields)``
    builds a cell; ``lazy_cell(pattern, G, offsets, bounded, zero, forced, sides,
    (_finish_point, *args))`` a cell whose interior point, constraints, vertices and corners
    are computed when first asked (:func:`exactnet.regions._mk_cell_lazy`; ``None``: ``Cell``
    with all of them computed now; the facets' records and witnesses are found here either
    way); ``constraint(record, witness)`` a facet's
    :class:`exactnet.regions.Constraint` (:func:`exactnet.regions._mk_constraint_rec`, the one
    builder of both paths; writing it out here saved 0.8% of the instructions of a 2-8-8-1 run,
    not worth a second copy)."""
    if lazy_cell is None:  # every field computed now

        def lazy_cell(pattern, G, offs, bounded, zero, forced, sides, lazy):
            point, constraints, vertices, corners = lazy[0](*lazy[1:])
            return Cell(pattern, point, constraints, G, offs, vertices, bounded, corners, zero, forced, sides)

    qv = {}  # integer corner -> (fmpq, fmpq)
    invs = {}  # S -> fmpq(1, S)
    mids = {}  # (w, v) for an edge v -> w met once -> its witness (the neighbour's edge is w -> v)
    Wrows, dW = ints[-1][0], ints[-1][1]
    nW = len(Wrows)
    bounded_box = box is not None
    cells = []
    for leaf in leaves:
        if timeout is not None and time.monotonic() - start > timeout:
            raise LimitError(f"timeout of {timeout} s reached while finishing cells")
        V, E = leaf.V, leaf.E
        fin, fq, recs, wits, dirs = [], [], [], [], []
        pw = None  # pseudo-corner witnesses {facet index: point}
        E0 = E[0]
        prev = E[-1]
        sx = sy = 0
        den = 1
        Vn = V[1:]
        Vn.append(V[0])
        for v, e, w in zip(V, E, Vn):
            T = v[2]
            if T:
                # the corner's rationals (cached by value: shared by the leaves around it)
                a = qv.get(v)
                if a is None:
                    a = qv[v] = (fmpq(v[0], T), fmpq(v[1], T))
            # (``not recs``: the first record met; before it every edge was at infinity)
            if e is not None and (not recs or (e is not prev and e is not E0)):
                # a new facet; its witness: the midpoint of its first edge v -> w (a
                # pseudo-corner found below replaces it). Shared with the neighbour across
                # the edge, which meets the same two corners in the other order.
                recs.append(e)
                q = mids.pop((v, w), None)
                if q is None:
                    # from the corners' rationals (fmpq arithmetic instead of converting the
                    # products' big integers)
                    if T:
                        if w[2]:
                            b = qv.get(w)
                            if b is None:
                                b = qv[w] = (fmpq(w[0], w[2]), fmpq(w[1], w[2]))
                            q = ((a[0] + b[0]) * QH, (a[1] + b[1]) * QH)
                        else:
                            q = (a[0] + w[0], a[1] + w[1])
                    else:
                        b = qv.get(w)
                        if b is None:
                            b = qv[w] = (fmpq(w[0], w[2]), fmpq(w[1], w[2]))
                        q = (b[0] + v[0], b[1] + v[1])
                    mids[(w, v)] = q
                wits.append(q)
            if T:
                # (sx, sy) / den += (X, Y) / T over the product of the T (not their lcm: the
                # same rational point, which is all that _simplify_int and the angle order
                # use, for 3 operations instead of 10)
                sx = sx * T + v[0] * den
                sy = sy * T + v[1] * den
                den *= T
                if prev is not e:
                    fin.append(v)  # corners always: the breakpoint complex needs them in 2-D
                    fq.append(a)
                elif e is not None:
                    # a pseudo-corner: relative interior of its facet (the first one wins)
                    j = 0 if e is E0 else len(recs) - 1
                    if pw is None:
                        pw = {}
                    if j not in pw:
                        pw[j] = a
            else:
                dirs.append(v)
            prev = e
        if pw:
            for j, q in pw.items():
                wits[j] = q
        # output layer: the integer rows G (scale d_L D) accumulated by compute_cells_2d, or
        # G = [d W | d b] [M; 0 0 D] in Python integers (no hidden layer)
        S = dW * leaf.D
        out = leaf.out
        if out is None:
            M = leaf_M(leaf)
            out = [g for row in _G_py(Wrows, M, [1] * len(M), leaf.D) for g in row]
        inv = invs.get(S)  # fmpq(1, S): inv * g == fmpq(g, S) at half the cost
        if inv is None:
            inv = invs[S] = fmpq(1, S)
        if nW == 1:
            G = fmpq_mat(1, 2)  # (set entries: cheaper than the list constructor)
            G[0, 0] = inv * out[0]
            G[0, 1] = inv * out[1]
            offs = (inv * out[2],)
        else:
            gq, ol = [], []
            for o in range(0, 3 * nW, 3):
                gq.append(inv * out[o])
                gq.append(inv * out[o + 1])
                ol.append(inv * out[o + 2])
            G = fmpq_mat(nW, 2, gq)
            offs = tuple(ol)
        bounded = bounded_box or not dirs
        nfin = len(V) - len(dirs)  # finite corners, pseudo ones included
        if nfin:
            # the centroid (sx, sy) / den; its dyadic rounding and the corners' angle order
            # around that point when first asked (_finish_point)
            den *= nfin
            for d in dirs:
                sx += d[0] * den
                sy += d[1] * den
            cells.append(
                lazy_cell(
                    leaf.bits, G, offs, bounded, leaf.zero, leaf.forced, leaf.sides,
                    (_finish_point, sx, sy, den, recs, wits, constraint, fin, fq, bounded and want_v),
                )
            )
        else:  # no finite corner (so no corner at all): the origin
            cells.append(
                Cell(
                    leaf.bits,
                    (Q0, Q0),
                    tuple(map(constraint, recs, wits)),
                    G,
                    offs,
                    () if (bounded and want_v) else None,
                    bounded,
                    (),
                    leaf.zero,
                    leaf.forced,  # a dict of its own (built for this leaf by compute_cells_2d)
                    leaf.sides,
                )
            )
    return cells


_INV2 = [fmpq(1, 1 << k) for k in range(31)]  # u * _INV2[k] == fmpq(u, 2^k), at half the cost
# per k: (k, 31 - k, 2^(30 - k), 1 / 2^k), the constants of one candidate of _simplify_int
_KTAB = [(k, 31 - k, 1 << (30 - k), _INV2[k]) for k in range(31)]


def _simplify_int(sx, sy, den, recs):
    """:func:`_simplify`, also returning the point as integers ``(x, y, d)``, ``d > 0`` (the
    same first accepted ``k``; the constraints are tried in facet order).

    The rounded coordinates ``floor(x 2^k + 1/2)`` for every ``k <= 30`` come from one
    division: with ``F = floor(x 2^31)``, ``floor(x 2^(k+1)) = F >> (30 - k)`` and
    ``floor(x 2^k + 1/2) = (floor(x 2^(k+1)) + 1) >> 1 = (F + 2^(30 - k)) >> (31 - k)``
    (floors of floors by powers of two)."""
    if recs:
        Fx = (sx << 31) // den
        Fy = (sy << 31) // den
        for kk, sh, half, q in _KTAB:
            u = (Fx + half) >> sh
            v = (Fy + half) >> sh
            for r in recs:
                if r[0] * u + r[1] * v + (r[2] << kk) <= 0:
                    break
            else:
                return (q * u, q * v), (u, v, 1 << kk)
        return (fmpq(sx, den), fmpq(sy, den)), (sx, sy, den)
    u = (2 * sx + den) // (2 * den)
    v = (2 * sy + den) // (2 * den)
    return (fmpq(u), fmpq(v)), (u, v, 1)


def _simplify_int_ref(sx, sy, den, recs):
    """:func:`_simplify_int` by the definition (one rounding division per ``k``): the
    reference the tests compare it with."""
    if recs:
        for kk in range(31):
            s = 1 << kk
            u = (2 * sx * s + den) // (2 * den)
            v = (2 * sy * s + den) // (2 * den)
            if all(r[0] * u + r[1] * v + r[2] * s > 0 for r in recs):
                return (fmpq(u, s), fmpq(v, s)), (u, v, s)
        return (fmpq(sx, den), fmpq(sy, den)), (sx, sy, den)
    u = (2 * sx + den) // (2 * den)
    v = (2 * sy + den) // (2 * den)
    return (fmpq(u), fmpq(v)), (u, v, 1)


def gradient_of(cell, ints):
    """Exact ``(gradient fmpq_mat, offsets)`` of the output layer on the leaf."""
    G, S, _, _ = _layer_G(ints[-1], leaf_M(cell), cell.D)
    m = len(G)
    grad = fmpq_mat(m, 2, [fmpq(x, S) for g in G for x in g[:2]])
    return grad, tuple(fmpq(g[2], S) for g in G)
