"""Pictures: the bent hyperplane arrangement, the graph of f, the dependency graph.

Layer: display on top of the exact engine (:mod:`exactnet.regions`,
:mod:`exactnet.breakpoints`) and :mod:`exactnet.depgraph`. Coordinates are converted
to floats only here, for drawing; nothing is decided in floats. Needs matplotlib
(``pip install "exactnet[plot]"``); without it every function raises
:class:`~exactnet.errors.DependencyError`. The Agg backend is used (no display).

* ``n0 = 2``: cells filled by linear region of f (cells merged across invisible faces),
  each face of a bent hyperplane drawn in its layer's colour, visible solid, invisible
  dashed, line width growing with ``|J|``, vertices marked, a box containing every vertex
  of the arrangement with a margin, and a legend.
* ``n0 = 1``: the graph of f with its breakpoints (visible filled, invisible hollow).
* ``n0 > 2``: a 2-D affine slice ``P0 + s (P1 - P0) + t (P2 - P0)`` drawn like ``n0 = 2``.
* the dependency graph with one column per layer.

Coordinates of any size are drawn: when a box reaches beyond what floats hold well (beyond
``10^100`` or below ``10^-100`` in size, or too narrow for its distance from 0), the axes show the
exact affine image ``(x - c) / 10^e`` of the box, with ``c`` and ``e`` chosen exactly and named in
the axis labels, so no coordinate overflows and the picture is the same shape. Line widths
come from exact ratios of jumps.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Sequence

from flint import fmpq

from .errors import DependencyError, ShapeError
from .fileio import atomic_write_bytes
from .network import Network
from .qq import q_str, q_to_float, to_q

__all__ = ["plot_arrangement", "plot_graph", "plot_network", "arrangement_box", "write_example_pictures",
           "figure_png_bytes"]


def _plt():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise DependencyError('pictures need matplotlib: pip install "exactnet[plot]"') from e
    return plt


_LAYER_COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"]


def _layer_colour(l: int) -> str:
    return _LAYER_COLOURS[(l - 1) % len(_LAYER_COLOURS)]


def _pow10(e: int) -> fmpq:
    return fmpq(10 ** e) if e >= 0 else fmpq(1, 10 ** -e)


def _floor_log10(q: fmpq) -> int:
    """The integer ``e`` with ``10^e <= q < 10^(e+1)`` for ``q > 0``, found exactly."""
    e = (int(q.p.bit_length()) - int(q.q.bit_length())) * 30103 // 100000  # estimate, then exact steps
    while _pow10(e) > q:
        e -= 1
    while _pow10(e + 1) <= q:
        e += 1
    return e


def _num(q: fmpq) -> str:
    """``q`` for a label: exact when short, else ``~d.ddddde<exp>`` (display only)."""
    t = q_str(q)
    if len(t) <= 24:
        return t
    if q.q == 1:  # an integer: exact as m e t when its trailing zeros make it short
        n, z = int(q.p), 0
        while n and n % 10 == 0:
            n, z = n // 10, z + 1
        if len(str(n)) <= 12:
            return f"{n}e{z}"
    a = abs(q)
    e = _floor_log10(a)
    m = int((a / _pow10(e - 5)).floor())  # six significant digits, rounded down
    return f"{'-' if q < 0 else ''}~{m // 100000}.{m % 100000:05d}e{e}"


class _Frame:
    """The drawn coordinate ``u = (x - offset) / 10^exp`` of an exact coordinate ``x``.

    The identity (``offset = 0``, ``exp = 0``) whenever floats hold the range ``[lo, hi]`` well;
    otherwise ``exp`` is the decimal order of the range's size and ``offset`` a multiple of
    ``10^exp`` near its middle (0 unless the range is narrow for its distance from 0), so the
    drawn range has size between 1 and 10 and lies within 10^7 of 0. Chosen by exact comparisons.
    """

    def __init__(self, lo: fmpq, hi: fmpq) -> None:
        m = max(abs(lo), abs(hi))
        span = hi - lo
        if span <= 0:
            span = m if m > 0 else fmpq(1)
        self.offset, self.exp = fmpq(0), 0
        if m > _pow10(100) or span < _pow10(-100) or span * _pow10(9) < m:
            self.exp = _floor_log10(span)
            unit = _pow10(self.exp)
            if span * _pow10(6) < m:
                self.offset = fmpq(int(((lo + hi) / (2 * unit)).floor())) * unit
        self._inv = 1 / _pow10(self.exp)

    def __call__(self, x: fmpq) -> float:
        """The float drawn for the exact coordinate ``x`` (finite for every ``x`` in the range)."""
        return q_to_float((x - self.offset) * self._inv)

    def label(self, name: str) -> str:
        """The axis label: ``name``, or the affine image of it that is drawn."""
        if self.exp == 0 and self.offset == 0:
            return name
        shifted = name if self.offset == 0 else f"{name} - ({_num(self.offset)})"
        return f"{shifted}  [units of 10^{self.exp}]"


def arrangement_box(net: Network, slice_=None, central: bool = False) -> tuple[fmpq, fmpq]:
    """A square box ``[lo, hi]^2`` containing every vertex of the arrangement with a margin.

    With ``central`` the box holds the middle 80% of the vertices in each coordinate
    (for a zoomed second panel when a few vertices lie far out).
    """
    from .regions import compute_regions

    rc = compute_regions(net, slice_=slice_)
    verts = rc.vertex_set()
    if not verts:
        return fmpq(-5), fmpq(5)
    if central:
        cs = sorted(c for v in verts for c in v)
        k = len(cs) // 10
        lo, hi = cs[k], cs[len(cs) - 1 - k]
    else:
        lo = min(min(v) for v in verts)
        hi = max(max(v) for v in verts)
    span = max(hi - lo, fmpq(1))
    margin = span / 5
    lo, hi = lo - margin, hi + margin
    # round outwards to a readable rational
    def down(q):
        return fmpq(int((q * 10).floor()), 10) if hasattr(q, "floor") else q

    return down(lo), -down(-hi)


def _components(bc, ncells: int) -> list[int]:
    parent = list(range(ncells))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for f in bc.faces:
        if not f.visible:
            parent[find(f.cells[0])] = find(f.cells[1])
    roots: dict[int, int] = {}
    return [roots.setdefault(find(i), len(roots)) for i in range(ncells)]


def _draw_arrangement(ax, net: Network, box, slice_=None, title: str | None = None) -> dict:
    from matplotlib.lines import Line2D
    from matplotlib.patches import Polygon

    from .regions import compute_regions

    rc = compute_regions(net, box=box, slice_=slice_)
    bc = rc.breakpoints()
    comp = _components(bc, len(rc.cells))
    ncomp = max(comp) + 1 if comp else 1
    import matplotlib

    cmap = matplotlib.colormaps["tab20"]
    fr = _Frame(box[0], box[1])  # one frame for both axes: the box is square, the aspect equal
    for cell, k in zip(rc.cells, comp):
        verts = cell.vertices or cell.corners
        if verts and len(verts) >= 3:
            xy = [(fr(v[0]), fr(v[1])) for v in verts]
            colour = cmap(((k * 7) % 20) / 20)
            ax.add_patch(Polygon(xy, closed=True, facecolor=colour, alpha=0.35, edgecolor="none"))
    jmax = max((max(abs(j) for j in f.jump) for f in bc.faces if f.visible), default=fmpq(1)) or fmpq(1)
    layers_seen = set()
    pts = set()
    for f in bc.faces:
        if f.neuron is None or not f.vertices or len(f.vertices) < 2:
            continue
        l = f.neuron[0]
        layers_seen.add(l)
        (x0, y0), (x1, y1) = ((fr(v[0]), fr(v[1])) for v in f.vertices[:2])
        if f.visible:
            jm = max(abs(j) for j in f.jump)  # the exact ratio jm / jmax in [0, 1], then a float
            ax.plot([x0, x1], [y0, y1], color=_layer_colour(l), lw=0.8 + 3.2 * q_to_float(jm / jmax),
                    solid_capstyle="round")
        else:
            ax.plot([x0, x1], [y0, y1], color=_layer_colour(l), lw=1.0, ls=(0, (3, 2)))
        for v in f.vertices:
            if not any(c == box[0] or c == box[1] for c in v):
                pts.add(v)
    if pts:
        ax.plot([fr(v[0]) for v in pts], [fr(v[1]) for v in pts], "o", ms=3 if len(pts) < 150 else 1.6, color="black", zorder=5)
    lo, hi = fr(box[0]), fr(box[1])
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_aspect("equal")
    handles = [Line2D([], [], color=_layer_colour(l), lw=2.5, label=f"layer {l}") for l in sorted(layers_seen)]
    handles += [Line2D([], [], color="grey", lw=2.5, label="visible (width ~ |J|)"),
                Line2D([], [], color="grey", lw=1, ls=(0, (3, 2)), label="invisible (J = 0)"),
                Line2D([], [], color="black", marker="o", ls="", ms=3, label="vertices")]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    xl, yl = ("s", "t") if slice_ is not None else ("x1", "x2")
    ax.set_xlabel(fr.label(xl))
    ax.set_ylabel(fr.label(yl))
    ax.set_title(title or f"{net.name or 'network'} {','.join(map(str, net.architecture))}: "
                 f"{len(rc.cells)} cells, {ncomp} linear regions", fontsize=9)
    return {"cells": len(rc.cells), "linear_regions": ncomp, "faces": len(bc.faces), "vertices": len(pts)}


def _draw_1d(ax, net: Network, box) -> dict:
    from .depth import candidate_faces

    lo, hi = box
    fps = [fp for fp in candidate_faces(net, box) if lo < fp.point[0] < hi]
    bps = sorted({fp.point[0] for fp in fps})
    xs = [lo] + bps + [hi]
    ys = [net.evaluate([x])[0] for x in xs]
    fx, fy = _Frame(lo, hi), _Frame(min(ys), max(ys))  # every drawn f value is one of ys
    ax.plot([fx(x) for x in xs], [fy(y) for y in ys], color="black", lw=1.5, label="f")
    for fp in fps:
        x, y = fp.point[0], net.evaluate([fp.point[0]])[0]
        c = _layer_colour(fp.neuron[0])
        ax.plot([fx(x)], [fy(y)], "o", ms=6, color=c, mfc=c if fp.visible else "white", zorder=5)
    ax.set_xlim(fx(lo), fx(hi))
    ax.set_xlabel(fx.label("x"))
    ax.set_ylabel(fy.label("f(x)"))
    ax.set_title(f"{net.name or 'network'}: graph of f, breakpoints by layer (hollow: invisible)", fontsize=9)
    return {"breakpoints": len(bps)}


def figure_png_bytes(fig) -> bytes:
    """The figure as PNG bytes (and the figure closed)."""
    plt = _plt()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=130, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def plot_arrangement(net: Network, path: str | None = None, box=None, slice_=None) -> bytes:
    """Draw the arrangement (n0 = 2), a slice (n0 > 2) or the graph of f (n0 = 1); PNG bytes."""
    plt = _plt()
    n0 = net.input_dim
    if n0 == 1:
        bx = (to_q(box[0]), to_q(box[1])) if box else _box_1d(net)
        fig, ax = plt.subplots(figsize=(7, 4))
        _draw_1d(ax, net, bx)
    else:
        if n0 > 2 and slice_ is None:
            e = lambda k: [fmpq(1) if t == k else fmpq(0) for t in range(n0)]  # noqa: E731
            slice_ = ([fmpq(0)] * n0, e(0), e(1))
        if slice_ is not None:
            slice_ = tuple([to_q(v) for v in p] for p in slice_)
            if any(len(p) != n0 for p in slice_):
                raise ShapeError(f"slice points need {n0} coordinates each")
        bx = (to_q(box[0]), to_q(box[1])) if box else arrangement_box(net, slice_)
        zoom = None if box else arrangement_box(net, slice_, central=True)
        if zoom is not None and (zoom[1] - zoom[0]) * 4 > bx[1] - bx[0]:
            zoom = None
        title = None
        if slice_ is not None:
            title = (f"{net.name or 'network'} {','.join(map(str, net.architecture))}: slice P0 + s(P1-P0) + t(P2-P0), "
                     f"P0={_pt(slice_[0])} P1={_pt(slice_[1])} P2={_pt(slice_[2])}")
        if zoom is None:
            fig, ax = plt.subplots(figsize=(7.5, 6))
            _draw_arrangement(ax, net, bx, slice_, title)
        else:
            fig, (ax, az) = plt.subplots(1, 2, figsize=(15, 6.5))
            info = _draw_arrangement(ax, net, bx, slice_, title)
            ax.get_legend().remove()
            _draw_arrangement(az, net, zoom, slice_, f"zoom on the central vertices [{_num(zoom[0])}, {_num(zoom[1])}]^2")
            fig.suptitle(f"all {info['vertices']} vertices (left) and the middle 80% (right)", fontsize=9)
    data = figure_png_bytes(fig)
    if path is not None:
        atomic_write_bytes(path, data)
    return data


def _pt(p: Sequence[fmpq]) -> str:
    return "(" + ",".join(_num(v) for v in p) + ")"


def _box_1d(net: Network) -> tuple[fmpq, fmpq]:
    from .depth import candidate_faces
    from .depgraph import default_box

    fps = candidate_faces(net, default_box(net))
    xs = [fp.point[0] for fp in fps]
    if not xs:
        return fmpq(-5), fmpq(5)
    lo, hi = min(xs), max(xs)
    m = max(hi - lo, fmpq(1)) / 5
    return lo - m, hi + m


def plot_graph(G, path: str | None = None, title: str | None = None) -> bytes:
    """Draw the dependency graph, one column per layer; PNG bytes."""
    plt = _plt()
    layers: dict[int, list] = {}
    for n, d in G.nodes(data=True):
        layers.setdefault(d["layer"], []).append(n)
    tallest = max((len(v) for v in layers.values()), default=1)
    fig, ax = plt.subplots(figsize=(2.2 + 1.8 * len(layers), max(3.0, 0.32 * tallest + 1.5)))
    pos = {}
    for l, ns in layers.items():
        ns.sort(key=lambda n: G.nodes[n]["index"])
        for k, n in enumerate(ns):
            pos[n] = (l, (len(ns) - 1) / 2 - k)
    many = G.number_of_edges() > 60
    for a, b, d in G.edges(data=True):
        (x0, y0), (x1, y1) = pos[a], pos[b]
        ax.annotate("", xy=(x1, y1), xytext=(x0, y0),
                    arrowprops=dict(arrowstyle="-|>", color="#555555", lw=0.5 if many else 0.9,
                                    mutation_scale=6 if many else 10, shrinkA=5, shrinkB=5, alpha=0.35 if many else 0.8))
        if G.number_of_edges() <= 3 and "bend" in d:
            ax.text(x0 + 0.3 * (x1 - x0), y0 + 0.3 * (y1 - y0), f"bend ({d['bend']})", fontsize=7, ha="center",
                    va="center", zorder=4, bbox=dict(fc="white", ec="none", alpha=0.85, pad=0.5))
    small = tallest > 20
    last = max(layers, default=1)
    for n, (x, y) in pos.items():
        d = G.nodes[n]
        c = _layer_colour(d["layer"])
        ax.plot([x], [y], "o", ms=6 if small else 16, color=c, mfc=c if d.get("visible") else "white", mew=1.5, zorder=3)
        if small:
            right = d["layer"] == last
            ax.text(x + (0.07 if right else -0.07), y, d.get("label", str(n)), fontsize=6, ha="left" if right else "right",
                    va="center", zorder=4, bbox=dict(fc="white", ec="none", alpha=0.85, pad=0.4))
        else:
            ax.text(x, y, d.get("label", str(n)), fontsize=8, ha="center", va="center", zorder=4,
                    color="white" if d.get("visible") else "black")
    ax.set_xticks(sorted(layers))
    ax.set_xticklabels([f"layer {l}" for l in sorted(layers)])
    ax.set_yticks([])
    ax.set_xlim(min(layers, default=1) - 0.6, max(layers, default=1) + 0.6)
    ax.set_ylim(-tallest / 2 - 0.3, tallest / 2 + 0.3)
    for s in ("top", "right", "left"):
        ax.spines[s].set_visible(False)
    ax.set_title(title or f"dependency graph: arrow j -> i when B_i bends along B_j\n"
                 f"{G.number_of_edges()} edges; hollow node = no visible cell found", fontsize=9)
    data = figure_png_bytes(fig)
    if path is not None:
        atomic_write_bytes(path, data)
    return data


def plot_network(net: Network, path: str, graph: bool = False, box=None, slice_=None) -> None:
    """The ``exactnet plot`` job: the arrangement (or with ``graph`` the dependency graph) to ``path``."""
    if graph:
        from .depgraph import dependency_graph

        plot_graph(dependency_graph(net, box=box), path)
    else:
        plot_arrangement(net, path, box=box, slice_=slice_)


def write_example_pictures(net: Network, folder: str | Path, stem: str | None = None) -> list[Path]:
    """Write ``<stem>_arrangement.png`` and ``<stem>_graph.png`` into ``folder``; return the paths."""
    from .depgraph import dependency_graph

    folder = Path(folder)
    stem = stem or (net.name or "network")
    a, g = folder / f"{stem}_arrangement.png", folder / f"{stem}_graph.png"
    plot_arrangement(net, str(a))
    plot_graph(dependency_graph(net), str(g))
    return [a, g]
