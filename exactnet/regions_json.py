"""The ``exactnet-regions/1`` and ``exactnet-complex/1`` JSON documents.

``exactnet-regions/1`` (one object; every rational is a canonical string ``p/q``)::

    {"format": "exactnet-regions/1",
     "architecture": [n0, ..., nL],
     "box": ["lo", "hi"] | null,           # the complex inside [lo, hi]^n0, or over all of R^n0
     "slice": [[P0], [P1], [P2]] | null,   # coordinates (s, t) of x = P0 + s(P1-P0) + t(P2-P0)
     "cells": [
       {"pattern": [0, 1, ...],            # one bit per hidden neuron, layer order (1: z > 0)
        "interior_point": ["x1", ...],     # every non-identically-zero pre-activation is nonzero
        "affine": {"gradient": [[...], ...], "offset": [...]},   # f(x) = gradient x + offset
        "bounded": true | false,
        "vertices": [[...], ...],          # only when bounded (cyclic order when n0 = 2)
        "zero_neurons": [[l, i], ...],     # neurons identically zero on the cell
        "constraints": [                   # the irredundant facets: normal . x + offset >= 0
          {"normal": [...], "offset": "c", "neuron": [l, i] | null,   # null: a box side
           "neighbour": j | null, "witness": [...]}]}],             # witness: relative interior
     "faces_complete": true | false,       # false: no vertex enumeration (n0 > 4), so no
                                           #   "vertices" / "edges" keys
     "vertices": [                         # every vertex of every cell (bounded or not, box
       {"point": ["x1", ...],              #   corners included), sorted by coordinates
        "cells": [j, ...]}],               # the cells having it as a vertex (ascending)
     "edges": [                            # n0 >= 2 only: the 1-dimensional faces of the cells
       {"vertices": [i, j], "cells": [...]},                     # segment between vertices i < j
       {"vertices": [i], "direction": ["d1", ...], "cells": [...]},  # ray i + t d, t >= 0
       {"vertices": [], "point": [...], "direction": [...], "cells": [...]}],  # line p + t d
     "summary": {"cells": k, "bounded_cells": k, "vertices": k, "linear_regions": k}}

Directions are primitive integer vectors (a line's with first nonzero entry positive; its
``point`` has coordinate 0 where the direction's first nonzero entry is). ``summary.vertices``
is ``len(vertices)`` (``null`` when ``faces_complete`` is false). For ``n0 = 1`` there is no
``"edges"`` key: the 1-dimensional faces are the cells themselves. Vertices and edges are
decided exactly by :mod:`exactnet.faces` and computed only when the document is written.

``exactnet-complex/1``: ``{"format", "architecture", "box", "slice", "faces": [{"cells":
[minus, plus], "neuron": [l, i], "normal", "offset", "jump": [...], "visible", "point",
"vertices"}], "balancing": {"checked", "failed", "dimension_supported"},
"invisible_faces": [{"neuron": [l, i], "faces": [face indices]}], "linear_regions":
[{"cells": [...], "gradient": [[...]], "offset": [...]}], "summary"}`` where
``grad f(plus) - grad f(minus) = jump (x) normal``. ``invisible_faces``: the faces with zero
jump (exactly those with ``"visible": false``), grouped by the neuron that carries them
(layer order; only neurons with such a face). ``linear_regions``: the connected components
of the cells joined through invisible faces, each with the affine map shared (checked
exactly) by all its cells, ordered by smallest cell index; ``summary.linear_regions`` is
their number. The full description of both formats is ``docs/formats.md``.
"""

from __future__ import annotations

import json

from .errors import ExactnetError
from .faces import complex_faces
from .qq import q_str

__all__ = ["regions_to_json", "complex_to_json", "faces_to_json", "invisible_faces_by_neuron", "linear_regions",
           "dumps_regions", "dumps_complex", "dumps_document"]


def _v(vec):
    return [q_str(x) for x in vec]


def _header(rc, fmt):
    return {
        "format": fmt,
        "architecture": list(rc.original.architecture),
        "box": None if rc.box is None else [q_str(rc.box[0]), q_str(rc.box[1])],
        "slice": None if rc.slice is None else [[q_str(x) for x in p] for p in rc.slice],
    }


