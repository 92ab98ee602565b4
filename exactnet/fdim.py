"""Exact functional dimension of a ReLU network at its parameter, and the local-identifiability answer.

**What is computed.** Let ``Z_theta`` be the set of *strictly generic* inputs: points
where every hidden pre-activation of ``theta`` is nonzero (the union of the interiors of
the activation regions). For ``z`` in ``Z_theta`` the pattern at ``z`` is the same for
every ``theta'`` near ``theta``, so ``theta' -> f_theta'(z)`` is a polynomial near
``theta`` with an exact rational gradient (:meth:`Network.parameter_jacobian`). We compute

    fdim(theta) = dim span { d f_theta(z) / d theta : z in Z_theta }

(each output coordinate gives a row), i.e. the rank at ``theta`` of the Jacobian of the
map ``theta' -> (f_theta'(z))_(z in Z_theta)``. This is a property of ``theta`` itself,
not the supremum over a parameter-space neighbourhood (a different notion, which can be
larger); the two agree when the rank equals the bound below.

**Finitely many points suffice (the proof behind the point chooser).** Inside one
activation region with pattern ``P`` every entry of the row ``J(z) = d f_theta(z)/d theta``
is affine in ``z``: ``d f/d W_l[i,j] = c_(l,i) h_(l-1)[j]`` and ``d f/d b_l[i] = c_(l,i)``,
where the downstream sensitivity ``c_(l,i)`` depends only on ``P`` and ``theta`` and
``h_(l-1)`` is the pattern-``P`` affine function of ``z``. So ``J(z) = A_0 + sum_k z_k A_k``
on the region. If ``p_0..p_n0`` are affinely independent points of the region, every
``z`` is an affine combination ``sum lam_i p_i`` (``sum lam_i = 1``) and
``J(z) = sum lam_i J(p_i)``: the span of ``J`` over the whole region equals the span of
``J(p_0), ..., J(p_n0)``. The rows depend only on the pattern, so one such family per
pattern covers every region of that pattern. Hence: one strictly generic point per
region of the exact complex (:mod:`exactnet.regions`) plus ``n0`` nearby points
``p + eps e_k`` of the same pattern (``eps = 2^-j``, halved until the pattern and strict
genericity hold, which happens because the region is open) give exactly ``fdim(theta)``.

**Upper bound.** Scaling hidden neuron ``(l,i)`` gives a curve in the fibre; its tangent
``v_(l,i)`` (the incoming row ``(w, b)`` on its own coordinates, minus column ``i`` of
``W_(l+1)``) is in the kernel of every row. When every hidden neuron has a nonzero
incoming row these ``N`` vectors are independent (layer by layer: the incoming
coordinates of ``(l,i)`` are touched only by ``v_(l,i)`` and by outgoing parts of layer
``l-1``, whose coefficients vanish by induction). So ``fdim <= D - N``. When the rank
reaches ``D - N`` at finitely many strictly generic points, ``theta`` is
**LOCALLY-IDENTIFIABLE** (lemma: ``proofs/lemmas/local_identifiability.md``); the
modular rank with a nonzero minor (:mod:`exactnet.modrank`) is the proof.

**Deficient neurons (why the rank drops).** With the complete complex, a hidden neuron is
*dead* when its pre-activation is negative at every region (pattern bit 0 everywhere):
its incoming coordinates and its outgoing column have zero Jacobian columns, so the
kernel gains ``n_(l-1) + n_(l+1)`` dimensions beyond its scaling. It is *stably active*
when its pre-activation is positive on every region: then shifting its bias by ``t`` and
the next biases by ``-t W_(l+1)[:, i]`` is a kernel direction independent of the
scalings, so the rank drops by at least one (example D, neuron ``(2,2)``). Zero incoming
rows (the neuron is identically 0 and no input is strictly generic for it) and zero
outgoing columns are reported too. The names come from the exact complex; with the
fallback points they are labelled ``"observed"`` (true on the sample only).

**Undefined case.** When no input is strictly generic (a hidden neuron with a zero
incoming row is 0 everywhere; a deep neuron can also vanish identically), the map
``theta' -> f_theta'(z)`` is differentiable at no ``z`` and the result has status
``"undefined"`` (``functional_dimension`` None) with the reason. Cells on which some
neuron vanishes identically are left out of ``Z_theta`` in general (said in ``note``).

**Fallback points.** When :mod:`exactnet.regions` is missing or over its budget, points
come from a documented exact scheme: batches alternating between :func:`random_line_points`
(random lines, one point in every region each line crosses, found by exact 1-D
subdivision) and :func:`generic_random_points` (Gaussian points of mixed spreads); the rank is then a proved
*lower bound*, and exact only when it reaches the proved upper bound (``D - N`` or the
structural bound of :func:`structural_kernel`).
"""

