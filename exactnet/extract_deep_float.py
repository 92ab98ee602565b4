"""Layer-by-layer extraction of deep ReLU networks from a float64 oracle: floats propose only.

The float64 counterpart of :mod:`exactnet.extract_deep` (same steps, float arithmetic and
tolerances instead of exact solves), for a like-for-like comparison with the published float
attacks. Nothing here is claimed exact: the status is always ``"float-approximation"`` and
the result carries a precision report (:class:`exactnet.extract_float.FloatExtractionResult`).

1. **Critical points.** Random lines ``p + t u``; kinks of ``t -> f(p + t u)`` located to a
   tolerance (:func:`exactnet.extract_float._find_kinks`), one finite-difference gradient per
   piece, the jump across a kink ``~ J n^T`` (checked to be rank one) gives the local normal
   ``n`` of the bent hyperplane through the kink point ``x*``.
2. **Layer l (lower layers known approximately).** At ``x*`` the known layers give the hidden
   vector ``h`` and its Jacobian ``M``. A kink within a small distance of a known neuron's zero
   set belongs to that neuron. Otherwise ``n = a^T M_S`` (``S``: active neurons) is solved by
   least squares (accepted when the residual is small and ``M_S`` is well conditioned) and
   ``beta = -a . h``; candidates ``(a, beta)`` are merged by proportionality (to a relative
   tolerance) on at least three significant common coordinates, averaging the estimates.
3. **Which clusters are neurons.** The clusters seen at two or more critical points, minus those
   confined to one side of most others (:func:`exactnet.extract_deep._compatible`), are tested
   on fresh lines: the oracle must bend where the row's zero set (computed with the known
   layers) is crossed, and be straight just beside it.
4. **Signs.** Intermediate layers: at points beside the neurons' zero sets, the gradient of
   ``f`` is decomposed over the gradients of the layer's pre-activations (least squares, well
   conditioned only); a clearly nonzero coefficient means the neuron is active there. Votes
   must agree. Last hidden layer and output layer: ``f ~ sum alpha_i relu(z_i) + beta_i z_i + d``
   by least squares (``beta_i ~ 0`` keeps, ``beta_i ~ -alpha_i`` flips), then the output layer
   is refitted with the orientations fixed. When that does not fit and neurons of the layer were
   never seen, ``f ~ sum alpha_i relu(z_i) + R h + d`` is fitted instead and ``R h`` is carried by
   always-active neurons (neurons that never bend, e.g. stably active ones: a fibre point;
   :func:`exactnet.extract_deep._last_layer_linear`).
5. **Polish.** All parameters together take Gauss-Newton steps on fresh random points (where the
   activation pattern is already the oracle's, the network is smooth in its parameters), kept only
   while the largest error on those points falls; up to 20000 parameters (2P queries).
6. **Precision check.** The network is compared with the oracle at random points and beside
   the kinks the scans found. When the largest error exceeds ``max_rel_error`` times the
   output scale, :class:`~exactnet.errors.UndecidedError` is raised: a network that does not
   reproduce the oracle is never returned. An undecided attempt (other than a surplus of
   neurons in the last hidden layer or no kink at all) is repeated once with twice as many
   fresh lines.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from .errors import ShapeError, UndecidedError
from .extract_deep import _compatible
from .extract_float import (FloatExtractionResult, _float_layers, _gradients, _jumps, _piece_gradients, _random_line,
                            output_error)
from .network import Network
from .oracle import Oracle
from .qq import from_float

__all__ = ["extract_deep_float", "deep_parameter_error"]

_R = 256.0  # lines run over t in [-R, R]
_REL = 1e-5  # relative tolerance of proportionality between row estimates
_SIG = 1e-6  # a coordinate below this fraction of the largest one counts as zero
_POLISH_MAX = 20000  # parameters polished (2P fresh queries, matrix-free Gauss-Newton steps)


@dataclass
class _Kink:
    x: np.ndarray
    n: np.ndarray  # local normal, unit length


@dataclass
class _Scan:
    kinks: list = field(default_factory=list)
    lines: int = 0


# ----------------------------------------------------------------- known layers
class _Known:
    """Known hidden layers ``(W, b)`` (float64, orientations fixed): forward pass with Jacobian."""

    def __init__(self, n0: int, layers: list, spare: list | None = None) -> None:
        self.n0 = n0
        self.layers = layers
        self.spare = spare or [set() for _ in layers]

    def forward(self, X: np.ndarray):
        """For the rows of ``X`` (k x n0): pre-activations per layer, last hidden ``H`` (k x w),
        its Jacobian (k x w x n0), and the Jacobian of each layer's pre-activations."""
        k = len(X)
        H = X
        J = np.broadcast_to(np.eye(self.n0), (k, self.n0, self.n0))
        zs, Jzs = [], []
        for W, b in self.layers:
            Z = H @ W.T + b
            Jz = np.einsum("ij,kjn->kin", W, J)
            zs.append(Z)
            Jzs.append(Jz)
            act = Z > 0
            H = np.where(act, Z, 0.0)
            J = Jz * act[:, :, None]
        return zs, H, J, Jzs

    def hidden(self, X: np.ndarray) -> np.ndarray:
        H = X
        for W, b in self.layers:
            H = np.maximum(H @ W.T + b, 0.0)
        return H

    def near_known(self, zs, Jzs, dist: np.ndarray) -> np.ndarray:
        """Rows whose point is within ``dist`` of a known (non-spare) neuron's zero set (locally)."""
        hit = np.zeros(len(dist), dtype=bool)
        for Z, Jz, sp in zip(zs, Jzs, self.spare):
            g = np.linalg.norm(Jz, axis=2)
            with np.errstate(divide="ignore", invalid="ignore"):
                d = np.where(g > 0, np.abs(Z) / np.where(g > 0, g, 1.0), np.inf)
            if sp:
                d[:, sorted(sp)] = np.inf
            hit |= np.min(d, axis=1) <= dist
        return hit


