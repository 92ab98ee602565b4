"""Layer-by-layer exact extraction of deep ReLU networks from an exact oracle.

The deep counterpart of the one-hidden-layer extractor of :mod:`exactnet.extract`
(Carlini-Jagielski-Mironov 2020 in outline, but every number exact). Lemma:
``proofs/lemmas/extraction.md``.

1. **Critical points.** Random rational lines ``p + t u``; every kink ``t*`` of
   ``t -> f(p + t u)`` is solved for exactly (:func:`exactnet.extract.find_kinks`), and the
   exact gradients of the regions on both sides give the jump ``J n^T`` (rank one): ``n`` is
   the local normal of the bent hyperplane of the neuron that switches at ``x* = p + t* u``.
2. **Layer l (lower layers known exactly).** At ``x*``, the known layers give the hidden
   vector ``h = h_(l-1)(x*)`` and its Jacobian ``M`` (rows of the active neurons ``S``). A kink
   of a known neuron is recognised exactly (its pre-activation is zero at ``x*``). Otherwise
   ``n = a^T M_S`` is solved exactly (unique when the rows ``M_S`` are independent) and
   ``beta = -a . h``: if the kink belongs to a layer-l neuron ``k``, ``(a, beta)`` is
   ``c (W_l[k, S], b_l[k])`` for some ``c != 0``. Candidates are merged by exact
   proportionality on their common coordinates (at least three nonzero agreeing
   coordinates), which fills in the row over the active sets of different critical points.
3. **Which clusters are neurons.** Kinks of deeper neurons give local pieces that also look
   like rows. A cluster is accepted when, on fresh random lines, the zero set of its row
   (computed exactly with the known lower layers) carries an oracle kink exactly where the row
   predicts it (five exact values: straight on both sides, bent at the predicted point). The
   ``n_l`` accepted clusters with the most critical points are the layer; a further accepted,
   non-proportional cluster means the architecture is wrong.
4. **Signs.** Intermediate layer: at points where the gradients ``grad z_i`` of the layer's
   pre-activations are independent, the exact gradient ``G`` of ``f`` decomposes uniquely as
   ``sum_i a_i grad z_i`` and ``a_i != 0`` only for active neurons, which fixes the side on
   which neuron ``i`` is active. Last hidden layer: ``f = sum_i alpha_i relu(z_i) + beta_i z_i + d``
   is solved exactly from queries (``beta_i = 0``: orientation right; ``beta_i = -alpha_i``:
   flipped); this also gives the output layer. If that has no solution and some neurons of the
   layer were never seen, ``f = sum alpha_i relu(z_i) + R h + d`` is solved exactly and ``R h`` is
   carried by always-active spare neurons (neurons that never bend, e.g. stably active: a fibre
   point, Lemma 3 (c) of ``proofs/lemmas/extraction.md``).
5. **Check.** The assembled network is compared with the oracle at random points; any
   disagreement raises :class:`UndecidedError` (no network that disagrees at a checked point is
   returned; a neuron active only where no query went is not seen, so only the exact comparison
   with a victim network proves equality).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Sequence

from flint import fmpq, fmpq_mat

from .errors import UndecidedError
from .network import Network
from .oracle import NetworkOracle, Oracle
from .qq import Q0, Q1

__all__ = ["extract_deep", "check_deep", "DeepStats"]

Vec = list


@dataclass
class DeepStats:
    lines: int = 0
    kinks: int = 0
    spare: int = 0
    suspect: list = field(default_factory=list)
    seen: list = field(default_factory=list)  # (point, normal) of every kink the scans showed
    clusters: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    linear_neurons: int = 0  # last hidden layer: always-active neurons carrying a fitted linear part
    timing: dict = field(default_factory=dict)


@dataclass
class _Kink:
    x: Vec
    n: Vec  # normal (n . u > 0 on the scanning line)
    J: Vec  # output jump along +n


def _dot(a, b) -> fmpq:
    acc = Q0
    for x, y in zip(a, b):
        if x and y:
            acc += x * y
    return acc


# ----------------------------------------------------------------- known layers
class _Known:
    """Known hidden layers ``(W, b)`` (signs fixed): exact forward pass with Jacobian."""

    def __init__(self, n0: int, layers: list, spare: list | None = None) -> None:
        self.n0 = n0
        self.layers = layers  # list of (W rows, b)
        self.spare = spare or [set() for _ in layers]  # zero neurons standing in for invisible ones
        self.mats = [(fmpq_mat(len(W), len(W[0]), [v for r in W for v in r]), list(b)) for W, b in layers]

    def forward(self, x: Vec):
        """``(zs, h, Jh)``: pre-activations per layer, last hidden vector, its Jacobian (fmpq_mat)."""
        zs = []
        h = list(x)
        Jh = None  # identity
        for M, b in self.mats:
            hv = fmpq_mat(len(h), 1, h)
            z = [v + bb for v, bb in zip((M * hv).entries(), b)]
            Jz = M if Jh is None else M * Jh
            zs.append(z)
            h = [v if v > 0 else Q0 for v in z]
            rows = Jz.tolist()
            self.last_Jz = rows
            Jh = fmpq_mat([r if v > 0 else [Q0] * len(r) for r, v in zip(rows, z)])
        return zs, h, Jh

    def hits_known(self, zs) -> bool:
        """Is some known (non-spare) neuron exactly at zero?"""
        return any(v == 0 and i not in sp for z, sp in zip(zs, self.spare) for i, v in enumerate(z))

    def network_with(self, rows: list, biases: list) -> Network:
        """The known layers followed by an affine output layer ``rows, biases``."""
        return Network.from_lists([(W, b) for W, b in self.layers] + [(rows, biases)])


def _solve_unique(cols: list[Vec], rhs_rows: list[Vec]) -> list[Vec] | None:
    """Solve ``sum_j a_j cols[j] = rhs`` for every rhs; None unless unique and consistent for all."""
    k = len(cols)
    n = len(cols[0]) if cols else len(rhs_rows[0])
    if k == 0:
        return [[] for _ in rhs_rows] if all(not any(r) for r in rhs_rows) else None
    M = fmpq_mat(n, k + len(rhs_rows), [v for i in range(n) for v in ([c[i] for c in cols] + [r[i] for r in rhs_rows])])
    R, rank = M.rref()
    if rank != k:
        return None
    Rl = R.tolist()
    for r in range(k):
        if Rl[r][r] != 1:
            return None
    return [[Rl[r][k + o] for r in range(k)] for o in range(len(rhs_rows))]


# ------------------------------------------------------------------- line scans
def _scan(oracle: Oracle, rng: random.Random, attempt: int, cap: int, R: fmpq) -> list[_Kink]:
    from .extract import _PRIMES

    n0 = oracle.n_in
    P = _PRIMES[attempt % len(_PRIMES)]
    p = [fmpq(rng.randint(-8 * P, 8 * P), P) for _ in range(n0)]
    u = [fmpq(rng.randint(-9, 9)) for _ in range(n0)]
    if not any(u):
        u[0] = Q1
    return _scan_segment(oracle, rng, p, u, -R, R, cap)


def _scan_segment(oracle: Oracle, rng: random.Random, p: Vec, u: Vec, lo: fmpq, hi: fmpq, cap: int = 10**6) -> list[_Kink]:
    """Exact kinks of ``f`` on the segment ``p + t u``, ``lo < t < hi``, with their gradient jumps."""
    from .extract import _gradient_ok, _gradients, _line_point, _pow2_below, _rank_one, find_kinks, simplest_between

    # start from 16 pieces: a midpoint on the chord of a long interval is weak evidence of no kink
    cuts = [lo + (hi - lo) * k / 16 for k in range(17)]
    kinks, phi = find_kinks(oracle, p, u, cuts[0], cuts[1], cap)
    for a, b in zip(cuts[1:], cuts[2:]):
        more, _ = find_kinks(oracle, p, u, a, b, cap, phi)
        kinks += more
    # a kink exactly at a cut point is invisible to both halves: confirm the cuts are smooth points
    from .extract import _collinear

    for c in cuts[1:-1]:
        h = (hi - lo) / 2**40
        phi.ensure([c - h, c, c + h])
        if not _collinear(c - h, phi[c - h], c, phi[c], c + h, phi[c + h]):
            raise UndecidedError("a kink fell on a scan cut point (retry with another seed)")
    kinks.sort()
    if not kinks:
        return []
    bounds = [lo] + kinks + [hi]
    mids, deltas = [], []
    for a, b in zip(bounds, bounds[1:]):
        tm = simplest_between(a, b)
        mids.append(tm)
        deltas.append(_pow2_below(min(tm - a, b - tm)) / fmpq(2) ** 20)
    xs = [_line_point(p, u, t) for t in mids]
    grads = _gradients(oracle, xs, deltas, rng)
    ok = [_gradient_ok(g, mids[k], bounds[k], bounds[k + 1], u, deltas[k], phi) for k, g in enumerate(grads)]
    bad = [k for k in range(len(grads)) if not ok[k]]
    if bad:
        for k in bad:
            deltas[k] = deltas[k] / fmpq(2) ** 24
        redo = _gradients(oracle, [xs[k] for k in bad], [deltas[k] for k in bad], rng)
        for k, g in zip(bad, redo):
            grads[k] = g
            ok[k] = _gradient_ok(g, mids[k], bounds[k], bounds[k + 1], u, deltas[k], phi)
    out = []
    for i, tk in enumerate(kinks):
        if not (ok[i] and ok[i + 1]):
            continue
        D = [[r - l for l, r in zip(rl, rr)] for rl, rr in zip(grads[i][0], grads[i + 1][0])]
        f1 = _rank_one(D)
        if f1 is None:
            continue
        J, nrm = f1
        if _dot(nrm, u) < 0:
            nrm = [-v for v in nrm]
            J = [-v for v in J]
        out.append(_Kink(_line_point(p, u, tk), nrm, J))
    return out


# --------------------------------------------------------------- row candidates
def _candidate(known: _Known, kink: _Kink, width: int):
    """``dict coord -> value`` (coord ``width`` is the bias) or None / "known"."""
    if not known.layers:
        vec = {j: v for j, v in enumerate(kink.n)}
        vec[width] = -_dot(kink.n, kink.x)
        return vec, list(kink.x)
    zs, h, Jh = known.forward(kink.x)
    if known.hits_known(zs):
        return "known"
    S = [j for j, v in enumerate(h) if v > 0]
    if not S:
        return None
    rows = Jh.tolist()
    sol = _solve_unique([rows[j] for j in S], [kink.n])
    if sol is None:
        return None
    a = sol[0]
    vec = {j: aj for j, aj in zip(S, a)}
    vec[width] = -_dot(a, [h[j] for j in S])
    return vec, h


class _Cluster:
    def __init__(self, vec: dict, h: Vec | None = None) -> None:
        self.vec = dict(vec)
        self.members = 1
        self.hs = [h] if h is not None else []
        self.xs: list = []

    def value(self, h: Vec) -> fmpq | None:
        """The row's affine function at a hidden vector ``h`` (None if the row is incomplete)."""
        n = len(h)
        if any(j not in self.vec for j in range(n + 1)):
            return None
        return _dot([self.vec[j] for j in range(n)], h) + self.vec[n]

    def match(self, vec: dict, need: int) -> fmpq | None:
        """The factor ``lam`` with ``vec = lam * self.vec`` on common coordinates, if evidenced."""
        lam = None
        agree = 0
        for k, v in vec.items():
            w = self.vec.get(k)
            if w is None:
                continue
            if lam is None:
                if w == 0 and v == 0:
                    continue
                if w == 0 or v == 0:
                    return None
                lam = v / w
                agree = 1
                continue
            if v != lam * w:
                return None
            if v:
                agree += 1
        return lam if lam is not None and agree >= need else None

    def absorb(self, vec: dict, lam: fmpq) -> None:
        for k, v in vec.items():
            if k not in self.vec:
                self.vec[k] = v / lam
        self.members += 1