from __future__ import annotations

import importlib.util
import random
import time
from dataclasses import dataclass, field
from typing import Sequence

from flint import fmpq

from .errors import LimitError, UndecidedError
from .modrank import RankResult, certified_rank, integer_rows, rank_mod_p, PRIMES
from .network import Network

__all__ = [
    "PointSet",
    "FdimResult",
    "points_from_regions",
    "generic_random_points",
    "neighbour_points",
    "stacked_jacobian",
    "zero_incoming_rows",
    "deficient_neurons",
    "functional_dimension",
    "certify_local",
    "neuron_label",
    "structural_kernel",
    "local_identifiability_body",
    "FALLBACK_SPREADS",
    "line_points",
    "random_line_points",
]


def neuron_label(l: int, i: int) -> str:
    """Display name ``(l,i)`` with both indices from 1, as in theory.md (``i`` is from 0 in code)."""
    return f"({l},{i + 1})"


@dataclass
class PointSet:
    """Sample points with their patterns, where they came from and whether they cover every region."""

    points: list[list[fmpq]]
    patterns: list[tuple[tuple[int, ...], ...]]
    source: str  # "regions" or "random-generic"
    complete: bool  # True: every activation region's pattern is represented with n0+1 affinely independent points
    region_patterns: list[tuple[tuple[int, ...], ...]] = field(default_factory=list)
    note: str = ""


def _strict_pattern(net: Network, x: Sequence[fmpq]):
    s = net.signs(x)
    if any(v == 0 for layer in s for v in layer):
        return None
    return tuple(tuple(1 if v > 0 else 0 for v in layer) for layer in s)


def neighbour_points(net: Network, p: Sequence[fmpq], max_halvings: int = 200) -> list[list[fmpq]]:
    """``n0`` points ``p + eps e_k`` strictly generic with the same pattern as ``p``.

    Together with ``p`` they are affinely independent. ``eps = 2^-j`` is halved until all
    conditions hold; ``p`` must be strictly generic.
    """
    pat = _strict_pattern(net, p)
    if pat is None:
        raise UndecidedError("neighbour_points needs a strictly generic point")
    out = []
    for k in range(net.input_dim):
        eps = fmpq(1)
        for _ in range(max_halvings):
            q = list(p)
            q[k] = q[k] + eps
            if _strict_pattern(net, q) == pat:
                out.append(q)
                break
            eps = eps / 2
        else:  # pragma: no cover - an open region always admits a small step
            raise UndecidedError("could not find a nearby point in the same region")
    return out


def _have_regions() -> bool:
    return importlib.util.find_spec("exactnet.regions") is not None


def points_from_regions(
    net: Network,
    max_cells: int | None = None,
    timeout: float | None = None,
) -> PointSet:
    """Points covering every activation region of ``R^n0`` (exact), or ``None``-free fallback.

    Uses :func:`exactnet.regions.compute_regions` when available: one interior point per
    cell plus its :func:`neighbour_points`, one family per distinct pattern. Raises
    :class:`LimitError` when the complex is over the budget (the caller falls back).
    """
    if not _have_regions():
        raise LimitError("exactnet.regions is not available")
    from .regions import compute_regions

    cx = compute_regions(net, box=None, max_cells=max_cells, timeout=timeout, certificate=False)
    pts: list[list[fmpq]] = []
    pats: list = []
    seen: set = set()
    region_patterns = []
    skipped = 0
    for cell in cx.cells:
        p = [fmpq(v) if not isinstance(v, fmpq) else v for v in cell.interior_point]
        region_patterns.append(tuple(tuple(int(b) for b in layer) for layer in cell.pattern))
        pat = _strict_pattern(net, p)
        if pat is None:
            # Some neuron is identically zero on this cell: no strictly generic point here,
            # so the cell is not part of Z_theta (see the module docstring).
            skipped += 1
            continue
        if pat in seen:
            continue
        seen.add(pat)
        fam = [p] + neighbour_points(net, p)
        pts.extend(fam)
        pats.extend([pat] * len(fam))
    note = f"{len(region_patterns)} regions, {len(seen)} patterns"
    if skipped:
        note += f", {skipped} regions without strictly generic points (a neuron is identically 0 there) left out"
    return PointSet(pts, pats, "regions", True, region_patterns, note)