# ------------------------------------------------------------------- line scans
def _scan_lines(f, n0: int, m: int, rng: np.random.Generator, lines: int, cap: int, tol: float) -> _Scan:
    sc = _Scan()
    for _ in range(lines):
        p, u = _random_line(rng, n0)
        sc.lines += 1
        sc.kinks += _scan_segment(f, p, u, -_R, _R, m, rng, tol, cap)
    return sc


def _scan_segment(f, p: np.ndarray, u: np.ndarray, lo: float, hi: float, m: int, rng: np.random.Generator, tol: float,
                  cap: int) -> list:
    """Kinks of ``f`` on ``p + t u``, ``lo < t < hi``, with the unit normal read from the gradient jump."""
    kinks, G, ok, _ = _piece_gradients(f, p, u, lo, hi, tol, cap, rng)
    if not kinks:
        return []
    out = []
    for i, t, D, nrm in _jumps(kinks, G, ok):
        s = float(np.linalg.norm(nrm))
        if s < 1e-9 * (1 + float(np.max(np.abs(G[i])))):
            continue
        if m > 1:
            J = D @ nrm / (s * s)
            if np.max(np.abs(D - np.outer(J, nrm))) > 1e-6 * s:
                continue  # not rank one: two kinks too close together
        out.append(_Kink(p + t * u, nrm / s))
    return out


# --------------------------------------------------------------- row candidates
def _candidates(known: _Known, kinks: list, width: int):
    """Row candidates ``(values (width + 1), mask, h, x)`` and the kinks not of known neurons."""
    if not kinks:
        return [], []
    X = np.array([k.x for k in kinks])
    if not known.layers:
        out = []
        for k in kinks:
            v = np.append(k.n, -float(k.n @ k.x))
            out.append((v / np.max(np.abs(v)), np.ones(width + 1, dtype=bool), k.x.copy(), k.x))
        return out, list(kinks)
    zs, H, J, Jzs = known.forward(X)
    dist = 1e-6 * (1.0 + np.linalg.norm(X, axis=1))
    hit = known.near_known(zs, Jzs, dist)
    out, rest = [], []
    for i, k in enumerate(kinks):
        if hit[i]:
            continue
        rest.append(k)
        S = np.nonzero(H[i] > 0)[0]
        if not len(S):
            continue
        MS = J[i][S]  # |S| x n0
        sv = np.linalg.svd(MS, compute_uv=False)
        if sv[-1] <= 1e-8 * sv[0]:
            continue  # the active rows are (nearly) dependent: the row is not determined here
        a, *_ = np.linalg.lstsq(MS.T, k.n, rcond=None)
        if np.linalg.norm(MS.T @ a - k.n) > 1e-6:
            continue
        v = np.zeros(width + 1)
        mask = np.zeros(width + 1, dtype=bool)
        v[S] = a
        v[width] = -float(a @ H[i][S])
        mask[S] = True
        mask[width] = True
        out.append((v / np.max(np.abs(v)), mask, H[i].copy(), k.x))
    return out, rest


class _Cluster:
    """Estimates of one row up to scale, merged by proportionality and averaged."""

    def __init__(self, sums: np.ndarray, cnt: np.ndarray, members: int, hs: list, xs: list) -> None:
        self.sums = sums
        self.cnt = cnt
        self.members = members
        self.hs = hs
        self.xs = xs

    @property
    def mask(self) -> np.ndarray:
        return self.cnt > 0

    @property
    def vals(self) -> np.ndarray:
        return np.where(self.cnt > 0, self.sums / np.maximum(self.cnt, 1), 0.0)

    def complete(self) -> bool:
        return bool(self.mask.all())

    def absorb(self, v: np.ndarray, mask: np.ndarray, lam: float, h: np.ndarray, x: np.ndarray) -> None:
        """Add one estimate ``v ~ lam * row`` (coordinates ``mask``) seen at hidden vector ``h``, point ``x``."""
        self.sums += np.where(mask, v, 0.0) / lam
        self.cnt += mask
        self.members += 1
        self.hs.append(h)
        self.xs.append(x)

    def value(self, h: np.ndarray) -> float | None:
        """The row's affine function at a hidden vector ``h`` (None if incomplete)."""
        if not self.complete():
            return None
        v = self.vals
        return float(v[:-1] @ h + v[-1])


def _match_all(W: np.ndarray, C: np.ndarray, v: np.ndarray, mask: np.ndarray, need: int) -> np.ndarray:
    """Factors ``lam`` with ``v ~ lam * W[k]`` on the common coordinates of ``C[k]`` and ``mask``
    (NaN where not evidenced: fewer than ``need`` significant common coordinates, or not proportional
    to the relative tolerance)."""
    common = C & mask[None, :]
    wc = np.where(common, W, 0.0)
    vc = np.where(common, v[None, :], 0.0)
    aw, av = np.abs(wc), np.abs(vc)
    sw, sv = aw.max(axis=1), av.max(axis=1)
    wmax = np.abs(np.where(C, W, 0.0)).max(axis=1)
    vmax = float(np.max(np.abs(np.where(mask, v, 0.0))))
    sig = common & ((aw > _SIG * np.maximum(sw, wmax)[:, None]) | (av > _SIG * np.maximum(sv, vmax)[:, None]))
    ww = (wc * wc).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = (vc * wc).sum(axis=1) / ww
        res = np.abs(vc - lam[:, None] * wc).max(axis=1)
    ok = (sig.sum(axis=1) >= need) & (sw > 0) & (sv > 0) & (lam != 0) & (res <= _REL * sv)
    return np.where(ok, lam, np.nan)


