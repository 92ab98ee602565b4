"""An independent exact *search* for fibre points of tiny deep ReLU networks (a soundness oracle).

Given ``theta``, :func:`search_fibre` looks for ``theta'`` of the same architecture with
``f_theta' = f_theta`` on all of ``R^n0`` and ``theta'`` outside the orbit of ``theta`` under
permutations and positive scalings. It is built from first principles and uses neither the
hidden-symmetry catalogue (:mod:`exactnet.symmetry_rules`) nor any identifiability theorem:
it only solves exact linear systems on sample points and then decides each candidate exactly.

**Sample points.** The activation regions of ``theta`` (:func:`exactnet.regions.compute_regions`,
whole input space) give one interior point per region; each is joined by ``n0`` points stepped
along the coordinate axes that stay strictly inside the same region, so every region holds
``n0 + 1`` affinely independent points. A few seeded random points are added.

**Moves.** Each move changes some incoming rows of ``theta`` and then re-solves, layer by
layer upwards, the parameters that are *linear* unknowns once everything below is fixed:
the whole next layer ``(W'_(l+1), b'_(l+1))``. With layers ``1..l`` fixed, ``h'_l(x)`` is a known
exact vector at every sample point, so neuron ``k`` of layer ``l+1`` is one exact linear system
``W'_(l+1)[k] . h'_l(x) + b'_(l+1)[k] = target(x)`` (``fmpq_mat.rref``). The target is ``f(x)``
at every point for the output layer, and ``theta``'s own pre-activation ``z_(l+1,k)(x)`` at the
points where it is positive for a hidden layer (elsewhere only ``relu`` of it matters, and the
final exact check decides). An inconsistent system kills the move. Free variables take the
values of ``theta`` ("least change"); with ``nudges >= 1`` the solutions that add or subtract
one nullspace basis vector of one row are tried as well (this is where dead neurons, proportional neurons and
zero outgoing weights show up: the design matrix loses rank). The moves:

* ``flip``: for every nonempty set ``sigma`` of hidden neurons (all ``2^N - 1`` of them up to
  ``max_flips``), going up the layers, negate the incoming rows (weights and bias) of the
  flipped neurons of layer ``l``, then re-solve layer ``l + 1``;
* ``solve``: no flip at all, only the nullspace nudges (needs ``nudges >= 1``);
* ``shift``: add one ``delta`` (in ``SHIFTS``) to the biases of a nonempty set of neurons of one
  hidden layer (all sets, up to ``max_shift_sets`` per layer) and re-solve every layer above
  (stably active neurons, hyperplanes hidden by later layers, strips hidden jointly);
* ``tilt``: add ``delta`` (the first four of ``SHIFTS``) to one incoming weight of one hidden
  neuron and re-solve every layer above (hyperplanes hidden only near a point, which a
  rotation keeps hidden where a shift would not);
* ``reflect``: replace one hidden neuron's row ``(w, b)`` by ``(-w, T - b)`` for ``T`` in
  ``{0} U {-b_(l+1)[k] / W_(l+1)[k, i]}`` (where the next layer bends as a function of this
  neuron alone), keep layer ``l + 1`` and re-solve the layers above it (width-one reflections).

Permutations are not tried: they are orbit elements and every solve above is equivariant
under them, so they add no candidate.

**Decision.** Every candidate is evaluated exactly at the sample points and at seeded random
points; a survivor is tested with :func:`exactnet.symmetry.same_orbit` (orbit members are
dropped, undecidable ones counted in ``undecided``) and then with
:func:`exactnet.equivalence.equivalent` (exact functional equivalence on all of ``R^n0``).
Only candidates that pass both are reported, so **every reported fibre point is proved**.

**Validation** (``tests/test_deep_fibre_oracle.py``): it finds flip sets in layers 1, 2 and 3,
flips affine only on the reachable set or only on the next neurons' active sets, width-one
reflections (example B), stably active and dead neurons (example D; by structure and on the
reachable set only), hidden hyperplanes, proportional neurons and zero outgoing weights, and
every network of the exhaustive grids (2,1,1,1), (1,2,1,1), (1,1,2,1) with weights in
``{-1,0,1}`` whose function class holds another orbit.

**Limits: this is a search, not a proof.** Finding nothing proves nothing: a fibre point
whose first-layer rows are not ``theta``'s rows up to the moves above, or that needs two
simultaneous shifts, or a change of pattern that the "least change" choice of free variables
misses, is not found. :func:`grid_fibre` complements it with an exhaustive comparison of all
networks with weights in a small set (tiny architectures only).
"""