#: Spreads of the fallback scheme, used by the points in turn (point ``i``: ``spreads[i % 6]``).
FALLBACK_SPREADS = (0.5, 1.0, 1.0, 2.0, 4.0, 16.0)


def generic_random_points(
    net: Network,
    count: int,
    seed: int = 0,
    spread: float | Sequence[float] = 1.0,
    grid: int = 1 << 16,
) -> list[list[fmpq]]:
    """``count`` strictly generic points of a documented exact scheme (a lower bound only).

    Point ``i`` has coordinates ``round(grid * s_i * g) / grid`` with ``g`` standard normal
    from ``random.Random(seed)`` and ``s_i = spread`` (or ``spread[i % len(spread)]``):
    exact rationals on a ``1/grid`` lattice; points where some hidden pre-activation is
    exactly 0 are skipped (checked exactly). Floats only propose the points; every use of
    them is exact.
    """
    rng = random.Random(seed)
    spreads = (float(spread),) if isinstance(spread, (int, float)) else tuple(spread)
    out: list[list[fmpq]] = []
    tries = 0
    while len(out) < count and tries < 20 * count + 100:
        s_i = spreads[tries % len(spreads)]
        tries += 1
        x = [fmpq(round(grid * s_i * rng.gauss(0.0, 1.0)), grid) for _ in range(net.input_dim)]
        if _strict_pattern(net, x) is not None:
            out.append(x)
    return out


def line_points(net: Network, a: Sequence[fmpq], d: Sequence[fmpq]) -> list[list[fmpq]]:
    """One strictly generic point in every activation interval of the line ``a + t d``.

    Exact 1-D subdivision, layer by layer: on an interval the pre-activations of the next
    layer are affine in ``t``; their roots inside the interval split it. Every region the
    line crosses (in an interval of positive length) contributes a point: the interval's
    midpoint (``hi - 1``, ``lo + 1`` or ``0`` for unbounded ones). Intervals on which some
    neuron is identically zero are skipped (no strictly generic point there).
    """
    zero = fmpq(0)
    n0 = net.input_dim
    # interval: (lo, hi, A, C) with h_(l-1)(t) = A t + C on it (lo/hi None = infinite)
    work = [(None, None, list(d), list(a))]
    L = net.depth
    for l in range(1, L):
        W, b = net.weights(l), net.biases(l)
        nxt = []
        for lo, hi, A, C in work:
            al = [sum((w * x for w, x in zip(row, A) if w and x), zero) for row in W]
            be = [bi + sum((w * x for w, x in zip(row, C) if w and x), zero) for row, bi in zip(W, b)]
            roots = sorted({-bb / aa for aa, bb in zip(al, be) if aa != 0
                            and (lo is None or -bb / aa > lo) and (hi is None or -bb / aa < hi)})
            cuts = [lo] + roots + [hi]
            for u, v in zip(cuts, cuts[1:]):
                if u is None and v is None:
                    t = zero
                elif u is None:
                    t = v - 1
                elif v is None:
                    t = u + 1
                else:
                    t = (u + v) / 2
                A2, C2, ok = [], [], True
                for aa, bb in zip(al, be):
                    z = aa * t + bb
                    if z > 0:
                        A2.append(aa)
                        C2.append(bb)
                    else:
                        if aa == 0 and bb == 0:
                            ok = False
                        A2.append(zero)
                        C2.append(zero)
                if ok:
                    nxt.append((u, v, A2, C2))
        work = nxt
    out = []
    for lo, hi, _, _ in work:
        if lo is None and hi is None:
            t = zero
        elif lo is None:
            t = hi - 1
        elif hi is None:
            t = lo + 1
        else:
            t = (lo + hi) / 2
        x = [ai + t * di for ai, di in zip(a, d)]
        if _strict_pattern(net, x) is not None:
            out.append(x)
    return out