def _cluster(cands: list, need: int) -> list[_Cluster]:
    """Merge row candidates ``(v, mask, h, x)`` by proportionality (vectorised over the clusters)."""
    if not cands:
        return []
    cands = sorted(cands, key=lambda c: -int(c[1].sum()))
    d = len(cands[0][0])
    S = np.zeros((len(cands), d))
    Cn = np.zeros((len(cands), d))
    members: list[int] = []
    hs: list[list] = []
    xs: list[list] = []
    k = 0
    for v, mask, h, x in cands:
        if k:
            lam = _match_all(S[:k] / np.maximum(Cn[:k], 1), Cn[:k] > 0, v, mask, need)
            hit = np.nonzero(~np.isnan(lam))[0]
        else:
            hit = []
        if len(hit):
            i = int(hit[0])
            S[i] += np.where(mask, v, 0.0) / lam[i]
            Cn[i] += mask
            members[i] += 1
            hs[i].append(h)
            xs[i].append(x)
        else:
            S[k] = np.where(mask, v, 0.0)
            Cn[k] = mask
            members.append(1)
            hs.append([h])
            xs.append([x])
            k += 1
    S, Cn = S[:k], Cn[:k]
    alive = list(range(k))
    changed = True
    while changed:  # merge clusters that became comparable
        changed = False
        for a in list(alive):
            if a not in alive:
                continue
            others = [b for b in alive if b > a]
            if not others:
                continue
            va = S[a] / np.maximum(Cn[a], 1)
            lam = _match_all(S[others] / np.maximum(Cn[others], 1), Cn[others] > 0, va, Cn[a] > 0, need)
            for b, lb in zip(others, lam):
                if np.isnan(lb):
                    continue
                # va ~ lb * vals[b]: move b onto a's scale
                S[a] += S[b] * lb
                Cn[a] += Cn[b]
                members[a] += members[b]
                hs[a] += hs[b]
                xs[a] += xs[b]
                alive.remove(b)
                changed = True
                va = S[a] / np.maximum(Cn[a], 1)
    out = [_Cluster(S[i].copy(), Cn[i].copy(), members[i], hs[i], xs[i]) for i in alive]
    out.sort(key=lambda c: -c.members)
    return out


def _complete(f, known: _Known, c: _Cluster, width: int, m: int, rng: np.random.Generator, tol: float) -> int:
    """Follow the cluster's bent hyperplane across the zero set of a lower neuron it has not seen active.

    From a critical point where lower neuron ``j`` is inactive, step along the gradient of ``z_j``
    just past its zero set, then scan a short segment along the cluster's local normal: a kink there
    whose row candidate (now with ``j`` active) is proportional to the cluster fills in coordinate
    ``j`` (the float counterpart of :func:`exactnet.extract_deep._complete`). Returns how many.
    """
    if not known.layers:
        return 0
    filled = 0
    need = 3 if width > 4 else 2
    for _ in range(3):  # a filled coordinate changes the local normals: retry the others
        got = _complete_once(f, known, c, width, m, rng, tol, need)
        filled += got
        if not got or c.complete():
            break
    return filled


def _complete_once(f, known: _Known, c: _Cluster, width: int, m: int, rng: np.random.Generator, tol: float,
                   need: int) -> int:
    filled = 0
    X = np.array(c.xs)
    zs, H, J, Jzs = known.forward(X)
    for j in range(width):
        if c.cnt[j]:
            continue
        g = Jzs[-1][:, j, :]
        zj = zs[-1][:, j]
        gg = np.einsum("kn,kn->k", g, g)
        tries = [i for i in range(len(X)) if zj[i] < 0 and gg[i] > 0]
        tries.sort(key=lambda i: zj[i] ** 2 / gg[i])
        for i in tries[:8]:
            step = -zj[i] / gg[i] * 9 / 8
            y = X[i] + step * g[i]
            S = np.nonzero((H[i] > 0) & c.mask[:width])[0]
            nrm = c.vals[S] @ J[i][S]
            nn = float(np.linalg.norm(nrm))
            if nn == 0:
                continue
            T = max(4 * abs(step) * math.sqrt(gg[i]) / nn, 1e-6 / nn)
            got = _scan_segment(f, y, nrm, -T, T, m, rng, tol, 64)
            cands, _ = _candidates(known, got, width)
            for v, mask, h, x in cands:
                if not mask[j]:
                    continue
                lam = _match_all(c.vals[None, :], c.mask[None, :], v, mask, need)[0]
                if not np.isnan(lam):
                    c.absorb(v, mask, lam, h, x)
                    filled += 1
                    break
            else:
                continue
            break
    return filled


# ------------------------------------------------------------------ far tests
def _straight_bent(ts: np.ndarray, ys: np.ndarray) -> bool:
    """Five values along a line: straight on both sides of the middle one, bent at it."""
    s = np.diff(ys, axis=0) / np.diff(ts)[:, None]  # 4 x m slopes
    eps = float(ts[-1] - ts[0])
    scale = (1.0 + float(np.max(np.abs(ys)))) / eps
    # the oracle's own rounding noise is unknown (cancellation in its sums): the bend must dominate the
    # straightness defects on both sides by a wide margin, and be clearly above float64 resolution
    defect = max(float(np.max(np.abs(s[0] - s[1]))), float(np.max(np.abs(s[2] - s[3]))))
    bend = float(np.max(np.abs(s[1] - s[2])))
    return bend > 1e-12 * scale and bend > 1000 * defect and defect <= 1e-6 * scale


