"""Activation regions of a ReLU network over the whole input space, exactly.

Algorithm: **region subdivision, neuron by neuron in layer order, with an exact LP**
(:mod:`exactnet.lp`). A *node* is a closed polyhedron ``P = {x : h_k(x) >= 0}`` with a
pattern prefix (the signs of the neurons processed so far) and a point ``p`` strictly
inside it, off every bent hyperplane processed so far. On a node the pre-activation
``g`` of the next neuron is affine (its layer only reads earlier layers, which are fixed
on the node). The node is split by ``g`` iff ``g`` takes both signs in the interior:

* ``g`` constant on ``P``: no split; the sign is the constant's (zero: the neuron is
  identically zero on the node, pattern bit 0, recorded as ``zero``);
* ``g(p) = 0`` (``g`` not constant): split; new interior points ``p +- t grad g`` with
  ``t`` below the smallest slack ratio;
* otherwise, say ``g(p) > 0``: one exact LP ``min g`` over ``P`` started at ``p``. If the
  minimum is ``>= 0`` there is no split and the LP's multipliers give the exact
  certificate ``g = mu + sum lam_k h_k`` (``mu, lam >= 0``); if it is negative (or
  unbounded) the other side gets the interior point ``(1-s) p + s v`` on the segment to
  the LP's vertex ``v`` (or ``p + t d`` along its ray ``d``), strictly inside ``P`` and
  strictly on the negative side.

So every node keeps an interior point strictly off every processed hyperplane (the final
interior points are generic: all pre-activations nonzero except neurons identically zero
on the cell). Splitting by closed half-spaces keeps the invariant that the leaves' closed
polyhedra cover the root (``R^n0`` or the box) and have pairwise disjoint interiors: this
is the covering argument of ``proofs/lemmas/regions.md``. Degeneracies (hyperplanes through
vertices, coincident or parallel hyperplanes, dead or always-active neurons, neurons zero
on a cell) need no special case: the LP decides with ``>= 0`` versus ``< 0`` exactly.

**How the LPs are answered.** Every LP is still decided exactly, but a float64 active-set
simplex first *proposes* an optimal basis (:func:`exactnet.lp.minimize_checked`; for the many
LPs of one node over the same constraints, one vectorised NumPy batch,
:func:`exactnet.lp.float_lp_batch`). The proposal is then checked in integers: the basis
vertex must satisfy every constraint and the objective must be a nonnegative combination of
the basis normals (the LP optimality conditions, so the exact vertex, value and multipliers
are exactly what the exact simplex would certify). Any failed check (degenerate vertex, wrong
or ill-conditioned proposal, no proposal) falls back to the exact simplex of
:mod:`exactnet.lp`. No float decides anything; floats only choose which exact check to run.

Exact accelerations, all decisions rather than guesses:

* every neuron of layer ``l`` is first tested on the whole cell of layer ``l-1``; a neuron of
  constant sign there has it on every sub-node (its certificate is over the cell's
  constraints, which the sub-nodes keep), so only the cutting neurons are tested again;
* a node remembers, per constraint, a point where it vanishes and every other constraint
  was positive (the split point of the LP segment); before the redundancy LPs these points
  and the orthogonal projections of the interior point on every constraint's hyperplane are
  tested exactly against all current constraints in Python integers, stopping at the first
  constraint that rejects them (:func:`_facet_screen`); a candidate with ``h_k = 0`` and every
  other constraint ``> 0`` *is* a facet witness (no LP);
* ``n0 = 2`` is delegated to :mod:`exactnet.regions2d` (the same subdivision on exact
  polygons in homogeneous integers: no LP at all; certificate multipliers computed only
  when a certificate is written, :func:`forced_certificate`). The older planar
  V-representation helpers below (``_vrep2``, ``_clip``) are kept for nodes of dimension 2
  reached through this module only.

After each layer the node's redundant constraints are removed (``min h_k`` over the other
constraints is ``>= 0``), which keeps the LPs small; at the end the remaining constraints
are the facets, each with a relative-interior *facet witness* (on the segment from ``p`` to
the LP vertex that violates it). Vertices come from ``n0``-subsets of facets (2-D: pairs,
cyclically ordered), solved by fraction-free integer elimination. Unbounded cells are
first-class: the LP reports rays.
"""

from __future__ import annotations

import functools
import gc
import itertools
import operator
import time
from math import gcd, lcm
from dataclasses import dataclass, field, fields
from typing import Callable, Sequence

from flint import fmpq, fmpq_mat

from .errors import LimitError, ShapeError, ValueRangeError
from .lp import _aux, _floats, checked_prep, float_lp_batch, minimize, minimize_checked
from .network import Layer, Network
from .qq import parse_box, to_q

__all__ = [
    "Constraint",
    "Cell",
    "RegionComplex",
    "compute_regions",
    "cell_containing",
    "slice_network",
    "polygon_area",
]

Q0 = fmpq(0)
Q1 = fmpq(1)
Q2 = fmpq(2)


@dataclass(frozen=True)
class Constraint:
    """One facet ``normal . x + offset >= 0`` of a cell.

    ``neuron`` is the ``(layer, index)`` whose (signed) pre-activation gives it, ``None`` for
    a box side; ``neighbour`` the first cell across this facet (``None`` for a box side or
    before :func:`exactnet.breakpoints.breakpoint_complex` has been run: see ``neighbours``
    in the breakpoint complex). ``witness`` is a point in the relative interior of the facet.
    """

    normal: tuple
    offset: fmpq
    neuron: tuple | None
    neighbour: int | None = None
    witness: tuple | None = None
    box_side: tuple | None = None  # (coordinate, 0 for x_i >= lo, 1 for x_i <= hi)


@dataclass(frozen=True)
class Cell:
    """An activation region with nonempty interior."""

    pattern: tuple
    interior_point: tuple
    constraints: tuple
    gradient: fmpq_mat
    offset: tuple
    vertices: tuple | None
    bounded: bool
    corners: tuple = ()  # vertices of the (possibly unbounded) cell, also when not bounded
    zero: tuple = ()  # neurons identically zero on the cell
    forced: dict = field(default_factory=dict, compare=False, repr=False)
    sides: tuple = ()  # per hidden neuron in order: 1 split on this branch, 0 forced


def _lazy_field(name):
    def get(self):
        self._finish()
        return self.__dict__[name]

    def put(self, value):  # (``__init__`` of a _LazyCell, e.g. from ``dataclasses.replace``)
        self.__dict__[name] = value

    return property(get, put)