def random_line_points(net: Network, count: int, seed: int = 0, grid: int = 1 << 12) -> list[list[fmpq]]:
    """At least ``count`` points (when the lines cross enough regions) from random lines.

    The documented exact fallback scheme: line ``k`` is ``a + t d`` with ``a`` and ``d``
    Gaussian (``random.Random(seed)``, ``a`` scaled by ``FALLBACK_SPREADS[k % 6]``) rounded to
    the ``1/grid`` lattice; :func:`line_points` gives one strictly generic point in every
    region the line crosses. At most ``4 count + 50`` lines are drawn.
    """
    rng = random.Random(seed)
    out: list[list[fmpq]] = []
    n0 = net.input_dim
    k = 0
    while len(out) < count and k < 4 * count + 50:
        s_k = FALLBACK_SPREADS[k % len(FALLBACK_SPREADS)]
        k += 1
        a = [fmpq(round(grid * s_k * rng.gauss(0.0, 1.0)), grid) for _ in range(n0)]
        d = [fmpq(round(grid * rng.gauss(0.0, 1.0)), grid) for _ in range(n0)]
        if all(v == 0 for v in d):
            continue
        out.extend(line_points(net, a, d))
    return out


def stacked_jacobian(net: Network, points: Sequence[Sequence[fmpq]]) -> list[list[fmpq]]:
    """Rows ``d f_theta(z)/d theta`` for every point and output coordinate (pattern frozen)."""
    rows: list[list[fmpq]] = []
    for z in points:
        J = net.parameter_jacobian(z).tolist()
        rows.extend(J)
    return rows


def zero_incoming_rows(net: Network) -> list[tuple[int, int]]:
    """Hidden neurons ``(l, i)`` (``i`` from 0) whose incoming row ``(w, b)`` is zero."""
    out = []
    for l in range(1, net.depth):
        for i, (row, b) in enumerate(zip(net.weights(l), net.biases(l))):
            if b == 0 and all(w == 0 for w in row):
                out.append((l, i))
    return out


def deficient_neurons(net: Network, patterns: Sequence[Sequence[Sequence[int]]], exact: bool) -> list[dict]:
    """Dead / stably active / zero-row / zero-column neurons, as JSON-ready dicts.

    ``patterns``: the patterns of every region (``exact=True``) or of the sample
    (``exact=False``, then ``scope`` is ``"observed"``).
    """
    scope = "all-regions" if exact else "observed"
    zero_in = set(zero_incoming_rows(net))
    out = []
    for l in range(1, net.depth):
        nxt = net.weights(l + 1)
        for i in range(net.architecture[l]):
            reasons = []
            if (l, i) in zero_in:
                reasons.append("zero-incoming-row")
            elif patterns:
                bits = {p[l - 1][i] for p in patterns}
                if bits == {0}:
                    reasons.append("dead")
                elif bits == {1}:
                    reasons.append("stably-active")
            if all(row[i] == 0 for row in nxt):
                reasons.append("zero-outgoing-column")
            for r in reasons:
                out.append({"layer": l, "index": i, "name": neuron_label(l, i), "reason": r,
                            "scope": "structural" if r.startswith("zero") else scope})
    return out