def _far_test(f, known: _Known, row: np.ndarray, bias: float, rng: np.random.Generator, tries: int) -> bool:
    """Does the oracle bend where fresh lines cross the zero set of ``row . h + bias``?"""
    n0 = known.n0
    grid = np.linspace(-_R, _R, 4097)

    def z(ts):
        return known.hidden(p[None, :] + np.asarray(ts)[:, None] * u[None, :]) @ row + bias

    for _ in range(tries):
        p, u = _random_line(rng, n0)
        zg = z(grid)
        idx = np.nonzero(np.sign(zg[:-1]) * np.sign(zg[1:]) < 0)[0]
        rng.shuffle(idx)
        for i in idx[:3]:
            a, b = grid[i], grid[i + 1]
            za = zg[i]
            for _ in range(60):
                mid = (a + b) / 2
                zm = z([mid])[0]
                if (zm > 0) == (za > 0):
                    a, za = mid, zm
                else:
                    b = mid
            t = (a + b) / 2
            eps = 1e-3
            ts = np.array([t - eps, t - eps / 2, t, t + eps / 2, t + eps])
            ys = f(p[None, :] + ts[:, None] * u[None, :])
            if _straight_bent(ts, ys):
                return True
    return False


# ------------------------------------------------------------------------ signs
def _both_sides(known: _Known, clusters: list, rows: np.ndarray, biases: np.ndarray, eps: float = 1e-3) -> np.ndarray:
    """Points at distance ``eps`` on either side of each neuron's zero set, beside its critical points."""
    out = []
    for c, r, b in zip(clusters, rows, biases):
        for x in c.xs[:2]:
            if known.layers:
                _, _, J, _ = known.forward(x[None, :])
                nrm = r @ J[0]
            else:
                nrm = r
            s = float(np.linalg.norm(nrm))
            if s == 0:
                continue
            pts = np.array([x + eps * nrm / s, x - eps * nrm / s])
            zz = (known.hidden(pts) if known.layers else pts) @ r + b
            if (zz[0] > 0) != (zz[1] > 0):
                out += list(pts)
    return np.array(out).reshape(-1, known.n0)


def _layer_signs(f, known: _Known, rows: np.ndarray, biases: np.ndarray, rng: np.random.Generator, budget: int,
                 near: np.ndarray) -> list:
    """Orientation ``+1/-1`` of each row (None: never seen active), by gradient decompositions."""
    nl = len(rows)
    n0 = known.n0
    votes = np.zeros((nl, 2), dtype=int)  # [+1 votes, -1 votes]
    todo = [near[i:i + 16] for i in range(0, len(near), 16)]
    used = 0
    while True:
        if todo:
            X = todo.pop(0)
        elif used < budget and (votes.sum(axis=1) == 0).any():
            X = rng.uniform(-8, 8, (16, n0))
        else:
            break
        used += len(X)
        G, ok = _gradients(f, X, np.full(len(X), 1e-6), rng)
        zs, H, J, _ = known.forward(X)
        Z = H @ rows.T + biases
        for k in range(len(X)):
            if not ok[k]:
                continue
            grads = rows @ J[k]  # nl x n0
            known_sign = np.where(votes[:, 0] > votes[:, 1], 1, np.where(votes[:, 1] > votes[:, 0], -1, 0))
            zk = np.sign(Z[k])
            basis = [i for i in range(nl) if known_sign[i] == 0 or known_sign[i] == zk[i]]
            if not basis:
                continue
            B = grads[basis].T  # n0 x |basis|
            sv = np.linalg.svd(B, compute_uv=False)
            if len(basis) > n0 or sv[-1] <= 1e-6 * sv[0]:
                continue
            Gk = G[k]  # m x n0
            sol, *_ = np.linalg.lstsq(B, Gk.T, rcond=None)  # |basis| x m
            gnorm = float(np.max(np.linalg.norm(Gk, axis=1)))
            if np.max(np.abs(B @ sol - Gk.T)) > 1e-6 * (1 + gnorm):
                continue
            for j, i in enumerate(basis):
                if np.max(np.abs(sol[j])) * np.linalg.norm(grads[i]) > 1e-4 * (1 + gnorm):
                    votes[i, 0 if zk[i] > 0 else 1] += 1
    signs: list = []
    for i in range(nl):
        pl, mi = votes[i]
        if pl == 0 and mi == 0:
            signs.append(None)
        elif min(pl, mi) * 10 > max(pl, mi):
            raise UndecidedError(
                f"sign recovery contradicts itself for a neuron ({pl} points say one side is active, {mi} the other; "
                "float oracle)"
            )
        else:
            signs.append(1 if pl > mi else -1)
    return signs


