"""The breakpoint dependency graph: which bent hyperplane bends along which.

Layer: analysis on top of :mod:`exactnet.network` (local formulas) and, when it is
installed, the polyhedral engine (:mod:`exactnet.regions`, :mod:`exactnet.breakpoints`).

Inside a region with earlier-layer pattern ``P`` every hidden pre-activation is
affine: :func:`local_forms` gives ``z_(l,i)(x) = g . x + c`` for all neurons at once
(theory.md section 2). ``B_(l,i)`` *visibly bends* along ``B_(l-1,j)`` at a point
``q`` where both pre-activations vanish, every other hidden pre-activation is
nonzero, the bend vector ``W_l[i,j] * grad z_(l-1,j)`` is nonzero, and the jump of
``f`` across ``B_(l,i)`` is nonzero on both sides of ``B_(l-1,j)``. Every witness
point is checked exactly; candidate points come from the cells of the region
complex when the engine is available, otherwise from a seeded sample of rational
points. In the plane the witness of a pattern is unique, so with the complex the
graph is complete inside the box; for ``n0 > 2`` it may miss edges (never adds one).

:func:`dependency_graph` returns a ``networkx.DiGraph`` with nodes ``(l, i)``
(attributes ``layer``, ``index``, ``visible``, ``visible_cells`` = the number of visible
codimension-1 cells of ``B_(l,i)`` in the complex, ``label`` ``"l.i"`` with ``i`` from 1)
and edges with ``bend`` (canonical strings), ``witness`` and ``coefficient`` (``W_l[i,j]``). :func:`face_graph` is the finer graph
on the faces of the weighted breakpoint complex. Exports: :func:`to_node_link_json`,
:func:`to_graphml`, :func:`to_dot`.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Iterable, Sequence

import networkx as nx
from flint import fmpq, fmpq_mat

from .errors import ExactnetError
from .network import Network
from .qq import Q0, q_str

__all__ = [
    "LocalForms",
    "local_forms",
    "sample_points",
    "face_points",
    "FacePoint",
    "dependency_graph",
    "face_graph",
    "longest_bending_chain",
    "apparent_layers",
    "to_node_link_json",
    "to_graphml",
    "to_dot",
    "write_graph",
    "default_box",
]

Pattern = tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class LocalForms:
    """Affine forms of every hidden pre-activation under a pattern, and of ``f``.

    ``grads[l-1][i]`` (list of fmpq, length n0) and ``offsets[l-1][i]`` give
    ``z_(l,i)`` for hidden layers; ``out_grad`` (m rows) and ``out_offset`` give f.
    """

    grads: tuple[tuple[tuple[fmpq, ...], ...], ...]
    offsets: tuple[tuple[fmpq, ...], ...]
    out_grad: tuple[tuple[fmpq, ...], ...]
    out_offset: tuple[fmpq, ...]

    def value(self, l: int, i: int, x: Sequence[fmpq]) -> fmpq:
        acc = self.offsets[l - 1][i]
        for g, v in zip(self.grads[l - 1][i], x):
            acc += g * v
        return acc


def local_forms(net: Network, pattern: Sequence[Sequence[int]]) -> LocalForms:
    """Local affine forms of all hidden pre-activations and of f under ``pattern``."""
    n0 = net.input_dim
    A = [[fmpq(1) if r == c else Q0 for c in range(n0)] for r in range(n0)]
    c = [Q0] * n0
    grads, offs = [], []
    L = net.depth
    for k in range(1, L + 1):
        W, b = net.weights(k), net.biases(k)
        nA, nc = [], []
        for row, bias in zip(W, b):
            g = [Q0] * n0
            acc = bias
            for w, arow, cv in zip(row, A, c):
                if w:
                    acc += w * cv
                    for t in range(n0):
                        if arow[t]:
                            g[t] += w * arow[t]
            nA.append(g)
            nc.append(acc)
        if k < L:
            grads.append(tuple(tuple(g) for g in nA))
            offs.append(tuple(nc))
            pat = pattern[k - 1]
            A = [g if on else [Q0] * n0 for g, on in zip(nA, pat)]
            c = [v if on else Q0 for v, on in zip(nc, pat)]
        else:
            return LocalForms(tuple(grads), tuple(offs), tuple(tuple(g) for g in nA), tuple(nc))
    raise AssertionError("unreachable")


def default_box(net: Network) -> tuple[fmpq, fmpq]:
    """A box ``[-R, R]^n0`` that contains the first-layer crossings of interest (R >= 10)."""
    R = fmpq(10)
    for row, b in zip(net.weights(1), net.biases(1)):
        s = sum((abs(w) for w in row), Q0)
        if s:
            R = max(R, 4 * abs(b) / s)
    R = fmpq(int(R.p // R.q) + 1)
    return -R, R


def sample_points(n0: int, count: int, box: tuple[fmpq, fmpq], seed: int = 0) -> list[list[fmpq]]:
    """Seeded rational points in the box (denominators up to 997)."""
    rng = random.Random(seed)
    lo, hi = box
    out = []
    for _ in range(count):
        out.append([lo + (hi - lo) * fmpq(rng.randint(0, 997), 997) for _ in range(n0)])
    return out


@dataclass(frozen=True)
class FacePoint:
    """A point ``p`` where exactly one hidden neuron vanishes: a point of one face of B_neuron.

    ``minus``/``plus``: full patterns on the sides ``z < 0`` and ``z > 0``; ``normal``
    and ``offset``: the local hyperplane ``normal . x + offset = 0`` of the neuron at p;
    ``jump``: ``grad f(plus) - grad f(minus)`` as an m x n0 list.
    """

    neuron: tuple[int, int]
    point: tuple[fmpq, ...]
    minus: Pattern
    plus: Pattern
    normal: tuple[fmpq, ...]
    offset: fmpq
    jump: tuple[tuple[fmpq, ...], ...]

    @property
    def visible(self) -> bool:
        return any(v for row in self.jump for v in row)


def _with(pattern: Pattern, l: int, i: int, bit: int) -> Pattern:
    rows = [list(r) for r in pattern]
    rows[l - 1][i] = bit
    return tuple(tuple(r) for r in rows)


def face_point_at(net: Network, p: Sequence[fmpq]) -> FacePoint | None:
    """The face point at ``p`` if exactly one hidden pre-activation vanishes there."""
    signs = net.signs(p)
    zeros = [(l + 1, i) for l, row in enumerate(signs) for i, s in enumerate(row) if s == 0]
    if len(zeros) != 1:
        return None
    l, i = zeros[0]
    base = tuple(tuple(1 if s > 0 else 0 for s in row) for row in signs)
    minus, plus = _with(base, l, i, 0), _with(base, l, i, 1)
    fm = local_forms(net, minus)
    normal = fm.grads[l - 1][i]
    if not any(normal):
        return None
    fp = local_forms(net, plus)
    jump = tuple(tuple(a - b for a, b in zip(ra, rb)) for ra, rb in zip(fp.out_grad, fm.out_grad))
    return FacePoint((l, i), tuple(p), minus, plus, normal, fm.offsets[l - 1][i], jump)


def face_points(net: Network, points: Iterable[Sequence[fmpq]], directions: int = 2, seed: int = 0) -> list[FacePoint]:
    """Face points found by walking from each generic point to its region's boundary.

    From a point ``x`` with all hidden pre-activations nonzero and pattern ``P``, along
    a direction ``u`` the region ends at the nearest root of the P-local forms; the
    point there is kept when exactly one neuron vanishes (checked exactly).
    """
    rng = random.Random(seed)
    n0 = net.input_dim
    out: list[FacePoint] = []
    for x in points:
        x = list(x)
        if not net.is_generic_point(x):
            continue
        forms = local_forms(net, net.pattern(x))
        dirs = [[fmpq(rng.randint(-7, 7), 1) for _ in range(n0)] for _ in range(directions)]
        for u in dirs:
            if not any(u):
                continue
            for sgn in (1, -1):
                best = None
                for l, row in enumerate(forms.grads, start=1):
                    for i, g in enumerate(row):
                        beta = sum((a * sgn * b for a, b in zip(g, u)), Q0)
                        if not beta:
                            continue
                        t = -forms.value(l, i, x) / beta
                        if t > 0 and (best is None or t < best):
                            best = t
                if best is not None:
                    p = [a + best * sgn * b for a, b in zip(x, u)]
                    fp = face_point_at(net, p)
                    if fp is not None:
                        out.append(fp)
    return out


def _regions_complex(net: Network, box, max_cells: int | None):
    """The region complex and its breakpoint complex, when the engine is installed."""
    try:
        from .regions import compute_regions  # type: ignore[attr-defined]
    except ImportError:
        return None
    try:
        rc = compute_regions(net, box=box, max_cells=max_cells)
        return rc, rc.breakpoints()
    except ExactnetError:
        return None


def _solve_flat(g1, c1, g2, c2, x0) -> list[fmpq] | None:
    """The point of ``{g1.x + c1 = 0, g2.x + c2 = 0}`` nearest to ``x0`` (None if empty)."""
    n0 = len(x0)
    G = [list(g1), list(g2)]
    M = fmpq_mat([[sum((G[a][t] * G[b][t] for t in range(n0)), Q0) for b in range(2)] for a in range(2)])
    if M.det() == 0:
        return None
    r1 = -(c1 + sum((a * b for a, b in zip(g1, x0)), Q0))
    r2 = -(c2 + sum((a * b for a, b in zip(g2, x0)), Q0))
    lam = M.solve(fmpq_mat([[r1], [r2]]))
    return [x0[t] + lam[0, 0] * G[0][t] + lam[1, 0] * G[1][t] for t in range(n0)]


def _edge_witnesses(net: Network, x: Sequence[fmpq], todo: set, tried: set, found: dict, box=None) -> None:
    """From the cell of the generic point ``x``: bend points of every pair still in ``todo``."""
    pat = net.pattern(x)
    forms = local_forms(net, pat)
    for (l, i, j) in list(todo):
        key = (l, i, j, pat[: l - 2], tuple(pat[l - 2][:j] + pat[l - 2][j + 1:]))
        if key in tried:
            continue
        tried.add(key)
        w = net.weights(l)[i][j]
        g1, c1 = forms.grads[l - 2][j], forms.offsets[l - 2][j]
        g2, c2 = forms.grads[l - 1][i], forms.offsets[l - 1][i]
        if pat[l - 2][j]:
            g2 = tuple(a - w * b for a, b in zip(g2, g1))
            c2 = c2 - w * c1
        q = _solve_flat(g1, c1, g2, c2, list(x))
        if q is None:
            continue
        ok = True
        for ll in range(1, l):
            for k, on in enumerate(pat[ll - 1]):
                if ll == l - 1 and k == j:
                    continue
                v = forms.value(ll, k, q)
                if (on and v <= 0) or (not on and v >= 0):
                    ok = False
                    break
            if not ok:
                break
        if not ok:
            continue
        if box is not None and not all(box[0] <= v <= box[1] for v in q):
            continue
        got = _check_witness(net, l, i, j, q)
        if got is not None:
            found[(l, i, j)] = got
            todo.discard((l, i, j))


def _check_witness(net: Network, l: int, i: int, j: int, q: list[fmpq]):
    """Exact check of a bend point q of B_(l,i) on B_(l-1,j); returns (q, bend) or None."""
    signs = net.signs(q)
    zeros = {(a + 1, b) for a, row in enumerate(signs) for b, s in enumerate(row) if s == 0}
    if zeros != {(l - 1, j), (l, i)}:
        return None
    qpat = tuple(tuple(1 if s > 0 else 0 for s in row) for row in signs)
    base = local_forms(net, qpat)
    bend = [net.weights(l)[i][j] * v for v in base.grads[l - 2][j]]
    if not any(bend):
        return None
    for s in (0, 1):
        lo = local_forms(net, _with(_with(qpat, l - 1, j, s), l, i, 0))
        hi = local_forms(net, _with(_with(qpat, l - 1, j, s), l, i, 1))
        if not any(a != b for ra, rb in zip(lo.out_grad, hi.out_grad) for a, b in zip(ra, rb)):
            return None
    return q, bend


def dependency_graph(
    net: Network,
    box: tuple[object, object] | None = None,
    samples: int = 400,
    seed: int = 0,
    use_regions: bool = True,
    max_cells: int | None = 20000,
) -> nx.DiGraph:
    """The breakpoint dependency graph of ``net`` (see the module docstring)."""
    from .qq import to_q

    bx = None if box is None else (to_q(box[0]), to_q(box[1]))
    cx = _regions_complex(net, bx, max_cells) if use_regions else None
    counts: dict[tuple[int, int], int] = {}
    if cx is not None:
        rc, bc = cx
        pts = [list(c.interior_point) for c in rc.cells]
        for f in bc.faces:
            if f.neuron is not None and f.visible:
                counts[f.neuron] = counts.get(f.neuron, 0) + 1
        source = "regions"
    else:
        pts = sample_points(net.input_dim, samples, bx or default_box(net), seed)
        seen: set = set()
        for fp in face_points(net, [p for p in pts if net.is_generic_point(p)], seed=seed):
            key = (fp.neuron, fp.minus)
            if key not in seen:
                seen.add(key)
                if fp.visible:
                    counts[fp.neuron] = counts.get(fp.neuron, 0) + 1
        source = "samples"
    pts = [p for p in pts if net.is_generic_point(p)]
    G = nx.DiGraph(architecture=",".join(map(str, net.architecture)), source=source,
                   box="R^n0" if bx is None else f"{q_str(bx[0])},{q_str(bx[1])}")
    for l, i in net.hidden_neurons():
        G.add_node((l, i), layer=l, index=i, visible=counts.get((l, i), 0) > 0,
                   visible_cells=counts.get((l, i), 0), label=f"{l}.{i + 1}")
    todo = {(l, i, j) for l in range(2, net.depth) for i in range(net.architecture[l])
            for j in range(net.architecture[l - 1]) if net.weights(l)[i][j]}
    found: dict = {}
    tried: set = set()
    for x in pts:
        if not todo:
            break
        _edge_witnesses(net, x, todo, tried if net.input_dim == 2 else set(), found, bx)
    for (l, i, j), (q, bend) in sorted(found.items()):
        if bx is not None and not all(bx[0] <= v <= bx[1] for v in q):
            continue
        G.add_edge((l - 1, j), (l, i), bend=",".join(q_str(v) for v in bend),
                   witness=",".join(q_str(v) for v in q), coefficient=q_str(net.weights(l)[i][j]))
    return G


def face_graph(net: Network, box: tuple[object, object] | None = None) -> nx.DiGraph:
    """The finer graph on the faces of the weighted breakpoint complex (needs the engine).

    Nodes are face indices with attributes ``neuron``, ``visible``, ``jump``; an edge
    ``a -> b`` joins a face of ``B_(l-1,j)`` to a face of ``B_(l,i)`` that share a
    vertex at which B_(l,i) bends (its two faces there have different normals).
    """
    try:
        from .breakpoints import breakpoint_complex  # type: ignore[attr-defined]
        from .regions import compute_regions  # type: ignore[attr-defined]
    except ImportError as e:
        raise ExactnetError("the face graph needs the polyhedral engine (exactnet.regions)") from e
    from .qq import to_q

    bx = default_box(net) if box is None else (to_q(box[0]), to_q(box[1]))
    bc = breakpoint_complex(compute_regions(net, box=bx))
    G = nx.DiGraph()
    verts: dict[tuple[str, ...], list[int]] = {}
    for k, f in enumerate(bc.faces):
        if f.neuron is None:
            continue
        G.add_node(k, neuron=f"{f.neuron[0]}.{f.neuron[1] + 1}", visible=bool(f.visible), layer=f.neuron[0],
                   label=f"{f.neuron[0]}.{f.neuron[1] + 1}#{k}",
                   jump=",".join(q_str(v) for v in _flat(f.jump)))
        for v in f.vertices or ():
            verts.setdefault(tuple(q_str(c) for c in v), []).append(k)
    faces_of = {k: bc.faces[k] for k in G.nodes}
    for key, faces in verts.items():
        faces = [k for k in faces if k in faces_of]
        for a in faces:
            for b in faces:
                fa, fb = bc.faces[a], bc.faces[b]
                if fa.neuron[0] + 1 != fb.neuron[0]:
                    continue
                same = [c for c in faces if bc.faces[c].neuron == fb.neuron and c != b]
                if any(_direction(bc.faces[c].normal) != _direction(fb.normal) for c in same):
                    G.add_edge(a, b, vertex=",".join(key))
    return G


def _flat(j) -> list[fmpq]:
    if hasattr(j, "tolist"):
        return [v for row in j.tolist() for v in row]
    if isinstance(j, (list, tuple)) and j and isinstance(j[0], (list, tuple)):
        return [v for row in j for v in row]
    if isinstance(j, (list, tuple)):
        return list(j)
    return [j]


def _direction(v) -> tuple[str, ...]:
    vals = _flat(v)
    piv = next((x for x in vals if x), fmpq(1))
    return tuple(q_str(x / abs(piv)) for x in vals)


def longest_bending_chain(G: nx.DiGraph) -> list[tuple[int, int]]:
    """A longest path of the dependency graph (a list of neurons; one visible node if no edge)."""
    if G.number_of_edges():
        return list(nx.dag_longest_path(G))
    vis = [n for n, d in G.nodes(data=True) if d.get("visible")]
    return vis[:1]


def apparent_layers(G: nx.DiGraph) -> dict[tuple[int, int], int]:
    """For each visible neuron, its layer as the function shows it: 1 + longest chain into it."""
    out: dict[tuple[int, int], int] = {}
    for n in nx.topological_sort(G):
        if not G.nodes[n].get("visible") and not G.in_degree(n) and not G.out_degree(n):
            continue
        preds = [out[p] for p in G.predecessors(n) if p in out]
        out[n] = 1 + max(preds, default=0)
    return out


def _str_graph(G: nx.DiGraph) -> nx.DiGraph:
    H = nx.DiGraph(**{k: str(v) for k, v in G.graph.items()})
    for n, d in G.nodes(data=True):
        H.add_node(_nid(n), **d)
    for a, b, d in G.edges(data=True):
        H.add_edge(_nid(a), _nid(b), **d)
    return H


def _nid(n) -> str:
    return f"n{n[0]}_{n[1] + 1}" if isinstance(n, tuple) else f"f{n}"


def to_node_link_json(G: nx.DiGraph) -> str:
    """Node-link JSON (networkx's format, node ids ``n<layer>_<index from 1>``)."""
    data = nx.node_link_data(_str_graph(G), edges="links")
    return json.dumps(data, indent=1, sort_keys=True) + "\n"


def to_graphml(G: nx.DiGraph) -> str:
    """GraphML text."""
    return "\n".join(nx.generate_graphml(_str_graph(G))) + "\n"


def to_dot(G: nx.DiGraph) -> str:
    """Graphviz DOT text, layers as ranks (written directly; no pydot needed)."""
    H = _str_graph(G)

    def esc(s: object) -> str:
        return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'

    lines = ["digraph dependency {", "  rankdir=LR;", "  node [shape=circle];"]
    layers: dict[object, list[str]] = {}
    for n, d in H.nodes(data=True):
        style = "solid" if d.get("visible", True) else "dashed"
        lines.append(f"  {esc(n)} [label={esc(d.get('label', n))}, style={style}];")
        layers.setdefault(d.get("layer"), []).append(n)
    for lay, ns in layers.items():
        if lay is not None:
            lines.append("  { rank=same; " + " ".join(esc(n) for n in ns) + " }")
    for a, b, d in H.edges(data=True):
        lab = f"bend {d['bend']}" if "bend" in d else ""
        lines.append(f"  {esc(a)} -> {esc(b)} [label={esc(lab)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_graph(G: nx.DiGraph, path: str) -> None:
    """Write the graph by extension: .json, .graphml, .dot (.png: see exactnet.plotting)."""
    from .errors import FormatError
    from .fileio import atomic_write_text

    p = str(path).lower()
    if p.endswith(".json"):
        atomic_write_text(path, to_node_link_json(G))
    elif p.endswith(".graphml"):
        atomic_write_text(path, to_graphml(G))
    elif p.endswith(".dot") or p.endswith(".gv"):
        atomic_write_text(path, to_dot(G))
    elif p.endswith(".png"):
        from .plotting import plot_graph

        plot_graph(G, path)
    else:
        raise FormatError(f"unknown graph format for {path!r}: use .json, .graphml, .dot or .png")
