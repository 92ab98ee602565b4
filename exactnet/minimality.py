"""Minimal number of hidden neurons of a one-hidden-layer function, and deep lower bounds.

One hidden layer (``proofs/lemmas/minimal_shallow.md``). Write
``f = sum_C J_C relu(t_C) + A x + c`` with the visible classes ``C`` (``k`` of them,
:func:`exactnet.shallow.invariants`), ``t_C = w_C . x + beta_C``. Every class is realised in
one of three *modes*: ``P`` (one neuron ``relu(t_C)``, linear part ``0``), ``N`` (one neuron
``relu(-t_C)``, linear part ``-J_C w_C^T``), ``F`` (two neurons of opposite orientation, any
linear part ``u w_C^T``). Invisible opposite pairs add any rank-one ``u s^T`` at cost 2. So

    min neurons = k + min over modes of ( |F| + 2 rank( R Q_F ) ),
    R = A + sum_(C in N) J_C w_C^T,   Q_F a basis of { x : w_C . x = 0 for C in F },

found by exhaustive search over the ``3^k`` modes (:class:`LimitError` beyond ``MAX_MODES``).
:func:`minimal_shallow` also builds a network of that size and checks it exactly.

Any architecture (``proofs/lemmas/minimal_deep_lower_bound.md``), :func:`deep_lower_bound`:

* if ``f`` restricted to a line has ``B`` kinks (:func:`line_kinks`), every ReLU network computing
  ``f`` with hidden widths ``n_1..n_k`` has ``prod (n_l + 1) >= B + 1``, so ``N >= ceil(log2(B+1))``
  whatever the depth, and more for a fixed number of hidden layers (:func:`neurons_needed`);
* the normals of the visible faces of ``V(f)`` (:func:`face_directions`, exact region complex)
  lie in the row space of ``W_1``: ``N >= n_1 >= r``, their rank;
* ``N <= 2`` allows at most ``N`` pairwise non-parallel face normals: ``N >= min(delta, 3)``.

No exact minimum is known or claimed for two or more hidden layers; the upper bound reported is
only the size of an exactly equivalent network in hand (the input).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from flint import fmpq, fmpq_mat

from .errors import LimitError, ShapeError, UndecidedError
from .modrank import nullspace_basis
from .network import Layer, Network
from .qq import Q0, Q1

__all__ = ["MinimalShallow", "minimal_shallow", "MAX_MODES", "LowerBound", "line_kinks", "deep_lower_bound",
           "neurons_needed", "face_directions"]

#: Largest number of mode assignments (3^k) searched.
MAX_MODES = 3**10


@dataclass
class MinimalShallow:
    neurons: int
    modes: tuple  # per visible class: "P", "N" or "F"
    pairs: int  # invisible opposite pairs
    network: Network  # a one-hidden-layer realisation with exactly ``neurons`` hidden neurons


def _rank(rows) -> int:
    if not rows or not rows[0]:
        return 0
    return fmpq_mat(rows).rank()


def _residual_rank(R, free_ws, n):
    Q = nullspace_basis(free_ws, n)
    if not Q:
        return 0
    RQ = (fmpq_mat(R) * fmpq_mat(Q).transpose()).tolist() if R else []
    return _rank(RQ)


def minimal_shallow(net: Network) -> MinimalShallow:
    """Minimal hidden width of a one-hidden-layer network computing ``f`` (exact)."""
    from .equivalence import equivalent
    from .shallow import invariants

    if net.depth != 2:
        raise ShapeError(f"expected one hidden layer, got architecture {net.architecture}")
    inv = invariants(net)
    n, m = net.input_dim, net.output_dim
    classes = [(list(rho[:n]), rho[n], list(J)) for rho, J in inv.classes]
    k = len(classes)
    if 3**k > MAX_MODES:
        raise LimitError(f"{k} visible classes: 3^{k} mode assignments exceed MAX_MODES")
    A = [list(r) for r in inv.A]
    best = None
    for modes in itertools.product("PNF", repeat=k):
        R = [row[:] for row in A]
        for (w, _, J), md in zip(classes, modes):
            if md == "N":
                for o in range(m):
                    R[o] = [a + J[o] * wi for a, wi in zip(R[o], w)]
        free = [w for (w, _, _), md in zip(classes, modes) if md == "F"]
        cost = k + len(free) + 2 * _residual_rank(R, free, n)
        if best is None or cost < best[0]:
            best = (cost, modes, R)
    cost, modes, R = best
    out = _realise(classes, modes, R, net.evaluate([Q0] * n), n, m)
    if out.num_hidden != max(cost, 1) or not equivalent(out, net).equivalent:
        raise UndecidedError("internal: the minimal realisation does not check")  # pragma: no cover
    return MinimalShallow(cost, tuple(modes), (cost - k - modes.count("F")) // 2, out)


def _realise(classes, modes, R, f0, n, m) -> Network:
    rows, bias, cols = [], [], []
    free = [(i, w) for i, ((w, _, _), md) in enumerate(zip(classes, modes)) if md == "F"]
    # U on an independent subset of the free normals: R - U T vanishes off ker(T)
    T = []
    for _, w in free:
        if _rank(T + [w]) > len(T):
            T.append(w)
    U = [[Q0] * len(T) for _ in range(m)]
    if T:
        Tm = fmpq_mat(T)
        U = (fmpq_mat(R) * Tm.transpose() * (Tm * Tm.transpose()).inv()).tolist()
        Rm = (fmpq_mat(R) - fmpq_mat(U) * Tm).tolist()
    else:
        Rm = R
    ucol = {tuple(w): [U[o][t] for o in range(m)] for t, w in enumerate(T)}
    for (w, beta, J), md in zip(classes, modes):
        if md in "PF":
            rows.append(w), bias.append(beta)
            u = ucol.get(tuple(w), [Q0] * m) if md == "F" else [Q0] * m
            cols.append([J[o] + u[o] for o in range(m)])
        if md in "NF":
            rows.append([-a for a in w]), bias.append(-beta)
            u = ucol.get(tuple(w), [Q0] * m) if md == "F" else [Q0] * m
            cols.append([J[o] if md == "N" else -u[o] for o in range(m)])
            if md == "F":
                ucol.pop(tuple(w), None)
    Rq = fmpq_mat(Rm).rref()
    for r in [r for r in Rq[0].tolist() if any(r)]:
        p = next(j for j, a in enumerate(r) if a)
        c = [Rm[o][p] for o in range(m)]
        rows += [r, [-a for a in r]]
        bias += [Q0, Q0]
        cols += [c, [-v for v in c]]
    if not rows:  # affine f with zero linear part needs no neuron; keep one dead neuron
        rows, bias, cols = [[Q0] * n], [Q0], [[Q0] * m]
    V = [[col[o] for col in cols] for o in range(m)]
    net = Network([Layer(tuple(map(tuple, rows)), tuple(bias)), Layer(tuple(map(tuple, V)), tuple([Q0] * m))])
    d = [a - b for a, b in zip(f0, net.evaluate([Q0] * n))]
    return Network([net.layers[0], Layer(net.layers[1].weights, tuple(d))])


@dataclass
class LowerBound:
    """Proven bounds on the hidden neurons of any network computing ``f`` (lemma: minimal_deep_lower_bound.md).

    ``any_depth``: every architecture needs at least this many; ``by_hidden_layers[k]``: every
    architecture with ``k`` hidden layers needs at least this many; ``upper``: hidden neurons of
    an exactly equivalent network in hand (not a minimum); ``kinks`` on the line ``a + s d``;
    ``directions``: the distinct normals of visible faces of ``V(f)`` (None when the region
    complex was not computed), ``normal_rank`` their rank; ``reasons``: which bound gives what."""

    any_depth: int
    by_hidden_layers: dict
    upper: int
    kinks: list  # positions s of the kinks
    line: tuple  # (a, d)
    directions: list | None = None
    normal_rank: int = 0
    reasons: dict = field(default_factory=dict)


def face_directions(net: Network, max_cells: int | None = 20000, timeout: float | None = 30.0) -> list:
    """Distinct normals (first nonzero entry 1) of the visible faces of ``f`` on all of ``R^n0``."""
    from .breakpoints import breakpoint_complex
    from .regions import compute_regions

    rc = compute_regions(net, max_cells=max_cells, timeout=timeout)
    return sorted({f.normal for f in breakpoint_complex(rc).visible_faces()})


def _line_cuts(net: Network, a, d) -> list:
    """The end points of the proof's partition of the line (a superset of the kinks), sorted."""
    work, cuts = [(None, None, list(d), list(a))], set()
    for l in range(1, net.depth):
        nxt = []
        for lo, hi, A, C in work:
            al = [sum((w * x for w, x in zip(row, A)), Q0) for row in net.weights(l)]
            be = [bi + sum((w * x for w, x in zip(row, C)), Q0) for row, bi in zip(net.weights(l), net.biases(l))]
            roots = sorted({-bb / aa for aa, bb in zip(al, be) if aa != 0
                            and (lo is None or -bb / aa > lo) and (hi is None or -bb / aa < hi)})
            cuts.update(roots)
            ends = [lo] + roots + [hi]
            for u, v in zip(ends, ends[1:]):
                t = Q0 if u is None and v is None else v - 1 if u is None else u + 1 if v is None else (u + v) / 2
                on = [aa * t + bb > 0 for aa, bb in zip(al, be)]
                nxt.append((u, v, [x if o else Q0 for x, o in zip(al, on)], [x if o else Q0 for x, o in zip(be, on)]))
        work = nxt
    return sorted(cuts)