def _last_layer(f, known: _Known, rows: np.ndarray, biases: np.ndarray, rng: np.random.Generator, near: np.ndarray):
    """Least squares ``f ~ sum alpha_i relu(z_i) + beta_i z_i + d``: orientations, then the output layer."""
    nl = len(rows)
    n0 = known.n0
    X = np.concatenate([near, rng.uniform(-8, 8, (3 * nl + 24, n0))])
    Y = f(X)
    Z = known.hidden(X) @ rows.T + biases
    F = np.concatenate([np.maximum(Z, 0), Z, np.ones((len(X), 1))], axis=1)
    sol, _, rank, _ = np.linalg.lstsq(F, Y, rcond=None)
    if rank < F.shape[1]:
        raise UndecidedError(
            f"last hidden layer: the features are rank deficient ({rank} < {F.shape[1]}: some neuron is active or "
            "inactive at every sampled point; float oracle)"
        )
    alpha, beta = sol[:nl], sol[nl:2 * nl]
    na, nb, nab = (np.linalg.norm(alpha, axis=1), np.linalg.norm(beta, axis=1), np.linalg.norm(alpha + beta, axis=1))
    flip = nab < nb
    dead = np.maximum(na, 0) <= 1e-9 * (1 + float(np.max(np.abs(Y))))
    sgn = np.where(flip, -1.0, 1.0)
    W, b = rows * sgn[:, None], biases * sgn
    Hd = np.maximum(known.hidden(X) @ W.T + b, 0)
    F2 = np.concatenate([Hd, np.ones((len(X), 1))], axis=1)
    sol2, *_ = np.linalg.lstsq(F2, Y, rcond=None)
    if np.max(np.abs(F2 @ sol2 - Y)) > 1e-6 * (1 + float(np.max(np.abs(Y)))):
        raise UndecidedError("last hidden layer: no sign choice fits the oracle (a neuron is missing or the oracle is "
                             "not a network of this architecture; float oracle)")
    return W, b, sol2[:nl].T, sol2[nl], int(dead.sum())


def _last_layer_linear(f, known: _Known, rows: np.ndarray, biases: np.ndarray, rng: np.random.Generator,
                       near: np.ndarray, spare: int):
    """Least squares ``f ~ sum alpha_i relu(z_i) + R h + d``; ``R h`` carried by always-active neurons.

    The float counterpart of :func:`exactnet.extract_deep._last_layer_linear` (``h >= 0``, so
    ``relu(p . h + 1) = p . h + 1`` for ``p >= 0``). Returns ``(W, b, V, d, neurons used)``.
    """
    nl, width, n0 = len(rows), known.layers[-1][0].shape[0], known.n0
    X = np.concatenate([near, rng.uniform(-8, 8, (nl + 2 * width + 24, n0))])
    Y = f(X)
    Hk = known.hidden(X)
    cols = [j for j in range(width) if np.any(Hk[:, j] > 0)]
    Z = Hk @ rows.T + biases if nl else np.zeros((len(X), 0))
    F = np.concatenate([np.maximum(Z, 0), Hk[:, cols], np.ones((len(X), 1))], axis=1)
    sol, _, rank, _ = np.linalg.lstsq(F, Y, rcond=None)
    scale = 1 + float(np.max(np.abs(Y)))
    if rank < F.shape[1] or np.max(np.abs(F @ sol - Y)) > 1e-6 * scale:
        raise UndecidedError(
            "last hidden layer: neither the neurons found nor the neurons found plus a linear term in the previous "
            "hidden layer fit the oracle (float oracle)"
        )
    m = Y.shape[1]
    V, d = sol[:nl].T, sol[-1].copy()
    R = np.zeros((m, width))
    R[:, cols] = sol[nl:nl + len(cols)].T
    R[np.abs(R) <= 1e-9 * (1 + float(np.max(np.abs(R))))] = 0.0
    new_rows, new_out = [], []
    if m == 1:
        for part, sg in ((np.maximum(R[0], 0), 1.0), (np.maximum(-R[0], 0), -1.0)):
            if part.any():
                new_rows.append(part)
                new_out.append(np.array([sg]))
                d[0] -= sg
        new_b = [1.0] * len(new_rows)
    else:
        for j in np.nonzero(np.any(R != 0, axis=0))[0]:
            new_rows.append(np.eye(width)[j])
            new_out.append(R[:, j])
        new_b = [0.0] * len(new_rows)
    if len(new_rows) > spare:
        raise UndecidedError(f"last hidden layer: the linear part needs {len(new_rows)} always-active neurons, only "
                             f"{spare} are unaccounted for (float oracle)")
    W = np.concatenate([rows.reshape(nl, width)] + [r[None, :] for r in new_rows])
    b = np.concatenate([biases, np.array(new_b)])
    Vout = np.concatenate([V.reshape(m, nl)] + [o.reshape(m, 1) for o in new_out], axis=1)
    return W, b, Vout, d, len(new_rows)


# -------------------------------------------------------------------- main loop
def extract_deep_float(oracle: Oracle, arch: Sequence[int], seed: int = 0, lines: int = 0, sample_points: int = 2000,
                       tol: float = 1e-11, max_rel_error: float = 1e-6, refine: bool = True) -> FloatExtractionResult:
    """Extract a deep network (two or more hidden layers) from a float64 oracle; see the module docstring."""
    arch = tuple(int(a) for a in arch)
    if oracle.n_in != arch[0] or oracle.n_out != arch[-1]:
        raise ShapeError(f"architecture {arch} does not fit the oracle ({oracle.n_in} inputs, {oracle.n_out} outputs)")
    L = len(arch) - 1
    if L < 3:
        raise ShapeError("extract_deep_float needs at least two hidden layers (one: exactnet.extract_float)")
    for l in range(1, L):
        if arch[l] > arch[l - 1]:
            raise UndecidedError(
                f"layer {l} has {arch[l]} neurons for {arch[l - 1]} inputs: the deep extractor needs non-expanding "
                "hidden layers (n_l <= n_(l-1)) to read rows from gradient jumps uniquely"
            )
    t_start = time.perf_counter()
    q0 = oracle.queries
    rng = np.random.default_rng(seed)
    nlines = lines or max(24, 3 * arch[1])
    try:
        res = _attempt(oracle, arch, rng, nlines, sample_points, tol, max_rel_error, refine)
    except UndecidedError as e:
        if str(e).startswith(("architecture mismatch: more than", "no kink on")):
            raise
        # as in exactnet.extract: one more attempt with twice as many fresh lines, checked the same way
        res = _attempt(oracle, arch, rng, 2 * nlines, sample_points, tol, max_rel_error, refine)
        res.notes.insert(1, f"the first attempt ({nlines} lines) was undecided ({e}); a second attempt with "
                            f"{2 * nlines} fresh lines passed the output check")
    res.queries = oracle.queries - q0
    res.seconds = time.perf_counter() - t_start
    return res


