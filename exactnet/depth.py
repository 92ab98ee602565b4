"""Depth: a proven lower bound (NOT-SHALLOW) and the generic bound from bending chains.

Layer: analysis on :mod:`exactnet.depgraph` (local forms, face points) and the
region engine when installed.

**Proven** (``proofs/lemmas/not_shallow.md``): if a visible codimension-1 cell of the
breakpoint complex lies on a hyperplane ``H`` and some point ``r`` of ``H`` has every
hidden pre-activation nonzero (so ``f`` is affine near ``r``), no network with one
hidden layer, of any width, computes ``f``. The witness checked by the certificate:
an ``(n0-1)``-simplex ``T`` in ``H``, a direction ``d`` with two prisms
``conv(T u (T - d))`` and ``conv(T u (T + d))`` each inside one closed activation region
(the "polytope in region" primitive), different directional derivatives along ``d``
there, and the point ``r``.

**Generic** (not a proof for every representation): the longest chain of the
dependency graph is a lower bound on the number of hidden layers only for
representations whose bends are all visible. Every CPWL function on ``R^n0`` has a
representation with ``ceil(log2(n0 + 1))`` hidden layers, so no deeper lower bound can
hold for all representations.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Sequence

from flint import fmpq

from .depgraph import (
    FacePoint,
    default_box,
    dependency_graph,
    face_point_at,
    face_points,
    local_forms,
    longest_bending_chain,
    sample_points,
)
from .errors import ExactnetError
from .network import Network
from .qq import Q0, q_str

__all__ = ["NotShallowWitness", "DepthReport", "find_not_shallow", "witness_for_face", "depth_report", "in_region", "candidate_faces"]


@dataclass(frozen=True)
class NotShallowWitness:
    """The data of a NOT-SHALLOW certificate (all exact)."""

    neuron: tuple[int, int]
    normal: tuple[fmpq, ...]
    offset: fmpq
    simplex: tuple[tuple[fmpq, ...], ...]
    direction: tuple[fmpq, ...]
    minus: tuple[tuple[int, ...], ...]
    plus: tuple[tuple[int, ...], ...]
    regular: tuple[fmpq, ...]

    def body_lines(self) -> list[str]:
        """Certificate body lines (see proofs/spec-1.0-not-shallow.md)."""
        s = lambda vs: " ".join(q_str(v) for v in vs)  # noqa: E731
        bits = lambda p: " ".join(str(b) for row in p for b in row)  # noqa: E731
        out = [f"hyperplane {s(self.normal)} {q_str(self.offset)}"]
        out += [f"vertex {s(v)}" for v in self.simplex]
        out += [f"direction {s(self.direction)}", f"side minus {bits(self.minus)}",
                f"side plus {bits(self.plus)}", f"regular {s(self.regular)}"]
        return out


@dataclass
class DepthReport:
    """Lower and upper bounds on the number of hidden layers of any network computing f."""

    proven_lower: int
    proven_reason: str
    generic_lower: int
    chain: list = field(default_factory=list)
    upper: int = 0
    witness: NotShallowWitness | None = None

    def to_json(self) -> dict:
        return {
            "proven_lower_bound_hidden_layers": self.proven_lower,
            "proven_reason": self.proven_reason,
            "generic_lower_bound_hidden_layers": self.generic_lower,
            "generic_note": "holds only for representations whose bends are all visible",
            "longest_bending_chain": [f"{l}.{i + 1}" for l, i in self.chain],
            "upper_bound_hidden_layers": self.upper,
            "not_shallow": self.witness is not None,
            "witness_neuron": None if self.witness is None else f"{self.witness.neuron[0]}.{self.witness.neuron[1] + 1}",
        }


def in_region(net: Network, pattern, points: Sequence[Sequence[fmpq]]) -> bool:
    """Polytope in region: every P-local pre-activation has the P-sign (weakly) at every point."""
    forms = local_forms(net, pattern)
    for l, row in enumerate(forms.grads, start=1):
        for i in range(len(row)):
            on = pattern[l - 1][i]
            for x in points:
                v = forms.value(l, i, x)
                if (on and v < 0) or (not on and v > 0):
                    return False
    return True


def _h_basis(a: Sequence[fmpq]) -> list[list[fmpq]]:
    n = len(a)
    m = next(k for k in range(n) if a[k])
    out = []
    for k in range(n):
        if k != m:
            v = [Q0] * n
            v[k] = fmpq(1)
            v[m] = -a[k] / a[m]
            out.append(v)
    return out


def witness_for_face(net: Network, fp: FacePoint, rng: random.Random) -> NotShallowWitness | None:
    """Try to build a NOT-SHALLOW witness on the hyperplane of one visible face point."""
    if not fp.visible:
        return None
    a, c, p = list(fp.normal), fp.offset, list(fp.point)
    n = len(a)
    basis = _h_basis(a)
    dirs = [[-sum((v[t] for v in basis), Q0) for t in range(n)]] + basis if basis else [[Q0] * n]
    eps = fmpq(1)
    for _ in range(80):
        T = [[p[t] + eps * v[t] for t in range(n)] for v in dirs]
        d = [eps * v for v in a]
        Tp = [[x[t] + d[t] for t in range(n)] for x in T]
        Tm = [[x[t] - d[t] for t in range(n)] for x in T]
        if in_region(net, fp.plus, T + Tp) and in_region(net, fp.minus, T + Tm):
            break
        eps /= 2
    else:
        return None
    r = _regular_point(net, a, c, p, basis, rng)
    if r is None:
        return None
    return NotShallowWitness(fp.neuron, tuple(a), c, tuple(tuple(x) for x in T), tuple(d), fp.minus, fp.plus, tuple(r))


def _regular_point(net, a, c, p, basis, rng) -> list[fmpq] | None:
    if not basis:
        return None
    n = len(a)
    scales = [fmpq(s) for s in (1, -1, 2, -2, 5, -5, 20, -20, 100, -100)] + [fmpq(1, 2), fmpq(-1, 2), fmpq(1, 10), fmpq(-1, 10)]
    for trial in range(60):
        coef = [fmpq(rng.randint(-5, 5), rng.randint(1, 3)) for _ in basis] if trial else [fmpq(1)] * len(basis)
        if not any(coef):
            continue
        w = [sum((k * v[t] for k, v in zip(coef, basis)), Q0) for t in range(n)]
        for s in scales:
            r = [p[t] + s * w[t] for t in range(n)]
            if net.is_generic_point(r):
                return r
    return None


def candidate_faces(net: Network, box=None, samples: int = 300, seed: int = 0) -> list[FacePoint]:
    """Face points from the region complex's faces when installed, else from samples."""
    out: list[FacePoint] = []
    try:
        from .regions import compute_regions  # type: ignore[attr-defined]

        rc = compute_regions(net, box=box, max_cells=20000)
        for f in rc.breakpoints().faces:
            fp = face_point_at(net, f.point)
            if fp is not None:
                out.append(fp)
    except (ImportError, ExactnetError):
        pass
    if not out:
        bx = default_box(net) if box is None else box
        out = face_points(net, sample_points(net.input_dim, samples, bx, seed), seed=seed)
    return out