def structural_kernel(net: Network) -> tuple[list[list[fmpq]], list[dict]]:
    """Vectors proved to lie in the kernel of every row ``J(z)``, ``z`` in ``Z_theta``.

    * the scaling tangent ``v_(l,i)`` of every hidden neuron (always in the kernel);
    * for a neuron provably *stably active* from its signs alone (layer 1: ``w = 0, b > 0``;
      deeper: all incoming weights ``>= 0`` and ``b > 0``, since its inputs are ``>= 0``):
      the bias shift ``e_(b_l[i]) - sum_k W_(l+1)[k,i] e_(b_(l+1)[k])``;
    * for a neuron provably *dead* (layer 1: ``w = 0, b <= 0``; deeper: incoming weights
      ``<= 0`` and ``b <= 0``): every unit vector of its incoming row and outgoing column
      (at strictly generic points its pre-activation is ``< 0``, so those columns vanish).

    Returns the vectors and the neurons found (JSON-ready). ``D - rank`` of the vectors is a
    proved upper bound on the functional dimension, also when some incoming rows are zero.
    """
    D = net.num_parameters
    vecs: list[list[fmpq]] = []
    found: list[dict] = []
    zero = fmpq(0)
    for l in range(1, net.depth):
        W, b = net.weights(l), net.biases(l)
        Wn, bn = net.weights(l + 1), net.biases(l + 1)
        for i in range(net.architecture[l]):
            v = [zero] * D
            for j, w in enumerate(W[i]):
                v[net.parameter_index(l, i, j)] = w
            v[net.parameter_index(l, i, None)] = b[i]
            for k in range(len(Wn)):
                v[net.parameter_index(l + 1, k, i)] = -Wn[k][i]
            vecs.append(v)
            nonneg = all(w >= 0 for w in W[i]) if l > 1 else all(w == 0 for w in W[i])
            nonpos = all(w <= 0 for w in W[i]) if l > 1 else all(w == 0 for w in W[i])
            if nonneg and b[i] > 0:
                v = [zero] * D
                v[net.parameter_index(l, i, None)] = fmpq(1)
                for k in range(len(Wn)):
                    v[net.parameter_index(l + 1, k, None)] = -Wn[k][i]
                vecs.append(v)
                found.append({"layer": l, "index": i, "name": neuron_label(l, i), "reason": "stably-active",
                              "scope": "structural"})
            elif nonpos and b[i] <= 0:
                coords = [net.parameter_index(l, i, j) for j in range(len(W[i]))]
                coords.append(net.parameter_index(l, i, None))
                coords += [net.parameter_index(l + 1, k, i) for k in range(len(Wn))]
                for c in coords:
                    v = [zero] * D
                    v[c] = fmpq(1)
                    vecs.append(v)
                found.append({"layer": l, "index": i, "name": neuron_label(l, i), "reason": "dead",
                              "scope": "structural"})
    return vecs, found