def _attempt(oracle: Oracle, arch: tuple, rng: np.random.Generator, nlines: int, sample_points: int, tol: float,
             max_rel_error: float, refine: bool) -> FloatExtractionResult:
    """One extraction attempt on ``nlines`` random lines (see the module docstring)."""
    suspects: list = []
    try:
        return _attempt_body(oracle, arch, rng, nlines, sample_points, tol, max_rel_error, refine, suspects)
    except UndecidedError as e:
        if suspects:
            raise UndecidedError(f"architecture mismatch suspected ({'; '.join(suspects)}): {e}") from None
        raise


def _attempt_body(oracle: Oracle, arch: tuple, rng: np.random.Generator, nlines: int, sample_points: int, tol: float,
                  max_rel_error: float, refine: bool, suspects: list) -> FloatExtractionResult:
    L = len(arch) - 1
    n0, m = arch[0], arch[-1]
    N = sum(arch[1:L])
    t_start = time.perf_counter()
    q0 = oracle.queries
    f = oracle.query_floats
    sc = _scan_lines(f, n0, m, rng, nlines, 200 * N + 1000, tol)
    if not sc.kinks:
        raise UndecidedError(f"no kink on {sc.lines} random lines: the float oracle looks affine")
    seen = list(sc.kinks)
    kinks = list(sc.kinks)
    known = _Known(n0, [])
    notes = ["float64 oracle: parameters and precision are approximate; no exact claim is made"]
    layers_info = []
    spare_total = 0
    for l in range(1, L):
        width, nl = arch[l - 1], arch[l]
        cands, kinks = _candidates(known, kinks, width)
        clusters = _cluster(cands, 3 if width > 4 else 2)
        dead = known.spare[-1] if known.layers else set()
        for c in clusters:  # coordinates of spare (zero) lower neurons are irrelevant
            for j in dead:
                if not c.cnt[j]:
                    c.cnt[j] = 1.0
        done = 0
        for c in clusters[: 2 * nl + 4]:
            if (c.members >= 2 or l == L - 1) and not c.complete():
                done += _complete(f, known, c, width, m, rng, tol)
        complete = [c for c in clusters if c.complete() and np.any(np.abs(c.vals[:width]) > 0)]
        if l < L - 1:
            pool = _compatible([c for c in complete if c.members >= 2][: 3 * nl + 8])
        else:
            pool = [c for c in complete if c.members >= 2] + [c for c in complete if c.members < 2][: nl]
        accepted: list[_Cluster] = []
        for c in pool:
            if len(accepted) >= nl + 1:
                break
            v = c.vals
            # last hidden layer: no deeper neurons, so a row seen at two critical points is a neuron
            if (l == L - 1 and c.members >= 2) or _far_test(f, known, v[:width], float(v[width]), rng, 10):
                accepted.append(c)
        if len(accepted) > nl and l == L - 1:
            raise UndecidedError(
                f"architecture mismatch: more than {nl} neurons found in hidden layer {l} "
                f"(the architecture {','.join(map(str, arch))} has {nl}; float oracle)"
            )
        if len(accepted) > nl:  # a piece of a deeper neuron may pass the far test: keep the best seen, suspect
            accepted = sorted(accepted, key=lambda c: -c.members)[:nl]
            suspects.append(f"{nl + 1} candidate neurons passed the far test in hidden layer {l}, which has {nl}")
        partial = [c for c in clusters[: 2 * nl] if not c.complete() and c.members >= 3]
        guessed = 0
        for c in partial:  # as exactnet.extract_deep._guess_partial: 0 proposed for weights never determined
            if len(accepted) >= nl:
                break
            v = np.where(c.mask, c.vals, 0.0)
            if not np.any(v[:width]):
                continue
            if l == L - 1 or _far_test(f, known, v[:width], float(v[width]), rng, 10):
                c.cnt = np.where(c.mask, c.cnt, 1.0)
                c.sums = np.where(c.mask, c.sums, 0.0)
                accepted.append(c)
                guessed += 1
        if guessed:
            notes.append(f"hidden layer {l}: {guessed} neuron(s) seen only where some lower neuron is inactive; the "
                         "weights from those lower neurons were proposed as 0 (judged by the output check)")
        incomplete = sum(1 for c in partial if not c.complete())
        layers_info.append({"layer": l, "clusters": len(clusters), "accepted": len(accepted),
                            "members": [c.members for c in accepted], "completed": done,
                            "incomplete": incomplete, "guessed": guessed})
        spare = nl - len(accepted)
        if spare and incomplete:
            raise UndecidedError(
                f"hidden layer {l}: only {len(accepted)} of {nl} neurons were found and confirmed, and {incomplete} "
                "neuron(s) were seen only partly (some lower neuron never active at their critical points; float "
                "oracle); no network is returned"
            )
        if spare:
            notes.append(f"hidden layer {l}: {spare} neuron(s) never seen (dead or without effect on the output at "
                         "every query): returned as zero neurons")
        spare_total += spare
        V = np.array([c.vals for c in accepted]).reshape(len(accepted), width + 1)
        V = V / np.max(np.abs(V), axis=1, keepdims=True) if len(V) else V
        rows, biases = V[:, :width], V[:, width]
        near = _both_sides(known, accepted, rows, biases)
        if l < L - 1:
            signs = _layer_signs(f, known, rows, biases, rng, 64 + 16 * nl, near)
            if any(s is None for s in signs):
                raise UndecidedError(
                    f"hidden layer {l}: the active side of {sum(s is None for s in signs)} neuron(s) was never seen "
                    "(their effect on the output is negligible at every sampled point; float oracle)"
                )
            sg = np.array(signs, dtype=np.float64)
            rows = np.concatenate([rows * sg[:, None], np.zeros((spare, width))])
            biases = np.concatenate([biases * sg, np.zeros(spare)])
            known = _Known(n0, known.layers + [(rows, biases)], known.spare + [set(range(len(accepted), nl))])
            continue
        try:
            W, b, Vout, d, zero_out = _last_layer(f, known, rows, biases, rng, near)
        except UndecidedError:
            if not spare:
                raise
            # neurons never seen may still act linearly (stably active): fit that linear part too
            W, b, Vout, d, used = _last_layer_linear(f, known, rows, biases, rng, near, spare)
            zero_out = 0
            notes = [n for n in notes if not n.startswith(f"hidden layer {l}: {spare} neuron(s) never seen")]
            spare_total -= used
            spare -= used
            notes.append(f"hidden layer {l}: {used} neuron(s) never bend; their linear effect was fitted and is carried "
                         "by neurons with nonnegative rows and a positive bias (active everywhere)"
                         + (f"; {spare} further neuron(s) returned as zero neurons" if spare else ""))
        if zero_out:
            notes.append(f"{zero_out} neuron(s) of the last hidden layer have (nearly) zero output weight")
        W = np.concatenate([W, np.zeros((spare, width))])
        b = np.concatenate([b, np.zeros(spare)])
        Vout = np.concatenate([Vout, np.zeros((m, spare))], axis=1)
        layers = known.layers + [(W, b), (Vout, d)]
        break
    if refine:
        layers = _refine(layers, f, rng, n0, notes)
    net = _to_network(layers)
    Xt = rng.uniform(-8, 8, (sample_points, n0))
    Yt = f(Xt)
    err = output_error(net, Yt, Xt)
    kp = _beside_kinks(seen, rng, 400)
    err_k = output_error(net, f(kp), kp) if len(kp) else 0.0
    scale = float(np.max(np.abs(Yt))) + 1.0
    worst = max(err, err_k)
    if not worst <= max_rel_error * scale:  # also catches NaN
        raise UndecidedError(
            f"the float extraction does not reproduce the oracle: largest output error {worst:.3g} at sampled points "
            f"(output scale {scale:.3g}, tolerance {max_rel_error:g} relative); neurons were missed or misread, no "
            "network is returned"
        )
    notes.append(f"{L - 1} hidden layers extracted layer by layer from {len(seen)} float critical points on "
                 f"{sc.lines} lines; output error beside {len(kp)} of them: {err_k:.3g}")
    res = FloatExtractionResult(net, "float-approximation", oracle.queries - q0, time.perf_counter() - t_start,
                                N - spare_total, sc.lines, max(err, err_k), sample_points + len(kp), notes)
    res.layers = layers_info
    return res