def find_not_shallow(net: Network, box=None, seed: int = 0) -> NotShallowWitness | None:
    """A checked NOT-SHALLOW witness, or None when none was found (None proves nothing)."""
    if net.depth < 3:
        return None
    rng = random.Random(seed)
    for fp in candidate_faces(net, box, seed=seed):
        if fp.neuron[0] < 2:  # a first-layer hyperplane is wholly in the locus where visible
            continue
        w = witness_for_face(net, fp, rng)
        if w is not None:
            return w
    return None


def depth_report(net: Network, box=None, seed: int = 0) -> DepthReport:
    """Proven and generic bounds on the number of hidden layers needed to compute f."""
    n0 = net.input_dim
    upper = min(net.depth - 1, max(1, math.ceil(math.log2(n0 + 1))))
    G = dependency_graph(net, box=box, seed=seed)
    chain = longest_bending_chain(G)
    wit = find_not_shallow(net, box, seed)
    if wit is not None:
        proven, why = 2, (f"NOT-SHALLOW: a visible cell of B_{wit.neuron[0]}.{wit.neuron[1] + 1} lies on a "
                          "hyperplane not wholly in the non-differentiability locus")
    elif any(d.get("visible") for _, d in G.nodes(data=True)):
        proven, why = 1, "f has a visible breakpoint, so it is not affine"
    else:
        proven, why = 0, "no visible breakpoint found (this does not prove f affine)"
    generic = max(proven, len(chain))
    return DepthReport(proven, why, generic, chain, max(upper, proven), wit)