class _LazyCell(Cell):
    """A :class:`Cell` of the planar engine (:func:`_mk_cell_lazy`) whose ``interior_point``,
    ``constraints``, ``vertices`` and ``corners`` are computed when first asked: ``_lazy =
    (finish, *args)`` in the instance dict, ``finish(*args)`` returns the four values (the
    dyadic rounding of the interior point, the facets' ``Constraint`` objects, the angle order
    of the corners around the point, as the eager code computes them). The first access of one
    of them (or ``==``, ``repr``, a copy) stores the four in
    the instance dict (whose keys are already the fields in declaration order, then
    ``_lazy``, which is removed) and turns the object into a plain :class:`Cell`: the same
    instance dict, type and values as an eager construction, and no cost on later accesses."""

    __slots__ = ()

    interior_point = _lazy_field("interior_point")
    constraints = _lazy_field("constraints")
    vertices = _lazy_field("vertices")
    corners = _lazy_field("corners")

    def _finish(self):
        d = self.__dict__
        lazy = d.get("_lazy")
        if lazy is not None:  # (values stored before the state goes: a concurrent reader recomputes)
            d["interior_point"], d["constraints"], d["vertices"], d["corners"] = lazy[0](*lazy[1:])
            d.pop("_lazy", None)
        object.__setattr__(self, "__class__", Cell)

    def __eq__(self, other):
        self._finish()
        return self == other

    def __repr__(self):
        self._finish()
        return repr(self)

    def __reduce_ex__(self, protocol):
        self._finish()
        return self.__reduce_ex__(protocol)

    __hash__ = Cell.__hash__


def _maker(cls, deferred=(), extra=()):
    """``cls(*values)`` with every field given positionally, without the frozen dataclass
    ``__init__`` (the same object: equality, hash and repr come from the fields).

    The function is generated from the dataclass fields (as :mod:`dataclasses` generates
    ``__init__``): one ``__dict__`` item assignment per field, about half the cost of
    ``__dict__.update(zip(names, values))`` (2-D runs make one ``Constraint`` per facet of
    every cell). Fields in ``deferred`` are not arguments and start as ``None``; the names in
    ``extra`` are arguments stored after the fields (the instance dict keeps declaration order)."""
    names = [f.name for f in fields(cls)]
    args = [a for a in names if a not in deferred] + list(extra)
    body = "".join(f"    d[{a!r}] = {'None' if a in deferred else a}\n" for a in names + list(extra))
    src = f"def make({', '.join(args)}):\n    obj = new(cls)\n    d = obj.__dict__\n{body}    return obj\n"
    ns = {"new": object.__new__, "cls": cls}
    exec(src, ns)
    return ns["make"]


_mk_constraint = _maker(Constraint)
_mk_cell = _maker(Cell)
#: A :class:`_LazyCell`: ``interior_point``, ``constraints``, ``vertices`` and ``corners`` from
#: ``_lazy[0](*_lazy[1:])`` when first asked (``None`` until then); the planar engine's cells
#: (:func:`exactnet.regions2d.cells_2d`), arguments ``(pattern, gradient, offset, bounded, zero,
#: forced, sides, _lazy)``.
_mk_cell_lazy = _maker(_LazyCell, deferred=("interior_point", "constraints", "vertices", "corners"), extra=("_lazy",))


def _mk_constraint_rec(rec, witness, new=object.__new__, cls=Constraint):
    """``Constraint(normal, offset, neuron, None, witness, box_side)`` from a planar record of
    :mod:`exactnet.regions2d` (``rec[7]``, ``rec[8]``, ``rec[5]``, ``rec[6]``), as
    :func:`_maker` builds it (fields in declaration order); called through ``map`` over a
    cell's records and witnesses (no argument tuple per facet), and by
    :func:`exactnet.regions2d.cells_2d` once per facet."""
    obj = new(cls)
    d = obj.__dict__
    d["normal"] = rec[7]
    d["offset"] = rec[8]
    d["neuron"] = rec[5]
    d["neighbour"] = None
    d["witness"] = witness
    d["box_side"] = rec[6]
    return obj


class RegionComplex:
    """The activation regions of ``network`` (inside ``box`` when given)."""

    def __init__(self, network: Network, cells: list, box, original=None, slice_=None):
        self.network = network
        self.cells = cells
        self.box = box
        self.original = original if original is not None else network
        self.slice = slice_
        self._by_pattern = dict(zip(map(operator.attrgetter("pattern"), cells), itertools.count()))
        self._bp = None

    def index_of_pattern(self, pattern) -> int | None:
        return self._by_pattern.get(tuple(tuple(p) for p in pattern))

    def vertex_set(self) -> set:
        out = set()
        for c in self.cells:
            out.update(c.corners)
        return out

    def breakpoints(self):
        if self._bp is None:
            from .breakpoints import breakpoint_complex

            self._bp = breakpoint_complex(self)
        return self._bp

    def summary(self) -> dict:
        return {
            "cells": len(self.cells),
            "bounded_cells": sum(1 for c in self.cells if c.bounded),
            "vertices": len(self.vertex_set()) if getattr(self, "has_vertices", True) else None,
            "linear_regions": self.breakpoints().linear_regions(),
        }


# --------------------------------------------------------------------- helpers
def _dot(a, x) -> fmpq:
    acc = Q0
    for ai, xi in zip(a, x):
        if ai and xi:
            acc += ai * xi
    return acc


def _ev(con, x) -> fmpq:
    return _dot(con[0], x) + con[1]


def slice_network(net: Network, p0, p1, p2) -> Network:
    """Compose ``net`` with ``(s, t) -> p0 + s (p1 - p0) + t (p2 - p0)``."""
    n0 = net.input_dim
    p0, p1, p2 = ([to_q(v) for v in p] for p in (p0, p1, p2))
    if not (len(p0) == len(p1) == len(p2) == n0):
        raise ShapeError(f"slice points need {n0} coordinates each")
    u = [a - b for a, b in zip(p1, p0)]
    v = [a - b for a, b in zip(p2, p0)]
    if fmpq_mat([u, v]).rank() < 2:
        raise ValueRangeError("slice points are collinear: P1-P0 and P2-P0 must be independent")
    l1 = net.layers[0]
    rows = tuple((_dot(r, u), _dot(r, v)) for r in l1.weights)
    bias = tuple(b + _dot(r, p0) for r, b in zip(l1.weights, l1.biases))
    return Network([Layer(rows, bias)] + list(net.layers[1:]), name=net.name, metadata=net.metadata)


class _Node:
    __slots__ = ("cons", "p", "bits", "zero", "forced", "sides", "vr", "wit", "lpd")

    def __init__(self, cons, p, bits, zero, forced, sides):
        self.cons = cons  # list of (normal tuple, offset, tag)
        self.p = p
        self.bits = bits
        self.zero = zero
        self.forced = forced
        self.sides = sides
        self.vr = None  # 2-D: cached exact V-representation (vertices, rays) or False
        self.wit = {}  # constraint tag -> a point where it is 0 and the others were > 0
        self.lpd = None  # cached LP inputs of cons (_node_lp)