def _refine(layers: list, f, rng: np.random.Generator, n0: int, notes: list, iters: int = 4) -> list:
    """Gauss-Newton polish of all parameters on fresh random points (float proposal only).

    Near the solution the activation pattern at a random point is the victim's, so the network is
    smooth in its parameters there. Each step solves the linearised least-squares problem with LSQR
    (matrix-free: Jacobian products by one forward and one backward pass; from zero it tends to the
    minimum-norm step, the scaling directions being free) and is kept only while the largest error
    on the points decreases. The points are not reused by the output check.
    """
    from scipy.sparse.linalg import LinearOperator, lsqr

    P = sum(W.size + b.size for W, b in layers)
    if P > _POLISH_MAX:
        notes.append(f"parameters not polished ({P} parameters; the polish is limited to {_POLISH_MAX})")
        return layers
    X = rng.uniform(-8, 8, (max(2 * P, 400), n0))
    Y = f(X)
    last = len(layers) - 1

    def forward(ls):
        acts, masks, H = [X], [], X
        for k, (W, b) in enumerate(ls):
            Z = H @ W.T + b
            if k == last:
                return Z, acts, masks
            masks.append(Z > 0)
            H = np.where(masks[-1], Z, 0.0)
            acts.append(H)

    def split(ls, v):
        out, i = [], 0
        for W, b in ls:
            out.append((v[i:i + W.size].reshape(W.shape), v[i + W.size:i + W.size + b.size]))
            i += W.size + b.size
        return out

    def operator(ls, acts, masks):
        def matvec(v):
            dH = np.zeros_like(X)
            for k, ((W, _), (dW, db)) in enumerate(zip(ls, split(ls, np.ravel(v)))):
                dZ = dH @ W.T + acts[k] @ dW.T + db
                dH = dZ * masks[k] if k < last else dZ
            return dH.reshape(-1)

        def rmatvec(r):
            delta = np.reshape(r, (len(X), -1))
            grads = []
            for k in range(last, -1, -1):
                grads.append((delta.T @ acts[k]).reshape(-1))
                grads.append(delta.sum(axis=0))
                if k:
                    delta = (delta @ ls[k][0]) * masks[k - 1]
            pairs = [(grads[i], grads[i + 1]) for i in range(0, len(grads), 2)][::-1]
            return np.concatenate([g for pair in pairs for g in pair])

        # column norms of the Jacobian (for a diagonal preconditioner): per layer, from squared factors
        norms = []
        for o in range(Y.shape[1]):
            delta = np.zeros((len(X), ls[last][0].shape[0]))
            delta[:, o] = 1.0
            per = []
            for k in range(last, -1, -1):
                per.append(((delta ** 2).T @ (acts[k] ** 2)).reshape(-1))
                per.append((delta ** 2).sum(axis=0))
                if k:
                    delta = (delta @ ls[k][0]) * masks[k - 1]
            pairs = [(per[i], per[i + 1]) for i in range(0, len(per), 2)][::-1]
            norms.append(np.concatenate([g for pair in pairs for g in pair]))
        d = np.sqrt(np.sum(norms, axis=0))
        d = np.where(d > 0, d, 1.0)
        op = LinearOperator((Y.size, P), matvec=lambda v: matvec(np.ravel(v) / d),
                            rmatvec=lambda r: rmatvec(r) / d, dtype=np.float64)
        return op, d

    out, acts, masks = forward(layers)
    best = start = float(np.max(np.abs(out - Y)))
    for _ in range(iters):
        op, d = operator(layers, acts, masks)
        step = lsqr(op, (Y - out).reshape(-1), atol=1e-15, btol=1e-15, iter_lim=4 * P)[0] / d
        cand = [(W + dW, b + db) for (W, b), (dW, db) in zip(layers, split(layers, step))]
        out2, acts2, masks2 = forward(cand)
        e = float(np.max(np.abs(out2 - Y)))
        if not e < best:
            break
        layers, out, acts, masks, best = cand, out2, acts2, masks2, e
    if best < start:
        notes.append(f"parameters polished by Gauss-Newton on {len(X)} fresh points: largest error there "
                     f"{start:.3g} -> {best:.3g}")
    return layers