from __future__ import annotations

import itertools
import random
import time
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from flint import fmpq, fmpq_mat

from .errors import LimitError, ShapeError, UndecidedError
from .network import Layer, Network
from .qq import Q0, Q1

__all__ = [
    "FibrePoint",
    "FibreSearch",
    "SHIFTS",
    "sample_points",
    "search_fibre",
    "is_non_orbit_fibre_point",
    "GridReport",
    "grid_fibre",
    "grid_networks",
]

#: Bias shifts tried by the ``shift`` move.
SHIFTS = (fmpq(1), fmpq(-1), fmpq(1, 8), fmpq(-1, 8), fmpq(1, 64), fmpq(-1, 64))

Rows = list  # list of (W: list[list[fmpq]], b: list[fmpq]) per layer


@dataclass(frozen=True)
class FibrePoint:
    """A proved fibre point outside the orbit: ``other`` and the move that produced it."""

    other: Network
    move: str
    detail: str


@dataclass
class FibreSearch:
    """Outcome of :func:`search_fibre`."""

    found: list = field(default_factory=list)
    candidates: int = 0
    survivors: int = 0
    undecided: int = 0
    points: int = 0
    seconds: float = 0.0

    @property
    def non_orbit(self) -> bool:
        return bool(self.found)


# ------------------------------------------------------------------ small exact helpers
def _rows(net: Network) -> Rows:
    return [([list(r) for r in L.weights], list(L.biases)) for L in net.layers]


def _copy(rows: Rows) -> Rows:
    return [([list(r) for r in W], list(b)) for W, b in rows]


def _net(rows: Rows) -> Network:
    return Network([Layer(tuple(map(tuple, W)), tuple(b)) for W, b in rows])


def _affine(W, b, h):
    out = []
    for row, c in zip(W, b):
        acc = c
        for w, v in zip(row, h):
            if w and v:
                acc += w * v
        out.append(acc)
    return out


def _hidden_values(rows: Rows, pts, upto: int):
    """``h_upto(x)`` (post-ReLU output of layer ``upto``; ``upto = 0`` is the input) at each point."""
    if upto == 0 or not pts:
        return [list(x) for x in pts]
    H = fmpq_mat([list(x) for x in pts]).transpose()
    k = len(pts)
    for W, b in rows[:upto]:
        Z = (fmpq_mat(W) * H).tolist()
        H = fmpq_mat([[v + c if v + c > 0 else Q0 for v in r] for r, c in zip(Z, b)]) if Z else fmpq_mat(0, k)
    return [list(col) for col in zip(*H.tolist())]


def _solve(A: list, rhs: list, ref: list):
    """Exact solution of ``A u = rhs`` with free variables set to ``ref``, and a nullspace basis.

    Returns ``None`` when the system is inconsistent.
    """
    c = len(ref)
    if not A:
        return list(ref), [[Q1 if j == i else Q0 for j in range(c)] for i in range(c)]
    M = fmpq_mat(len(A), c + 1, [v for row, r in zip(A, rhs) for v in list(row) + [r]])
    R, rank = M.rref()
    pivots = []
    for i in range(rank):
        j = next(j for j in range(c + 1) if R[i, j] != 0)
        if j == c:
            return None
        pivots.append(j)
    free = [j for j in range(c) if j not in pivots]
    u = list(ref)
    for i, p in enumerate(pivots):
        u[p] = R[i, c] - sum((R[i, j] * ref[j] for j in free), Q0)
    basis = []
    for j in free:
        v = [Q0] * c
        v[j] = Q1
        for i, p in enumerate(pivots):
            v[p] = -R[i, j]
        basis.append(v)
    return u, basis