@dataclass
class FdimResult:
    """The exact functional dimension (or a proved lower bound) with everything that proves it."""

    functional_dimension: int | None  # None when status is "undefined"
    status: str  # "exact", "lower-bound" or "undefined" (no strictly generic input exists)
    bound: int
    parameters: int
    hidden_neurons: int
    points: list[list[fmpq]]
    point_source: str
    complete: bool
    locally_identifiable: bool
    deficient: list[dict]
    rank: RankResult
    rows_per_point: int
    seconds: float
    upper_bound: int = 0
    note: str = ""

    def certificate_points(self) -> list[list[fmpq]]:
        """The points whose Jacobian rows carry the nonzero ``(D-N) x (D-N)`` minor."""
        m = self.rows_per_point
        idx = sorted({r // m for r in self.rank.rows})
        return [self.points[k] for k in idx]

    def to_json(self) -> dict:
        from .qq import q_str

        return {
            "functional_dimension": self.functional_dimension,
            "status": self.status,
            "bound": self.bound,
            "upper_bound": self.upper_bound,
            "parameters": self.parameters,
            "hidden_neurons": self.hidden_neurons,
            "points": len(self.points),
            "point_source": self.point_source,
            "complete": self.complete,
            "locally_identifiable": self.locally_identifiable,
            "deficient_neurons": self.deficient,
            "rank_method": self.rank.method,
            "prime": self.rank.prime,
            "minor_points": [[q_str(v) for v in p] for p in self.certificate_points()] if self.locally_identifiable else [],
            "seconds": round(self.seconds, 4),
            "note": self.note,
        }


def functional_dimension(
    net: Network,
    use_regions: bool = True,
    max_cells: int | None = 20000,
    timeout: float | None = 60.0,
    max_points: int | None = None,
    seed: int = 0,
) -> FdimResult:
    """The exact functional dimension at ``theta`` (see the module docstring for the definition).

    Points come from the exact complex when :mod:`exactnet.regions` is available and
    within ``max_cells``/``timeout``; otherwise from a first batch of ``2 D`` standard
    Gaussian points, then batches alternating between
    :func:`random_line_points` and :func:`generic_random_points` (spreads
    ``FALLBACK_SPREADS``) until the rank reaches the proved upper bound, or six batches in a row add
    nothing, or ``max_points`` (default ``6 D``) points were used; the result is then
    labelled ``"lower-bound"`` unless it reaches the proved upper bound.
    """
    t0 = time.perf_counter()
    D, N = net.num_parameters, net.num_hidden
    zero_in = zero_incoming_rows(net)
    bound_valid = not zero_in
    bound = D - N
    kvecs, structural = structural_kernel(net)
    kr = certified_rank(kvecs, D) if kvecs else None
    upper = D - (kr.rank if kr else 0)  # proved: rank <= upper
    m = net.output_dim
    ps: PointSet | None = None
    note = ""
    if use_regions and _have_regions():
        try:
            ps = points_from_regions(net, max_cells=max_cells, timeout=timeout)
        except LimitError as e:
            note = f"regions over budget ({e}); "
        except Exception as e:  # a failure of the region engine: fall back, never guess
            note = f"region enumeration failed ({type(e).__name__}: {e}); "
    if ps is not None:  # complete complex (possibly without any strictly generic point)
        # Guard against an incomplete complex: every generic sample point's pattern must be
        # a region's pattern. A miss adds its points and withdraws the claim "complete".
        known = set(ps.region_patterns)
        for k, sp in enumerate((1.0, 16.0)):
            for x in generic_random_points(net, max(8, D // 2), seed=seed * 1000 + 500 + k, spread=sp):
                pat = net.pattern(x)
                if pat not in known:
                    known.add(pat)
                    ps.complete = False
                    fam = [x] + neighbour_points(net, x)
                    ps.points.extend(fam)
                    ps.patterns.extend([pat] * len(fam))
                    ps.region_patterns.append(pat)
        if not ps.complete:
            note += "the region complex missed patterns found by sample points (result is a lower bound); "
        if not ps.points:
            note += ("undefined: no strictly generic input (at every input some hidden pre-activation is 0, "
                     "e.g. a zero incoming row), so theta -> f_theta(z) is differentiable at no z; ")
        rows = stacked_jacobian(net, ps.points)
        rr = certified_rank(rows, D, upper_bound=upper)
        exact = rr.exact and (ps.complete or rr.rank == upper)
        status = "exact" if exact else "lower-bound"
        pts = ps.points
        deficient = deficient_neurons(net, ps.region_patterns, exact=ps.complete)
        note += ps.note
    else:
        # Fallback: batches of generic points; keep only the mod-p basis rows between batches.
        limit = max_points if max_points is not None else 6 * D
        pts = []
        all_rows: list[list[fmpq]] = []
        all_int: list[list[int]] = []
        patterns = []
        basis: list[int] = []  # indices into all_rows, independent mod p
        r = 0
        k = 0
        stale = 0
        p = PRIMES[0]
        while len(pts) < limit and r < upper and stale < 6:
            want = min(max(upper - r + 4, D // 4, 8), limit - len(pts))
            if k == 0:
                batch = generic_random_points(net, 2 * D, seed=seed * 1000, spread=1.0)
            elif k % 2 == 0:
                batch = random_line_points(net, want, seed=seed * 1000 + k)
            else:
                batch = generic_random_points(net, want, seed=seed * 1000 + k, spread=FALLBACK_SPREADS)
            k += 1
            if not batch:
                break
            brows = stacked_jacobian(net, batch)
            first = len(all_rows)
            all_rows.extend(brows)
            all_int.extend(integer_rows(brows))
            cand = basis + list(range(first, len(all_rows)))
            r_new, R, _ = rank_mod_p([all_int[i] for i in cand], D, p)
            stale = stale + 1 if r_new == r else 0
            r = r_new
            basis = [cand[i] for i in R]
            pts.extend(batch)
            patterns.extend(net.pattern(x) for x in batch)
        rb, Rb, Cb = rank_mod_p([all_int[i] for i in basis], D, p)
        rows_sel = tuple(basis[i] for i in Rb)
        if rb > upper:  # pragma: no cover - would contradict the proved bound
            raise ArithmeticError("rank above the proved upper bound")
        rr = RankResult(rb, rb == upper, rows_sel, tuple(Cb), p,
                        "minor=bound" if rb == upper else "minor", upper)
        exact = rr.rank == upper
        status = "exact" if exact else "lower-bound"
        deficient = deficient_neurons(net, patterns, exact=False)
        src = "regions not used" if not _have_regions() or not use_regions else "regions over budget or failed"
        note += f"{src}: {len(pts)} points of the documented lines-and-points scheme"
        ps = PointSet(pts, patterns, "random-generic", False)
    li = bound_valid and rr.rank == bound and bool(pts)
    fd: int | None = rr.rank
    if not pts and ps.complete:
        status, fd = "undefined", None
    have = {(d["layer"], d["index"], d["reason"]) for d in deficient}
    deficient = [d for d in structural if (d["layer"], d["index"], d["reason"]) not in have] + deficient
    deficient.sort(key=lambda d: (d["layer"], d["index"], d["reason"]))
    if upper < bound:
        note += f"; structural kernel gives the proved upper bound {upper} < D - N"
    if not bound_valid:
        note += "; zero incoming rows: " + ", ".join(neuron_label(l, i) for l, i in zero_in) + " (bound D - N not proved)"
    return FdimResult(
        functional_dimension=fd,
        status=status,
        bound=bound,
        parameters=D,
        hidden_neurons=N,
        points=pts,
        point_source=ps.source,
        complete=ps.complete,
        locally_identifiable=li,
        deficient=deficient,
        rank=rr,
        rows_per_point=m,
        seconds=time.perf_counter() - t0,
        upper_bound=upper,
        note=note,
    )


def local_identifiability_body(net: Network, res: FdimResult) -> list[str]:
    """Body lines of a LOCALLY-IDENTIFIABLE certificate (``proofs/spec-1.0.md``).

    The points are those carrying the selected nonzero ``(D-N) x (D-N)`` minor; the minor
    hint (rows of the stacked Jacobian at those points, parameter columns, determinant) is
    included so that the checker computes one determinant instead of a rank.
    """
    from .certificate import locally_identifiable_body

    m = res.rows_per_point
    idx = sorted({r // m for r in res.rank.rows})
    pos = {k: n for n, k in enumerate(idx)}
    pts = [res.points[k] for k in idx]
    rows = [pos[r // m] * m + r % m for r in res.rank.rows]
    return locally_identifiable_body(net, pts, rows=rows, cols=list(res.rank.cols))


def certify_local(net: Network, **kw) -> "CertifyResult":  # noqa: F821
    """``LOCALLY-IDENTIFIABLE`` with its certificate when the rank is ``D - N``, else ``UNDECIDED``."""
    from .certify import CertifyResult

    res = functional_dimension(net, **kw)
    details = {"functional_dimension": res.functional_dimension, "bound": res.bound}
    if not res.locally_identifiable:
        why = [f"Jacobian rank {res.functional_dimension} ({res.status}) below D - N = {res.bound}"]
        if res.deficient:
            why.append("deficient neurons: " + ", ".join(f"{d['name']} {d['reason']}" for d in res.deficient))
        return CertifyResult("UNDECIDED", None, "; ".join(why), details=details)
    if importlib.util.find_spec("exactnet.certificate") is None:
        return CertifyResult("UNDECIDED", None, "rank D - N reached, but the certificate writer is not available",
                             details=details)
    from .certificate import write_certificate

    text = write_certificate("LOCALLY-IDENTIFIABLE", net, local_identifiability_body(net, res))
    return CertifyResult(
        "LOCALLY-IDENTIFIABLE", "LOCALLY-IDENTIFIABLE",
        f"Jacobian rank {res.bound} = D - N at {len(res.certificate_points())} points inside activation regions",
        certificate=text, details=details,
    )
