"""The extraction pipeline on a float64 oracle: floats propose, nothing is claimed exact.

For a like-for-like comparison with the published float attacks (Carlini-Jagielski-Mironov
2020 and successors), the steps of the exact one-hidden-layer pipeline of
:mod:`exactnet.extract` are run with float64 arithmetic and tolerances:

1. kinks along random lines: an interval whose midpoint is on the chord (to a tolerance) is
   kink-free; otherwise the two end pieces are intersected and the intersection is accepted
   when the value there is on both pieces (to a tolerance), else the interval is split;
2. one finite-difference gradient per region between consecutive kinks (checked along one
   random direction); the jump across a kink is the hyperplane normal times the output jump;
3. hyperplanes merged across lines by distance of their normalised ``(n, beta)``;
4. orientations and the output layer by least squares: ``f = sum alpha_j relu(z_j) + gamma_j z_j
   + d``; ``gamma_j ~ 0`` keeps the orientation, ``gamma_j ~ -alpha_j`` flips it; then the
   output layer is refitted with the orientations fixed.

The result is a network with float64 parameters (written as their exact binary values) and a
*precision report*: the largest output difference to the oracle on sampled points, and, when
the caller holds the victim (test side, :func:`parameter_error`), the largest parameter error
after canonical alignment. A float oracle never yields an exact success claim: the status is
always ``"float-approximation"``. Deep networks (two or more hidden layers) are handed to the
layer-by-layer float pipeline of :mod:`exactnet.extract_deep_float`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from .errors import ShapeError, UndecidedError
from .network import Network
from .oracle import Oracle
from .qq import from_float, q_to_float

__all__ = ["FloatExtractionResult", "extract_float", "parameter_error", "output_error"]


@dataclass
class FloatExtractionResult:
    network: Network
    status: str
    queries: int
    seconds: float
    hyperplanes: int
    lines: int
    max_output_error: float
    sample_points: int
    notes: list = field(default_factory=list)
    layers: list = field(default_factory=list)  # deep networks: per hidden layer, what was found

    def to_json(self) -> dict:
        return {
            "status": self.status,
            "architecture": list(self.network.architecture),
            "queries": self.queries,
            "log2_queries": round(math.log2(self.queries), 2) if self.queries else 0.0,
            "seconds": round(self.seconds, 3),
            "hyperplanes": self.hyperplanes,
            "lines": self.lines,
            "precision": {
                "max_output_error_on_samples": self.max_output_error,
                "log2_max_output_error": _log2(self.max_output_error),
                "sample_points": self.sample_points,
                "meaning": "largest |extracted(x) - oracle(x)| over sampled points, both in float64 (not a bound "
                           "over all inputs)",
            },
            "notes": list(self.notes),
            **({"layers": list(self.layers)} if self.layers else {}),
        }


def _log2(v: float) -> float | None:
    return round(math.log2(v), 2) if v > 0 else None


def _find_kinks(f, p, u, lo, hi, tol, max_kinks):
    """Approximate kinks of ``t -> f(p + t u)`` (first output row used) in ``(lo, hi)``."""

    def F(ts):
        ts = np.asarray(ts, dtype=np.float64)
        return f(p[None, :] + ts[:, None] * u[None, :])

    kinks = []
    stack = [(lo, hi)]
    vals = {}

    def get(ts):
        new = [t for t in ts if t not in vals]
        if new:
            for t, y in zip(new, F(new)):
                vals[t] = y
        return [vals[t] for t in ts]

    get([lo, hi, (lo + hi) / 2])
    while stack:
        batch = stack
        stack = []
        need = []
        for a, b in batch:
            need += [(a + b) / 2, a + (b - a) / 8, b - (b - a) / 8]
        get(need)
        cands = []
        for a, b in batch:
            m = (a + b) / 2
            fa, fm, fb = get([a, m, b])
            scale = tol * (1.0 + np.max(np.abs(fa)) + np.max(np.abs(fb)))
            if np.max(np.abs(fm - (fa + fb) / 2)) <= scale:
                continue
            if b - a < 1e-9 * (hi - lo):
                kinks.append(m)
                continue
            q1, q3 = a + (b - a) / 8, b - (b - a) / 8
            f1, f3 = get([q1, q3])
            sl, sr = (f1 - fa) / (q1 - a), (fb - f3) / (b - q3)
            k = int(np.argmax(np.abs(sl - sr)))
            if abs(sl[k] - sr[k]) <= tol * (1 + abs(sl[k]) + abs(sr[k])):
                stack += [(a, m), (m, b)]
                continue
            ts = (fb[k] - fa[k] + sl[k] * a - sr[k] * b) / (sl[k] - sr[k])
            if not (q1 < ts < q3):
                stack += [(a, m), (m, b)]
                continue
            cands.append((a, b, m, ts, sl, sr, fa, fb, scale))
        if cands:
            get([c[3] for c in cands] + [(c[0] + c[3]) / 2 for c in cands] + [(c[3] + c[1]) / 2 for c in cands]
                + [c[3] - (c[1] - c[0]) * 1e-6 for c in cands] + [c[3] + (c[1] - c[0]) * 1e-6 for c in cands])
        for a, b, m, ts, sl, sr, fa, fb, scale in cands:
            ok = True
            h = (b - a) * 1e-6  # just beside the kink: it must be local, not where far pieces' lines meet
            for t, base, s, t0 in ((ts, fa, sl, a), ((a + ts) / 2, fa, sl, a), ((ts + b) / 2, fb, sr, b),
                                   (ts - h, fa, sl, a), (ts + h, fb, sr, b)):
                if np.max(np.abs(vals[t] - (base + s * (t - t0)))) > 8 * scale:
                    ok = False
            if ok:
                kinks.append(ts)
                if len(kinks) > max_kinks:
                    raise UndecidedError(f"architecture mismatch: more than {max_kinks} kinks on one line (float oracle)")
            else:
                stack += [(a, m), (m, b)]
    return sorted(kinks)


def _gradients(f, X, delta, rng):
    """Forward-difference gradients at the rows of ``X`` (k x n0) with per-row steps ``delta`` (k):
    array k x m x n0, and a flag per row (the step along one random direction agrees)."""
    k, n0 = X.shape
    delta = np.asarray(delta, dtype=np.float64).reshape(k)
    pts = [X] + [X + np.outer(delta, np.eye(n0)[i]) for i in range(n0)]
    r = rng.standard_normal((k, n0)) / math.sqrt(n0)
    pts.append(X + delta[:, None] * r)
    Y = f(np.concatenate(pts, axis=0))
    f0 = Y[:k]
    G = np.stack([(Y[(i + 1) * k:(i + 2) * k] - f0) / delta[:, None] for i in range(n0)], axis=2)  # k x m x n0
    fr = Y[(n0 + 1) * k:]
    pred = f0 + delta[:, None] * np.einsum("kmn,kn->km", G, r)
    ok = np.max(np.abs(fr - pred), axis=1) <= 1e-9 * (1 + np.max(np.abs(f0), axis=1))
    return G, ok


def _random_line(rng: np.random.Generator, n0: int) -> tuple[np.ndarray, np.ndarray]:
    """A random line ``p + t u``: ``p`` uniform in ``[-8, 8]^n0``, ``u`` a nonzero integer vector in ``[-9, 9]^n0``."""
    p = rng.uniform(-8, 8, n0)
    u = rng.integers(-9, 10, n0).astype(np.float64)
    if not u.any():
        u[0] = 1.0
    return p, u


def _piece_gradients(f, p, u, lo, hi, tol, max_kinks, rng):
    """Kinks of ``f`` on ``p + t u`` (``lo < t < hi``) and one gradient per piece between them.

    Returns ``(kinks, G, ok, delta)``: ``G[i]`` (m x n0) is the gradient on piece ``i`` (piece
    ``i`` ends at kink ``i``), ``ok[i]`` says its random-direction check passed (steps are shrunk
    up to three times where it failed), ``delta[i]`` the difference step used.
    """
    n0 = len(p)
    kinks = _find_kinks(f, p, u, lo, hi, tol, max_kinks)
    if not kinks:
        return kinks, None, None, None
    bounds = [lo] + kinks + [hi]
    mids = np.array([(a + b) / 2 for a, b in zip(bounds, bounds[1:])])
    gaps = np.array([(b - a) / 2 for a, b in zip(bounds, bounds[1:])])
    X = p[None, :] + mids[:, None] * u[None, :]
    delta = np.clip(gaps * np.linalg.norm(u) / (8 * math.sqrt(n0)), 1e-7, 1e-1)
    G, ok = _gradients(f, X, delta, rng)
    for _ in range(3):
        bad = np.nonzero(~ok)[0]
        if not len(bad):
            break
        delta[bad] /= 64
        G2, ok2 = _gradients(f, X[bad], delta[bad], rng)
        G[bad], ok[bad] = G2, ok2
    return kinks, G, ok, delta


def _jumps(kinks, G, ok):
    """For each kink with checked gradients on both sides: ``(i, t, D, n)``, ``D = G[i + 1] - G[i]``
    (m x n0, rank one up to noise) and ``n`` its row of largest norm (the normal, up to scale)."""
    for i, t in enumerate(kinks):
        if not (ok[i] and ok[i + 1]):
            continue
        D = G[i + 1] - G[i]
        yield i, t, D, D[int(np.argmax(np.linalg.norm(D, axis=1)))]


def _canon(n, beta):
    """Normalise a hyperplane: unit normal, largest coordinate positive."""
    s = np.linalg.norm(n)
    n, beta = n / s, beta / s
    if n[np.argmax(np.abs(n))] < 0:
        n, beta = -n, -beta
    return n, beta


def extract_float(oracle: Oracle, arch: Sequence[int], seed: int = 0, lines: int = 6, sample_points: int = 2000,
                  tol: float = 1e-11) -> FloatExtractionResult:
    """Run the float pipeline (one hidden layer here; deeper: :mod:`exactnet.extract_deep_float`)."""
    arch = tuple(int(a) for a in arch)
    if oracle.n_in != arch[0] or oracle.n_out != arch[-1]:
        raise ShapeError(f"architecture {arch} does not fit the oracle ({oracle.n_in} inputs, {oracle.n_out} outputs)")
    if len(arch) < 3:
        raise UndecidedError("the float pipeline needs at least one hidden layer")
    if len(arch) > 3:
        from .extract_deep_float import extract_deep_float

        return extract_deep_float(oracle, arch, seed=seed, sample_points=sample_points, tol=tol)
    n0, n1, m = arch
    t_start = time.perf_counter()
    q0 = oracle.queries
    rng = np.random.default_rng(seed)
    f = oracle.query_floats
    planes: list = []  # (unit normal, beta, quality of the estimate, lines that saw it)
    R = 256.0
    used = 0
    for line in range(lines):
        used += 1
        p, u = _random_line(rng, n0)
        kinks, G, ok, delta = _piece_gradients(f, p, u, -R, R, tol, 4 * n1, rng)
        if not kinks:
            continue
        new = 0
        for i, t, D, nrm in _jumps(kinks, G, ok):
            if np.linalg.norm(nrm) < 1e-9:
                continue
            x = p + t * u
            n_c, b_c = _canon(nrm, -float(nrm @ x))
            xn = float(np.linalg.norm(x))  # beta = -n.x cancels: its error grows with |x|
            # quality: larger difference steps and smaller |x| give better estimates
            qual = min(delta[i], delta[i + 1]) / (1.0 + xn)
            for k, (n2, b2, q2, seen) in enumerate(planes):
                if float(n2 @ n_c) < 0:  # the sign convention can flip on near-ties of the largest entries
                    n_c, b_c = -n_c, -b_c
                if float(n2 @ n_c) > 1 - 1e-6 and abs(b2 - b_c) < 1e-4 * (1 + abs(b_c)):
                    seen.add(line)
                    if qual > q2:
                        planes[k] = (n_c, b_c, qual, seen)
                    break
            else:
                planes.append((n_c, b_c, qual, {line}))
                new += 1
        if line >= 3 and sum(len(pl[3]) >= 2 for pl in planes) >= n1:
            break
        if line >= 3 and new == 0 and all(len(pl[3]) >= 2 for pl in planes):
            break  # a line that only re-saw known hyperplanes: the rest are invisible
    # a neuron's hyperplane is crossed by every line; a kink seen on one line only is a misreading
    # (two kinks too close for the float steps) unless only one line was used
    if used >= 2:
        planes = [pl for pl in planes if len(pl[3]) >= 2]
    if len(planes) > n1:
        raise UndecidedError(f"architecture mismatch: {len(planes)} hyperplanes found (float oracle), the architecture has {n1}")
    if not planes:
        raise UndecidedError("no kink found on the float oracle's lines")
    K = len(planes)
    Nmat = np.array([pl[0] for pl in planes])
    B = np.array([pl[1] for pl in planes])
    # orientations and output layer: least squares
    npts = 3 * K + 20
    Xs = rng.uniform(-8, 8, (npts, n0))
    Z = Xs @ Nmat.T + B
    Y = f(Xs)
    F = np.concatenate([np.maximum(Z, 0), Z, np.ones((npts, 1))], axis=1)
    sol, *_ = np.linalg.lstsq(F, Y, rcond=None)
    alpha, gamma = sol[:K], sol[K:2 * K]
    flip = np.array([np.linalg.norm(gamma[j] + alpha[j]) < np.linalg.norm(gamma[j]) for j in range(K)])
    sgn = np.where(flip, -1.0, 1.0)
    W1, b1 = Nmat * sgn[:, None], B * sgn
    Xs2 = rng.uniform(-8, 8, (2 * K + 20, n0))
    H = np.maximum(Xs2 @ W1.T + b1, 0)
    Y2 = f(Xs2)
    sol2, *_ = np.linalg.lstsq(np.concatenate([H, np.ones((len(Xs2), 1))], axis=1), Y2, rcond=None)
    V, d = sol2[:K].T, sol2[K]
    if K < n1:
        W1 = np.concatenate([W1, np.zeros((n1 - K, n0))])
        b1 = np.concatenate([b1, np.zeros(n1 - K)])
        V = np.concatenate([V, np.zeros((m, n1 - K))], axis=1)
    net = Network.from_lists(
        [([[from_float(float(v), "exact") for v in r] for r in W1], [from_float(float(v), "exact") for v in b1]),
         ([[from_float(float(v), "exact") for v in r] for r in V], [from_float(float(v), "exact") for v in d])],
        name="extracted-float",
    )
    Xt = rng.uniform(-8, 8, (sample_points, n0))
    err = output_error(net, f(Xt), Xt)
    notes = ["float64 oracle: parameters and precision are approximate; no exact claim is made"]
    if K < n1:
        notes.append(f"only {K} of {n1} hyperplanes seen: {n1 - K} zero neurons returned")
    return FloatExtractionResult(net, "float-approximation", oracle.queries - q0, time.perf_counter() - t_start, K,
                                 used, err, sample_points, notes)


def _float_layers(net: Network):
    return [(np.array([[q_to_float(v) for v in r] for r in layer.weights]),
             np.array([q_to_float(v) for v in layer.biases])) for layer in net.layers]


def output_error(net: Network, Y: np.ndarray, X: np.ndarray) -> float:
    """``max |net(x) - y|`` over the rows (``net`` evaluated in float64)."""
    H = X
    layers = _float_layers(net)
    for k, (W, b) in enumerate(layers):
        H = H @ W.T + b
        if k < len(layers) - 1:
            H = np.maximum(H, 0)
    return float(np.max(np.abs(H - Y)))


def parameter_error(extracted: Network, victim: Network) -> dict:
    """Largest parameter error after canonical alignment (reads the victim: test side).

    Deep networks: :func:`exactnet.extract_deep_float.deep_parameter_error`. One hidden layer: each victim neuron with a nonzero row and nonzero outgoing weights is matched to the extracted
    neuron whose row, scaled like the victim's (``|first nonzero entry| = 1``), is nearest; the
    outgoing weights are scaled inversely. Reported: the largest absolute difference over the
    matched rows, outgoing weights and the output bias.
    """
    if extracted.architecture != victim.architecture:
        raise ShapeError("parameter_error compares two networks of the same architecture")
    if victim.depth != 2:
        from .extract_deep_float import deep_parameter_error

        return deep_parameter_error(extracted, victim)
    (We, be), (Ve, de) = _float_layers(extracted)
    (Wv, bv), (Vv, dv) = _float_layers(victim)
    Re = np.concatenate([We, be[:, None]], axis=1)
    Rv = np.concatenate([Wv, bv[:, None]], axis=1)
    worst = float(np.max(np.abs(de - dv)))
    used = set()
    skipped = 0
    for i in range(len(Rv)):
        nz = np.nonzero(Rv[i])[0]
        if len(nz) == 0 or not np.any(Vv[:, i]):
            skipped += 1
            continue
        k = nz[0]
        rv = Rv[i] / abs(Rv[i, k])
        best = None
        for j in range(len(Re)):
            if j in used or Re[j, k] == 0:
                continue
            re = Re[j] / abs(Re[j, k])
            e = float(np.max(np.abs(re - rv)))
            if best is None or e < best[0]:
                best = (e, j, abs(Re[j, k]))
        if best is None:
            return {"max_parameter_error": None, "note": "a victim neuron has no extracted counterpart"}
        e, j, s = best
        used.add(j)
        ev = float(np.max(np.abs(Ve[:, j] * s - Vv[:, i] * abs(Rv[i, k]))))
        worst = max(worst, e, ev)
    return {"max_parameter_error": worst, "log2_max_parameter_error": _log2(worst), "invisible_victim_neurons": skipped}