def _beside_kinks(seen: list, rng: np.random.Generator, cap: int) -> np.ndarray:
    """Points just beside (along the normal) up to ``cap`` of the critical points found."""
    if len(seen) > cap:
        seen = [seen[i] for i in rng.choice(len(seen), cap, replace=False)]
    pts = []
    for k in seen:
        e = 1e-4 * (1.0 + float(np.linalg.norm(k.x)))
        pts += [k.x - e * k.n, k.x + e * k.n]
    return np.array(pts)


def _to_network(layers: list) -> Network:
    return Network.from_lists(
        [([[from_float(float(v), "exact") for v in r] for r in W], [from_float(float(v), "exact") for v in b])
         for W, b in layers],
        name="extracted-float",
    )


def deep_parameter_error(extracted: Network, victim: Network) -> dict:
    """Largest parameter error after canonical alignment, any depth (reads the victim: test side).

    Layer by layer, each hidden neuron is scaled so that its incoming row and bias have largest
    absolute entry 1 (the scale moves into the next layer's column), the extracted neurons are
    matched to the victim's by nearest row (after the previous layer's matching permuted the
    columns), and the largest absolute difference over matched rows, the output layer and its
    bias is reported. Victim neurons with a zero row or no effect downstream are skipped.
    """
    if extracted.architecture != victim.architecture:
        raise ShapeError("deep_parameter_error compares two networks of the same architecture")
    E = [(W.copy(), b.copy()) for W, b in _float_layers(extracted)]
    Vv = [(W.copy(), b.copy()) for W, b in _float_layers(victim)]
    L = len(E)
    for net in (E, Vv):  # positive scaling to |largest entry| = 1 per hidden neuron
        for l in range(L - 1):
            W, b = net[l]
            s = np.max(np.abs(np.concatenate([W, b[:, None]], axis=1)), axis=1)
            s = np.where(s > 0, s, 1.0)
            net[l] = (W / s[:, None], b / s)
            W2, b2 = net[l + 1]
            net[l + 1] = (W2 * s[None, :], b2)
    worst = 0.0
    skipped = 0
    perm = None  # extracted index of each victim neuron of the previous layer
    for l in range(L):
        We, be = E[l]
        Wv, bv = Vv[l]
        if perm is not None:
            We = We[:, perm]
        if l == L - 1:
            worst = max(worst, float(np.max(np.abs(We - Wv))), float(np.max(np.abs(be - bv))))
            break
        Re = np.concatenate([We, be[:, None]], axis=1)
        Rv = np.concatenate([Wv, bv[:, None]], axis=1)
        nxt = np.abs(Vv[l + 1][0]).sum(axis=0)
        free = set(range(len(Re)))
        new_perm = [None] * len(Rv)
        order = sorted(range(len(Rv)), key=lambda i: -float(np.abs(Rv[i]).sum()))
        for i in order:
            if not np.any(Rv[i]) or nxt[i] == 0:
                skipped += 1
                continue
            j = min(free, key=lambda j: float(np.max(np.abs(Re[j] - Rv[i]))))
            free.discard(j)
            new_perm[i] = j
            worst = max(worst, float(np.max(np.abs(Re[j] - Rv[i]))))
        for i in range(len(Rv)):
            if new_perm[i] is None:
                new_perm[i] = free.pop()
                Vv[l + 1] = (Vv[l + 1][0].copy(), Vv[l + 1][1])
                Vv[l + 1][0][:, i] = 0.0  # an invisible victim neuron: its column is not compared
                E[l + 1] = (E[l + 1][0].copy(), E[l + 1][1])
                E[l + 1][0][:, new_perm[i]] = 0.0
        perm = new_perm
    return {"max_parameter_error": worst, "log2_max_parameter_error": round(math.log2(worst), 2) if worst > 0 else None,
            "invisible_victim_neurons": skipped}