def _cluster(cands: list, need: int) -> list[_Cluster]:
    cands = sorted(cands, key=lambda v: -len(v[0]))
    clusters: list[_Cluster] = []
    for vec, h, x in cands:
        for c in clusters:
            lam = c.match(vec, need)
            if lam is not None:
                c.absorb(vec, lam)
                c.hs.append(h)
                c.xs.append(x)
                break
        else:
            clusters.append(_Cluster(vec, h))
            clusters[-1].xs.append(x)
    # merge clusters that became comparable
    changed = True
    while changed:
        changed = False
        for i in range(len(clusters)):
            for j in range(i + 1, len(clusters)):
                lam = clusters[i].match(clusters[j].vec, need)
                if lam is not None:
                    m = clusters[j].members
                    clusters[i].absorb(clusters[j].vec, lam)
                    clusters[i].members += m - 1
                    clusters[i].hs += clusters[j].hs
                    clusters[i].xs += clusters[j].xs
                    del clusters[j]
                    changed = True
                    break
            if changed:
                break
    clusters.sort(key=lambda c: -c.members)
    return clusters


def _compatible(pool: list[_Cluster]) -> list[_Cluster]:
    """Drop clusters confined to one side of other clusters' zero sets (pieces of deeper neurons).

    A neuron of the layer bends everywhere on its zero set, so the critical points of another
    neuron of the same layer tend to lie on both sides of it; a deeper neuron's piece is confined
    to one activation region of the layer, so it is incompatible with most of the layer. The most
    incompatible cluster is dropped while it is incompatible with more than half of the others.
    """
    k = len(pool)
    vals = [[[g.value(h) for h in c.hs] for g in pool] for c in pool]

    def both(i, j):
        vs = vals[i][j]
        return any(v > 0 for v in vs) and any(v < 0 for v in vs)

    inc = [set() for _ in range(k)]
    for i in range(k):
        for j in range(i + 1, k):
            if not (both(i, j) and both(j, i)):
                inc[i].add(j)
                inc[j].add(i)
    alive = set(range(k))
    while True:
        worst = max(alive, key=lambda i: (len(inc[i] & alive), -pool[i].members), default=None)
        if worst is None or 2 * len(inc[worst] & alive) <= len(alive) - 1:
            break
        alive.discard(worst)
    return [pool[i] for i in sorted(alive)]