def _vrep2(cons):
    """Exact V-representation of the 2-D polyhedron ``{c >= 0}``: ``(vertices, rays)``.

    Vertices: the feasible intersection points of two constraint lines with independent
    normals (complete for a pointed polyhedron). Extreme rays: ``d = +-rot90(a_k)`` in the
    recession cone (a nontrivial proper 2-D cone has its extreme rays on such lines). Returns
    ``False`` when there is no vertex (the polyhedron contains a line): callers use the LP.
    """
    verts = []
    m = len(cons)
    for i in range(m):
        (a0, a1), ac = cons[i][0], cons[i][1]
        for j in range(i + 1, m):
            (b0, b1), bc = cons[j][0], cons[j][1]
            det = a0 * b1 - a1 * b0
            if not det:
                continue
            x = ((-ac) * b1 - (-bc) * a1) / det
            y = (a0 * (-bc) - b0 * (-ac)) / det
            ok = True
            for c in cons:
                n0, n1 = c[0]
                if n0 * x + n1 * y + c[1] < 0:
                    ok = False
                    break
            if ok:
                v = (x, y)
                if v not in verts:
                    verts.append(v)
    if not verts:
        return False
    rays = []
    for c in cons:
        a0, a1 = c[0]
        for d in ((-a1, a0), (a1, -a0)):
            if all(k[0][0] * d[0] + k[0][1] * d[1] >= 0 for k in cons):
                rays.append(d)
    return verts, rays


def _clip(vr, cons, h):
    """V-representation of ``P ∩ {h >= 0}`` from the one of the pointed 2-D polyhedron ``P``.

    Vertices: those of ``P`` with ``h >= 0`` and the feasible intersections of the line
    ``h = 0`` with the other constraint lines; rays: those of ``P`` with ``h >= 0`` and
    ``+-rot90(grad h)`` when in the new recession cone. The result stays pointed.
    """
    verts, rays = vr
    (h0, h1), hc = h
    nv = [v for v in verts if h0 * v[0] + h1 * v[1] + hc >= 0]
    for c in cons:
        (b0, b1), bc = c[0], c[1]
        det = h0 * b1 - h1 * b0
        if not det:
            continue
        x = ((-hc) * b1 - (-bc) * h1) / det
        y = (h0 * (-bc) - b0 * (-hc)) / det
        ok = True
        for k in cons:
            n0, n1 = k[0]
            if n0 * x + n1 * y + k[1] < 0:
                ok = False
                break
        if ok and (x, y) not in nv:
            nv.append((x, y))
    nr = [d for d in rays if h0 * d[0] + h1 * d[1] >= 0]
    for d in ((-h1, h0), (h1, -h0)):
        if all(k[0][0] * d[0] + k[0][1] * d[1] >= 0 for k in cons):
            nr.append(d)
    return nv, nr


def _node_vr(node):
    if node.vr is None:
        node.vr = _vrep2(node.cons) if len(node.p) == 2 else False
    return node.vr


def _min_vr(h, vr):
    """min of h over conv(V) + cone(R): ("ray", d) or ("optimal", v, h(v))."""
    verts, rays = vr
    for d in rays:
        if h[0][0] * d[0] + h[0][1] * d[1] < 0:
            return ("unbounded", None, d)
    best, bv = None, None
    for v in verts:
        val = h[0][0] * v[0] + h[0][1] * v[1] + h[1]
        if best is None or val < best:
            best, bv = val, v
    return ("optimal", bv, best, None)


def forced_certificate(entry):
    """Resolve a forced-neuron record into ``(terms, mu)`` (computing the LP multipliers
    when the decision was taken from the exact V-representation)."""
    if entry and entry[0] == "lazy2":
        from .regions2d import resolve_forced

        return resolve_forced(entry)
    if entry and entry[0] == "lazy":
        _, h, cons, p = entry
        res = _lp_min(h, cons, p)
        if res[0] != "optimal" or res[2] < 0:
            raise LimitError("internal: forced neuron without an LP certificate")
        return tuple((c[2], l) for c, l in zip(cons, res[3]) if l), res[2]
    return entry


def _neg_aux(aux):
    """The ``lp._aux`` of the negated constraint (``floats`` stays None when a number does not fit a float)."""
    return [-v for v in aux[0]], aux[1], None if aux[2] is None else [-v for v in aux[2]]


def _lp_data(cons, n):
    """``(cons, rows, offsets, aux, prep)``: the inputs of :func:`_lp_min` for ``cons``."""
    auxs = [c[3] if len(c) > 3 else _aux(c[0], c[1]) for c in cons]
    return cons, [c[0] for c in cons], [c[1] for c in cons], auxs, checked_prep(auxs, n)


def _node_lp(node):
    """The node's cached :func:`_lp_data` (rebuilt when ``node.cons`` was replaced)."""
    d = node.lpd
    if d is None or d[0] is not node.cons:
        d = node.lpd = _lp_data(node.cons, len(node.p))
    return d


def _lp_min(g, cons, p, gaux=None, prop=None, data=None):
    """``min g`` over the cell: ("optimal", x, g(x), lam) with ``g = g(x) + sum lam h``, or a ray.

    A float64 simplex proposes the optimal basis and exact integer checks decide
    (:func:`exactnet.lp.minimize_checked`); the exact simplex answers whenever a check fails.
    ``gaux`` / ``c[3]``: the cached integer and float forms of ``g`` and the constraints;
    ``prop``: a proposal already computed by :func:`exactnet.lp.float_lp_batch` (checked
    exactly like any other). ``data``: :func:`_lp_data` of ``cons`` when cached.
    """
    if data is None:
        data = _lp_data(cons, len(p))
    res = minimize_checked(g[0], data[1], data[2], p, gaux, data[3], (lambda *a: prop) if prop is not None else None, data[4])
    if res[0] == "optimal":
        return ("optimal", res[1], res[2] + g[1], res[3])
    return res


def _step_inside(cons, p, d):
    """Largest-ish t > 0 with p + t d strictly inside (half the smallest ratio, at most 1)."""
    t = Q1
    for c in cons:
        rate = _dot(c[0], d)
        if rate < 0:
            r = _ev(c, p) / (-rate) / Q2
            if r < t:
                t = r
    return t


