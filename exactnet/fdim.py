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

**How the value is found (fast path first).** (1) A proved upper bound ``U``: ``D`` minus the
rank modulo a prime of the vectors of :func:`structural_kernel` (a lower bound of their
rank, so ``U`` is a valid bound). (2) Sampled points (:func:`sample_batch`: Gaussian points
of several spreads and random lines), patterns computed exactly, Jacobian rows computed
modulo a prime ``p < 2^31`` (:class:`ModularJacobian`), rank modulo ``p`` grown batch by batch
(:class:`exactnet.modrank.RowBasisModP`; the chosen rows are re-checked by ``nmod_mat`` at the
end): a nonzero minor modulo ``p`` is a nonzero rational minor, so the rank is a proved lower
bound; when it equals ``U`` it is exact and no region is needed. (2b) Still below ``U``: a
*directed search* (:mod:`exactnet.fdim_ascent`) for the hidden neurons never / always active on the
sample, the adjacent pairs never active together and (one output) the last-hidden-layer pairs never
seen with opposite signs where a neuron of the layer below is active (the candidates of (3)'s
"same activation" facts): float subgradient ascent of their margins proposes points, exact
evaluation keeps those that satisfy a goal (rounds while the rank grows, at most
``ascent_rounds``; a round that adds nothing is retried once at the larger effort of
:data:`ASCENT_EFFORTS`). A deep neuron's active set can be large yet missed by every Gaussian
point and line; only raises the lower bound. Every point it finds also removes a false candidate
fact before (3) spends LP budget on it. (3) Otherwise the hidden neurons never /
always active on the sample, and the adjacent pairs never both active, are proved (or
refuted, with a witness point that joins the sample) by :func:`prove_constant_signs` and
:func:`prove_never_coactive`: branch and bound over activation phases, each leaf closed by
exact nonnegative LP multipliers (float LPs only propose the support; the identity is
solved and re-checked in ``fmpq``, for all the leaves of a tree once every one of them closes
in floats, :func:`exactnet.phase_tree.confirm_leaves`; the node LPs of one proof share one
warm-started HiGHS model, :mod:`exactnet.phase_lp`; three passes of growing node limits, the last
one cut by the phase's CPU budget; each pass goes on from the trees the pass before left open,
:func:`exactnet.phase_tree.resume_tree`);
a refutation point is proposed deep inside the activation pattern of the LP's point
(:func:`_pattern_witness`: that pattern frozen, a float LP maximizes the smallest margin) and
kept only if exact evaluation confirms it. Proved facts add kernel vectors and lower ``U``.
(3b) Still below ``U``: *affine relations where a neuron is active*
(:func:`relation_candidates`, :func:`prove_relations_where_active`). The sample proposes
``c`` with ``sum_j c_j h_(l-1,j)(x) + c_last = 0`` at the sampled ``x`` where ``z_(l,i)(x) > 0``
(the exact null space of those rows); two branch-and-bound proofs show that no ``x`` has
``z_(l,i) > 0`` and the left side ``> 0`` (or ``< 0``). Then ``c`` on the incoming coordinates of
``(l,i)`` is a kernel vector, since ``J(x) v = (d f / d z_(l,i))(x) (sum_j c_j h_(l-1,j)(x) + c_last)``
and the first factor is 0 where ``z_(l,i) < 0`` (it generalises the never-both-active pairs and
the mixing of stably active neurons to neurons that share an active set). A refuted proposal
yields an exact point where the relation fails: it joins the sample, which often lifts the
lower bound to ``U`` (up to three rounds). Also in (3): a neuron whose every successor is
irrelevant or never active together with it is irrelevant, and a neuron proved active
wherever a successor that matters is active (:func:`prove_active_where_needed`) gets the bias
shift of a stably active neuron.
(3c) Still below ``U``: *sensitivity relations on a column* (:mod:`exactnet.fdim_columns`): the
weights out of one neuron along a direction ``v`` with ``sum_i v_i d f/d z_(l,i) = 0`` wherever
that neuron is active, proved by branch and bound over the patterns of the upper layers.
A candidate fact of (3)-(3c) that its CPU budget leaves neither proved nor refuted is not used;
when the answer stays an interval, ``FdimResult.undecided`` names each one (the reason for the gap).
(3d) Still below ``U``: the *crossing walk* (:func:`crossing_points`): sampled points (the LP
witnesses included) stepped just across their nearest bent hyperplanes, proposals in float64
whose patterns are then computed exactly; it finds small regions next to seen ones that
Gaussian points and lines miss, and only raises the lower bound. (3e) Still below ``U``: up to
``resample_rounds`` fresh batches from other seeds (Gaussian points and lines), each with one walk
round from its points; a thin region that one seed's sample and walks missed is often met from
another start (off when ``max_points`` is given: that caps the sample).
(4) Only if the rank still stays below ``U``, and ``use_regions``: the exact complex of
:mod:`exactnet.regions` (within ``max_cells``/``timeout``); when it is complete its points
give the exact rank over Q. Otherwise the answer is labelled ``"lower-bound"`` with both
bounds (``functional_dimension <= upper_bound``).
"""

from __future__ import annotations

import contextvars
import importlib.util
import random
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

from flint import fmpq

from .errors import LimitError, UndecidedError
from .modrank import (
    SMALL_PRIMES,
    nullspace_basis,
    RankResult,
    certified_rank,
    RowBasisModP,
    independent_columns_mod_p,
    matmul_mod_p,
    rank_rows_mod_p,
    residue,
)
from .fdim_ascent import ascent_points
from .network import Network, relu
from .phase_lp import PhaseLP
from .phase_tree import DONE, TREES, next_node, resume_tree, save_tree
from .qq import q_to_float

__all__ = [
    "PointSet",
    "FdimResult",
    "points_from_regions",
    "prove_relations_where_active",
    "prove_active_where_needed",
    "irrelevant_with_pairs",
    "relation_candidates",
    "relation_vectors",
    "scaled_to_unit",
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
    "HINT_MAX_RANK",
    "FALLBACK_SPREADS",
    "SAMPLE_SPREADS",
    "line_points",
    "random_line_points",
    "crossing_points",
    "ModularJacobian",
    "sign_facts",
    "sample_batch",
    "prove_constant_signs",
    "prove_never_coactive",
    "prove_same_where_active",
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
        out.append([ai + t * di for ai, di in zip(a, d)])
    return _strictly_generic(net, out)


def _strictly_generic(net: Network, xs: list[list[fmpq]]) -> list[list[fmpq]]:
    """The points of ``xs`` where no hidden pre-activation is 0 (exact, one batch), in order."""
    zs = net.preactivations_batch(xs)
    return [x for x, z in zip(xs, zs) if all(v != 0 for layer in z[:-1] for v in layer)]


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


def crossing_points(net: Network, points: Sequence[Sequence[fmpq]], per_point: int = 4, seed: int = 0,
                    grid: int = 1 << 20) -> list[list[fmpq]]:
    """Proposals in the regions next to ``points``: each point stepped across its nearest bent hyperplanes.

    A walk in the activation complex without computing it. For each point ``x`` the hidden
    pre-activations ``z_i`` and their gradients ``g_i = d z_i / d x`` on ``x``'s region are
    computed in float64; the ``per_point`` neurons with the smallest ``|z_i| / |g_i|`` (the
    nearest walls) each give ``x - (1 + delta) z_i g_i / |g_i|^2`` (``delta`` in
    ``{0.01, 0.1, 0.5}`` from ``random.Random(seed)``): just across the wall, in the region
    behind it when that region is not too thin. Rounded to the ``1/grid`` lattice. Floats only
    propose: the caller computes every pattern exactly and drops points that are not strictly
    generic. Regions that Gaussian samples miss are small or narrow, and many of them touch
    regions the sample has seen (the motivating case: a (5,5,5,5,5,5,1) network whose exact
    complex has rank 106 where 775 Gaussian and line points reach 102; one round of
    crossings reaches 105, the third 106).
    """
    import numpy as np

    if not points:
        return []
    rng = random.Random(seed)
    X = np.array([[q_to_float(v) for v in x] for x in points], dtype=float)
    n, n0 = X.shape
    H, G = X, np.repeat(np.eye(n0)[None, :, :], n, axis=0)
    zs, gs = [], []
    for l in range(1, net.depth):
        W = np.array([[q_to_float(v) for v in row] for row in net.weights(l)], dtype=float)
        b = np.array([q_to_float(v) for v in net.biases(l)], dtype=float)
        Z = H @ W.T + b
        GZ = np.einsum("kj,njd->nkd", W, G)
        zs.append(Z)
        gs.append(GZ)
        on = Z > 0
        H, G = Z * on, GZ * on[:, :, None]
    Z, GZ = np.concatenate(zs, axis=1), np.concatenate(gs, axis=1)
    norm2 = np.einsum("nkd,nkd->nk", GZ, GZ)
    with np.errstate(divide="ignore", invalid="ignore"):
        dist = np.where(norm2 > 1e-24, np.abs(Z) / np.sqrt(norm2), np.inf)
    out: list[list[fmpq]] = []
    for k in range(n):
        for i in np.argsort(dist[k])[:per_point]:
            if not np.isfinite(dist[k, i]):
                break
            y = X[k] - (1.0 + rng.choice((0.01, 0.1, 0.5))) * Z[k, i] / norm2[k, i] * GZ[k, i]
            if np.all(np.isfinite(y)):
                out.append([fmpq(int(round(v * grid)), grid) for v in y])
    return out


def stacked_jacobian(net: Network, points: Sequence[Sequence[fmpq]]) -> list[list[fmpq]]:
    """Rows ``d f_theta(z)/d theta`` for every point and output coordinate (pattern frozen)."""
    rows: list[list[fmpq]] = []
    for z in points:
        J = net.parameter_jacobian(z).tolist()
        rows.extend(J)
    return rows


# ----------------------------------------------------------------- modular Jacobian
class ModularJacobian:
    """Exact activation patterns of a batch of points, then the Jacobian rows modulo a prime ``p``.

    *Patterns (exact).* The signs of the integer pre-activations of
    :meth:`exactnet.fasteval.ClearedNetwork.integer_preactivations` (homogeneous integer columns,
    one positive denominator per point, so the signs are those of the true pre-activations).

    *Rows modulo p.* The entries of ``J(z)`` are polynomials in the weights and in ``z``
    (pattern frozen), so their residues are computed from the residues of the weights and of
    the point (:func:`exactnet.modrank.residue`, requires ``p`` prime to every denominator):
    forward ``h_l = P_l (W_l h_(l-1) + b_l)``, backward ``c_l = P_l W_(l+1)^T c_(l+1)`` and
    the blocks ``c_l h_(l-1)^T`` and ``c_l``, all in ``numpy.int64`` modulo ``p < 2^31``.
    A minor nonzero modulo ``p`` is then a nonzero rational minor (:mod:`exactnet.modrank`).
    """

    def __init__(self, net: Network, p: int | None = None) -> None:
        import numpy as np

        self.net = net
        self._np = np
        for q in ([p] if p is not None else SMALL_PRIMES):
            ws = [[[residue(v, q) for v in row] for row in layer.weights] for layer in net.layers]
            bs = [[residue(v, q) for v in layer.biases] for layer in net.layers]
            if all(v is not None for M in ws for row in M for v in row) and all(
                    v is not None for b in bs for v in b):
                self.p = q
                self.W = [np.array(M, dtype=np.int64).reshape(len(M), -1) for M in ws]
                self.b = [np.array(b, dtype=np.int64) for b in bs]
                break
        else:  # pragma: no cover - four primes near 2^31 all divide a denominator
            raise LimitError("every small prime divides a denominator of the weights")
        if max(net.architecture) >= 1 << 15:  # pragma: no cover - the documented limit (matmul_mod_p allows 2^21)
            raise LimitError("layers wider than 32767 are not supported by the modular Jacobian")

    def patterns(self, points: Sequence[Sequence[fmpq]]):
        """``(masks, strict)``: ``masks[l-1]`` the ``n_l x K`` boolean pattern of layer ``l``; ``strict[k]``
        is True when no hidden pre-activation vanishes at point ``k`` (all exact)."""
        np = self._np
        K = len(points)
        hidden = self.net.cleared_network().integer_preactivations(points)[:-1] if K else \
            [([[] for _ in range(n)], []) for n in self.net.architecture[1:-1]]
        masks = []
        strict = np.ones(K, dtype=bool)
        for Zz, _ in hidden:
            M = np.array([[v > 0 for v in row] for row in Zz], dtype=bool).reshape(len(Zz), K)
            strict &= ~np.array([[v == 0 for v in row] for row in Zz], dtype=bool).reshape(len(Zz), K).any(axis=0)
            masks.append(M)
        return masks, strict

    def point_residues(self, points: Sequence[Sequence[fmpq]]):
        """Residues of the points (``K x n0``), and the indices of the points whose denominators are prime to ``p``."""
        np = self._np
        res, ok = [], []
        for k, x in enumerate(points):
            r = [residue(v, self.p) for v in x]
            if all(v is not None for v in r):
                res.append(r)
                ok.append(k)
        return np.array(res, dtype=np.int64).reshape(len(res), self.net.input_dim), ok

    def rows(self, X, masks):
        """``(K m) x D`` residues of the stacked Jacobian: row ``k m + o`` is ``d f_o(x_k) / d theta``."""
        np = self._np
        p, L, m = self.p, self.net.depth, self.net.output_dim
        K = X.shape[0]
        H = [X.T.copy()]
        for l in range(L - 1):
            Z = (matmul_mod_p(self.W[l], H[-1], p) + self.b[l][:, None]) % p
            H.append(Z * masks[l])
        blocks_per_o = []
        for o in range(m):
            cs = [None] * L
            c = np.zeros((m, K), dtype=np.int64)
            c[o] = 1
            cs[L - 1] = c
            for l in range(L - 2, -1, -1):
                cs[l] = matmul_mod_p(self.W[l + 1].T.copy(), cs[l + 1], p) * masks[l]
            blocks = []
            for l in range(L):
                blocks.append((cs[l].T[:, :, None] * H[l].T[:, None, :] % p).reshape(K, -1))
                blocks.append(cs[l].T)
            blocks_per_o.append(np.concatenate(blocks, axis=1))
        return np.stack(blocks_per_o, axis=1).reshape(K * m, -1)


# ----------------------------------------------------------------- structural facts
def zero_incoming_rows(net: Network) -> list[tuple[int, int]]:
    """Hidden neurons ``(l, i)`` (``i`` from 0) whose incoming row ``(w, b)`` is zero."""
    out = []
    for l in range(1, net.depth):
        for i, (row, b) in enumerate(zip(net.weights(l), net.biases(l))):
            if b == 0 and all(w == 0 for w in row):
                out.append((l, i))
    return out


def _reason_list(net: Network, seen: dict, scope: str) -> list[dict]:
    zero_in = set(zero_incoming_rows(net))
    out = []
    for l in range(1, net.depth):
        nxt = net.weights(l + 1)
        for i in range(net.architecture[l]):
            reasons = []
            if (l, i) in zero_in:
                reasons.append("zero-incoming-row")
            elif (l, i) in seen:
                bits = seen[(l, i)]
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


def deficient_neurons(net: Network, patterns: Sequence[Sequence[Sequence[int]]], exact: bool) -> list[dict]:
    """Dead / stably active / zero-row / zero-column neurons, as JSON-ready dicts.

    ``patterns``: the patterns of every region (``exact=True``) or of the sample
    (``exact=False``, then ``scope`` is ``"observed"``).
    """
    seen: dict = {}
    if patterns:
        for l in range(1, net.depth):
            for i in range(net.architecture[l]):
                seen[(l, i)] = {p[l - 1][i] for p in patterns}
    return _reason_list(net, seen, "all-regions" if exact else "observed")


def _deficient_observed(net: Network, obs_any, obs_all) -> list[dict]:
    """:func:`deficient_neurons` of a sample given per layer which neurons were ever / always active."""
    seen: dict = {}
    for l, (anyv, allv) in enumerate(zip(obs_any, obs_all), start=1):
        for i in range(len(anyv)):
            seen[(l, i)] = {0} if not anyv[i] else ({1} if allv[i] else {0, 1})
    return _reason_list(net, seen, "observed")


def sign_facts(net: Network, proved_dead: frozenset = frozenset(),
               proved_active: frozenset = frozenset()) -> tuple[set, set, set, set]:
    """``(dead, active, zero, irrelevant)`` hidden neurons ``(l, i)`` proved from the weights alone.

    By induction over the layers, on all of ``R^n0``: *dead* (``h_(l,i) = 0`` everywhere): layer 1 with
    ``w = 0, b < 0``; deeper with ``W[i, j] <= 0`` for every input ``j`` not dead and ``b <= 0`` (the
    inputs are ``>= 0``). *Stably active* (pre-activation ``>= b > 0`` everywhere): ``w = 0, b > 0`` in
    layer 1, ``W[i, j] >= 0`` on the inputs not dead and ``b > 0`` deeper. *Zero* (pre-activation
    ``= 0`` everywhere, so no input is strictly generic): ``b = 0`` and ``W[i, j] = 0`` on the inputs not
    dead. *Irrelevant* (downstream sensitivity ``c_(l,i) = 0`` at every strictly generic input): dead,
    or every ``k`` with ``W_(l+1)[k, i] != 0`` is an irrelevant hidden neuron.

    ``proved_dead`` / ``proved_active``: neurons proved by :func:`prove_constant_signs` to have
    pre-activation ``<= 0`` / ``>= 0`` on all of ``R^n0``; they join the induction.
    """
    L, A = net.depth, net.architecture
    dead: set = set()
    active: set = set()
    zero: set = set()
    for l in range(1, L):
        W, b = net.weights(l), net.biases(l)
        for i in range(A[l]):
            live = [W[i][j] for j in range(A[l - 1]) if (l - 1, j) not in dead and W[i][j] != 0] if l > 1 else \
                [w for w in W[i] if w != 0]
            if (l, i) in proved_dead:
                dead.add((l, i))
                continue
            if (l, i) in proved_active:
                active.add((l, i))
                continue
            if l == 1 and live:
                continue
            if not live and b[i] == 0:
                zero.add((l, i))
            elif all(v <= 0 for v in live) and b[i] <= 0:
                dead.add((l, i))
            elif all(v >= 0 for v in live) and b[i] > 0:
                active.add((l, i))
    irr: set = set(dead)
    for l in range(L - 1, 0, -1):
        Wn = net.weights(l + 1)
        for i in range(A[l]):
            if all(Wn[k][i] == 0 or (l + 1 < L and (l + 1, k) in irr) for k in range(A[l + 1])):
                irr.add((l, i))
    return dead, active, zero, irr


def irrelevant_with_pairs(net: Network, irrelevant, never_coactive) -> set:
    """``irrelevant`` plus the hidden neurons whose every successor ``k`` (``W_(l+1)[k,i] != 0``) is
    irrelevant or never active together with them (``((l+1,k), (l,i))`` in ``never_coactive``)."""
    irr, A = set(irrelevant), net.architecture
    for l in range(net.depth - 2, 0, -1):
        Wn = net.weights(l + 1)
        for i in range(A[l]):
            if all(Wn[k][i] == 0 or (l + 1, k) in irr or ((l + 1, k), (l, i)) in never_coactive
                   for k in range(A[l + 1])):
                irr.add((l, i))
    return irr


def structural_kernel(net: Network, proved_dead: frozenset = frozenset(),
                      proved_active: frozenset = frozenset(),
                      never_coactive: frozenset = frozenset(),
                      same_where_active: frozenset = frozenset(),
                      active_where_needed: frozenset = frozenset()) -> tuple[list[list[fmpq]], list[dict]]:
    """Vectors proved to lie in the kernel of every row ``J(z)``, ``z`` in ``Z_theta``.

    With the facts of :func:`sign_facts`:

    * the scaling tangent ``v_(l,i)`` of every hidden neuron (always in the kernel);
    * unit vectors of the parameters whose column is identically zero on ``Z_theta``:
      ``d f/d W_l[i,j] = c_(l,i) h_(l-1,j)`` and ``d f/d b_l[i] = c_(l,i)`` vanish when ``(l,i)``
      is irrelevant (``c = 0``), and ``d f/d W_l[i,j]`` when ``(l-1,j)`` is dead (``h = 0``) or when
      ``((l,i), (l-1,j))`` is in ``never_coactive`` (proved: never both pre-activations ``> 0``; at a
      strictly generic point one of ``c_(l,i)`` and ``h_(l-1,j)`` is then 0);
    * for the set ``S`` of stably active neurons of a layer (active at every strictly generic
      point): the bias shift ``e_(b_l[a]) - sum_k W_(l+1)[k,a] e_(b_(l+1)[k])`` of each ``a`` in ``S``,
      and for ``a != a'`` in ``S`` the mixing tangent (row ``a`` of ``(W_l, b_l)`` plus ``t`` times row
      ``a'``, column ``a'`` of ``W_(l+1)`` minus ``t`` times column ``a``): with the pattern frozen
      and both neurons active, ``W_(l+1)[:,a] (z_a + t z_a') + (W_(l+1)[:,a'] - t W_(l+1)[:,a]) z_a'``
      does not depend on ``t``, so the frozen-pattern function is constant along it.

    * a hidden neuron is irrelevant also when every ``k`` with ``W_(l+1)[k,i] != 0`` is irrelevant
      or ``((l+1,k), (l,i))`` is in ``never_coactive`` (where ``z_(l,i) > 0`` at a strictly generic
      point, ``z_(l+1,k) < 0``, so ``c_(l,i) = 0`` there; elsewhere the ReLU's derivative is 0);
      its incoming coordinates then have zero columns;
    * for ``(l, a)`` in ``active_where_needed`` (proved by :func:`prove_active_where_needed`: for every
      ``k`` with ``W_(l+1)[k,a] != 0``, ``(l+1,k)`` is irrelevant or no ``x`` has ``z_(l+1,k) > 0`` and
      ``z_(l,a) < 0``) the bias shift of ``a`` as for a stably active neuron:
      ``J v = -[z_(l,a) < 0] sum_k W_(l+1)[k,a] c_(l+1,k) = 0``;
    * for ``(a, b, j)`` in ``same_where_active`` (one output, ``a, b`` in the last hidden layer ``L-1``,
      ``j`` in layer ``L-2``; proved: ``a`` and ``b`` have the same activation wherever ``j`` is
      active): ``W_L[0,b] e_(W_(L-1)[a,j]) - W_L[0,a] e_(W_(L-1)[b,j])``, since
      ``J v = h_j W_L[0,a] W_L[0,b] ([a active] - [b active]) = 0``.

    Returns the vectors and the neurons found (JSON-ready). ``D`` minus the rank of the vectors
    (any lower bound of that rank, e.g. modulo a prime) is a proved upper bound on the
    functional dimension, also when some incoming rows are zero.
    """
    D, L, A = net.num_parameters, net.depth, net.architecture
    dead, active, zero_n, irr = sign_facts(net, proved_dead, proved_active)
    irr_lp = irrelevant_with_pairs(net, irr, never_coactive) - irr
    irr |= irr_lp
    vecs: list[list[fmpq]] = []
    found: list[dict] = []
    zero = fmpq(0)
    one = fmpq(1)

    def unit(c: int) -> None:
        v = [zero] * D
        v[c] = one
        vecs.append(v)

    for l in range(1, L + 1):
        for i in range(A[l]):
            hidden = l < L
            for j in range(A[l - 1]):
                if (hidden and (l, i) in irr) or (l > 1 and (l - 1, j) in dead) or \
                        ((l, i), (l - 1, j)) in never_coactive:
                    unit(net.parameter_index(l, i, j))
            if hidden and (l, i) in irr:
                unit(net.parameter_index(l, i, None))
    for l in range(1, L):
        W, b = net.weights(l), net.biases(l)
        Wn = net.weights(l + 1)
        for i in range(A[l]):
            v = [zero] * D
            for j, w in enumerate(W[i]):
                v[net.parameter_index(l, i, j)] = w
            v[net.parameter_index(l, i, None)] = b[i]
            for k in range(len(Wn)):
                v[net.parameter_index(l + 1, k, i)] = -Wn[k][i]
            vecs.append(v)
        S = [i for i in range(A[l]) if (l, i) in active]
        for a in S:
            v = [zero] * D
            v[net.parameter_index(l, a, None)] = one
            for k in range(len(Wn)):
                v[net.parameter_index(l + 1, k, None)] = -Wn[k][a]
            vecs.append(v)
            for a2 in S:
                if a2 == a:
                    continue
                v = [zero] * D
                for j in range(A[l - 1]):
                    v[net.parameter_index(l, a, j)] = W[a2][j]
                v[net.parameter_index(l, a, None)] = b[a2]
                for k in range(len(Wn)):
                    v[net.parameter_index(l + 1, k, a2)] = -Wn[k][a]
                vecs.append(v)
    for l, a in active_where_needed:  # the bias shift of a neuron active wherever a successor is
        v = [zero] * D
        v[net.parameter_index(l, a, None)] = one
        for k, w in enumerate(net.weights(l + 1)):
            v[net.parameter_index(l + 1, k, None)] = -w[a]
        vecs.append(v)
    for a, b, j in same_where_active:
        v = [zero] * D
        WL = net.weights(L)[0]
        v[net.parameter_index(L - 1, a, j)] = WL[b]
        v[net.parameter_index(L - 1, b, j)] = -WL[a]
        vecs.append(v)
    for l in range(1, L):
        for i in range(A[l]):
            for name, group in (("stably-active", active), ("dead", dead), ("identically-zero", zero_n)):
                if (l, i) in group:
                    proved = (l, i) in proved_dead or (l, i) in proved_active
                    found.append({"layer": l, "index": i, "name": neuron_label(l, i), "reason": name,
                                  "scope": "proved-lp" if proved else "structural"})
            if (l, i) in irr and (l, i) not in dead and any(net.weights(l + 1)[k][i] != 0 for k in range(A[l + 1])):
                found.append({"layer": l, "index": i, "name": neuron_label(l, i), "reason": "no-path-to-output",
                              "scope": "proved-lp" if (l, i) in irr_lp else "structural"})
    return vecs, found


def _kernel_rank_lower(vecs: list[list[fmpq]], D: int) -> int:
    """A lower bound of the rank of the kernel vectors (their rank modulo a prime)."""
    if not vecs:
        return 0
    import numpy as np

    for p in SMALL_PRIMES:
        res = [[residue(v, p) for v in row] for row in vecs]
        if all(v is not None for row in res for v in row):
            return rank_rows_mod_p(np.array(res, dtype=np.int64).reshape(len(vecs), D), p)[0]
    return certified_rank(vecs, D).rank  # pragma: no cover - denominators divisible by every prime


# ----------------------------------------------------------------- constant signs by LP
def _multiplier_system(G, c, S, infeasible: bool):
    """The matrix ``M`` whose columns are ``G_S``'s rows and ``-c`` (feasible form) or, with a last row of ones
    for ``sum lam = 1``, ``G_S``'s rows and ``0`` (empty form): ``M (lam, -1) = 0`` is the identity to solve."""
    from flint import fmpq_mat

    n, zero, one = len(G[0]), fmpq(0), fmpq(1)
    if infeasible:  # built by rows, transposed in C
        return fmpq_mat([list(G[k]) + [one] for k in S] + [[zero] * n + [one]]).transpose()
    return fmpq_mat([G[k] for k in S] + [[-x for x in c]]).transpose()


def _rref_solution(E, rank: int, m: int, scan: bool = False):
    """The solution ``lam`` (free entries 0) of the reduced system ``E`` with ``m`` unknowns; None if inconsistent.

    Usually the pivots of rows ``0..rank-1`` are columns ``0..rank-1`` (a row's pivot is its first nonzero entry,
    at column ``i`` or further right), none in the last column: they are read without converting the matrix.
    Otherwise (or with ``scan``) every row's pivot is looked up.
    """
    lam = [fmpq(0)] * m
    if not scan and rank <= m and all(E[i, i] for i in range(rank)):
        for i in range(rank):
            lam[i] = E[i, m]
        return lam
    rows = E.tolist()
    for i in range(rank):
        piv = next(j for j, v in enumerate(rows[i]) if v)
        if piv == m:
            return None  # inconsistent
        lam[piv] = rows[i][-1]
    return lam


def _exact_multipliers(G, g, c, c0, S, infeasible: bool):
    """Exact ``lam >= 0`` supported on ``S`` proving ``c.v + c0 <= 0`` on ``{G v + g >= 0}`` (or emptiness).

    Feasible form: ``G_S^T lam = -c`` and ``c0 + lam.g <= 0``. Empty form: ``G_S^T lam = 0``,
    ``sum lam = 1`` and ``lam.g < 0``. Solved exactly (``fmpq_mat.rref``), then checked.
    """
    from flint import fmpq_mat

    if not S:
        return None
    m, zero = len(S), fmpq(0)
    M = _multiplier_system(G, c, S, infeasible)
    lam = _rref_solution(*M.rref(), m)
    if lam is None:
        return None
    if any(v < 0 for v in lam):
        return None
    # re-check the identity exactly, independently of the elimination: rows . (lam, -1) = 0 says
    # sum_t lam_t G[S_t][j] = -c_j (feasible form) or 0 and sum lam = 1 (empty form), every j
    if any((M * fmpq_mat(m + 1, 1, lam + [fmpq(-1)])).entries()):
        return None
    val = sum((lam[t] * g[k] for t, k in enumerate(S) if lam[t]), zero)
    if infeasible:
        return lam if val < 0 and sum(lam, zero) == 1 else None
    return lam if c0 + val <= 0 else None


def _neuron_never_positive(net: Network, target: tuple[int, int], sign: int, dead: set, active: set,
                           max_nodes: int = 60, partner: tuple[int, int] | None = None, extra=(),
                           relation: Sequence[fmpq] | None = None):
    """Prove ``sign * z_target(x) <= 0`` for every ``x`` in ``R^n0`` (branch and bound, exact dual certificates).

    With ``partner`` (a neuron of the layer below the target's): prove instead that no ``x``
    has ``z_target(x) > 0`` and ``z_partner(x) > 0`` (``sign`` must be 1). In both cases the LP
    maximizes an extra variable ``t`` under ``e(v) - t >= 0`` for each expression ``e``
    required positive; a certificate ``sup t <= 0`` proves that they are never all positive.
    ``extra``: more ``((l, i), sign)`` conditions ``sign * z_(l,i) > 0`` (layers up to the target's).
    ``relation``: one more condition ``sum_j c_j h_(lt-1,j) + c_last > 0`` on the outputs of the
    layer below the target's (``c`` = ``relation``, ``n_(lt-1) + 1`` numbers; ``lt >= 2``).

    Variables ``v = (x, h_k for every hidden neuron k below the target's layer)``. A node fixes
    some neurons active (``h = y >= 0``) or inactive (``h = 0 >= y``); the others are relaxed to
    ``h >= 0, h >= y`` (a superset of the graph of ReLU). Neurons in ``dead`` / ``active`` (already
    proved ``z <= 0`` / ``z >= 0`` everywhere) are fixed. The two children of a node cover it, so
    the leaves cover ``R^n0``; every leaf is closed by exact multipliers (:func:`_exact_multipliers`)
    found from the float LP's duals (floats only propose). Returns ``(True, None)`` when proved,
    ``(False, x)`` with an exact point where ``sign * z > 0`` when one was found, ``(None, None)``
    when undecided within ``max_nodes``. The node LPs are solved by :class:`exactnet.phase_lp.PhaseLP`.
    """
    lt, it = target
    n0 = net.input_dim
    index: dict = {}
    nv = n0
    for l in range(1, lt):
        for i in range(net.architecture[l]):
            index[(l, i)] = nv
            nv += 1
    zero = fmpq(0)

    def affine(l, i):  # y_(l,i) as (coefficients over v, constant)
        a = [zero] * nv
        W, b = net.weights(l)[i], net.biases(l)[i]
        for j, w in enumerate(W):
            if w:
                a[j if l == 1 else index[(l - 1, j)]] = w
        return a, b

    Y = {k: affine(*k) for k in index}
    tgt = [affine(lt, it)]
    tgt = [([sign * v for v in tgt[0][0]], sign * tgt[0][1])]
    if partner is not None:
        tgt.append(affine(*partner))
    for (le, ie), se in extra:
        a, b = affine(le, ie)
        tgt.append(([se * v for v in a], se * b))
    if relation is not None:
        a = [zero] * nv
        for j, c in enumerate(relation[:-1]):
            a[j if lt == 1 else index[(lt - 1, j)]] = fmpq(c)
        tgt.append((a, fmpq(relation[-1])))
    fixed = {k: "dead" for k in Y if k in dead}
    fixed.update({k: "active" for k in Y if k in active and k not in dead})
    key = ("sign", id(net), target, sign, partner, tuple(extra), None if relation is None else tuple(relation),
           tuple(sorted(fixed.items())))
    # the node LPs: one HiGHS model, phases switched by row bounds; the tree of an earlier pass goes on
    plp, tree = resume_tree(key, lambda: PhaseLP(Y, index, tgt, nv), [{}])
    if plp is None:
        return True, None  # proved at an earlier pass (another proof of its candidate was left open)
    deadline = _DEADLINE.get()
    stack = tree.stack
    while True:
        state = next_node(plp, tree, key, max_nodes, deadline)
        if state is None:
            return None, None
        if state is DONE:
            break
        how, v = plp.solve({**fixed, **state}, defer=tree.defers(state))
        if how is None:
            return None, None
        if how == "closing":
            tree.pending.append((state, v))
            continue
        if how == "closed":
            continue
        # the most violated relaxed neuron (h above relu(y))
        best, bk = 1e-9, None
        for k in Y:
            if k in state or k in dead or k in active:
                continue
            gap = plp.gap(k, v)
            if gap > best:
                best, bk = gap, k
        if bk is None:  # the LP point is a true network point: try it exactly
            def witness(x):
                z = net.preactivations(x)
                rel = True
                if relation is not None:
                    h = [relu(t) for t in z[lt - 2]] if lt > 1 else list(x)
                    rel = sum((fmpq(c) * t for c, t in zip(relation, h)), fmpq(relation[-1])) > 0
                return sign * z[lt - 1][it] > 0 and (partner is None or z[partner[0] - 1][partner[1]] > 0) \
                    and all(se * z[le - 1][ie] > 0 for (le, ie), se in extra) and rel

            x = [fmpq(round(t * 4096), 4096) for t in v[:n0]]
            if not witness(x):
                pattern = {k: float(sum(float(ai) * v[j] for j, ai in enumerate(a) if ai)) + float(b) > 0
                           for k, (a, b) in Y.items()}
                x = _pattern_witness(net, target, sign, partner, extra, relation, pattern)
                if x is None or not witness(x):
                    return None, None
            return False, _strictly_generic_near(net, x, witness)
        # the child on the LP point's side of y = 0 is popped first (see fdim_columns)
        for st in (("dead", "active") if plp.y_value(bk, v) > 0 else ("active", "dead")):
            child = dict(state)
            child[bk] = st
            stack.append(child)
    save_tree(key, None, tree)
    return True, None


def _strictly_generic_near(net: Network, x: list[fmpq], keep) -> list[fmpq]:
    """``x`` itself when no hidden pre-activation vanishes there, else a nearby point where none
    does and ``keep`` still holds (small seeded dyadic steps; ``x`` when none is found).

    A refutation point joins the functional-dimension sample only if it is strictly generic
    (module docstring); a point rounded onto a grid can land exactly on some neuron's bent
    hyperplane, and then the region it proves non-empty would not count.
    """
    def strict(y):
        return all(v != 0 for layer in net.preactivations(y)[:-1] for v in layer)

    if strict(x):
        return x
    rng = random.Random(len(x))
    for k in range(12, 52, 4):
        step = fmpq(1, 1 << k)
        y = [v + step * rng.randint(-7, 7) for v in x]
        if strict(y) and keep(y):
            return y
    return x


def _pattern_witness(net: Network, target: tuple[int, int], sign: int, partner, extra, relation,
                     pattern: dict) -> list[fmpq] | None:
    """A point proposed for :func:`_neuron_never_positive`'s refutation, deep inside one pattern.

    The branch and bound can end at an LP point that is a network point only up to float error
    (a thin region, or coordinates in the thousands where rounding to ``1/4096`` moves the
    pre-activations). Here the activation ``pattern`` of the neurons below the target's layer
    (read from that LP point) is frozen and :func:`margin_point` proposes a point for the
    strict inequalities (pattern signs, target, partner, ``extra``, ``relation``). The caller
    keeps it only if the exact evaluation of the network satisfies every condition.
    """
    lt, it = target
    n0 = net.input_dim

    def more(Z, h):
        conds = [[sign * c for c in Z[lt][it]]]
        if partner is not None:
            conds.append(Z[partner[0]][partner[1]])
        conds += [[se * c for c in Z[le][ie]] for (le, ie), se in extra]
        if relation is not None:
            conds.append([sum((fmpq(c) * r[k] for c, r in zip(relation, h)), fmpq(0)) + (
                fmpq(relation[-1]) if k == n0 else fmpq(0)) for k in range(n0 + 1)])
        return conds
    return margin_point(net, pattern, lt - 1, more)


def margin_point(net: Network, pattern: dict, top: int, more=None) -> list[fmpq] | None:
    """A float proposal of a point where the hidden neurons of layers ``1..top`` have the signs of
    ``pattern`` (``(layer, index) -> active``) strictly, and the affine forms ``more(Z, h)`` are
    positive (``Z[l]``: the pre-activations of layers ``1..top+1`` as forms ``(coefficients of x,
    constant)``, exact under the frozen pattern; ``h``: the outputs of layer ``top``).

    Freezing the pattern makes every one of those pre-activations an exact affine function of
    ``x``; a float LP maximizes the smallest margin (rows scaled to unit normals, ``|x_i| <= 1e6``)
    and its point is converted exactly from binary. None when the LP finds no positive margin.
    Only a proposal: callers check their conditions on the network exactly.
    """
    import numpy as np
    from .lp import linprog_quiet as linprog

    n0 = net.input_dim
    one, zero = fmpq(1), fmpq(0)
    h = [[one if i == j else zero for j in range(n0 + 1)] for i in range(n0)]  # h_0 = x, as forms (x, 1)
    conds, Z = [], {}
    for l in range(1, min(top + 1, net.depth) + 1):
        W, b = net.weights(l), net.biases(l)
        z = [[sum((w * r[c] for w, r in zip(W[i], h) if w), zero) + (b[i] if c == n0 else zero)
              for c in range(n0 + 1)] for i in range(len(W))]
        Z[l] = z
        if l <= top:
            conds += [zi if pattern[(l, i)] else [-c for c in zi] for i, zi in enumerate(z)]
            h = [zi if pattern[(l, i)] else [zero] * (n0 + 1) for i, zi in enumerate(z)]
    if more is not None:
        conds += more(Z, h)
    A, bb = [], []
    for c in conds:  # (c.x + c0) / |c| >= t
        cf = [float(v) for v in c]
        norm = float(np.linalg.norm(cf[:n0]))
        if norm == 0.0:
            if cf[n0] <= 0:
                return None  # a constant condition that fails
            continue
        A.append([-v / norm for v in cf[:n0]] + [1.0])
        bb.append(cf[n0] / norm)
    res = linprog([0.0] * n0 + [-1.0], A_ub=A, b_ub=bb, bounds=[(-1e6, 1e6)] * n0 + [(None, 1.0)],
                  method="highs")
    if res.status != 0 or res.x[-1] <= 0:
        return None
    return [fmpq(*float(t).as_integer_ratio()) for t in res.x[:n0]]


def _prove_each(candidates, proofs, budget: float, max_nodes: int, left: list | None = None) -> tuple[list, list]:
    """The candidates whose proofs all succeed, and the exact points of refutations.

    ``proofs(candidate, nodes)`` yields the ``(ok, x)`` results of its branch-and-bound proofs
    with at most ``nodes`` nodes each, computed lazily (the first failure stops the candidate;
    ``ok`` None means undecided). Candidates left undecided at ``max_nodes`` get a second pass
    at ``16 max_nodes`` and a third at ``128 max_nodes`` (node totals: each proof goes on from the
    tree it left open, :func:`exactnet.phase_tree.resume_tree`). No candidate is started after
    ``budget`` seconds of this process's CPU time (``time.process_time``: other jobs on a shared machine do
    not shrink the budget the way they shrink a wall-clock one, so the same network nearly always
    gets the same facts), and a proof of the third pass stops (undecided) when the budget is spent.
    ``left``: when given, receives the candidates neither proved nor refuted (undecided, or not
    reached within the budget), in their input order: the reason a gap stays open.
    """
    t0 = time.process_time()
    proved, witnesses = [], []
    cands = list(candidates)
    todo = list(range(len(cands)))  # indices: a candidate may be unhashable (relations are lists)
    settled: set = set()
    trees = TREES.set({})  # open trees go on at the next pass
    try:
        for npass, nodes in enumerate((max_nodes, 16 * max_nodes, 128 * max_nodes)):
            undecided = []
            token = _DEADLINE.set(t0 + budget if npass == 2 else None)
            try:
                for i in todo:
                    if time.process_time() - t0 > budget:
                        break
                    for ok, x in proofs(cands[i], nodes):
                        if x is not None:
                            witnesses.append(x)
                        if not ok:
                            if ok is None:
                                undecided.append(i)
                            else:
                                settled.add(i)
                            break
                    else:
                        proved.append(cands[i])
                        settled.add(i)
            finally:
                _DEADLINE.reset(token)
            todo = undecided
    finally:
        TREES.reset(trees)
    if left is not None:
        left.extend(cands[i] for i in range(len(cands)) if i not in settled)
    return proved, witnesses


class _PhaseBudget:
    """CPU seconds for the LP-fact phases of one :func:`functional_dimension` call.

    Each phase is granted ``per_phase`` seconds plus what the phases before it left unused: a phase
    never gets less than ``per_phase`` (the budget before the carry-over), and the phases together
    never get more than ``per_phase`` times their number (apart from the overrun of a node LP in
    progress when a deadline passes, as before). Easy phases (often the first ones, with few
    candidates) thus leave their time to the hard ones (often the column relations, last).
    """

    def __init__(self, per_phase: float, clock=time.process_time, progress: Callable[[str], None] | None = None,
                 deadline: float | None = None):
        self.per_phase, self.saved, self.clock, self.progress = per_phase, 0.0, clock, progress
        self.deadline = deadline  # time.perf_counter() after which no phase gets more than a token budget
        self.cut = False  # some grant was shortened by the deadline

    def grant(self) -> float:
        """The budget of the next phase (never past the deadline: CPU seconds of one thread are at most
        wall-clock seconds)."""
        full = self.per_phase + self.saved
        if self.deadline is not None and self.deadline - time.perf_counter() < full:
            self.cut = True
            return max(self.deadline - time.perf_counter(), 1e-9)
        return full

    def run(self, prove, *args, **kwargs):
        """``prove(*args, budget=..., **kwargs)`` with this phase's grant; what it leaves unused is saved."""
        granted, t0 = self.grant(), self.clock()
        if self.progress is not None:
            self.progress(f"LP facts: {_PHASE_NAMES.get(prove.__name__, prove.__name__)} (up to {granted:.0f} CPU s)")
        try:
            return prove(*args, budget=granted, **kwargs)
        finally:
            self.saved = max(0.0, granted - (self.clock() - t0))


#: ``(starts, steps)`` per goal of the directed search (2b): the first level while rounds add rows,
#: then the next one for the goals still open (4x the starts and 3x the steps: the goals that need it are few).
ASCENT_EFFORTS = ((48, 80), (192, 240))
#: At most this many goals of the last-layer pairs never seen of opposite signs, per round of (2b).
MAX_TRIPLE_GOALS = 512

#: What the progress line calls each LP-fact phase (by the name of its prover).
_PHASE_NAMES = {"prove_constant_signs": "dead or stably active neurons", "prove_never_coactive": "pairs never both active",
                "prove_same_where_active": "pairs with the same activation", "prove_active_where_needed":
                "neurons active where needed", "prove_relations_where_active": "affine relations",
                "prove_column_relations": "column relations"}

#: Kinds of LP facts, in the order functional_dimension tries them (keys of its ``left`` lists).
_LEFT_KINDS = ("sign", "pair", "same", "need", "relation", "column")


def _undecided_labels(left: dict[str, list], depth: int) -> list[str]:
    """One readable line per LP fact that :func:`_prove_each` left neither proved nor refuted."""
    out = []
    for k, s in left["sign"]:
        out.append(f"{neuron_label(*k)} {'dead' if s == -1 else 'stably active'}?")
    for b, a in left["pair"]:
        out.append(f"{neuron_label(*b)} and {neuron_label(*a)} never both active?")
    for a, b, j in left["same"]:
        out.append(f"{neuron_label(depth - 1, a)} and {neuron_label(depth - 1, b)} never of opposite signs where "
                   f"{neuron_label(depth - 2, j)} is active?")
    for l, a in left["need"]:
        out.append(f"{neuron_label(l, a)} active wherever a successor is?")
    for k, c in left["relation"]:
        on = [neuron_label(k[0] - 1, j) for j, cj in enumerate(c[:-1]) if cj] + (["1"] if c[-1] else [])
        out.append(f"an affine relation of {', '.join(on)} wherever {neuron_label(*k)} is active?")
    for k, l, v in left["column"]:
        on = ", ".join(neuron_label(l, i) for i, vi in enumerate(v) if vi)
        out.append(f"a relation of the sensitivities of {on} on {neuron_label(*k)}'s column into layer {l}?")
    return out


#: CPU-time deadline (``time.process_time``) of the branch-and-bound proofs in progress, or None.
_DEADLINE: contextvars.ContextVar = contextvars.ContextVar("exactnet_fdim_deadline", default=None)


def prove_never_coactive(net: Network, pairs, dead, active, budget: float = 10.0,
                         max_nodes: int = 60, left: list | None = None) -> tuple[frozenset, list]:
    """Pairs ``((l,i), (l-1,j))`` proved never both positive (exact LP certificates), and witness points."""
    if importlib.util.find_spec("scipy") is None:
        return frozenset(), []

    def proofs(pair, nodes):
        b, a = pair
        yield _neuron_never_positive(net, b, 1, set(dead), set(active), max_nodes=nodes, partner=a)
    proved, witnesses = _prove_each(pairs, proofs, budget, max_nodes, left)
    return frozenset(proved), witnesses


def prove_same_where_active(net: Network, triples, dead, active, budget: float = 10.0,
                            max_nodes: int = 60, left: list | None = None) -> tuple[frozenset, list]:
    """Triples ``(a, b, j)`` (``a, b`` in layer ``L-1``, ``j`` in ``L-2``) proved: wherever ``z_j > 0``,
    ``z_a`` and ``z_b`` do not have opposite strict signs (two exact branch-and-bound proofs each)."""
    if importlib.util.find_spec("scipy") is None or net.depth < 3:
        return frozenset(), []
    L = net.depth

    def proofs(triple, nodes):
        a, b, j = triple
        for sa in (1, -1):
            if (sa == 1 and (L - 1, b) in active) or (sa == -1 and (L - 1, a) in active):
                continue  # that sign combination is impossible already
            yield _neuron_never_positive(net, (L - 1, a), sa, set(dead), set(active), max_nodes=nodes,
                                         partner=(L - 2, j), extra=[((L - 1, b), -sa)])
    proved, witnesses = _prove_each(triples, proofs, budget, max_nodes, left)
    return frozenset(proved), witnesses


def prove_constant_signs(net: Network, candidates_dead, candidates_active, budget: float = 10.0,
                         max_nodes: int = 60, left: list | None = None) -> tuple[frozenset, frozenset, list]:
    """Neurons proved dead (``z <= 0`` on ``R^n0``) / stably active (``z >= 0``) among the candidates.

    Candidates are processed layer by layer, so that facts proved for earlier layers fix
    those neurons in later proofs (:func:`_prove_each`: the undecided get a second, deeper pass).
    Returns the two sets and the exact points found where a candidate has the other sign
    (useful sample points). Undecided candidates are skipped.
    """
    if importlib.util.find_spec("scipy") is None:
        return frozenset(), frozenset(), []
    dead, active = set(sign_facts(net)[0]), set(sign_facts(net)[1])
    todo = sorted({(k, -1) for k in candidates_dead} | {(k, 1) for k in candidates_active})

    def proofs(cand, nodes):
        k, s = cand
        if k in dead or k in active or k[0] == 1:
            yield False, None  # known already, or a first-layer neuron: nothing to prove here
            return
        ok, x = _neuron_never_positive(net, k, -s if s == 1 else 1, dead, active, max_nodes=nodes)
        yield ok, x
        (active if s == 1 else dead).add(k)  # reached only when proved: later proofs use the fact

    proved, witnesses = _prove_each(todo, proofs, budget, max_nodes, left)
    return (frozenset(k for k, s in proved if s == -1), frozenset(k for k, s in proved if s == 1),
            witnesses)


def scaled_to_unit(v: Sequence[fmpq]) -> list[fmpq]:
    """``v / max |v_j|`` (a proposal for the float LPs: their duals stay visible at this scale)."""
    top = max(abs(x) for x in v)
    return [x / top for x in v]


def relation_candidates(net: Network, points: Sequence[Sequence[fmpq]], skip: frozenset = frozenset(),
                        known_units: frozenset = frozenset(),
                        preactivations=None) -> list[tuple[tuple[int, int], list[fmpq]]]:
    """Affine relations among a layer's outputs seen wherever a neuron of the next layer is active.

    For every hidden neuron ``(l, i)``, ``l >= 2``, not in ``skip``: the rows
    ``(h_(l-1)(x), 1)`` over the sampled ``x`` with ``z_(l,i)(x) > 0``; every vector ``c`` of a
    basis of their exact null space (columns ``j`` with ``((l,i), (l-1,j))`` in ``known_units``
    left out: those unit vectors are in the kernel already; ``preactivations``: those of ``points``,
    when known) is a candidate relation
    ``sum_j c_j h_(l-1,j) + c_last = 0`` on ``{z_(l,i) > 0}``. Sampling only proposes:
    :func:`prove_relations_where_active` decides.
    """
    A = net.architecture
    zs = preactivations if preactivations is not None else net.preactivations_batch(points)
    out, one = [], fmpq(1)
    for l in range(2, net.depth):
        hs = [[relu(v) for v in z[l - 2]] + [one] for z in zs]  # (h_(l-1)(x), 1), shared by layer l
        for i in range(A[l]):
            if (l, i) in skip:
                continue
            cols = [j for j in range(A[l - 1]) if ((l, i), (l - 1, j)) not in known_units] + [A[l - 1]]
            rows = [[h[j] for j in cols] for h, z in zip(hs, zs) if z[l - 1][i] > 0]
            if not rows:
                continue
            for x in nullspace_basis(rows, len(cols)):
                c = [fmpq(0)] * (A[l - 1] + 1)
                for t, j in enumerate(cols):
                    c[j] = x[t]
                out.append(((l, i), scaled_to_unit(c)))
    return out


def prove_relations_where_active(net: Network, candidates, dead, active, budget: float = 10.0,
                                 max_nodes: int = 60, left: list | None = None) -> tuple[list, list]:
    """Candidates ``((l, i), c)`` proved: ``sum_j c_j h_(l-1,j)(x) + c_last = 0`` wherever ``z_(l,i)(x) > 0``.

    Two exact branch-and-bound proofs each (:func:`_neuron_never_positive` with ``relation`` ``c``
    and ``-c``): no ``x`` has ``z_(l,i) > 0`` and the relation's left side ``> 0``, nor ``< 0``.
    Returns the proved candidates and exact points refuting others (useful sample points).
    """
    if importlib.util.find_spec("scipy") is None:
        return [], []

    def proofs(cand, nodes):
        k, c = cand
        for sg in (1, -1):
            yield _neuron_never_positive(net, k, 1, set(dead), set(active), max_nodes=nodes,
                                         relation=[sg * v for v in c])
    return _prove_each(candidates, proofs, budget, max_nodes, left)


def prove_active_where_needed(net: Network, candidates, dead, active, irrelevant, budget: float = 10.0,
                              max_nodes: int = 60, left: list | None = None) -> tuple[frozenset, list]:
    """Hidden neurons ``(l, a)``, ``l <= L - 2``, proved active wherever a successor that matters is.

    For every ``k`` with ``W_(l+1)[k,a] != 0`` and ``(l+1,k)`` not in ``irrelevant``, one exact
    branch-and-bound proof that no ``x`` has ``z_(l+1,k) > 0`` and ``z_(l,a) < 0``. Returns the proved
    neurons and exact points refuting the others.
    """
    if importlib.util.find_spec("scipy") is None:
        return frozenset(), []
    deadline = time.process_time() + budget

    def proofs(neuron, nodes):
        l, a = neuron
        for k, w in enumerate(net.weights(l + 1)):
            if w[a] == 0 or (l + 1, k) in irrelevant:
                continue
            if time.process_time() > deadline:
                yield None, None  # out of time: not proved
                return
            yield _neuron_never_positive(net, (l + 1, k), 1, set(dead), set(active), max_nodes=nodes,
                                         extra=[((l, a), -1)])
    proved, witnesses = _prove_each(candidates, proofs, budget, max_nodes, left)
    return frozenset(proved), witnesses


def relation_vectors(net: Network, proved) -> list[list[fmpq]]:
    """Kernel vectors of proved relations: ``c`` on the incoming parameters of ``(l, i)``.

    ``J(x) v = c_(l,i)(x) (sum_j c_j h_(l-1,j)(x) + c_last)`` with ``c_(l,i) = d f / d z_(l,i)``,
    which is 0 where ``z_(l,i) < 0``; where ``z_(l,i) > 0`` the bracket is 0 (proved). So ``J(x) v = 0``
    at every strictly generic ``x``.
    """
    D, vecs = net.num_parameters, []
    for (l, i), c in proved:
        v = [fmpq(0)] * D
        for j, cj in enumerate(c[:-1]):
            v[net.parameter_index(l, i, j)] = cj
        v[net.parameter_index(l, i, None)] = c[-1]
        vecs.append(v)
    return vecs


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
    kernel_vectors: list = field(default_factory=list, repr=False)  # proved: J(z) v = 0 for all z
    undecided: list[str] = field(default_factory=list)  # LP facts left open when the value is an interval

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
            "undecided_facts": self.undecided,
        }