def _complete(oracle: Oracle, known: _Known, c: _Cluster, width: int, rng: random.Random) -> int:
    """Follow the cluster's bent hyperplane across the boundary of a lower neuron it has not seen active.

    From a critical point ``x*`` of the cluster where lower neuron ``j`` is inactive, step along
    the gradient of ``z_j`` just past its zero set, then scan a short line along the cluster's
    local normal for a kink: its row candidate (with ``j`` active) fills in coordinate ``j``.
    Returns the number of coordinates filled in.
    """
    if not known.layers:
        return 0
    filled = 0
    for j in range(width):
        if j in c.vec:
            continue
        tries = []
        for x in c.xs:
            zs, h, Jh = known.forward(x)
            g = known.last_Jz[j]
            zj = zs[-1][j]
            gg = _dot(g, g)
            if zj >= 0 or gg == 0:
                continue
            tries.append((zj * zj / gg, x, zs, h, Jh, g, zj, gg))  # squared distance to z_j = 0 (locally)
        tries.sort(key=lambda t: t[0])
        for _, x, zs, h, Jh, g, zj, gg in tries[:8]:
            s = -zj / gg * fmpq(9, 8)
            y = [xi + s * gi for xi, gi in zip(x, g)]
            # the cluster's local normal at x: its row through the known Jacobian
            S = [i for i, v in enumerate(h) if v > 0 and i in c.vec]
            rows = Jh.tolist()
            nrm = [_dot([c.vec[i] for i in S], [rows[i][col] for i in S]) for col in range(known.n0)]
            nn = _dot(nrm, nrm)
            if nn == 0:
                continue
            T = 4 * abs(s) * (gg / nn) ** 0  # same length scale in x as the step
            T = max(T * _isqrt_ratio(gg, nn), Q1 / 2**20)
            got = _scan_segment(oracle, rng, y, nrm, -T, T)
            hit = False
            for k in got:
                cand = _candidate(known, k, width)
                if cand is None or cand == "known" or j not in cand[0]:
                    continue
                lam = c.match(cand[0], 3)
                if lam is not None:
                    c.absorb(cand[0], lam)
                    c.hs.append(cand[1])
                    c.xs.append(k.x)
                    filled += 1
                    hit = True
                    break
            if hit:
                break
    return filled