def _split(node: _Node, g, tag, want_cert: bool, prop=None):
    """Split ``node`` by the affine function ``g = (normal, offset)``; return children."""
    normal, off = g[0], g[1]
    gaux = g[2] if len(g) > 2 else _aux(normal, off)
    if not any(normal):
        bit = 1 if off > 0 else 0
        forced = dict(node.forced)
        forced[tag] = ((), abs(off))
        zero = node.zero + ((tag,) if off == 0 else ())
        return [_Node(node.cons, node.p, node.bits + (bit,), zero, forced, node.sides + (0,))]
    val = _ev(g, node.p)
    neg = (tuple(-a for a in normal), -off)
    if val == 0:
        t1 = _step_inside(node.cons, node.p, normal)
        nd = tuple(-a for a in normal)
        t2 = _step_inside(node.cons, node.p, nd)
        pp = tuple(x + t1 * a for x, a in zip(node.p, normal))
        pm = tuple(x + t2 * a for x, a in zip(node.p, nd))
        kids = [
            _Node(node.cons + [(normal, off, tag, gaux)], pp, node.bits + (1,), node.zero, node.forced, node.sides + (1,)),
            _Node(node.cons + [(neg[0], neg[1], tag, _neg_aux(gaux))], pm, node.bits + (0,), node.zero, node.forced, node.sides + (1,)),
        ]
        for kid in kids:  # p: on the new hyperplane, strictly inside every other constraint
            kid.wit = dict(node.wit)
            kid.wit[tag] = node.p
        return kids
    pos = val > 0
    h = (normal, off) if pos else neg  # h(p) > 0
    haux = gaux if pos else _neg_aux(gaux)
    vr = _node_vr(node)
    res = _min_vr(h, vr) if vr else _lp_min(h, node.cons, node.p, haux, prop, _node_lp(node))
    if res[0] == "optimal" and res[2] >= 0:
        forced = dict(node.forced)
        lam = res[3]
        if lam is None:
            forced[tag] = ("lazy", h, node.cons, node.p)
        else:
            forced[tag] = (tuple((c[2], l) for c, l in zip(node.cons, lam) if l), res[2])
        kid = _Node(node.cons, node.p, node.bits + ((1,) if pos else (0,)), node.zero, forced, node.sides + (0,))
        kid.vr = node.vr
        kid.wit = node.wit
        kid.lpd = node.lpd
        return [kid]
    hp = _ev(h, node.p)
    if res[0] == "optimal":
        v = res[1]
        hv = res[2]
        s = hp / (hp - hv)  # point where h = 0 on the segment
        wpt = tuple((Q1 - s) * a + s * b for a, b in zip(node.p, v))  # h = 0, others > 0
        s = (s + Q1) / Q2
        q = tuple((Q1 - s) * a + s * b for a, b in zip(node.p, v))
    else:
        d = res[2]
        rate = _dot(h[0], d)  # < 0
        t = hp / (-rate)
        wpt = tuple(a + t * b for a, b in zip(node.p, d))  # h = 0, others > 0
        t = t * Q2
        q = tuple(a + t * b for a, b in zip(node.p, d))
    same = _Node(node.cons + [(h[0], h[1], tag, haux)], node.p, node.bits + ((1,) if pos else (0,)), node.zero, node.forced, node.sides + (1,))
    other = _Node(
        node.cons + [(tuple(-a for a in h[0]), -h[1], tag, _neg_aux(haux))], q, node.bits + ((0,) if pos else (1,)), node.zero, node.forced, node.sides + (1,)
    )
    for kid in (same, other):
        kid.wit = dict(node.wit)
        kid.wit[tag] = wpt
    if vr:
        same.vr = _clip(vr, node.cons, h)
        other.vr = _clip(vr, node.cons, (tuple(-a for a in h[0]), -h[1]))
    return [same, other] if pos else [other, same]


def _batch_pays(n, k):
    """A vectorised batch of ``k`` float LPs costs a fixed NumPy overhead (about a millisecond)
    that only pays against ``k`` pure-Python LPs when they are many or large."""
    return k >= 16 or (n >= 4 and k >= 6)


def _fl_p(p):
    return _floats(p)


def _batch_split_props(node, gs):
    """Float proposals (one vectorised batch) for the split LPs ``min +-g`` of every neuron of a
    layer on the same node; ``None`` where there is no LP or no proposal. Hints only."""
    out = [None] * len(gs)
    cons = node.cons
    n = len(node.p)
    if n <= 2 or len(cons) < n or not _batch_pays(n, len(gs)):
        return out
    pf = _fl_p(node.p)
    if pf is None or any(g[2][2] is None for g in gs) or any(len(c) < 4 or c[3][2] is None for c in cons):
        return out
    rows, objs = [], []
    for i, g in enumerate(gs):
        fl = g[2][2]
        v = sum(a * x for a, x in zip(fl, pf)) + fl[n]
        if not any(g[0]):
            continue
        rows.append(i)
        objs.append(fl[:n] if v > 0 else [-a for a in fl[:n]])
    if not rows:
        return out
    A = [c[3][2][:n] for c in cons]
    b = [c[3][2][n] for c in cons]
    for i, pr in zip(rows, float_lp_batch(objs, A, b, pf)):
        out[i] = pr
    return out