def line_kinks(net: Network, a, d) -> list:
    """Exact positions ``s`` where ``s -> f(a + s d)`` is not differentiable (slopes differ)."""
    from .qq import to_q

    a, d = [to_q(v) for v in a], [to_q(v) for v in d]
    if len(a) != net.input_dim or len(d) != net.input_dim or not any(d):
        raise ShapeError("a line needs a point and a nonzero direction of the input dimension")
    f = lambda s: net.evaluate([x + s * y for x, y in zip(a, d)])  # noqa: E731
    cuts = _line_cuts(net, a, d)
    ends = [cuts[0] - 1] + cuts + [cuts[-1] + 1] if cuts else []
    vals = [f(s) for s in ends]
    slopes = [[(q - p) / (v - u) for p, q in zip(fu, fv)] for u, v, fu, fv in zip(ends, ends[1:], vals, vals[1:])]
    return [s for s, left, right in zip(cuts, slopes, slopes[1:]) if left != right]


def neurons_needed(kinks: int, hidden_layers: int | None = None) -> int:
    """Least ``N`` with ``prod (n_l + 1) >= kinks + 1`` over widths ``n_l >= 1`` summing to ``N``
    (``hidden_layers`` of them; any number when None: then ``ceil(log2(kinks + 1))``)."""
    if hidden_layers is None:
        return max(kinks, 0).bit_length()  # least N with 2^N >= kinks + 1
    N = hidden_layers
    while True:
        q, r = divmod(N, hidden_layers)
        if (q + 2) ** r * (q + 1) ** (hidden_layers - r) >= kinks + 1:
            return N
        N += 1