def _guess_partial(oracle: Oracle, known: _Known, partial: list, accepted: list, width: int, nl: int, last: bool,
                   rng: random.Random) -> int:
    """Fill the missing coordinates of partly seen clusters with 0 while the layer has room.

    A coordinate ``j`` is missing when lower neuron ``j`` was inactive at every critical point of
    the cluster and following the bent hyperplane across ``z_j = 0`` found nothing: often the
    weight is 0 (random weights draw zeros) or the neuron never bends where ``j`` is active. 0 is
    only a proposal: the cluster must still pass the far test (intermediate layers), and the
    last-layer fit and the final checks judge the network. Returns how many were accepted.
    """
    guessed = 0
    for c in partial:
        if len(accepted) >= nl:
            break
        if any(a is c or a.match(c.vec, 2) is not None for a in accepted):
            continue
        vec = {j: c.vec.get(j, Q0) for j in range(width + 1)}
        row = [vec[j] for j in range(width)]
        if not any(row):
            continue
        if last or _far_test(oracle, known, row, vec[width], rng, 10):
            c.vec = vec
            accepted.append(c)
            guessed += 1
    return guessed


def _isqrt_ratio(a: fmpq, b: fmpq) -> fmpq:
    """A power of two close to ``sqrt(a / b)`` (a length-scale conversion; exactness not needed)."""
    r = a / b
    p = Q1
    while p * p * 4 <= r:
        p *= 2
    while p * p > r * 4:
        p /= 2
    return p


# ------------------------------------------------------------------ far tests
def _far_test(oracle: Oracle, known: _Known, row: Vec, bias: fmpq, rng: random.Random, tries: int) -> bool:
    """Does the oracle bend exactly on the zero set of ``row . h + bias`` at fresh points?"""
    from .extract import _PRIMES, _line_point, find_kinks

    n0 = known.n0
    P = known.network_with([row], [bias])
    own = NetworkOracle(P)
    R = fmpq(2) ** 8
    for k in range(tries):
        Pr = _PRIMES[(k + 1) % len(_PRIMES)]
        p = [fmpq(rng.randint(-8 * Pr, 8 * Pr), Pr) for _ in range(n0)]
        u = [fmpq(rng.randint(-9, 9)) for _ in range(n0)]
        if not any(u):
            u[0] = Q1
        if P.depth > 1:
            ks, line = find_kinks(own, p, u, -R, R, 10**6)
        else:
            ks = []
        bounds = [-R] + ks + [R]
        vals = own.query_batch([_line_point(p, u, t) for t in bounds], cache=False)
        roots = []
        for i in range(len(bounds) - 1):
            a, b = bounds[i], bounds[i + 1]
            fa, fb = vals[i][0], vals[i + 1][0]
            if fa == 0 or fb == 0:
                continue
            if (fa > 0) != (fb > 0):
                t = a - fa * (b - a) / (fb - fa)
                eps = min(t - a, b - t) / 4
                roots.append((t, min(eps, Q1 / 2 ** 10)))
        rng.shuffle(roots)
        for t, eps in roots[:3]:
            ts = [t - eps, t - eps / 2, t, t + eps / 2, t + eps]
            ys = oracle.query_batch([_line_point(p, u, s) for s in ts], cache=False)
            if _bent_at(ts, ys):
                return True
    return False


def _bent_at(ts, ys) -> bool:
    def col(i, j, k):
        return all((ys[j][o] - ys[i][o]) * (ts[k] - ts[i]) == (ys[k][o] - ys[i][o]) * (ts[j] - ts[i]) for o in range(len(ys[0])))

    return col(0, 1, 2) and col(2, 3, 4) and not col(0, 2, 4)