# ------------------------------------------------------------------ sample points
def _inside(cell, x) -> bool:
    return all(sum((a * v for a, v in zip(k.normal, x)), Q0) + k.offset > 0 for k in cell.constraints)


def sample_points(net: Network, seed: int = 0, extra: int = 4) -> list[list[fmpq]]:
    """Points strictly inside every activation region of ``net`` (``n0 + 1`` per region), plus
    ``extra`` seeded random points."""
    from .regions import compute_regions

    n = net.input_dim
    rc = compute_regions(net, certificate=False)
    pts: list[list[fmpq]] = []
    for cell in rc.cells:
        p = list(cell.interior_point)
        pts.append(p)
        for j in range(n):
            t = Q1
            for _ in range(60):
                q = list(p)
                q[j] = q[j] + t
                if _inside(cell, q):
                    pts.append(q)
                    break
                t = t / 2
    rng = random.Random(seed)
    for _ in range(extra):
        pts.append([fmpq(rng.randint(-50, 50), rng.randint(1, 9)) for _ in range(n)])
    return pts


# ------------------------------------------------------------------ the layer solve
class _Solver:
    def __init__(self, net: Network, pts):
        self.net = net
        self.rows = _rows(net)
        self.pts = pts
        self.L = net.depth
        self.h0 = [list(x) for x in pts]
        self.cache: dict = {}
        pre = [net.preactivations(x) for x in pts]
        self.targets = [[[z[l][k] for z in pre] for k in range(net.architecture[l + 1])] for l in range(self.L)]

    def hidden(self, cur: Rows, upto: int):
        """``h_upto`` at the sample points, cached by the rows of layers ``1..upto``."""
        if upto == 0:
            return self.h0
        key = tuple((tuple(map(tuple, W)), tuple(b)) for W, b in cur[:upto])
        got = self.cache.get(key)
        if got is None:
            below = self.hidden(cur, upto - 1)
            W, b = cur[upto - 1]
            got = _hidden_values([(W, b)], below, 1)
            if len(self.cache) > 20000:
                self.cache.clear()
            self.cache[key] = got
        return got

    def solve_layer(self, cur: Rows, l: int, nudges: int):
        """Re-solve layer ``l`` (1-based) of ``cur``; yields (new_rows, note) alternatives."""
        H = self.hidden(cur, l - 1)
        W, b = self.rows[l - 1]
        last = l == self.L
        sols = []
        for k in range(len(b)):
            tgt = self.targets[l - 1][k]
            idx = range(len(self.pts)) if last else [j for j, v in enumerate(tgt) if v > 0]
            A = [H[j] + [Q1] for j in idx]
            rhs = [tgt[j] for j in idx]
            res = _solve(A, rhs, list(cur[l - 1][0][k]) + [cur[l - 1][1][k]])
            if res is None:
                return []
            sols.append(res)
        base = _copy(cur)
        base[l - 1] = ([u[:-1] for u, _ in sols], [u[-1] for u, _ in sols])
        out = [(base, "")]
        if nudges > 0:
            for k, (u, basis) in enumerate(sols):
                for v in basis:
                    for sign in (Q1, -Q1):
                        alt = _copy(base)
                        w = [a + sign * d for a, d in zip(u, v)]
                        alt[l - 1][0][k] = w[:-1]
                        alt[l - 1][1][k] = w[-1]
                        out.append((alt, f" nudge({l},{k},{'+' if sign > 0 else '-'})"))
        return out

    def climb(self, cur: Rows, start: int, nudges: int, flips=None):
        """Re-solve layers ``start..L`` in turn (negating ``flips[l]`` of layer ``l`` first)."""
        frontier = [(cur, "", nudges)]
        for l in range(start, self.L + 1):
            nxt = []
            for rows, note, nl in frontier:
                for new, extra in self.solve_layer(rows, l, nl):
                    if flips is not None and l < self.L:
                        for i in flips.get(l, ()):
                            new[l - 1][0][i] = [-v for v in new[l - 1][0][i]]
                            new[l - 1][1][i] = -new[l - 1][1][i]
                    nxt.append((new, note + extra, nl - (1 if extra else 0)))
            frontier = nxt
            if not frontier:
                break
        return frontier