def _lines(n: int, count: int, seed: int):
    import random

    rng = random.Random(seed)
    for k in range(n):
        yield [fmpq(rng.randint(-20, 20), 7) for _ in range(n)], [Q1 if j == k else Q0 for j in range(n)]
    for _ in range(count):
        d = [fmpq(rng.randint(-9, 9)) for _ in range(n)]
        if any(d):
            yield [fmpq(rng.randint(-30, 30), rng.randint(1, 9)) for _ in range(n)], d


def deep_lower_bound(net: Network, lines=None, count: int = 24, seed: int = 0, max_layers: int = 6,
                     faces: bool = True) -> LowerBound:
    """Proven lower bounds on the hidden neurons of every network computing ``f`` (see the lemma).

    ``lines``: (a, d) pairs to try; default the axis lines and ``count`` seeded random lines.
    ``faces``: also use the visible faces of the exact region complex (Lemmas 2 and 3); skipped
    when the complex exceeds its limits (the kink bound alone is then reported)."""
    from .errors import ExactnetError

    best, line = [], None
    for a, d in (lines if lines is not None else _lines(net.input_dim, count, seed)):
        ks = line_kinks(net, a, d)
        if line is None or len(ks) > len(best):
            best, line = ks, (tuple(a), tuple(d))
    B = len(best)
    dirs, r = None, 0
    if faces and net.depth > 1:
        try:
            dirs = face_directions(net)
        except ExactnetError:
            dirs = None
    if dirs:
        r = _rank([list(v) for v in dirs])
    few = min(len(dirs), 3) if dirs else 0
    reasons = {"kinks": neurons_needed(B), "normal_rank": r, "directions": few}
    by = {k: max(neurons_needed(B, k), r + k - 1, few) for k in range(1, max_layers + 1)}
    return LowerBound(max(reasons.values()), by, net.num_hidden, best, line, dirs, r, reasons)