def _facet_screen(cons, p, wit):
    """Exact facet witnesses found without an LP: per constraint a point or ``None``.

    Candidates for constraint ``k`` (all in homogeneous integers ``(X, T)``, ``x = X / T``):
    the orthogonal projection of the interior point ``p`` on the hyperplane ``h_k = 0`` and the
    node's remembered witness of ``k``. A candidate proves ``k`` a facet when ``h_k = 0`` there
    and every other constraint is ``> 0`` (a relative-interior point of the facet, also after
    other constraints are dropped). Candidates are evaluated against the constraints in Python
    integers, exactly, stopping at the first row that rejects them.
    """
    n = len(p)
    m = len(cons)
    R = [c[3][0] if len(c) > 3 else _aux(c[0], c[1])[0] for c in cons]
    Tp = 1
    for x in p:
        q = int(x.q)
        if q != 1:
            Tp = lcm(Tp, q)
    P = [int(x.p) * (Tp // int(x.q)) for x in p]
    out = [None] * m
    last = 0  # the row that rejected the last candidate: tried first

    def accept(k, col):
        """``h_k = 0`` at ``col`` and every other row ``> 0`` (Python integers, early exit)."""
        nonlocal last
        acc = 0
        for a, x in zip(R[k], col):
            acc += a * x
        if acc != 0:
            return False
        if last != k:
            acc = 0
            for a, x in zip(R[last], col):
                acc += a * x
            if acc <= 0:
                return False
        if n == 3:
            x0, x1, x2, x3 = col
            for i, (a0, a1, a2, a3) in enumerate(R):
                if a0 * x0 + a1 * x1 + a2 * x2 + a3 * x3 <= 0 and i != k:
                    last = i
                    return False
            return True
        for i in range(m):
            if i == k or i == last:
                continue
            acc = 0
            for a, x in zip(R[i], col):
                acc += a * x
            if acc <= 0:
                last = i
                return False
        return True

    # per constraint, the projection first, then the remembered witness (built only when the
    # projection fails): the same first accepted candidate as testing all of them
    for k, r in enumerate(R):
        g = 0
        for v in r[:n]:
            g += v * v
        if not g:
            continue
        sk = r[n] * Tp
        for a, x in zip(r, P):
            sk += a * x
        col = [x * g - sk * a for x, a in zip(P, r)] + [Tp * g]
        if not accept(k, col):
            w = wit.get(cons[k][2]) if wit else None
            if w is None:
                continue
            Tw = 1
            for x in w:
                q = int(x.q)
                if q != 1:
                    Tw = lcm(Tw, q)
            col = [int(x.p) * (Tw // int(x.q)) for x in w] + [Tw]
            if not accept(k, col):
                continue
        T = col[n]
        out[k] = tuple(fmpq(x, T) for x in col[:n])
    return out


def _remove_redundant(cons, p, with_witness: bool, vr=None, wit=None):
    """Drop redundant constraints (in order); optionally a facet witness for each kept one.

    Constraint ``k`` is redundant iff ``min h_k`` over the others (started at the interior point
    ``p``) is ``>= 0``. Otherwise the LP gives a vertex ``v`` (or a ray) with ``h_k < 0``, and the
    point of the segment ``[p, v]`` where ``h_k = 0`` satisfies every other constraint strictly
    (``p`` does, ``v`` weakly): a relative-interior point of the facet. It stays one when later
    constraints are dropped (fewer constraints to satisfy).
    """
    if len(p) == 2:
        if vr is None:
            vr = _vrep2(cons)
        if vr:
            return _remove_redundant_vr(cons, vr, with_witness)
    kept = list(cons)
    screen = _facet_screen(cons, p, wit)
    ids = list(range(len(cons)))
    # float proposals for the remaining LPs (min h_k over the others), one vectorised batch
    n = len(p)
    todo = [k for k, c in enumerate(cons) if screen[k] is None and any(c[0])]
    props = {}
    if todo and len(cons) > n and _batch_pays(n, len(todo)) and all(len(c) > 3 and c[3][2] is not None for c in cons):
        A = [c[3][2][:n] for c in cons]
        b = [c[3][2][n] for c in cons]
        props = dict(zip(todo, float_lp_batch([A[k] for k in todo], A, b, _fl_p(p), excl=todo)))
    ws = []
    k = 0
    # the LP inputs of every kept constraint (built at the first LP, kept in step with `kept`),
    # sliced per LP
    par = []

    def drop(k):
        kept.pop(k)
        ids.pop(k)
        for L in par:
            L.pop(k)

    while k < len(kept):
        c = kept[k]
        others = kept[:k] + kept[k + 1 :]
        if not any(c[0]):
            drop(k)
            continue
        w = screen[ids[k]]
        if w is not None:
            ws.append(w)  # an exactly checked relative-interior point: a facet, no LP needed
            k += 1
            continue
        pr = props.get(ids[k])
        if pr is not None:  # translate the proposal's rows (all constraints) to rows of `others`
            pos = {j: t for t, j in enumerate(ids[:k] + ids[k + 1 :])}
            if all(j in pos for j in pr[1]):
                pr = (pr[0], [pos[j] for j in pr[1]]) + tuple(pr[2:])
            else:
                pr = None
        if others:
            if not par:
                _, d_rows, d_offs, d_aux, (d_af, d_bf, d_ri) = _lp_data(kept, n)
                allf = d_af is not None
                if not allf:  # per constraint (None: not a float); checked per LP below
                    d_af = [a[2][:n] if a[2] is not None else None for a in d_aux]
                    d_bf = [a[2][n] if a[2] is not None else None for a in d_aux]
                par[:] = [d_rows, d_offs, d_aux, d_af, d_bf, d_ri]
            sl = [L[:k] + L[k + 1 :] for L in par]
            fl = allf or all(x is not None for x in sl[3])
            data = (others, sl[0], sl[1], sl[2], (sl[3], sl[4], sl[5]) if fl else (None, None, sl[5]))
            res = _lp_min(c, others, p, c[3] if len(c) > 3 else None, pr, data)
        else:
            res = ("unbounded", p, tuple(-a for a in c[0]))
        if res[0] == "optimal" and res[2] >= 0:
            drop(k)
            continue
        if with_witness or wit is not None:
            hp = _ev(c, p)
            if res[0] == "optimal":
                v, hv = res[1], res[2]
                s = hp / (hp - hv)
                w = tuple((Q1 - s) * a + s * b for a, b in zip(p, v))
            else:
                d = res[2]
                t = hp / (-_dot(c[0], d))
                w = tuple(a + t * b for a, b in zip(p, d))
            ws.append(w)
        k += 1
    return kept, (ws if (with_witness or wit is not None) else None)


def _simplify_point(cons, p):
    """A point with small denominators strictly inside ``{c >= 0}`` near ``p`` (else ``p``).

    Candidates ``round(p * 2^k) / 2^k`` for ``k = 0..30``; each is checked exactly (strict on
    every irredundant facet, hence strictly inside the open cell).
    """
    for k in range(31):
        d = 1 << k
        q = tuple(fmpq((x * d).floor() if (x * d - (x * d).floor()) * 2 < 1 else (x * d).floor() + 1, d) for x in p)
        if all(_ev(c, q) > 0 for c in cons):
            return q
    return p


def _remove_redundant_vr(cons, vr, with_witness):
    """2-D, pointed: a constraint is a facet iff it is tight on two vertices or on a vertex and
    a ray along its line; of several constraints with the same half-plane the first is kept.
    Witness: the midpoint of the two vertices, or vertex + ray."""
    verts, rays = vr
    kept, ws, seen = [], [], []
    for c in cons:
        (a0, a1), off = c[0], c[1]
        if not (a0 or a1):
            continue
        tight = [v for v in verts if a0 * v[0] + a1 * v[1] + off == 0]
        w = None
        if len(tight) >= 2:
            w = ((tight[0][0] + tight[1][0]) / Q2, (tight[0][1] + tight[1][1]) / Q2)
        elif len(tight) == 1:
            for d in rays:
                if a0 * d[0] + a1 * d[1] == 0:
                    w = (tight[0][0] + d[0], tight[0][1] + d[1])
                    break
        if w is None:
            continue
        s = abs(a0) if a0 else abs(a1)
        key = (a0 / s, a1 / s, off / s)
        if key in seen:
            continue
        seen.append(key)
        kept.append(c)
        ws.append(w)
    return kept, (ws if with_witness else None)


def _solve(rows, rhs):
    n = len(rows)
    try:
        sol = fmpq_mat(rows).solve(fmpq_mat(n, 1, list(rhs)))
    except ZeroDivisionError:
        return None
    return tuple(sol[i, 0] for i in range(n))


def _int_rows(cons):
    """Each constraint as integers ``(a_1, ..., a_n, c)``: a positive multiple (denominators cleared)."""
    out = []
    for c in cons:
        d = 1
        for v in c[0]:
            d = lcm(d, int(v.q))
        d = lcm(d, int(c[1].q))
        out.append([int(v.p) * (d // int(v.q)) for v in c[0]] + [int(c[1].p) * (d // int(c[1].q))])
    return out


def _bareiss(rows, n):
    """Solve ``a . x + c = 0`` for the ``n`` integer rows: ``(X, T)`` with ``x = X / T``, ``T > 0``,
    by fraction-free elimination (exact, Python integers), or ``None`` when singular."""
    M = [r[:n] + [-r[n]] for r in rows]
    prev = 1
    for k in range(n):
        if not M[k][k]:
            sw = next((i for i in range(k + 1, n) if M[i][k]), None)
            if sw is None:
                return None
            M[k], M[sw] = M[sw], M[k]
        pk = M[k][k]
        rk = M[k]
        for i in range(k + 1, n):
            ri = M[i]
            f = ri[k]
            for j in range(k + 1, n + 1):
                ri[j] = (ri[j] * pk - rk[j] * f) // prev
            ri[k] = 0
        prev = pk
    # back substitution over the rationals kept as a common denominator T = det
    det = M[n - 1][n - 1]
    X = [0] * n
    for i in range(n - 1, -1, -1):
        acc = M[i][n] * det
        for j in range(i + 1, n):
            acc -= M[i][j] * X[j]
        X[i] = acc // M[i][i]
    if det < 0:
        X = [-x for x in X]
        det = -det
    g = det
    for x in X:
        g = gcd(g, x)
    return tuple(x // g for x in X), det // g


def _cramer3(rows):
    """:func:`_bareiss` for ``n = 3`` by the integer adjugate (same normalised ``(X, T)``)."""
    (a, b, c, u), (d, e, f, v), (g, h, i, w) = rows
    A0, A1, A2 = e * i - f * h, f * g - d * i, d * h - e * g
    det = a * A0 + b * A1 + c * A2
    if not det:
        return None
    X = [
        -(A0 * u + (c * h - b * i) * v + (b * f - c * e) * w),
        -(A1 * u + (a * i - c * g) * v + (c * d - a * f) * w),
        -(A2 * u + (b * g - a * h) * v + (a * e - b * d) * w),
    ]
    if det < 0:
        X = [-x for x in X]
        det = -det
    g = gcd(det, X[0], X[1], X[2])
    return tuple(x // g for x in X), det // g


_PAIRS4 = [(i, j) for i in range(5) for j in range(i + 1, 5)]
# for each 4-column set S of the augmented 4 x 5 matrix: the Laplace terms along rows (0, 1)
_LAPLACE4 = {}
for _S in itertools.combinations(range(5), 4):
    _terms = []
    for _a in range(4):
        for _b in range(_a + 1, 4):
            _rest = [c for c in _S if c not in (_S[_a], _S[_b])]
            _terms.append(((-1) ** (_a + _b + 1), _PAIRS4.index((_S[_a], _S[_b])), _PAIRS4.index(tuple(_rest))))
    _LAPLACE4[_S] = _terms


def _cramer4(rows):
    """:func:`_bareiss` for ``n = 4`` by Cramer's rule with Laplace expansion along two rows
    (all 2 x 2 minors of the augmented matrix ``[A | -c]`` computed once)."""
    r0, r1, r2, r3 = ([r[0], r[1], r[2], r[3], -r[4]] for r in rows)
    top = [r0[i] * r1[j] - r0[j] * r1[i] for i, j in _PAIRS4]
    bot = [r2[i] * r3[j] - r2[j] * r3[i] for i, j in _PAIRS4]

    def det(S):
        return -sum(s * top[t] * bot[b] for s, t, b in _LAPLACE4[S])

    T = det((0, 1, 2, 3))
    if not T:
        return None
    X = [
        -det((1, 2, 3, 4)),  # column 0 replaced by the rhs: (-1)^3 after moving it to the end
        det((0, 2, 3, 4)),
        -det((0, 1, 3, 4)),
        det((0, 1, 2, 4)),
    ]
    if T < 0:
        X = [-x for x in X]
        T = -T
    g = gcd(T, *X)
    return tuple(x // g for x in X), T // g


def _vertices(cons, p, n):
    """Vertices of ``{x : c(x) >= 0}`` (irredundant ``cons``); 2-D in cyclic order around p.

    Every ``n``-subset of facets is solved by exact fraction-free elimination in integers
    (rows with cleared denominators) and kept when every constraint is ``>= 0`` there (also
    tested in integers: ``a . X + c T >= 0``)."""
    if len(cons) < n:
        return ()
    R = [c[3][0] if len(c) > 3 else _int_rows([c])[0] for c in cons]
    if n == 4:
        found = _vertex_keys4(R)
    elif n == 3:
        found = _vertex_keys3(R)
    else:
        found = _vertex_keys(R, n)
    verts = [tuple(fmpq(x, k[n]) for x in k[:n]) for k in found]
    if n == 2 and len(verts) > 1:
        verts.sort(key=functools.cmp_to_key(lambda a, b: _angle_cmp(a, b, p)))
    return tuple(verts)


def _feasible(R, X, T, last):
    """``(ok, last)``: is ``a . X + c T >= 0`` for every row (``T > 0``)? The row ``last`` (the
    one that rejected the previous point) is tried first; a rejecting row becomes ``last``."""
    r = R[last]
    acc = r[-1] * T
    for a, x in zip(r, X):
        acc += a * x
    if acc < 0:
        return False, last
    if len(X) == 3:
        x0, x1, x2 = X
        for i, (a0, a1, a2, c) in enumerate(R):
            if a0 * x0 + a1 * x1 + a2 * x2 + c * T < 0:
                return False, i
        return True, last
    if len(X) == 4:
        x0, x1, x2, x3 = X
        for i, (a0, a1, a2, a3, c) in enumerate(R):
            if a0 * x0 + a1 * x1 + a2 * x2 + a3 * x3 + c * T < 0:
                return False, i
        return True, last
    for i, r in enumerate(R):
        acc = r[-1] * T
        for a, x in zip(r, X):
            acc += a * x
        if acc < 0:
            return False, i
    return True, last


def _vertex_keys4(R):
    """:func:`_vertex_keys` for ``n = 4``: the 2 x 2 minors of every pair of augmented rows
    ``[a | -c]`` computed once, then per 4-subset Cramer's rule by Laplace expansion along its
    first two rows (the :func:`_cramer4` formulas written out); feasibility is tested before
    the gcd normalisation (a positive scaling changes no sign)."""
    m = len(R)
    aug = [(r[0], r[1], r[2], r[3], -r[4]) for r in R]
    P = [[None] * m for _ in range(m)]
    for a in range(m):
        ra = aug[a]
        for b in range(a + 1, m):
            rb = aug[b]
            P[a][b] = tuple(ra[i] * rb[j] - ra[j] * rb[i] for i, j in _PAIRS4)
    found = {}
    last = 0
    for i1, i2, i3, i4 in itertools.combinations(range(m), 4):
        t0, t1, t2, t3, t4, t5, t6, t7, t8, t9 = P[i1][i2]
        b0, b1, b2, b3, b4, b5, b6, b7, b8, b9 = P[i3][i4]
        T = -t0 * b7 + t1 * b5 - t2 * b4 - t4 * b2 + t5 * b1 - t7 * b0
        if not T:
            continue
        X = (
            t4 * b9 - t5 * b8 + t6 * b7 + t7 * b6 - t8 * b5 + t9 * b4,
            -t1 * b9 + t2 * b8 - t3 * b7 - t7 * b3 + t8 * b2 - t9 * b1,
            t0 * b9 - t2 * b6 + t3 * b5 + t5 * b3 - t6 * b2 + t9 * b0,
            -t0 * b8 + t1 * b6 - t3 * b4 - t4 * b3 + t6 * b1 - t8 * b0,
        )
        if T < 0:
            X = (-X[0], -X[1], -X[2], -X[3])
            T = -T
        ok, last = _feasible(R, X, T, last)
        if ok:
            g = gcd(T, *X)
            key = (X[0] // g, X[1] // g, X[2] // g, X[3] // g, T // g)
            if key not in found:
                found[key] = True
    return found


def _vertex_keys3(R):
    """:func:`_vertex_keys` for ``n = 3`` (the :func:`_cramer3` adjugate; feasibility tested
    before the gcd normalisation)."""
    found = {}
    last = 0
    for r1, r2, r3 in itertools.combinations(R, 3):
        (a, b, c, u), (d, e, f, v), (g, h, i, w) = r1, r2, r3
        A0, A1, A2 = e * i - f * h, f * g - d * i, d * h - e * g
        det = a * A0 + b * A1 + c * A2
        if not det:
            continue
        X = (
            -(A0 * u + (c * h - b * i) * v + (b * f - c * e) * w),
            -(A1 * u + (a * i - c * g) * v + (c * d - a * f) * w),
            -(A2 * u + (b * g - a * h) * v + (a * e - b * d) * w),
        )
        if det < 0:
            X = (-X[0], -X[1], -X[2])
            det = -det
        ok, last = _feasible(R, X, det, last)
        if ok:
            gg = gcd(det, X[0], X[1], X[2])
            key = (X[0] // gg, X[1] // gg, X[2] // gg, det // gg)
            if key not in found:
                found[key] = True
    return found


def _vertex_keys(R, n):
    """Normalised ``X + (T,)`` of the feasible solutions of every ``n``-subset of rows, in
    order of first discovery."""
    found = {}
    for sub in itertools.combinations(range(len(R)), n):
        sub_rows = [R[k] for k in sub]
        sol = _cramer3(sub_rows) if n == 3 else (_cramer4(sub_rows) if n == 4 else _bareiss(sub_rows, n))
        if sol is None:
            continue
        X, T = sol
        key = X + (T,)
        if key in found:
            continue
        ok = True
        for r in R:
            acc = r[n] * T
            for a, x in zip(r, X):
                if a:
                    acc += a * x
            if acc < 0:
                ok = False
                break
        if ok:
            found[key] = True
    return found


def _angle_cmp(a, b, c) -> int:
    ax, ay = a[0] - c[0], a[1] - c[1]
    bx, by = b[0] - c[0], b[1] - c[1]
    ha = 0 if (ay > 0 or (ay == 0 and ax > 0)) else 1
    hb = 0 if (by > 0 or (by == 0 and bx > 0)) else 1
    if ha != hb:
        return ha - hb
    cr = ax * by - ay * bx
    return -1 if cr > 0 else (1 if cr < 0 else 0)


def _bounded(cons, p, n) -> bool:
    """Is ``{c >= 0}`` bounded, i.e. is its recession cone ``{d : a.d >= 0}`` trivial?

    2-D: a nontrivial proper cone has an extreme ray on some line ``a_k . d = 0``, so it is
    enough to test ``d = +-rot90(a_k)`` exactly. Otherwise: ``2 n0`` exact LPs (``+-x_i``).
    """
    if len(cons) <= n:
        return False
    if n == 2:
        for c in cons:
            a0, a1 = c[0]
            for d in ((-a1, a0), (a1, -a0)):
                if all(k[0][0] * d[0] + k[0][1] * d[1] >= 0 for k in cons):
                    return False
        return True
    rows = [c[0] for c in cons]
    offs = [c[1] for c in cons]
    for i in range(n):
        for sgn in (Q1, -Q1):
            obj = [Q0] * n
            obj[i] = sgn
            if minimize(obj, rows, offs, p)[0] == "unbounded":
                return False
    return True


def polygon_area(verts) -> fmpq:
    """Exact area of a polygon given in cyclic order (shoelace)."""
    acc = Q0
    k = len(verts)
    for i in range(k):
        x1, y1 = verts[i]
        x2, y2 = verts[(i + 1) % k]
        acc += x1 * y2 - x2 * y1
    return abs(acc) / Q2


def _layer_rows(layer: Layer, A_rows, c_vec):
    """Pre-activations of ``layer`` as affine functions: list of (normal tuple, offset)."""
    n_in = len(A_rows)
    if n_in == 0:
        return [(tuple(Q0 for _ in range(0)), b) for b in layer.biases]
    H = fmpq_mat([list(r) + [c] for r, c in zip(A_rows, c_vec)])
    Z = (layer.matrix() * H).tolist()
    return [(tuple(r[:-1]), r[-1] + b) for r, b in zip(Z, layer.biases)]


def compute_regions(
    net: Network,
    box=None,
    slice_=None,
    max_cells: int | None = None,
    timeout: float | None = None,
    progress: Callable[[int, int, int], None] | None = None,
    certificate: bool = True,
    vertices: bool | None = None,
) -> RegionComplex:
    """All activation regions of ``net`` (inside ``[lo, hi]^n0`` when ``box=(lo, hi)``).

    ``slice_=(P0, P1, P2)`` restricts to the 2-D affine slice ``P0 + s(P1-P0) + t(P2-P0)``
    (coordinates ``(s, t)``). ``max_cells`` / ``timeout`` (seconds) raise
    :class:`LimitError` when exceeded. ``progress(done_neurons, total_neurons, nodes)``.
    ``vertices``: enumerate the cells' vertices (default: when ``n0 <= 4``; the enumeration
    over ``n0``-subsets of facets is combinatorial, so it is off by default above 4).

    Python's cyclic garbage collector is paused during the computation (restored on exit,
    also on an exception): the engine creates millions of small acyclic objects (integer
    tuples, lists, rationals) that stay alive, and every generation-2 collection would
    traverse all of them again (up to 40% of the run time on 2-D networks of ~2,000 cells).
    """
    if not gc.isenabled():
        return _compute_regions(net, box, slice_, max_cells, timeout, progress, certificate, vertices)
    gc.disable()
    try:
        return _compute_regions(net, box, slice_, max_cells, timeout, progress, certificate, vertices)
    finally:
        gc.enable()


def _compute_regions(net, box, slice_, max_cells, timeout, progress, certificate, vertices):
    original = net
    if slice_ is not None:
        net = slice_network(net, *slice_)
    n = net.input_dim
    start = time.monotonic()
    box = parse_box(box)
    if box is not None:
        lo, hi = box
        cons = []
        for i in range(n):
            e = tuple(Q1 if j == i else Q0 for j in range(n))
            cons.append((e, -lo, ("box", i, 0), _aux(e, -lo)))
            cons.append((tuple(-a for a in e), hi, ("box", i, 1), _aux(tuple(-a for a in e), hi)))
        p = tuple((lo + hi) / Q2 for _ in range(n))
    else:
        cons = []
        p = tuple(Q0 for _ in range(n))
    if n == 2:
        return _compute_2d(net, box, max_cells, timeout, progress, vertices, start, original, slice_)
    ident = [tuple(Q1 if j == i else Q0 for j in range(n)) for i in range(n)]
    # each item: (node, A_rows, c_vec) where (A, c) is h_{l-1} as affine functions
    items = [(_Node(cons, p, (), (), {}, ()), ident, [Q0] * n)]
    L = net.depth
    total = net.num_hidden
    done = 0
    for l in range(1, L):
        layer = net.layers[l - 1]
        new_items = []
        for node, A_rows, c_vec in items:
            gs = [(a, b, _aux(a, b)) for a, b in _layer_rows(layer, A_rows, c_vec)]
            # first test every neuron of the layer on the whole previous-layer cell: a neuron
            # with constant sign there has it on every sub-node (same certificate, since the
            # sub-nodes keep the cell's constraints); only the cutting ones are tested again
            props = _batch_split_props(node, gs)
            first = [_split(node, g, (l, i), certificate, props[i]) for i, g in enumerate(gs)]
            nodes = [node]
            for i, g in enumerate(gs):
                tag = (l, i)
                if len(first[i]) == 1:
                    f = first[i][0]
                    bit = f.bits[-1]
                    cert = f.forced[tag]
                    isz = bool(f.zero) and f.zero[-1] == tag
                    nxt = []
                    for nd in nodes:
                        forced = dict(nd.forced)
                        forced[tag] = cert
                        kid = _Node(nd.cons, nd.p, nd.bits + (bit,), nd.zero + ((tag,) if isz else ()), forced, nd.sides + (0,))
                        kid.vr = nd.vr
                        kid.wit = nd.wit
                        kid.lpd = nd.lpd
                        nxt.append(kid)
                elif nodes[0] is node and len(nodes) == 1:
                    nxt = first[i]
                else:
                    nxt = []
                    for nd in nodes:
                        nxt.extend(_split(nd, g, tag, certificate))
                nodes = nxt
                if timeout is not None and time.monotonic() - start > timeout:
                    raise LimitError(f"timeout of {timeout} s reached while subdividing layer {l}")
            last = l == L - 1
            for nd in nodes:
                bits = nd.bits[-len(gs):]
                A2 = [g[0] if b else tuple(Q0 for _ in range(n)) for g, b in zip(gs, bits)]
                c2 = [g[1] if b else Q0 for g, b in zip(gs, bits)]
                if not last:
                    nd.cons, ws = _remove_redundant(nd.cons, nd.p, False, nd.vr, nd.wit)
                    if ws is not None:
                        nd.wit = {c[2]: w for c, w in zip(nd.cons, ws)}
                new_items.append((nd, A2, c2))
            if max_cells is not None and len(new_items) > max_cells and last:
                raise LimitError(f"more than {max_cells} cells (--max-cells)")
        items = new_items
        done += len(gs) if L > 1 else 0
        if max_cells is not None and len(items) > max_cells:
            raise LimitError(f"more than {max_cells} cells (--max-cells)")
        if progress is not None:
            progress(done, total, len(items))
    cells = []
    want_v = vertices if vertices is not None else n <= 4
    out_layer = net.layers[-1]
    for node, A_rows, c_vec in items:
        if timeout is not None and time.monotonic() - start > timeout:
            raise LimitError(f"timeout of {timeout} s reached while finishing cells")
        kept, ws = _remove_redundant(node.cons, node.p, True, node.vr, node.wit)
        point = _simplify_point(kept, node.p)
        zs = _layer_rows(out_layer, A_rows, c_vec)
        G = fmpq_mat([list(z[0]) for z in zs]) if n else fmpq_mat(len(zs), 0)
        offs = tuple(z[1] for z in zs)
        constraints = tuple(
            Constraint(
                c[0], c[1], None if c[2][0] == "box" else c[2], None, w, (c[2][1], c[2][2]) if c[2][0] == "box" else None
            )
            for c, w in zip(kept, ws)
        )
        if not want_v:
            corners = ()
        elif n == 2 and node.vr:
            corners = tuple(sorted(node.vr[0], key=functools.cmp_to_key(lambda a, b: _angle_cmp(a, b, point))))
        else:
            corners = _vertices(kept, point, n)
        bounded = _bounded(kept, point, n) if (box is None) else True
        bits = node.bits
        pattern = []
        k = 0
        for l in range(1, L):
            w_l = net.architecture[l]
            pattern.append(tuple(bits[k : k + w_l]))
            k += w_l
        cells.append(
            Cell(
                tuple(pattern),
                point,
                constraints,
                G,
                offs,
                corners if (bounded and want_v) else None,
                bounded,
                corners,
                node.zero,
                node.forced,
                node.sides,
            )
        )
    rc = RegionComplex(net, cells, box, original=original, slice_=slice_)
    rc.has_vertices = want_v
    return rc


def _compute_2d(net, box, max_cells, timeout, progress, vertices, start, original, slice_):
    """The planar engine (:mod:`exactnet.regions2d`): leaves turned into :class:`Cell`."""
    from .regions2d import cells_2d, compute_cells_2d

    leaves, ints = compute_cells_2d(net, box, max_cells, timeout, progress, start)
    want_v = vertices if vertices is not None else True
    cells = cells_2d(leaves, ints, box, want_v, net.architecture[1:-1], timeout, start, _mk_cell, _mk_constraint_rec, _mk_cell_lazy)
    rc = RegionComplex(net, cells, box, original=original, slice_=slice_)
    rc.has_vertices = want_v
    return rc


def cell_containing(rc: RegionComplex, x) -> int:
    """Index of the cell containing the generic point ``x`` (coordinates of ``rc.network``)."""
    pt = [to_q(v) for v in x]
    if rc.box is not None and not all(rc.box[0] <= v <= rc.box[1] for v in pt):
        raise ValueRangeError("point outside the box")
    idx = rc.index_of_pattern(rc.network.pattern(pt))
    if idx is None:
        # a point on a bent hyperplane or with neurons identically zero: search closed cells
        for i, c in enumerate(rc.cells):
            if all(_dot(k.normal, pt) + k.offset >= 0 for k in c.constraints):
                return i
        raise ValueRangeError("no cell contains the point (is it generic?)")
    return idx