# ------------------------------------------------------------------ decision
def is_non_orbit_fibre_point(net: Network, other: Network, pts=None) -> bool | None:
    """Decide exactly: True when ``other`` computes ``net``'s function and is outside its orbit,
    False when not, None when the orbit question is undecidable by canonical forms."""
    from .equivalence import equivalent, random_points
    from .symmetry import same_orbit

    if other.architecture != net.architecture:
        raise ShapeError("fibre points have the architecture of the network")
    check = list(pts or []) + random_points(net.input_dim, 6, seed=11)
    if net.evaluate_batch(check) != other.evaluate_batch(check):
        return False
    try:
        if same_orbit(net, other):
            return False
    except UndecidedError:
        return None
    return bool(equivalent(net, other).equivalent)


def _flip_sets(net: Network, max_flips: int):
    """Nonempty sets of hidden neurons, smallest first, at most ``max_flips`` of them."""
    neurons = net.hidden_neurons()  # (l, i), l from 1
    sets = itertools.chain.from_iterable(
        itertools.combinations(neurons, s) for s in range(1, len(neurons) + 1))
    return itertools.islice(sets, max_flips)


def search_fibre(
    net: Network,
    moves: Sequence[str] = ("flip", "solve", "shift", "reflect", "tilt"),
    nudges: int = 1,
    max_flips: int = 4096,
    max_shift_sets: int = 63,
    first_only: bool = True,
    seed: int = 0,
    pts=None,
) -> FibreSearch:
    """Search exactly for fibre points of ``net`` outside its orbit (see the module docstring).

    ``first_only`` stops at the first proved fibre point. Every reported point is proved
    (exact equivalence and canonical forms); an empty ``found`` proves nothing.
    """
    if net.depth < 2:
        raise ShapeError("the search needs at least one hidden layer")
    t0 = time.monotonic()
    if pts is None:
        pts = sample_points(net, seed=seed)
    S = _Solver(net, pts)
    res = FibreSearch(points=len(pts))
    seen = {tuple(net.flatten())}
    base = _rows(net)

    def consider(rows: Rows, move: str, detail: str) -> bool:
        other = _net(rows)
        key = tuple(other.flatten())
        if key in seen:
            return False
        seen.add(key)
        res.candidates += 1
        if net.evaluate_batch(pts) != other.evaluate_batch(pts):
            return False
        res.survivors += 1
        try:
            verdict = is_non_orbit_fibre_point(net, other, pts)
        except LimitError:
            verdict = None
        if verdict is None:
            res.undecided += 1
            return False
        if verdict:
            res.found.append(FibrePoint(other, move, detail))
            return first_only
        return False

    def run(frontier, move, detail) -> bool:
        for rows, note, _ in frontier:
            if consider(rows, move, detail + note):
                return True
        return False

    def generate():
        if "flip" in moves:
            for sigma in _flip_sets(net, max_flips):
                flips: dict[int, list[int]] = {}
                for l, i in sigma:
                    flips.setdefault(l, []).append(i)
                first = min(flips)
                cur = _copy(base)
                for i in flips[first]:
                    cur[first - 1][0][i] = [-v for v in cur[first - 1][0][i]]
                    cur[first - 1][1][i] = -cur[first - 1][1][i]
                yield S.climb(cur, first + 1, nudges, flips), "flip", "sigma=" + " ".join(f"{l}.{i}" for l, i in sigma)
        if "solve" in moves and nudges > 0:
            yield S.climb(_copy(base), 1, nudges), "solve", "nullspace"
        hidden = net.hidden_neurons()
        if "shift" in moves:
            for l in range(1, net.depth):
                width = net.architecture[l]
                subsets = itertools.chain.from_iterable(
                    itertools.combinations(range(width), s) for s in range(1, width + 1))
                for T in itertools.islice(subsets, max_shift_sets):
                    for d in SHIFTS:
                        cur = _copy(base)
                        for i in T:
                            cur[l - 1][1][i] += d
                        yield S.climb(cur, l + 1, nudges), "shift", f"b[{l}][{','.join(map(str, T))}] += {d}"
        if "tilt" in moves:
            for l, i in hidden:
                for j in range(net.architecture[l - 1]):
                    for d in SHIFTS[:4]:
                        cur = _copy(base)
                        cur[l - 1][0][i][j] += d
                        yield S.climb(cur, l + 1, nudges), "tilt", f"W[{l}][{i}][{j}] += {d}"
        if "reflect" in moves:
            for l, i in hidden:
                if l + 1 >= net.depth:
                    continue
                V, c = base[l]
                Ts = {Q0} | {-c[k] / V[k][i] for k in range(len(c)) if V[k][i] != 0}
                for T in sorted(Ts):
                    cur = _copy(base)
                    cur[l - 1][0][i] = [-v for v in cur[l - 1][0][i]]
                    cur[l - 1][1][i] = T - cur[l - 1][1][i]
                    if l + 2 <= net.depth:
                        yield S.climb(cur, l + 2, nudges), "reflect", f"neuron {l}.{i} T={T}"

    for frontier, move, detail in generate():
        if run(frontier, move, detail):
            break
    res.seconds = time.monotonic() - t0
    return res