#: Spreads of the sampled Gaussian points, used in turn (point ``i``: ``SAMPLE_SPREADS[i % 8]``).
SAMPLE_SPREADS = (0.5, 1.0, 2.0, 4.0, 16.0, 64.0, 256.0, 1024.0)


def sample_batch(net: Network, k: int, want: int, seed: int = 0) -> list[list[fmpq]]:
    """Batch ``k`` of the documented sampling scheme (exact rational points, strictness checked later).

    Batch 0: ``min(2 D, want)`` points of spread 1 and the spreads :data:`SAMPLE_SPREADS` alternately
    (``round(2^10 s g) / 2^10``, ``g`` standard normal from ``random.Random(seed * 1000)``).
    Odd batches: :func:`random_line_points` (one point per region crossed by random lines,
    ``want`` points). Even batches ``k >= 2``: ``want`` points with the spreads in turn
    (seed ``seed * 1000 + k``). Floats only propose the points.
    """
    if k % 2 == 1:
        return random_line_points(net, want, seed=seed * 1000 + k)
    rng = random.Random(seed * 1000 + k)
    n = min(2 * net.num_parameters, want) if k == 0 else want
    grid = 1 << 10
    out = []
    for i in range(n):
        s_i = 1.0 if (k == 0 and i % 2 == 0) else SAMPLE_SPREADS[i % len(SAMPLE_SPREADS)]
        out.append([fmpq(round(grid * s_i * rng.gauss(0.0, 1.0)), grid) for _ in range(net.input_dim)])
    return out


