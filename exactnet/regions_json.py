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
     "summary": {"cells": k, "bounded_cells": k, "vertices": k, "linear_regions": k}}

``exactnet-complex/1``: ``{"format", "architecture", "box", "slice", "faces": [{"cells":
[minus, plus], "neuron": [l, i], "normal", "offset", "jump": [...], "visible", "point",
"vertices"}], "balancing": {"checked", "failed", "dimension_supported"}, "summary"}`` where
``grad f(plus) - grad f(minus) = jump (x) normal``.
"""

from __future__ import annotations

import json

from .qq import q_str

__all__ = ["regions_to_json", "complex_to_json", "dumps_regions", "dumps_complex"]


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
    out["summary"] = summary
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
    out["summary"] = dict(rc.summary(), faces=len(bc.faces), visible_faces=len(bc.visible_faces()))
    return out


def dumps_regions(rc) -> str:
    return json.dumps(regions_to_json(rc), indent=1) + "\n"


def dumps_complex(rc) -> str:
    return json.dumps(complex_to_json(rc), indent=1) + "\n"