# ------------------------------------------------------------------ exhaustive grid
@dataclass
class GridReport:
    """Outcome of :func:`grid_fibre`: ``flagged`` maps each grid network (flattened parameters)
    with a proved non-orbit fibre point in the grid to one such point."""

    architecture: tuple
    values: tuple
    networks: int
    groups: int
    flagged: dict = field(default_factory=dict)
    zero_row: int = 0
    undecided: int = 0
    seconds: float = 0.0


def grid_networks(arch: Sequence[int], values: Sequence[object]) -> Iterable[tuple]:
    """Every parameter vector of ``arch`` with entries in ``values`` (flatten order)."""
    from .qq import to_q

    vals = [to_q(v) for v in values]
    D = sum(arch[l] * (arch[l - 1] + 1) for l in range(1, len(arch)))
    return itertools.product(vals, repeat=D)


def _int_eval(arch, P, X):
    """Exact integer evaluation of many networks (rows of integer ``P``) at integer points ``X``
    in int64; the caller bounds the magnitudes (:func:`_int_bound`) so nothing overflows."""
    import numpy as np

    n_nets = P.shape[0]
    H = np.broadcast_to(X.T[None, :, :], (n_nets, X.shape[1], X.shape[0])).astype(np.int64)
    pos = 0
    L = len(arch) - 1
    for l in range(1, L + 1):
        a, b = arch[l - 1], arch[l]
        W = P[:, pos:pos + a * b].reshape(n_nets, b, a)
        pos += a * b
        c = P[:, pos:pos + b]
        pos += b
        Z = np.einsum("nba,nak->nbk", W, H) + c[:, :, None]
        H = np.maximum(Z, 0) if l < L else Z
    return H.reshape(n_nets, -1)