def _with_neighbours(net: Network, xs) -> list[list[fmpq]]:
    """The strictly generic points of ``xs``, each with its :func:`neighbour_points`."""
    out = []
    for x in xs:
        if _strict_pattern(net, x) is not None:
            out += [x] + neighbour_points(net, x)
    return out


def _undefined_result(net, t0, upper, deficient, note) -> FdimResult:
    D, N = net.num_parameters, net.num_hidden
    rr = RankResult(0, True, (), (), 0, "undefined", upper)
    return FdimResult(None, "undefined", D - N, D, N, [], "none", True, False, deficient, rr,
                      net.output_dim, time.perf_counter() - t0, upper, note)


def functional_dimension(
    net: Network,
    use_regions: bool = True,
    max_cells: int | None = 20000,
    timeout: float | None = 60.0,
    max_points: int | None = None,
    seed: int = 0,
    prove_signs: bool = True,
    sign_budget: float = 30.0,
    walk_rounds: int = 4,
    walk_points: int = 1000,
    resample_rounds: int = 4,
    ascent_rounds: int = 8,
    progress: Callable[[str], None] | None = None,
    max_seconds: float | None = None,
) -> FdimResult:
    """The exact functional dimension at ``theta`` (see the module docstring for the definition).

    1. A proved upper bound ``U`` (``D`` minus the rank of :func:`structural_kernel`).
    2. Sampled points (:func:`sample_batch`, batches until the rank reaches ``U``, or three
       batches in a row add nothing, or ``max_points`` points, default ``12 D``), Jacobian rows
       modulo a prime (:class:`ModularJacobian`): a proved lower bound, exact when it is ``U``.
       Then up to ``ascent_rounds`` rounds of the directed search (module docstring (2b)).
       Then the exact LP facts (``prove_signs``, module docstring (3)) lower ``U``; while the rank
       is still below ``U``, up to ``walk_rounds`` rounds of :func:`crossing_points` from (at most
       ``walk_points`` of) the sample, then of the points the previous round added, stopping
       after two rounds without growth. Each LP-fact phase gets ``sign_budget`` seconds of CPU
       time of this process plus what the phases before it left unused (:class:`_PhaseBudget`;
       not wall-clock time: load from other jobs barely changes the facts found; CPU time per
       operation still varies a little between machines and loads).
    3. Only when the rank stays below ``U`` and ``use_regions``: the exact complex
       (:mod:`exactnet.regions`, within ``max_cells``/``timeout``); when it is complete (and every
       sampled pattern is one of its regions) the rank over its points is exact over Q.
       Otherwise the result is labelled ``"lower-bound"``.

    ``progress``, when given, is called with a short description of each stage as it starts (the
    rank reached so far, the proved upper bound, the LP phase and its budget): ``exactnet fdim``
    shows it on a terminal. ``max_seconds`` bounds the whole call in wall-clock seconds, between
    stages: once they have passed, no further sample batch, search round, walk or region step starts,
    the LP phases get only a token budget (their facts stay undecided), and the answer is the interval
    proved so far (still exact when its bounds meet). A stage already running finishes first (the
    first sample batch always runs).
    """
    import numpy as np

    t0 = time.perf_counter()
    D, N = net.num_parameters, net.num_hidden
    m = net.output_dim
    zero_in = zero_incoming_rows(net)
    bound_valid = not zero_in
    bound = D - N
    say = progress if progress is not None else (lambda stage: None)
    deadline = None if max_seconds is None else t0 + max_seconds
    skipped: list[str] = []  # stages not started because max_seconds had passed

    def out_of_time(stage: str) -> bool:
        if deadline is None or time.perf_counter() < deadline:
            return False
        if stage not in skipped:
            skipped.append(stage)
        return True

    say(f"structural kernel ({D} parameters)")
    kvecs, structural = structural_kernel(net)
    upper = D - _kernel_rank_lower(kvecs, D)  # proved: rank <= upper
    if any(d["reason"] == "identically-zero" for d in structural):
        deficient = structural + [d for d in _reason_list(net, {}, "structural")
                                  if d["reason"].startswith("zero")]
        deficient.sort(key=lambda d: (d["layer"], d["index"], d["reason"]))
        names = ", ".join(d["name"] for d in deficient if d["reason"] in ("identically-zero", "zero-incoming-row"))
        return _undefined_result(
            net, t0, upper, deficient,
            f"undefined: no strictly generic input ({names} vanish identically), so theta -> f_theta(z) "
            "is differentiable at no z")
    mj = ModularJacobian(net)
    p = mj.p
    limit = max_points if max_points is not None else 12 * D
    pts: list[list[fmpq]] = []
    obs_any = [np.zeros(n, dtype=bool) for n in net.architecture[1:-1]]
    obs_all = [np.ones(n, dtype=bool) for n in net.architecture[1:-1]]
    seen_patterns: set = set()
    A_ = net.architecture
    coact = [None] + [np.zeros((A_[l + 1], A_[l]), dtype=bool) for l in range(1, net.depth - 1)]
    track_same = m == 1 and net.depth >= 3
    differ = [np.zeros((A_[-3], A_[-2], A_[-2]), dtype=bool)] if track_same else [None]
    st = {"r": 0, "basis": [], "rows": np.zeros((0, D), dtype=np.int64), "rb": RowBasisModP(D, p)}

    def absorb(batch) -> bool:
        """Add the strictly generic points of ``batch``; True when the rank grew."""
        if not batch:
            return False
        masks, strict = mj.patterns(batch)
        X, ok = mj.point_residues(batch)
        keep = [i for i in ok if strict[i]]
        if not keep:
            return False
        masks = [M[:, np.array(keep)] for M in masks]
        if len(keep) != len(ok):
            X = X[[ok.index(i) for i in keep]]
        for l, M in enumerate(masks):
            obs_any[l] |= M.any(axis=1)
            obs_all[l] &= M.all(axis=1)
            if l:
                coact[l] |= (M.astype(np.int64) @ masks[l - 1].T.astype(np.int64)) > 0
        if track_same:
            Ml, Mp = masks[-1], masks[-2]
            Xd = (Ml[:, None, :] != Ml[None, :, :]).astype(np.int64)
            differ[0] |= np.einsum("jk,abk->jab", Mp.astype(np.int64), Xd) > 0
        # (no hidden layer: one empty pattern for every point)
        packed = np.packbits(np.concatenate(masks, axis=0) if masks else np.zeros((0, len(keep)), bool), axis=0)
        seen_patterns.update(packed[:, i].tobytes() for i in range(len(keep)))
        rows = mj.rows(X, masks)
        first = len(pts) * m
        pts.extend(batch[i] for i in keep)
        R = st["rb"].add(rows)  # the rows independent of the kept ones (greedy, as rank_rows_mod_p)
        st["basis"] = st["basis"] + [first + i for i in R]
        st["rows"] = np.concatenate([st["rows"], rows[R]], axis=0)
        r_new = len(st["basis"])
        grew = r_new > st["r"]
        st["r"] = r_new
        return grew

    def unseen_triples(keep_last, keep_below) -> list[tuple[int, int, int]]:
        """``(a, b, j)``: last-hidden-layer neurons ``a < b`` of ``keep_last`` never seen with opposite
        signs where neuron ``j`` (of the layer below, ``keep_below(j)``) is active (one output only)."""
        L_, WL = net.depth, net.weights(net.depth)[0]
        ok_n = [i for i in range(A_[L_ - 1]) if WL[i] != 0 and keep_last(i)]
        return [(a, b, j) for j in range(A_[L_ - 2]) if keep_below(j)
                for a in ok_n for b in ok_n if a < b and not differ[0][j, a, b]]

    def first_want() -> int:  # enough rows for the bound with a margin (the rank costs grow with the rows)
        return min(2 * D, (11 * upper) // (10 * m) + 32, limit)

    k, stale = 0, 0
    while len(pts) < limit and st["r"] < upper and stale < 3 and not (k and out_of_time("sampling")):
        say(f"sampling: rank {st['r']}, proved upper bound {upper}, {len(pts)} points")
        if k == 0:
            want = first_want()
        else:
            want = min(max((upper - st["r"]) // m + 8, D // 2, 16), limit - len(pts))
        grew = absorb(sample_batch(net, k, want, seed=seed))
        k += 1
        stale = 0 if grew else stale + 1
    # (2b) Still below U: directed search (:mod:`exactnet.fdim_ascent`) for the neurons never / always
    # active on the sample, the adjacent pairs never active together and (one output) the last-layer
    # pairs never of opposite signs where a neuron below is active, while the rank grows; a round
    # that adds nothing is retried once with the larger effort of ASCENT_EFFORTS (on fewer goals).
    level = 0
    for around in range(ascent_rounds if net.depth > 2 and pts else 0):
        if st["r"] >= upper or out_of_time("directed search"):
            break
        say(f"directed search, round {around + 1}: rank {st['r']}, proved upper bound {upper}")
        goals = [[(l, i, 1)] for l in range(1, net.depth) for i in range(A_[l]) if not obs_any[l - 1][i]]
        goals += [[(l, i, -1)] for l in range(1, net.depth) for i in range(A_[l]) if obs_all[l - 1][i]]
        goals += [[(l, i, 1), (l - 1, j, 1)] for l in range(2, net.depth) for i in range(A_[l])
                  for j in range(A_[l - 1]) if not coact[l - 1][i, j] and obs_any[l - 1][i] and obs_any[l - 2][j]]
        if track_same:
            L_ = net.depth
            goals += [[(L_ - 2, j, 1), (L_ - 1, a, sa), (L_ - 1, b, -sa)]
                      for a, b, j in unseen_triples(lambda i: obs_any[L_ - 2][i], lambda j: obs_any[L_ - 3][j])
                      for sa in (1, -1)][:MAX_TRIPLE_GOALS]
        starts, steps = ASCENT_EFFORTS[level]
        found = ascent_points(net, goals, starts=starts, steps=steps, seed=seed * 1000 + 700 + around)
        if not (found and absorb(_with_neighbours(net, found))):
            if level + 1 == len(ASCENT_EFFORTS):
                break
            level += 1
    lp_note = ""
    left: dict[str, list] | None = None  # the LP facts neither proved nor refuted, by kind
    if st["r"] < upper and prove_signs and net.depth > 2 and pts and not out_of_time("LP facts"):
        # Suspects: hidden neurons never / always active on the sample, not yet known structurally.
        known = {(d["layer"], d["index"]) for d in structural}
        cd = [(l, i) for l in range(1, net.depth) for i in range(net.architecture[l])
              if not obs_any[l - 1][i] and (l, i) not in known]
        ca = [(l, i) for l in range(1, net.depth) for i in range(net.architecture[l])
              if obs_all[l - 1][i] and (l, i) not in known]
        left = {k: [] for k in _LEFT_KINDS}
        lp_time = _PhaseBudget(sign_budget, progress=progress, deadline=deadline)
        pdead, pact, wit = lp_time.run(prove_constant_signs, net, cd, ca, left=left["sign"])
        if wit:
            absorb(_with_neighbours(net, wit))
        pairs = []
        dd, aa, _, irr = sign_facts(net, pdead, pact)
        for l in range(2, net.depth):
            for i in range(A_[l]):
                for j in range(A_[l - 1]):
                    if not coact[l - 1][i, j] and not {(l, i), (l - 1, j)} & (dd | irr):
                        pairs.append(((l, i), (l - 1, j)))
        pco, wit2 = lp_time.run(prove_never_coactive, net, pairs, dd, aa, left=left["pair"])
        if wit2:
            absorb(_with_neighbours(net, wit2))
        psame: frozenset = frozenset()
        if track_same and not out_of_time("LP facts: same activation"):
            L_ = net.depth
            triples = [(a, b, j) for a, b, j in unseen_triples(lambda i: (L_ - 1, i) not in dd | irr,
                                                               lambda j: (L_ - 2, j) not in dd)
                       if ((L_ - 1, a), (L_ - 2, j)) not in pco and ((L_ - 1, b), (L_ - 2, j)) not in pco]
            psame, wit3 = lp_time.run(prove_same_where_active, net, triples, dd, aa, left=left["same"])
            if wit3:
                absorb(_with_neighbours(net, wit3))
        pneed: frozenset = frozenset()
        irr_x = irrelevant_with_pairs(net, irr, pco)
        zs = net.preactivations_batch(pts)
        cand_need = []
        for l in range(1, net.depth - 1) if not out_of_time("LP facts: neurons needed") else ():
            Wn = net.weights(l + 1)
            for a in range(A_[l]):
                if (l, a) in dd | aa | irr_x:
                    continue
                succ = [k for k in range(A_[l + 1]) if Wn[k][a] != 0 and (l + 1, k) not in irr_x]
                if succ and all(z[l - 1][a] > 0 for z in zs if any(z[l][k] > 0 for k in succ)):
                    cand_need.append((l, a))
        if cand_need:
            pneed, wit5 = lp_time.run(prove_active_where_needed, net, cand_need, dd, aa, irr_x,
                                          left=left["need"])
            if wit5:
                absorb(_with_neighbours(net, wit5))
        if pdead or pact or pco or psame or pneed:
            kvecs, structural = structural_kernel(net, pdead, pact, pco, psame, pneed)
            upper = D - _kernel_rank_lower(kvecs, D)
        prel: list = []
        for _round in range(3):  # a refuted relation gives points of unseen regions: propose again
            if st["r"] >= upper or out_of_time("LP facts: relations"):
                break
            zs += net.preactivations_batch(pts[len(zs):])  # pts only grows (absorb appends)
            cands = relation_candidates(net, pts, skip=frozenset(dd | irr_x), known_units=pco, preactivations=zs)
            base = _kernel_rank_lower(kvecs, D)
            useful = []  # only candidates that raise the kernel's rank (mod p: a proposal)
            for cand in cands:
                if _kernel_rank_lower(kvecs + relation_vectors(net, useful + [cand]), D) > base + len(useful):
                    useful.append(cand)
            left["relation"] = []  # only the last round's candidates are still open
            proved, wit4 = lp_time.run(prove_relations_where_active, net, useful, dd, aa,
                                        left=left["relation"])
            if proved:
                prel += proved
                kvecs = kvecs + relation_vectors(net, proved)
                upper = D - _kernel_rank_lower(kvecs, D)
            if not (wit4 and absorb(_with_neighbours(net, wit4))):
                break
        pcol: list = []
        if st["r"] < upper and net.depth > 2 and not out_of_time("LP facts: column relations"):
            from .fdim_columns import column_candidates, column_vectors, prove_column_relations

            zs += net.preactivations_batch(pts[len(zs):])  # pts only grows (absorb appends)
            base = _kernel_rank_lower(kvecs, D)
            useful = []
            for cand in column_candidates(net, zs, skip=frozenset(dd | irr_x)):
                if _kernel_rank_lower(kvecs + column_vectors(net, useful + [cand]), D) > base + len(useful):
                    useful.append(cand)
            # the columns into the top layers first: their branch and bound fixes fewer layers and
            # is far cheaper, so the CPU budget is not spent on a few deep ones before them
            useful.sort(key=lambda cand: -cand[1])
            pcol, wit6 = lp_time.run(prove_column_relations, net, useful, dd, aa, left=left["column"])
            if pcol:
                kvecs = kvecs + column_vectors(net, pcol)
                upper = D - _kernel_rank_lower(kvecs, D)
            if wit6:
                absorb(_with_neighbours(net, wit6))
        if lp_time.cut:
            skipped.append("the rest of the LP-fact budgets")
        if pdead or pact or pco or psame or pneed or prel or pcol:
            lp_note = (f"; proved by exact LP certificates: dead {', '.join(neuron_label(*n) for n in sorted(pdead)) or '-'}"
                       f", stably active {', '.join(neuron_label(*n) for n in sorted(pact)) or '-'}"
                       f", {len(pco)} pairs never both active, {len(psame)} pairs with the same activation "
                       f"where an input is active, {len(pneed)} neurons active wherever a successor is, "
                       f"{len(prel)} affine relations where a neuron is active, "
                       f"{len(pcol)} sensitivity relations on a column")
    # (3d) Still below U: walk from the sample (LP witnesses included) across the nearest walls
    # (crossing_points), then from the points the previous round added, while the rank grows.
    frontier, pick = list(pts), random.Random(seed * 1000 + 999)

    def walk(start: list, wseed: int) -> bool:  # one walk round from (at most walk_points of) start
        sub = start if len(start) <= walk_points else pick.sample(start, walk_points)
        return absorb(crossing_points(net, sub, seed=wseed))

    rounds, stale = 0, 0
    while st["r"] < upper and frontier and rounds < walk_rounds and stale < 2 and not out_of_time("walks"):
        say(f"walks across walls, round {rounds + 1}: rank {st['r']}, proved upper bound {upper}")
        before = len(pts)
        grew = walk(frontier, seed * 1000 + 500 + rounds)
        frontier = pts[before:]
        rounds += 1
        stale = 0 if grew else stale + 1
    # (3e) Still below U: a thin region can be missed by this seed's sample and by the walks from
    # it, while another seed's sample and its walk find it. Up to ``resample_rounds`` fresh batches
    # (other seeds: a Gaussian batch and a batch of lines; default 4), each followed by one walk round from
    # the points it added. Only raises the lower bound.
    for extra in range(1, resample_rounds + 1):
        if st["r"] >= upper or max_points is not None or out_of_time("fresh samples"):
            break  # (an explicit max_points caps the sample)
        s2 = seed + 7919 * extra
        say(f"fresh sample {extra}: rank {st['r']}, proved upper bound {upper}")
        before = len(pts)
        want = first_want()  # max_points is None here, so limit = 12 D caps nothing
        absorb(sample_batch(net, 0, want, seed=s2) + sample_batch(net, 1, want, seed=s2))
        if pts[before:] and st["r"] < upper:
            walk(pts[before:], s2 * 1000 + 500)
    r, basis, basis_rows = st["r"], st["basis"], st["rows"]
    if r > upper:  # pragma: no cover - would contradict the proved bound
        raise ArithmeticError("rank above the proved upper bound")
    note = f"{len(pts)} sampled points, rank modulo {p}{lp_note}"
    region_note = ""
    rr = None
    ps: PointSet | None = None
    if r < upper and use_regions and _have_regions() and not out_of_time("region complex"):
        say(f"region complex (rank {r}, proved upper bound {upper})")
        if deadline is not None:
            timeout = max(deadline - time.perf_counter(), 0.01) if timeout is None else \
                max(min(timeout, deadline - time.perf_counter()), 0.01)
        try:
            ps = points_from_regions(net, max_cells=max_cells, timeout=timeout)
        except LimitError as e:
            region_note = f"; regions over budget ({e})"
        except Exception as e:  # a failure of the region engine: a lower bound, never a guess
            region_note = f"; region enumeration failed ({type(e).__name__}: {e})"
    if ps is not None:
        # Guard: every sampled pattern must be a region's pattern, else the complex is incomplete.
        known = set()
        for pat in ps.region_patterns:
            bits = np.array([b for layer in pat for b in layer], dtype=bool)
            known.add(np.packbits(bits[:, None], axis=0)[:, 0].tobytes())
        if not seen_patterns <= known:
            ps.complete = False
            region_note = "; the region complex missed sampled patterns (not used for exactness)"
        elif not ps.points and not pts:
            return _undefined_result(
                net, t0, upper, deficient_neurons(net, ps.region_patterns, exact=True) + structural,
                "undefined: no strictly generic input (at every input some hidden pre-activation is 0), "
                "so theta -> f_theta(z) is differentiable at no z; " + ps.note)
        else:
            # Exact over Q: the region points span Z_theta; the sampled basis points ride along.
            sel_pts = sorted({g // m for g in basis})
            pts = [pts[i] for i in sel_pts] + ps.points
            rr = certified_rank(stacked_jacobian(net, pts), D, upper_bound=upper)
            region_note = f"; exact complex: {ps.note}"
    if rr is None:
        # The rows are independent mod p (re-checked here from scratch: the r x r minor on them and on
        # these columns is the proof of rank >= r); the columns also serve a certificate (rank D - N).
        cols = independent_columns_mod_p(basis_rows, p) if r else []
        rr = RankResult(r, r == upper, tuple(basis), tuple(cols), p,
                        "minor=bound" if r == upper else "minor", upper)
    exact = rr.rank == upper or (ps is not None and ps.complete and rr.exact)
    status = "exact" if exact else "lower-bound"
    if ps is not None and ps.complete:
        deficient = deficient_neurons(net, ps.region_patterns, exact=True)
        source, complete = "regions", True
    else:
        deficient = _deficient_observed(net, obs_any, obs_all) if pts else _reason_list(net, {}, "observed")
        source, complete = "random-generic", False
    have = {(d["layer"], d["index"], d["reason"]) for d in structural}  # proofs win over observations
    deficient = structural + [d for d in deficient if (d["layer"], d["index"], d["reason"]) not in have]
    deficient.sort(key=lambda d: (d["layer"], d["index"], d["reason"]))
    note += region_note
    undecided = _undecided_labels(left, net.depth) if left is not None and status != "exact" else []
    if undecided:
        note += (f"; {len(undecided)} candidate facts neither proved nor refuted within the LP budget "
                 f"({sign_budget:g} CPU s per phase, plus what earlier phases left; a larger budget may close the gap)")
    elif status != "exact" and left is not None:
        note += "; every candidate fact was decided (the gap is a region the sample missed, or a kernel " \
                "direction no proof rule covers)"
    if skipped:
        note += f"; max_seconds = {max_seconds:g} s passed, so these did not run: {', '.join(skipped)}"
    if upper < bound:
        note += f"; structural kernel gives the proved upper bound {upper} < D - N"
    if not bound_valid:
        note += "; zero incoming rows: " + ", ".join(neuron_label(l, i) for l, i in zero_in) + " (bound D - N not proved)"
    li = bound_valid and rr.rank == bound and bool(pts) and len(rr.rows) == bound
    return FdimResult(
        functional_dimension=rr.rank,
        status=status,
        bound=bound,
        parameters=D,
        hidden_neurons=N,
        points=pts,
        point_source=source,
        complete=complete,
        locally_identifiable=li,
        deficient=deficient,
        rank=rr,
        rows_per_point=m,
        seconds=time.perf_counter() - t0,
        upper_bound=upper,
        note=note,
        kernel_vectors=kvecs,
        undecided=undecided,
    )


#: Largest rank ``D - N`` whose certificate carries the minor hint (``rows``, ``cols``, ``det``). The
#: checker computes that ``(D-N) x (D-N)`` determinant exactly (Bareiss over Python integers: 390 s
#: for ``D - N = 337``); without the hint it finds the rank modulo ``2^61 - 1`` (about 2 s there).
HINT_MAX_RANK = 64


def local_identifiability_body(net: Network, res: FdimResult) -> list[str]:
    """Body lines of a LOCALLY-IDENTIFIABLE certificate (``proofs/spec-1.0.md``).

    The points are those carrying the selected nonzero ``(D-N) x (D-N)`` minor; up to
    ``D - N = HINT_MAX_RANK`` the minor hint (rows of the stacked Jacobian at those points,
    parameter columns, determinant) is included so that the checker computes one small
    determinant instead of a rank; above it the hint is left out (no determinant of thousands
    of digits, over the checker's 4,000-digit limit).
    """
    from .certificate import locally_identifiable_body

    m = res.rows_per_point
    idx = sorted({r // m for r in res.rank.rows})
    pts = [res.points[k] for k in idx]
    if res.bound > HINT_MAX_RANK:  # the checker's exact determinant would take minutes; its rank modulo p seconds
        return locally_identifiable_body(net, pts)
    pos = {k: n for n, k in enumerate(idx)}
    rows = [pos[r // m] * m + r % m for r in res.rank.rows]
    return locally_identifiable_body(net, pts, rows=rows, cols=list(res.rank.cols))


def certify_local(net: Network, **kw) -> "CertifyResult":  # noqa: F821
    """``LOCALLY-IDENTIFIABLE`` with its certificate when the rank is ``D - N``, else ``UNDECIDED``."""
    from .certify import CertifyResult

    res = functional_dimension(net, **kw)
    details = {"functional_dimension": res.functional_dimension, "bound": res.bound, "upper_bound": res.upper_bound,
               "undecided_facts": res.undecided}
    if not res.locally_identifiable:
        if res.status == "lower-bound":
            why = [f"Jacobian rank proved between {res.functional_dimension} and {res.upper_bound}"
                   + (f", so below D - N = {res.bound}" if res.upper_bound < res.bound
                      else f"; whether it reaches D - N = {res.bound} is not decided")]
            if res.undecided:
                why.append(f"{len(res.undecided)} LP facts left open within the budget "
                           "(exactnet fdim --json lists them as undecided_facts)")
        else:
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