def regions_to_json(rc) -> dict:
    """The ``exactnet-regions/1`` object of a region complex (computes neighbours)."""
    summary = rc.summary()  # also fills the neighbours
    cells = []
    for c in rc.cells:
        G = c.gradient
        m, n = G.nrows(), G.ncols()
        d = {
            "pattern": [b for layer in c.pattern for b in layer],
            "interior_point": _v(c.interior_point),
            "affine": {"gradient": [[q_str(G[o, j]) for j in range(n)] for o in range(m)], "offset": _v(c.offset)},
            "bounded": c.bounded,
        }
        if c.bounded and c.vertices is not None:
            d["vertices"] = [_v(v) for v in c.vertices]
        d["zero_neurons"] = [list(t) for t in c.zero]
        d["constraints"] = [
            {
                "normal": _v(k.normal),
                "offset": q_str(k.offset),
                "neuron": None if k.neuron is None else list(k.neuron),
                "neighbour": k.neighbour,
                "witness": None if k.witness is None else _v(k.witness),
            }
            for k in c.constraints
        ]
        cells.append(d)
    out = _header(rc, "exactnet-regions/1")
    out["cells"] = cells
    out.update(faces_to_json(rc))
    out["summary"] = summary
    return out


def faces_to_json(rc) -> dict:
    """The keys ``faces_complete``, ``vertices`` and (``n0 >= 2``) ``edges`` of the regions
    document (:func:`exactnet.faces.complex_faces`); only ``faces_complete: false`` when
    the engine did not enumerate vertices (``n0 > 4`` by default)."""
    F = complex_faces(rc)
    out: dict = {"faces_complete": F.complete}
    if not F.complete:
        return out
    out["vertices"] = [{"point": _v(p), "cells": list(cs)} for p, cs in zip(F.vertices, F.vertex_cells)]
    if F.edges is not None:
        edges = []
        for e in F.edges:
            d: dict = {"vertices": list(e.vertices)}
            if e.point is not None:
                d["point"] = _v(e.point)
            if e.direction is not None:
                d["direction"] = [str(x) for x in e.direction]
            d["cells"] = list(e.cells)
            edges.append(d)
        out["edges"] = edges
    return out


def complex_to_json(rc) -> dict:
    """The ``exactnet-complex/1`` object (weighted breakpoint complex)."""
    bc = rc.breakpoints()
    out = _header(rc, "exactnet-complex/1")
    out["faces"] = [
        {
            "cells": list(f.cells),
            "neuron": None if f.neuron is None else list(f.neuron),
            "normal": _v(f.normal),
            "offset": q_str(f.offset),
            "jump": _v(f.jump),
            "visible": f.visible,
            "point": _v(f.point),
            "vertices": None if f.vertices is None else [_v(v) for v in f.vertices],
        }
        for f in bc.faces
    ]
    bal = bc.check_balancing()
    out["balancing"] = {
        "checked": bal["checked"],
        "failed": [_v(p) for p in bal["failed"]],
        "dimension_supported": bal["dimension_supported"],
    }
    out["invisible_faces"] = [
        {"neuron": list(neuron), "faces": idx} for neuron, idx in invisible_faces_by_neuron(bc)
    ]
    out["linear_regions"] = [
        {
            "cells": cs,
            "gradient": [[q_str(G[o, j]) for j in range(G.ncols())] for o in range(G.nrows())],
            "offset": _v(off),
        }
        for cs, G, off in linear_regions(bc)
    ]
    out["summary"] = dict(rc.summary(), faces=len(bc.faces), visible_faces=len(bc.visible_faces()))
    return out


def invisible_faces_by_neuron(bc) -> list:
    """``[(neuron, [face indices])]``: the faces with zero jump, grouped by the neuron whose
    bent hyperplane carries them (neurons in layer order, only those with such a face)."""
    groups: dict = {}
    for i, f in enumerate(bc.faces):
        if not f.visible:
            if any(f.jump):
                raise ExactnetError("a face marked invisible has a nonzero jump")
            groups.setdefault(tuple(f.neuron), []).append(i)
    return sorted(groups.items())


def linear_regions(bc) -> list:
    """``[(cells, gradient, offset)]``: the connected components of the graph on the cells
    whose edges are the invisible faces, each with its affine map, checked to be the same
    on every cell of the component (exactly). Ordered by smallest cell index."""
    import networkx as nx

    cells = bc.rc.cells
    g = nx.Graph()
    g.add_nodes_from(range(len(cells)))
    g.add_edges_from(f.cells for f in bc.faces if not f.visible)
    out = []
    for comp in sorted((sorted(c) for c in nx.connected_components(g)), key=lambda c: c[0]):
        first = cells[comp[0]]
        for i in comp[1:]:
            if cells[i].gradient != first.gradient or tuple(cells[i].offset) != tuple(first.offset):
                raise ExactnetError(f"cells {comp[0]} and {i} of one linear region have different affine maps")
        out.append((comp, first.gradient, first.offset))
    return out


def dumps_regions(rc) -> str:
    return json.dumps(regions_to_json(rc), indent=1) + "\n"


def dumps_complex(rc) -> str:
    return dumps_document(complex_to_json(rc))


def dumps_document(doc: dict) -> str:
    """The text written for a document (either format): indented JSON and a newline."""
    return json.dumps(doc, indent=1) + "\n"