def grid_fibre(
    arch: Sequence[int],
    values: Sequence[object] = (-1, 0, 1),
    num_points: int = 40,
    seed: int = 0,
    confirm: bool = True,
) -> GridReport:
    """Exhaustive fibre comparison over every network of ``arch`` with parameters in ``values``.

    Networks are grouped by their exact values at ``num_points`` seeded rational points
    (equal functions always fall in one group; computed in exact integer arithmetic after
    clearing the common denominator of ``values`` and of the points). Inside a group the
    orbits are told apart by :func:`exactnet.symmetry.canonical_form`. Every network without
    a zero incoming row whose group holds another orbit is then confirmed with
    :func:`exactnet.equivalence.equivalent` against a member of another orbit (so a value
    collision between different functions is never reported). Networks with a zero incoming
    row are counted in ``zero_row`` and not reported (the independent checker cannot certify
    "outside the orbit" for them, see :func:`exactnet.symmetry.same_orbit`).
    """
    import numpy as np

    from .equivalence import equivalent
    from .qq import to_q
    from .symmetry import canonical_form, has_zero_rows, same_orbit

    t0 = time.monotonic()
    arch = tuple(arch)
    vals = [to_q(v) for v in values]
    den = 1
    for v in vals:
        den = den * int(v.q) // _gcd(den, int(v.q))
    ivals = [int(v * den) for v in vals]
    if any(abs(v) > 64 for v in ivals):
        raise LimitError("grid values too large for the integer evaluation")
    rng = random.Random(seed)
    pden = 7
    Xnum = np.array([[rng.randint(-60, 60) for _ in range(arch[0])] for _ in range(num_points)], dtype=np.int64)
    D = sum(arch[l] * (arch[l - 1] + 1) for l in range(1, len(arch)))
    if len(vals) ** D > 2_000_000:
        raise LimitError(f"grid of {len(vals)}^{D} networks is too large")
    # scale: input points x = Xnum / pden; layer l weights over den, biases over den.
    # z_1 * den * pden = (den W)(Xnum) + (den b) pden: rescale biases layer by layer.
    idx = np.array(list(itertools.product(range(len(vals)), repeat=D)), dtype=np.int64)
    P = np.array(ivals, dtype=np.int64)[idx]
    # bias of layer l must be multiplied by pden * den^(l-1) to keep one common scale
    pos = 0
    scale = pden
    for l in range(1, len(arch)):
        a, b = arch[l - 1], arch[l]
        pos += a * b
        P[:, pos:pos + b] *= scale
        pos += b
        scale *= den
    if _int_bound(arch, max(abs(v) for v in ivals) * pden * den ** (len(arch) - 1), 60) >= 2 ** 62:
        raise LimitError("grid too deep or wide for exact int64 evaluation")
    V = _int_eval(arch, P, Xnum)
    groups: dict[bytes, list[int]] = {}
    for r in range(V.shape[0]):
        groups.setdefault(V[r].tobytes(), []).append(r)
    rep = GridReport(arch, tuple(vals), V.shape[0], len(groups))

    def net_of(r):
        return Network.unflatten(arch, [vals[j] for j in idx[r]])

    for members in groups.values():
        if len(members) < 2:
            if has_zero_rows(net_of(members[0])):
                rep.zero_row += 1
            continue
        nets = [net_of(r) for r in members]
        keys = {}
        for n in nets:
            try:
                k = tuple(canonical_form(n).flatten())
            except LimitError:
                k = None
            keys.setdefault(k, []).append(n)
        for n in nets:
            if has_zero_rows(n):
                rep.zero_row += 1
                continue
            if len(keys) < 2:
                continue
            try:
                mine = tuple(canonical_form(n).flatten())
            except LimitError:
                rep.undecided += 1
                continue
            for k, others in keys.items():
                if k == mine:
                    continue
                other = next((o for o in others if not has_zero_rows(o)), others[0])
                try:
                    if same_orbit(n, other):
                        continue
                except UndecidedError:
                    rep.undecided += 1
                    continue
                if not confirm or equivalent(n, other).equivalent:
                    rep.flagged[tuple(n.flatten())] = other
                    break
    rep.seconds = time.monotonic() - t0
    return rep


def _int_bound(arch, c: int, x: int) -> int:
    """A bound on every |integer| in :func:`_int_eval` when each (scaled) weight and bias is at
    most ``c`` and each point coordinate at most ``x`` in absolute value."""
    h = x
    for l in range(1, len(arch)):
        h = c * (arch[l - 1] * h + 1)
    return h


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a