# ------------------------------------------------------------------------ signs
def _random_points(rng: random.Random, n0: int, count: int) -> list[Vec]:
    P = 2**31 - 1
    return [[fmpq(rng.randint(-8 * P, 8 * P), P) for _ in range(n0)] for _ in range(count)]


def _positive_points(rng: random.Random, known: _Known, count: int) -> list[Vec]:
    """Points where every first-layer neuron is active (first layer of full row rank)."""
    W, b = known.layers[0]
    n1, n0 = len(W), len(W[0])
    M = fmpq_mat(n1, n0, [v for r in W for v in r])
    G = M * M.transpose()
    if G.det() == 0:
        return []
    out = []
    for _ in range(count):
        x0 = [fmpq(rng.randint(-1000, 1000), 997) for _ in range(n0)]
        h = [fmpq(rng.randint(1, 4000), 1009) for _ in range(n1)]
        rhs = [hi - bi - _dot(r, x0) for hi, bi, r in zip(h, b, W)]
        y = G.solve(fmpq_mat(n1, 1, rhs)).entries()
        out.append([x0[j] + sum((W[i][j] * y[i] for i in range(n1)), Q0) for j in range(n0)])
    return out


def _layer_signs(oracle: Oracle, known: _Known, rows: list, biases: list, rng: random.Random, budget: int,
                 near: list | None = None) -> tuple[list, int]:
    """Orientation ``+1/-1`` of each row (None: not seen) from gradient decompositions.

    ``near``: points beside the rows' own critical points (where each neuron was seen to
    matter), tried first; then points with every first-layer neuron active, and random points.
    """
    from .extract import _gradients

    nl = len(rows)
    signs: list = [None] * nl
    used = 0
    n0 = oracle.n_in
    near = list(near or [])
    while used < budget + len(near) and any(s is None for s in signs):
        batch = 8
        if near:
            pts, near = near[:batch], near[batch:]
        else:
            pts = _positive_points(rng, known, batch // 2) if known.layers else []
            pts += _random_points(rng, n0, batch - len(pts))
        used += len(pts)
        grads = _gradients(oracle, pts, [Q1 / 2**30] * len(pts), rng)
        for x, (G, f0, r, fr) in zip(pts, grads):
            if any(fr[o] != f0[o] + _dot(G[o], r) / 2**30 for o in range(len(f0))):
                continue
            if known.layers:
                zs, h, Jh = known.forward(x)
                if known.hits_known(zs):
                    continue
                Jrows = Jh.tolist()
            else:
                h, Jrows = list(x), [[Q1 if i == j else Q0 for j in range(n0)] for i in range(n0)]
            z = [_dot(rw, h) + bb for rw, bb in zip(rows, biases)]
            if any(v == 0 for v in z):
                continue
            grad = [[_dot([rw[j] for j in range(len(h))], [Jrows[j][c] for j in range(len(h))]) for c in range(n0)] for rw in rows]
            basis = [i for i in range(nl) if signs[i] is None or (z[i] > 0) == (signs[i] > 0)]
            sol = _solve_unique([grad[i] for i in basis], G)
            if sol is None:
                continue
            for k, i in enumerate(basis):
                if any(s[k] != 0 for s in sol):
                    s = 1 if z[i] > 0 else -1
                    if signs[i] is not None and signs[i] != s:
                        raise UndecidedError("inconsistent activity of an extracted neuron (sign recovery contradicts itself)")
                    signs[i] = s
    return signs, used


def _last_layer(oracle: Oracle, known: _Known, rows: list, biases: list, rng: random.Random, extra_pts: list):
    """Solve ``f = sum alpha_i relu(z_i) + beta_i z_i + d`` exactly: signs and output layer."""
    nl = len(rows)
    m = oracle.n_out
    unknowns = 2 * nl + 1
    pts = list(extra_pts) + _random_points(rng, oracle.n_in, unknowns + 8)
    feats = []
    good = []
    for x in pts:
        zs, h, _ = known.forward(x)
        z = [_dot(rw, h) + bb for rw, bb in zip(rows, biases)]
        feats.append([v if v > 0 else Q0 for v in z] + z + [Q1])
        good.append(x)
    ys = oracle.query_batch(good, cache=False)
    cols = [[f[c] for f in feats] for c in range(unknowns)]
    rhs = [[y[o] for y in ys] for o in range(m)]
    sol = _solve_unique(cols, rhs)
    if sol is None:
        F = fmpq_mat(len(feats), unknowns, [v for f in feats for v in f])
        rank = F.rank()
        why = (f"the features are rank deficient ({rank} < {unknowns}: some neuron is active or inactive at every "
               "sampled point)") if rank < unknowns else (
               "the oracle's values are not of the form sum alpha_i relu(z_i) + beta_i z_i + d over the neurons found "
               "(a neuron is missing or the oracle is not a network of this architecture)")
        raise UndecidedError(f"last hidden layer: no exact fit of the signs and output weights: {why}")
    flips = []
    V = [[Q0] * nl for _ in range(m)]
    d = [sol[o][2 * nl] for o in range(m)]
    for i in range(nl):
        kind = None
        for o in range(m):
            a, b = sol[o][i], sol[o][nl + i]
            if a == 0 and b == 0:
                continue
            k = 0 if b == 0 else (1 if b == -a else None)
            if k is None or (kind is not None and k != kind):
                raise UndecidedError("the exact fit of the last hidden layer has no valid sign choice")
            kind = k
            V[o][i] = a
        flips.append(kind)
    return flips, V, d


def _last_layer_linear(oracle: Oracle, known: _Known, rows: list, biases: list, rng: random.Random, extra_pts: list,
                       spare: int):
    """Solve ``f = sum alpha_i relu(z_i) + R h + d`` exactly (``h``: the last known hidden vector).

    For a last hidden layer with neurons that never bend: such a neuron is active (or without effect)
    wherever it is seen, so it contributes a linear function of ``h``. As ``h >= 0``, ``R h`` is
    carried exactly by neurons that are active everywhere: for one output, ``relu(r+ . h + 1) -
    relu(r- . h + 1)`` with ``R = r+ - r-`` (two neurons at most); otherwise one neuron ``relu(h_j)``
    per nonzero column ``j`` of ``R``. Returns ``(rows, biases, V, d, neurons used)``; raises
    :class:`UndecidedError` when the fit is not unique or more neurons would be needed than are spare.
    """
    nl = len(rows)
    m = oracle.n_out
    width = len(rows[0]) if rows else len(known.layers[-1][0])
    pts = list(extra_pts) + _random_points(rng, oracle.n_in, nl + width + 16)
    hs = [known.forward(x)[1] for x in pts]
    cols_h = [j for j in range(width) if any(h[j] for h in hs)]  # coordinates never nonzero carry nothing
    feats = []
    for h in hs:
        z = [_dot(rw, h) + bb for rw, bb in zip(rows, biases)]
        feats.append([v if v > 0 else Q0 for v in z] + [h[j] for j in cols_h] + [Q1])
    ys = oracle.query_batch(pts, cache=False)
    k = len(feats[0])
    sol = _solve_unique([[f[c] for f in feats] for c in range(k)], [[y[o] for y in ys] for o in range(m)])
    if sol is None:
        raise UndecidedError(
            "last hidden layer: neither the neurons found nor the neurons found plus a linear term in the previous "
            "hidden layer fit the oracle exactly (a neuron is missing or the oracle is not a network of this "
            "architecture)"
        )
    V = [[sol[o][i] for i in range(nl)] for o in range(m)]
    d = [sol[o][k - 1] for o in range(m)]
    R = [[Q0] * width for _ in range(m)]
    for o in range(m):
        for c, j in enumerate(cols_h):
            R[o][j] = sol[o][nl + c]
    rows, biases = [list(r) for r in rows], list(biases)
    if m == 1:
        pos = [v if v > 0 else Q0 for v in R[0]]
        neg = [-v if v < 0 else Q0 for v in R[0]]
        parts = [(p, sgn) for p, sgn in ((pos, Q1), (neg, -Q1)) if any(p)]
        if len(parts) > spare:
            raise UndecidedError(f"last hidden layer: the linear part needs {len(parts)} always-active neurons, only "
                                 f"{spare} are unaccounted for")
        for p, sgn in parts:  # relu(p . h + 1) = p . h + 1 since p >= 0 and h >= 0
            rows.append(p)
            biases.append(Q1)
            V[0].append(sgn)
            d[0] -= sgn
        return rows, biases, V, d, len(parts)
    used = [j for j in range(width) if any(R[o][j] for o in range(m))]
    if len(used) > spare:
        raise UndecidedError(f"last hidden layer: the linear part needs {len(used)} always-active neurons, only "
                             f"{spare} are unaccounted for")
    for j in used:  # relu(h_j) = h_j
        rows.append([Q1 if i == j else Q0 for i in range(width)])
        biases.append(Q0)
        for o in range(m):
            V[o].append(R[o][j])
    return rows, biases, V, d, len(used)


def _both_sides(known: _Known, clusters: list, rows: list, biases: list) -> list[Vec]:
    """Points just on either side of each neuron's zero set, beside one of its critical points."""
    out = []
    for c, r, b in zip(clusters, rows, biases):
        for x in c.xs[:2]:
            if known.layers:
                zs, h, Jh = known.forward(x)
                J = Jh.tolist()
                nrm = [_dot(r, [J[i][col] for i in range(len(r))]) for col in range(known.n0)]
            else:
                nrm = list(r)
            if not any(nrm):
                continue
            eps = Q1 / 2**24
            for _ in range(8):
                pts = [[xi + sg * eps * ni for xi, ni in zip(x, nrm)] for sg in (1, -1)]
                zz = [_dot(r, known.forward(p)[1] if known.layers else p) + b for p in pts]
                if (zz[0] > 0) != (zz[1] > 0):
                    out += pts
                    break
                eps /= 2**8
    return out


def _normalise(row: Vec, bias: fmpq) -> tuple[Vec, fmpq]:
    s = next((abs(v) for v in list(row) + [bias] if v), Q1)
    return [v / s for v in row], bias / s


# -------------------------------------------------------------------- main loop
def extract_deep(oracle: Oracle, arch: Sequence[int], rng: random.Random, max_lines: int = 0,
                 check_points: int = 64):
    """Extract a deep network (at least two hidden layers); returns ``(net, DeepStats)``."""
    st = DeepStats()
    try:
        return _extract_deep(oracle, arch, rng, max_lines, st)
    except UndecidedError as e:
        if st.suspect:
            raise UndecidedError(f"architecture mismatch suspected ({'; '.join(st.suspect)}): {e}") from None
        raise


def check_deep(oracle: Oracle, net: Network, st: "DeepStats", rng: random.Random, count: int) -> dict:
    """The final query check of a deep extraction, with the mismatch suspicion in the message."""
    from .extract import check_against_oracle

    try:
        _check_seen_kinks(oracle, net, st, rng)
        out = check_against_oracle(oracle, net, rng, count, [])
        out["kink_points"] = 3 * min(len(st.seen), _SEEN_CAP)
        out["points"] += out["kink_points"]
        return out
    except UndecidedError as e:
        if st.suspect:
            raise UndecidedError(f"architecture mismatch suspected ({'; '.join(st.suspect)}): {e}") from None
        raise


_SEEN_CAP = 400


def _check_seen_kinks(oracle: Oracle, net: Network, st: "DeepStats", rng: random.Random) -> None:
    """The oracle's own kinks must be reproduced: compare at and beside (along the normal) each one.

    Random points can all fall where the function is flat; the kinks the scans found are where
    it is not. A disagreement raises :class:`UndecidedError`.
    """
    seen = list(st.seen)
    if len(seen) > _SEEN_CAP:
        seen = rng.sample(seen, _SEEN_CAP)
    pts = []
    for x, n in seen:
        s = max(abs(v) for v in n)
        if not s:
            continue
        eps = Q1 / (2**24 * s)
        pts += [x, [a - eps * b for a, b in zip(x, n)], [a + eps * b for a, b in zip(x, n)]]
    if not pts:
        return
    outs = oracle.query_batch(pts, cache=False)
    mine = net.evaluate_batch(pts)
    if any(a != b for a, b in zip(outs, mine)):
        raise UndecidedError(
            "the extracted network does not reproduce the oracle beside a kink the scans found (neurons were "
            "missed or misread); no network is returned"
        )


def _extract_deep(oracle: Oracle, arch: Sequence[int], rng: random.Random, max_lines: int, st: "DeepStats"):
    arch = tuple(arch)
    n0 = arch[0]
    L = len(arch) - 1
    for l in range(1, L):
        if arch[l] > arch[l - 1]:
            raise UndecidedError(
                f"layer {l} has {arch[l]} neurons for {arch[l - 1]} inputs: the deep extractor needs non-expanding "
                "hidden layers (n_l <= n_(l-1)) to read rows from gradient jumps uniquely"
            )
    N = sum(arch[1:L])
    lines = max_lines or max(24, 3 * arch[1])
    R = fmpq(2) ** 8
    t0 = time.perf_counter()
    kinks: list[_Kink] = []
    for a in range(lines):
        kinks += _scan(oracle, rng, a, 200 * N + 1000, R)
    st.lines = lines
    st.kinks = len(kinks)
    if not kinks:
        raise UndecidedError(
            f"no kink on {lines} random lines: the oracle looks affine, so no hidden neuron of the architecture "
            "can be located (a network whose neurons matter only in a small region would be missed)"
        )
    st.seen = [(k.x, k.n) for k in kinks]
    st.timing["scan"] = time.perf_counter() - t0
    known = _Known(n0, [])
    for l in range(1, L):
        width = arch[l - 1]
        nl = arch[l]
        t0 = time.perf_counter()
        cands = []
        rest = []
        for k in kinks:
            c = _candidate(known, k, width)
            if c == "known":
                continue
            rest.append(k)
            if c is not None:
                cands.append((c[0], c[1], k.x))
        kinks = rest
        clusters = _cluster(cands, 3 if width > 4 else 2)
        st.timing[f"rows{l}"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        dead = known.spare[-1] if known.layers else set()
        for c in clusters:  # coordinates of spare (zero) lower neurons are irrelevant
            for j in dead:
                c.vec.setdefault(j, Q0)
        t0 = time.perf_counter()
        done = 0
        for c in clusters[: 2 * nl + 4]:
            if (c.members >= 2 or l == L - 1) and c.value([Q0] * width) is None:
                done += _complete(oracle, known, c, width, rng)
        st.timing[f"complete{l}"] = time.perf_counter() - t0
        pool = [c for c in clusters if c.members >= 2 and c.value([Q0] * width) is not None
                and any(c.vec[j] for j in range(width))][: 3 * nl + 8]
        t0 = time.perf_counter()
        if l < L - 1:
            pool = _compatible(pool)  # the last hidden layer has no deeper neurons
            accepted: list[_Cluster] = []
            for c in pool[: nl + 2]:
                row = [c.vec[j] for j in range(width)]
                if _far_test(oracle, known, row, c.vec[width], rng, 10):
                    accepted.append(c)
        else:
            # no deeper neurons: every complete cluster is a neuron of this layer; merge exact duplicates
            accepted = []
            for c in clusters:
                if c.value([Q0] * width) is None or not any(c.vec[j] for j in range(width)):
                    continue
                if any(a.match(c.vec, 2) is not None for a in accepted):
                    continue
                accepted.append(c)
        if len(accepted) > nl:
            if l == L - 1:
                raise UndecidedError(
                    f"architecture mismatch: more than {nl} neurons found in hidden layer {l} "
                    f"(the architecture {','.join(map(str, arch))} has {nl})"
                )
            st.suspect.append(f"{len(accepted)} candidate neurons passed the checks in hidden layer {l}, which has {nl}")
            accepted.sort(key=lambda c: -c.members)
            accepted = accepted[:nl]
        st.timing[f"far{l}"] = time.perf_counter() - t0
        partial = [c for c in clusters[: 2 * nl] if c.value([Q0] * width) is None and c.members >= 3]
        guessed = _guess_partial(oracle, known, partial, accepted, width, nl, l == L - 1, rng)
        if guessed:
            st.notes.append(
                f"hidden layer {l}: {guessed} neuron(s) seen only where some lower neuron is inactive; the weights "
                "from those lower neurons are not determined by their critical points and were proposed as 0 (a "
                "proposal like any other: the checks judge the result)"
            )
        incomplete = sum(1 for c in partial if c.value([Q0] * width) is None)
        st.clusters.append({"layer": l, "clusters": len(clusters), "accepted": len(accepted),
                            "members": [c.members for c in accepted], "completed": done,
                            "incomplete": incomplete, "guessed": guessed})
        spare = nl - len(accepted)
        if spare and incomplete:
            raise UndecidedError(
                f"hidden layer {l}: only {len(accepted)} of {nl} neurons were found and confirmed, and "
                f"{incomplete} neuron(s) were seen only partly (some lower neuron never active at their critical "
                "points); no network is returned"
            )
        if spare:
            st.notes.append(
                f"hidden layer {l}: {spare} neuron(s) never seen (dead, or without effect on the output at every "
                "query, or bending only where no query went): returned as zero neurons, so the result can differ "
                "from the oracle's function where such a neuron is active; the victim's parameters there are not "
                "determined by the queries"
            )
        rows, biases = [], []
        for c in accepted:
            r, b = _normalise([c.vec[j] for j in range(width)], c.vec[width])
            rows.append(r)
            biases.append(b)
        t0 = time.perf_counter()
        if l < L - 1:
            signs, used = _layer_signs(oracle, known, rows, biases, rng, 64 + 16 * nl,
                                       _both_sides(known, accepted, rows, biases))
            if any(s is None for s in signs):
                raise UndecidedError(
                    f"hidden layer {l}: the active side of {sum(s is None for s in signs)} neuron(s) was never seen "
                    "(their effect on the output is zero at every sampled point)"
                )
            rows = [[v * s for v in r] for r, s in zip(rows, signs)]
            biases = [b * s for b, s in zip(biases, signs)]
            st.timing[f"signs{l}"] = time.perf_counter() - t0
            sp = set(range(len(rows), nl))
            rows += [[Q0] * width for _ in sp]
            biases += [Q0 for _ in sp]
            known = _Known(n0, known.layers + [(rows, biases)], known.spare + [sp])
            st.spare += len(sp)
            continue
        near = _both_sides(known, accepted, rows, biases)
        try:
            flips, V, d = _last_layer(oracle, known, rows, biases, rng, near)
        except UndecidedError:
            if not spare or not known.layers:
                raise
            # neurons never seen may still act linearly (stably active): fit that linear part too
            rows, biases, V, d, used = _last_layer_linear(oracle, known, rows, biases, rng, near, spare)
            flips = [0] * len(rows)
            old = f"hidden layer {l}: {spare} neuron(s) never seen"
            st.notes = [n for n in st.notes if not n.startswith(old)]
            spare -= used
            if spare:
                st.notes.append(f"hidden layer {l}: {spare} further neuron(s) never seen: returned as zero neurons")
            st.linear_neurons = used
            st.notes.append(
                f"hidden layer {l}: {used} neuron(s) never bend (active wherever they matter, e.g. stably active); "
                "their linear effect was fitted exactly and is carried by neurons with nonnegative rows and a "
                "positive bias, which are active everywhere: a point of the fibre, not the victim's orbit"
            )
        st.timing[f"signs{l}"] = time.perf_counter() - t0
        for i, fl in enumerate(flips):
            if fl == 1:
                rows[i] = [-v for v in rows[i]]
                biases[i] = -biases[i]
            elif fl is None:
                st.notes.append(f"neuron {i} of the last hidden layer has zero output weight")
        for _ in range(spare):
            rows.append([Q0] * width)
            biases.append(Q0)
            for o in range(len(V)):
                V[o].append(Q0)
        st.spare += spare
        layers = known.layers + [(rows, biases), (V, d)]
        return Network.from_lists(layers, name="extracted"), st
    raise AssertionError("unreachable")  # pragma: no cover
