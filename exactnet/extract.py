"""Exact parameter extraction of a ReLU network from an exact black-box oracle.

The extractor sees the function ``f`` only through an :class:`~exactnet.oracle.Oracle`
(exact rational points in, exact rational outputs out). It never reads weights.

One hidden layer, ``f(x) = V relu(W x + b) + d`` (the case done here)
-----------------------------------------------------------------------
1. **Kinks on a line, solved exactly.** On a random rational line ``x(t) = p + t u``
   the output ``phi(t) = f(x(t))`` is piecewise affine in ``t``. An interval
   ``[a, b]`` whose midpoint value lies on the chord is taken as kink-free (exact
   collinearity test). Otherwise the quarter points give the affine piece at each
   end; the two pieces are intersected *exactly* (``t*`` solves a linear equation)
   and the single-kink hypothesis is confirmed by querying ``phi`` at ``t*`` and at
   points between ``t*`` and the quarter points; if it fails the interval is split.
   No bisection to a tolerance: every kink is an exact rational.
2. **Jumps from exact gradients.** On an affine piece, finite differences are exact.
   Between consecutive kinks the line crosses one activation region; at a simple
   rational point in it the gradient is read from ``n0 + 1`` queries (steps ``delta e_i``)
   and checked (slope along the line against the kink values, and one random
   direction). Across kink ``i`` the gradient jumps by ``J_i n_i^T`` (``m x n0``, rank one):
   the hyperplane normal ``n_i`` up to scale and the output jump ``J_i``. The hyperplane
   is ``n_i . x + beta_i = 0`` through the kink point. One gradient per region, so
   ``K + 1`` gradients for ``K`` kinks.
3. **Signs by an exact linear system.** Orient every hyperplane to be negative at a
   reference point ``x_ref`` (in the first region). Then
   ``f = sum_j J_j relu(n_j.x + beta_j) + A x + d`` with ``A`` the gradient and
   ``d`` the offset at ``x_ref``. A network with no extra linear term must flip a set
   ``S`` of neurons (``relu(s) = relu(-s) + s``) with ``sum_(j in S) J_j n_j^T = -A``:
   solved exactly (rref); with free variables the ``{0,1}`` solutions are enumerated.
4. **Build and check.** The network is assembled and compared with the oracle at
   points on both sides of every extracted hyperplane and at random points.
   A disagreement raises :class:`UndecidedError`: no network that disagrees with the oracle at a
   checked point is returned. Checks are finitely many points, so a black box with a neuron
   bending only beyond :data:`SEARCH_RADIUS` yields a network that differs far out (status
   ``"fibre"`` with a note); only the exact comparison with a victim network
   (:func:`compare_with_victim`) proves equality.

What the answer means. When ``K = n1`` distinct hyperplanes are found and the sign
system has exactly one ``{0,1}`` solution, every network of the architecture that
computes ``f`` is in the orbit of the returned one: its ``n1`` neurons must sit one on
each of the ``n1`` visible hyperplanes (the breakpoint hyperplanes and jumps are
properties of ``f``), each neuron's outgoing weight times its scale is then the jump,
and its orientation is a ``{0,1}`` solution of the sign system. This argument assumes
the kinks found are all of ``f``'s, which the query checks support but cannot prove
for an arbitrary black box; for a network-file oracle the caller checks exact
equivalence separately (:func:`compare_with_victim`, a check after the extraction that uses
the victim's weights; with equivalence established the argument is a proof, Lemma 2 of
``proofs/lemmas/extraction.md``). Status ``"fibre"`` means the returned network computes ``f`` (as far
as the checks go) but other orbits also do (several sign solutions: a hidden
symmetry), or fewer hyperplanes than neurons were found (dead, zero or coincident
neurons, or kinks beyond the search radius :data:`SEARCH_RADIUS` along the query lines, which no
finite set of queries rules out: the spare neurons are returned as zero neurons).

Deeper networks are extracted layer by layer by :mod:`exactnet.extract_deep` (status
``"extracted"``, or ``"fibre"`` when neurons were never seen and are returned as zero
neurons); for them only membership in the fibre is claimed, and for a network oracle it is
proved by the exact comparison :func:`compare_with_victim` (``proofs/lemmas/extraction.md``).
An undecided deep attempt is repeated once with twice as many fresh lines (checked the same way).
Float oracles are refused by this exact pipeline (rounded replies are not piecewise affine);
:mod:`exactnet.extract_float` runs the float64 version and reports the precision reached.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Sequence

from flint import fmpq, fmpq_mat

from .errors import ExactnetError, LimitError, ShapeError, UndecidedError
from .network import Network
from .oracle import Oracle
from .qq import Q0, Q1, q_str

__all__ = [
    "ExtractionResult",
    "extract",
    "find_kinks",
    "compare_with_victim",
    "check_against_oracle",
    "simplest_between",
    "SEARCH_RADIUS",
]

Vec = list  # list[fmpq]

#: How far along each query line (parameter ``|t|``) kinks are searched for. A kink farther out is
#: not found; its neuron is then returned as a zero neuron and noted as such (status "fibre").
SEARCH_RADIUS = fmpq(2) ** 64


@dataclass
class ExtractionResult:
    """What :func:`extract` found and how sure it is."""

    network: Network
    status: str  # "identified" or "fibre"
    queries: int
    seconds: float
    oracle_seconds: float
    hyperplanes: int
    lines: int
    sign_solutions: int
    checks: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)
    timing: dict = field(default_factory=dict)
    layers: list = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "status": self.status,
            "architecture": list(self.network.architecture),
            "queries": self.queries,
            "log2_queries": round(_log2(self.queries), 2),
            "seconds": round(self.seconds, 3),
            "oracle_seconds": round(self.oracle_seconds, 3),
            "hyperplanes": self.hyperplanes,
            "lines": self.lines,
            "sign_solutions": self.sign_solutions,
            "checks": self.checks,
            "notes": list(self.notes),
            "timing": {k: round(v, 3) for k, v in self.timing.items()},
            "layers": self.layers,
        }


def _log2(n: int) -> float:
    import math

    return math.log2(n) if n > 0 else 0.0


# --------------------------------------------------------------------- helpers
def simplest_between(a: fmpq, b: fmpq) -> fmpq:
    """A dyadic rational strictly between ``a < b`` with the smallest power-of-two denominator."""
    if not a < b:
        raise ValueError("need a < b")
    d = 0
    while True:
        s = fmpq(2) ** d
        n = (a * s).floor() + 1
        c = fmpq(n) / s
        if c < b:
            return c
        d += 1


def _pow2_below(x: fmpq) -> fmpq:
    """The largest power of two ``<= x`` (``x > 0``)."""
    e = 0
    p = Q1
    if x >= 1:
        while p * 2 <= x:
            p *= 2
        return p
    while p > x:
        p /= 2
    return p


def _line_point(p: Vec, u: Vec, t: fmpq) -> Vec:
    if not t:
        return list(p)
    return [pi + t * ui for pi, ui in zip(p, u)]


def _collinear(a: fmpq, fa: Vec, m: fmpq, fm: Vec, b: fmpq, fb: Vec) -> bool:
    return all((ym - ya) * (b - a) == (yb - ya) * (m - a) for ya, ym, yb in zip(fa, fm, fb))


def _on_line(t0: fmpq, y0: Vec, slope: Vec, t: fmpq, y: Vec) -> bool:
    return all(v == a + s * (t - t0) for a, s, v in zip(y0, slope, y))


class _LineFn:
    """``phi(t) = f(p + t u)`` with memoised values (batched through the oracle)."""

    def __init__(self, oracle: Oracle, p: Vec, u: Vec) -> None:
        self.oracle, self.p, self.u = oracle, p, u
        self.vals: dict[fmpq, Vec] = {}

    def ensure(self, ts: Sequence[fmpq]) -> None:
        new = []
        seen = set()
        for t in ts:
            if t not in self.vals and t not in seen:
                seen.add(t)
                new.append(t)
        if new:
            outs = self.oracle.query_batch([_line_point(self.p, self.u, t) for t in new], cache=False)
            for t, y in zip(new, outs):
                self.vals[t] = y

    def __getitem__(self, t: fmpq) -> Vec:
        return self.vals[t]


def find_kinks(oracle: Oracle, p: Vec, u: Vec, lo: fmpq, hi: fmpq, max_kinks: int, line: _LineFn | None = None) -> tuple[list[fmpq], _LineFn]:
    """All kinks of ``t -> f(p + t u)`` in ``(lo, hi)``, as exact rationals (sorted).

    Raises :class:`UndecidedError` when more than ``max_kinks`` are found or when an
    interval shrinks below ``(hi - lo) * 2^-400`` (the oracle does not look piecewise
    affine with finitely many pieces).
    """
    phi = line or _LineFn(oracle, p, u)
    m0 = (lo + hi) / 2
    phi.ensure([lo, m0, hi])
    floor_width = (hi - lo) / fmpq(2) ** 400
    pending = [(lo, hi)]
    kinks: list[fmpq] = []
    while pending:
        # phase 1: collinearity test (midpoint known); split candidates need quarter points
        need: list[fmpq] = []
        active = []
        for a, b in pending:
            m = (a + b) / 2
            if _collinear(a, phi[a], m, phi[m], b, phi[b]):
                continue
            if b - a < floor_width:
                raise UndecidedError(
                    "the oracle's values along a line are not piecewise affine with isolated kinks "
                    "(an interval shrank below 2^-400 of the search range)"
                )
            q1, q3 = (a + m) / 2, (m + b) / 2
            need += [q1, q3]
            active.append((a, q1, m, q3, b))
        phi.ensure(need)
        # phase 2: solve the single-kink hypothesis exactly, collect confirmation points
        cands = []
        need = []
        nxt = []
        for a, q1, m, q3, b in active:
            sol = _solve_pieces(a, q1, q3, b, phi)
            if sol is None:
                nxt += [(a, m), (m, b)]
                continue
            ts, sl, sr = sol
            # one check point strictly inside each claimed piece, beyond its defining points
            l = (q1 + ts) / 2 if ts > q1 else (a + q1) / 2
            r = (ts + q3) / 2 if ts < q3 else (q3 + b) / 2
            # and one just beside the kink on each side (the kink must be local, not an artefact of
            # several kinks further in: their pieces' lines can meet anywhere)
            h = (b - a) / _NEAR
            need += [ts, l, r, ts - h, ts + h]
            cands.append((a, q1, m, q3, b, ts, sl, sr, l, r, h))
        phi.ensure(need)
        for a, q1, m, q3, b, ts, sl, sr, l, r, h in cands:
            ok = (
                _on_line(a, phi[a], sl, ts, phi[ts])
                and _on_line(a, phi[a], sl, l, phi[l])
                and _on_line(b, phi[b], sr, r, phi[r])
                and _on_line(a, phi[a], sl, ts - h, phi[ts - h])
                and _on_line(b, phi[b], sr, ts + h, phi[ts + h])
            )
            if ok:
                # the midpoint must lie on the piece of its side
                if m <= ts:
                    ok = _on_line(a, phi[a], sl, m, phi[m])
                if ok and m >= ts:
                    ok = _on_line(b, phi[b], sr, m, phi[m])
            if ok:
                kinks.append(ts)
                if len(kinks) > max_kinks:
                    raise UndecidedError(
                        f"architecture mismatch: more than {max_kinks} kinks on one line, so the oracle is not "
                        f"a network with {max_kinks} hidden neurons in one hidden layer"
                    )
            else:
                nxt += [(a, m), (m, b)]
        pending = nxt
    kinks.sort()
    return kinks, phi


def _solve_pieces(a, q1, q3, b, phi):
    """Intersect the piece through ``a, q1`` with the piece through ``q3, b``; None if impossible."""
    fa, f1, f3, fb = phi[a], phi[q1], phi[q3], phi[b]
    sl = [(y1 - y0) / (q1 - a) for y0, y1 in zip(fa, f1)]
    sr = [(y1 - y0) / (b - q3) for y0, y1 in zip(f3, fb)]
    ts = None
    for k in range(len(sl)):
        if sl[k] != sr[k]:
            # fa + sl (t - a) = fb + sr (t - b)
            ts = (fb[k] - fa[k] + sl[k] * a - sr[k] * b) / (sl[k] - sr[k])
            break
    if ts is None or not (q1 <= ts <= q3):
        return None
    for k in range(len(sl)):
        if fa[k] + sl[k] * (ts - a) != fb[k] + sr[k] * (ts - b):
            return None
    return ts, sl, sr


def _gradients(oracle: Oracle, pts: list[Vec], deltas: list[fmpq], rng: random.Random) -> list[tuple[list[Vec], Vec, Vec, Vec]]:
    """Finite-difference gradients at many points: ``(G (m rows), f(x), r, f(x + delta r))``.

    Per point: ``f(x)``, ``f(x + delta r)`` (random direction ``r``, for the check) and the
    ``n0`` axis steps ``f(x + delta e_i)`` (:meth:`Oracle.query_axis_steps`).
    """
    n0 = oracle.n_in
    dirs = [[fmpq(rng.randint(-7, 7)) for _ in range(n0)] for _ in pts]
    batch = []
    for x, dl, r in zip(pts, deltas, dirs):
        batch.append(x)
        batch.append([xi + dl * ri for xi, ri in zip(x, r)])
    outs = oracle.query_batch(batch, cache=False)
    res = []
    for k, (x, dl) in enumerate(zip(pts, deltas)):
        f0, fr = outs[2 * k], outs[2 * k + 1]
        steps = oracle.query_axis_steps(x, dl)
        m = len(f0)
        G = [[(steps[i][o] - f0[o]) / dl for i in range(n0)] for o in range(m)]
        res.append((G, f0, dirs[k], fr))
    return res


def _dot(a: Vec, b: Vec) -> fmpq:
    acc = Q0
    for x, y in zip(a, b):
        if x and y:
            acc += x * y
    return acc


def _rank_one(D: list[Vec]) -> tuple[Vec, Vec] | None:
    """Factor ``D = J n^T`` (J: m, n: n0) with ``n`` the first nonzero row; None if not rank one or zero."""
    r0 = next((r for r in D if any(r)), None)
    if r0 is None:
        return None
    c = next(i for i, v in enumerate(r0) if v)
    n = list(r0)
    J = [row[c] / n[c] for row in D]
    for row, j in zip(D, J):
        if any(row[i] != j * n[i] for i in range(len(n))):
            return None
    return J, n


def _hyper_key(n: Vec, beta: fmpq) -> tuple:
    c = next(v for v in n if v)
    s = abs(c)
    return tuple(str(v / s) for v in n) + (str(beta / s),) if c > 0 else tuple(str(-v / s) for v in n) + (str(-beta / s),)


# ------------------------------------------------------------------ main entry
def extract(
    oracle: Oracle,
    arch: Sequence[int],
    seed: int = 0,
    max_lines: int = 4,
    check_points: int = 32,
    deep_lines: int = 0,
) -> ExtractionResult:
    """Extract a network of architecture ``arch`` computing the oracle's function.

    See the module docstring for the algorithm and the meaning of the result.
    Raises :class:`UndecidedError` when it cannot proceed (with the reason),
    :class:`LimitError` when the oracle's query budget runs out.
    """
    arch = tuple(int(a) for a in arch)
    if len(arch) < 2:
        raise ShapeError("an architecture needs an input and an output width")
    if oracle.n_in != arch[0] or oracle.n_out != arch[-1]:
        raise ShapeError(
            f"architecture {arch} does not fit the oracle ({oracle.n_in} inputs, {oracle.n_out} outputs)"
        )
    if getattr(oracle, "float_mode", False):
        raise UndecidedError(
            "float oracles are not supported by the exact extractor: rounded replies are not piecewise "
            "affine, so kinks cannot be solved for exactly (use exactnet.extract_float.extract_float, the "
            "tolerance-based pipeline, which reports the precision reached and claims nothing exact)"
        )
    t_start = time.perf_counter()
    q_start = oracle.queries
    os_start = oracle.seconds
    rng = random.Random(seed)
    if len(arch) == 2:
        res = _extract_affine(oracle, arch, rng, check_points)
    elif len(arch) > 3:
        res = _extract_deep(oracle, arch, rng, check_points, deep_lines)
    else:
        res = _extract_shallow(oracle, arch, rng, max_lines, check_points)
    res.queries = oracle.queries - q_start
    res.seconds = time.perf_counter() - t_start
    res.oracle_seconds = oracle.seconds - os_start
    return res


def _rand_vec(rng: random.Random, n: int, lo: int, hi: int, den: int = 1) -> Vec:
    return [fmpq(rng.randint(lo, hi), den) for _ in range(n)]


def _extract_affine(oracle: Oracle, arch, rng, check_points) -> ExtractionResult:
    n0 = arch[0]
    x0 = _rand_vec(rng, n0, -4, 4)
    (G, f0, r, fr), = _gradients(oracle, [x0], [Q1], rng)
    d = [f0[o] - _dot(G[o], x0) for o in range(len(f0))]
    net = Network.from_lists([(G, d)])
    checks = check_against_oracle(oracle, net, rng, check_points, [])
    return ExtractionResult(net, "identified", 0, 0.0, 0.0, 0, 0, 1, checks,
                            ["affine map: W and b are read from n0+1 exact queries; no symmetries"])


def _extract_shallow(oracle: Oracle, arch, rng: random.Random, max_lines: int, check_points: int) -> ExtractionResult:
    n0, n1, m = arch
    timing: dict[str, float] = {}
    notes: list[str] = []
    hyper: dict[tuple, tuple[Vec, fmpq, Vec]] = {}  # key -> (n, beta, J) (orientation fixed later)
    ref = None  # (x_ref, gradient rows, f(x_ref))
    lines_used = 0
    last_problem = None
    for attempt in range(max_lines):
        lines_used += 1
        # The base point has a large prime denominator P: kinks t = -(w.p + b)/(w.u) then carry P in
        # their denominators (unless P divides the numerator) and never fall on the dyadic split points of
        # the search, where they would be invisible. A kink missed anyway fails the gradient checks.
        P = _PRIMES[attempt % len(_PRIMES)]
        p = [fmpq(rng.randint(-8 * P, 8 * P), P) for _ in range(n0)]
        u = _rand_vec(rng, n0, -9, 9)
        if not any(u):
            u[0] = Q1
        t0 = time.perf_counter()
        R = fmpq(2) ** 8
        kinks, phi = find_kinks(oracle, p, u, -R, R, n1)
        while len(kinks) < n1 and R < SEARCH_RADIUS:
            R2 = R * 2 ** 8
            left, _ = find_kinks(oracle, p, u, -R2, -R, n1 - len(kinks), phi)
            right, _ = find_kinks(oracle, p, u, R, R2, n1 - len(kinks) - len(left), phi)
            kinks = sorted(left + kinks + right)
            R = R2
        timing["kinks"] = timing.get("kinks", 0.0) + time.perf_counter() - t0
        if not kinks:
            last_problem = "no kink on a random line"
            if ref is None:
                # keep a reference for the affine part even if nothing bends
                ref = _reference(oracle, p, u, -R, R, rng)
            continue
        t0 = time.perf_counter()
        bounds = [-R] + kinks + [R]
        mids, deltas = [], []
        for a, b in zip(bounds, bounds[1:]):
            tm = simplest_between(a, b)
            gap = min(tm - a, b - tm)
            mids.append(tm)
            deltas.append(_pow2_below(gap) / fmpq(2) ** 20)
        xs = [_line_point(p, u, t) for t in mids]
        grads = None
        for shrink in range(3):
            grads = _gradients(oracle, xs, deltas, rng)
            bad = [k for k, g in enumerate(grads) if not _gradient_ok(g, mids[k], bounds[k], bounds[k + 1], u, deltas[k], phi)]
            if not bad:
                break
            # redo only the bad ones with smaller steps
            for k in bad:
                deltas[k] = deltas[k] / fmpq(2) ** 24
            redo = _gradients(oracle, [xs[k] for k in bad], [deltas[k] for k in bad], rng)
            for k, g in zip(bad, redo):
                grads[k] = g
            bad = [k for k in bad if not _gradient_ok(grads[k], mids[k], bounds[k], bounds[k + 1], u, deltas[k], phi)]
            if not bad:
                break
        timing["gradients"] = timing.get("gradients", 0.0) + time.perf_counter() - t0
        if bad:
            last_problem = f"gradient checks failed in {len(bad)} regions of a line"
            continue
        if ref is None:
            ref = (xs[0], grads[0][0], grads[0][1])
        line_ok = True
        added = 0
        for i, tk in enumerate(kinks):
            Gl, Gr = grads[i][0], grads[i + 1][0]
            D = [[r - l for l, r in zip(rl, rr)] for rl, rr in zip(Gl, Gr)]
            f1 = _rank_one(D)
            if f1 is None:
                line_ok = False
                last_problem = "a gradient jump across a kink is not of rank one (two hyperplanes crossing the line at one point?)"
                break
            J, nrm = f1
            xk = _line_point(p, u, tk)
            beta = -_dot(nrm, xk)
            # jump along +u is J n^T; store oriented so that n.u > 0 (then the jump from - to + is J)
            if _dot(nrm, u) < 0:
                nrm = [-v for v in nrm]
                beta = -beta
                J = [-v for v in J]
            key = _hyper_key(nrm, beta)
            if key not in hyper:
                hyper[key] = (nrm, beta, J)
                added += 1
        if not line_ok:
            continue
        if len(hyper) >= n1:
            break
        if added == 0:
            # a second line crossing exactly the same hyperplanes: the rest are invisible
            break
    if ref is None:
        raise UndecidedError(f"no usable line after {lines_used} tries: {last_problem}")
    if len(hyper) > n1:
        raise UndecidedError(
            f"architecture mismatch: {len(hyper)} distinct breakpoint hyperplanes found, but the architecture "
            f"{','.join(map(str, arch))} has only {n1} hidden neurons (the oracle is not such a network, or a kink "
            "was misread; no network is returned)"
        )
    x_ref, A, f_ref = ref
    # orient every hyperplane negative at x_ref
    # Flipping the orientation (n, beta) -> (-n, -beta) keeps the jump vector J: the jump from
    # the new negative side to the new positive side is -J n^T = J (-n)^T.
    neurons = []
    for nrm, beta, J in hyper.values():
        s = _dot(nrm, x_ref) + beta
        if s == 0:
            raise UndecidedError("the reference point lies on a breakpoint hyperplane (retry with another seed)")
        if s > 0:
            nrm, beta = [-v for v in nrm], -beta
        neurons.append((nrm, beta, J))
    d = [f_ref[o] - _dot(A[o], x_ref) for o in range(m)]
    t0 = time.perf_counter()
    sols, free = _sign_solutions(neurons, A, m, n0)
    timing["signs"] = time.perf_counter() - t0
    if not sols:
        raise UndecidedError(
            f"sign recovery failed: the linear part is not a sum of neuron terms over {len(neurons)} visible "
            f"hyperplanes ({'fewer than the ' + str(n1) + ' neurons: opposite pairs would be needed, not implemented' if len(neurons) < n1 else 'the oracle is not a network of this architecture'})"
        )
    c = sols[0]
    W, b, V = [], [], [[] for _ in range(m)]
    dd = list(d)
    for (nrm, beta, J), cj in zip(neurons, c):
        if cj:
            W.append([-v for v in nrm])
            b.append(-beta)
            for o in range(m):
                dd[o] += J[o] * beta
        else:
            W.append(list(nrm))
            b.append(beta)
        for o in range(m):
            V[o].append(J[o])
    spare = n1 - len(neurons)
    for _ in range(spare):
        W.append([Q0] * n0)
        b.append(Q0)
        for o in range(m):
            V[o].append(Q0)
    net = Network.from_lists([(W, b), (V, dd)], name="extracted")
    t0 = time.perf_counter()
    checks = check_against_oracle(oracle, net, rng, check_points, [(nrm, beta) for nrm, beta, _ in neurons])
    timing["checks"] = time.perf_counter() - t0
    if spare == 0 and len(sols) == 1:
        status = "identified"
        notes.append(
            f"{n1} distinct breakpoint hyperplanes with nonzero jumps and a unique sign solution: every network of "
            "this architecture computing the oracle's function is in the orbit of the returned one (given that the "
            "kinks found are all of the function's, which the query checks support)"
        )
    else:
        status = "fibre"
        if spare:
            notes.append(
                f"only {len(neurons)} kink hyperplanes found for {n1} neurons: the others are dead, zero or "
                "coincident with found ones, or bend only farther out than the search reaches (|t| <= 2^64 along "
                f"each query line); {spare} spare neuron(s) returned as zero neurons, so the result can differ from "
                "the oracle's function far out, and the victim's orbit is not determined by the queries"
            )
        if len(sols) > 1:
            notes.append(
                f"{len(sols)}{'+' if len(sols) >= _SOL_LIMIT else ''} sign solutions: flipping the neurons where two "
                "solutions differ is a hidden symmetry, the function does not determine the orbit"
            )
    return ExtractionResult(net, status, 0, 0.0, 0.0, len(neurons), lines_used, len(sols), checks, notes, timing)


def _extract_deep(oracle: Oracle, arch, rng: random.Random, check_points: int, lines: int = 0) -> ExtractionResult:
    from .extract_deep import check_deep, extract_deep

    first = lines or max(24, 3 * arch[1])

    def attempt(n_lines: int):
        net, st = extract_deep(oracle, arch, rng, max_lines=n_lines)
        t0 = time.perf_counter()
        checks = check_deep(oracle, net, st, rng, max(check_points, 64))
        st.timing["checks"] = time.perf_counter() - t0
        return net, st, checks

    retried = None
    try:
        net, st, checks = attempt(first)
    except UndecidedError as e:
        if "non-expanding" in str(e) or str(e).startswith("architecture mismatch: more than"):
            raise  # structural, or more neurons than the architecture has: retrying would only repeat it
        # an undecided first attempt says nothing about the oracle: with twice as many fresh lines the
        # neurons get more critical points (rows complete, sizes separate neurons from pieces of deeper
        # ones). The second attempt is checked exactly like the first; its failure is final.
        retried = str(e)
        net, st, checks = attempt(2 * first)
    notes = ([f"the first attempt ({first} lines) was undecided ({retried}); a second attempt with {2 * first} "
              "fresh lines succeeded"] if retried else []) + list(st.notes) + [
        f"{len(arch) - 2} hidden layers extracted layer by layer ({st.kinks} exact critical points on {st.lines} "
        "lines); the result computes the oracle's function as far as the query checks go. Whether every network "
        "of this architecture computing it is in the result's orbit is not claimed for deep networks"
    ]
    status = "fibre" if st.spare or st.linear_neurons else "extracted"
    res = ExtractionResult(net, status, 0, 0.0, 0.0, sum(arch[1:-1]) - st.spare, st.lines, 1, checks, notes,
                           st.timing)
    res.layers = st.clusters
    return res


def _reference(oracle, p, u, lo, hi, rng):
    x = _line_point(p, u, simplest_between(lo, hi))
    (G, f0, r, fr), = _gradients(oracle, [x], [Q1 / 2 ** 20], rng)
    return (x, G, f0)


def _gradient_ok(g, tm, a, b, u, delta, phi) -> bool:
    """Exact checks of a finite-difference gradient in the region ``(a, b)`` of a line."""
    G, f0, r, fr = g
    for o in range(len(f0)):
        su = _dot(G[o], u)
        if f0[o] + su * (a - tm) != phi[a][o] or f0[o] + su * (b - tm) != phi[b][o]:
            return False
        if fr[o] != f0[o] + delta * _dot(G[o], r):
            return False
    return True


_SOL_LIMIT = 64
_NEAR = fmpq(2) ** 48
_PRIMES = (2**31 - 1, 2**61 - 1, 2**89 - 1, 2**107 - 1)
_FREE_LIMIT = 20


def _sign_solutions(neurons, A, m: int, n0: int) -> tuple[list[list[int]], int]:
    """All ``c in {0,1}^K`` (up to ``_SOL_LIMIT``) with ``sum_j c_j J_j n_j^T = -A``."""
    K = len(neurons)
    if K == 0:
        return ([[]] if all(not v for row in A for v in row) else []), 0
    rows = []
    for o in range(m):
        for i in range(n0):
            rows.append([J[o] * nrm[i] for nrm, _, J in neurons] + [-A[o][i]])
    M = fmpq_mat(rows)
    R, rank = M.rref()
    Rl = R.tolist()
    pivots = []
    for r in range(rank):
        c = next(j for j, v in enumerate(Rl[r]) if v)
        pivots.append(c)
    if pivots and pivots[-1] == K:
        return [], 0
    free = [j for j in range(K) if j not in set(pivots)]
    if len(free) > _FREE_LIMIT:
        raise UndecidedError(
            f"sign recovery is a subset-sum problem with {len(free)} free neurons here (more hyperplanes than the "
            f"linear part can separate); more than {_FREE_LIMIT} is not attempted"
        )
    sols = []
    for mask in range(1 << len(free)):
        c = [0] * K
        for k, j in enumerate(free):
            c[j] = (mask >> k) & 1
        ok = True
        for r, pc in enumerate(pivots):
            v = Rl[r][K] - sum((Rl[r][j] for j in free if c[j]), Q0)
            if v == 0:
                c[pc] = 0
            elif v == 1:
                c[pc] = 1
            else:
                ok = False
                break
        if ok:
            sols.append(c)
            if len(sols) >= _SOL_LIMIT:
                break
    return sols, len(free)


# ------------------------------------------------------------------ verification
def check_against_oracle(oracle: Oracle, net: Network, rng: random.Random, count: int, planes) -> dict:
    """Compare ``net`` with the oracle at random points and beside every given hyperplane.

    Raises :class:`UndecidedError` on a disagreement (never return a wrong network).
    Agreement is evidence, not a proof, for an arbitrary black box.
    """
    n0 = oracle.n_in
    pts = [_rand_vec(rng, n0, -64, 64, 8) for _ in range(count)]
    for nrm, beta in planes:
        q = _rand_vec(rng, n0, -8, 8, 4)
        v = _rand_vec(rng, n0, -9, 9)
        s = _dot(nrm, v)
        if s == 0:
            continue
        t = -(_dot(nrm, q) + beta) / s
        h = Q1 / 2 ** 30
        for tt in (t - h, t, t + h):
            pts.append(_line_point(q, v, tt))
    outs = oracle.query_batch(pts, cache=False)
    mine = net.evaluate_batch(pts)
    for x, a, b in zip(pts, outs, mine):
        if a != b:
            raise UndecidedError(
                "the extracted network disagrees with the oracle at a checked point "
                f"(first coordinates {','.join(q_str(v) for v in x[:3])}...): the oracle is not a network of this "
                "architecture, or the extraction missed a kink; no network is returned"
            )
    return {
        "method": "agreement with the oracle at query points (evidence, not a proof)",
        "points": len(pts),
        "random_points": count,
        "hyperplane_points": len(pts) - count,
        "agree": True,
    }


def compare_with_victim(extracted: Network, victim: Network, timeout: float | None = 120,
                        certificate: bool = False) -> dict:
    """Exact comparison with the victim network (reads the victim's weights: never used by the extractor).

    * ``same_orbit``: canonical forms equal (:mod:`exactnet.symmetry`; equal canonical forms
      imply equal functions, ``proofs/lemmas/orbit.md``);
    * ``equivalent``: :func:`exactnet.equivalence.equivalent` (exact decision, any depth, also when
      the architectures differ; ``None`` when undecided within ``timeout``);
    * with ``certificate=True``: an EQUIVALENT certificate of the pair (regions of the
      difference network, ``proofs/lemmas/equivalent.md``), re-checked by the independent
      checker; ``certificate_text`` holds it, or ``certificate_note`` says why there is none
      (region enumeration is out of reach for wide inputs).
    """
    out: dict = {"same_architecture": extracted.architecture == victim.architecture}
    from .symmetry import canonical_form

    if not out["same_architecture"]:
        # e.g. a victim file with fewer layers than --arch: the function can still be the same
        out["same_orbit"] = False
        out["orbit_method"] = "architectures differ (the orbit is within one architecture)"
    else:
        try:
            out["same_orbit"] = canonical_form(extracted) == canonical_form(victim)
            out["orbit_method"] = "canonical forms equal" if out["same_orbit"] else "canonical forms differ"
        except (LimitError, UndecidedError) as e:  # pragma: no cover - ties beyond the limit
            out["same_orbit"] = None
            out["orbit_method"] = f"undecided: {e}"
    from .equivalence import equivalent

    try:
        r = equivalent(extracted, victim, timeout=timeout)
        out["equivalent"] = bool(r.equivalent)
        out["equivalence_method"] = f"exactnet.equivalence.equivalent ({r.method})"
        if not r.equivalent:
            out["witness"] = [q_str(v) for v in r.witness]
    except ExactnetError as e:
        if out["same_orbit"]:
            out["equivalent"] = True
            out["equivalence_method"] = "same orbit (canonical forms; the region decision was undecided: " + str(e)[:80] + ")"
        else:
            out["equivalent"] = None
            out["equivalence_method"] = f"undecided: {type(e).__name__}: {str(e)[:120]}"
    if certificate:
        out["certificate_text"] = None
        if out["equivalent"] is not True:
            out["certificate_note"] = "no EQUIVALENT certificate: equivalence was not established"
        else:
            try:
                from .certificate import check_certificate_text, write_certificate
                from .equivalence import equivalent_body

                text = write_certificate("EQUIVALENT", extracted, equivalent_body(extracted, victim, timeout=timeout),
                                         other=victim)
                chk = check_certificate_text(text)
                out["certificate_verified"] = bool(chk.verified)
                out["certificate_text"] = text
            except ExactnetError as e:
                out["certificate_note"] = f"no EQUIVALENT certificate: {type(e).__name__}: {str(e)[:160]}"
    return out
