"""Global identifiability of two-hidden-layer networks: the producer of rule ``deep-2``.

The theorem is in ``proofs/lemmas/deep_identifiability.md``; the checker is ``deep_2`` in
``proofs/rule_deep2.py``. This module looks for the data its hypotheses need, all exact:

1. *bend points* ``x`` (points where the non-differentiability set of ``f`` is not a union of
   hyperplanes): where the zero set of a second-layer neuron crosses a first-layer hyperplane
   and bends, each with a segment witness (Lemma B);
2. every other way to cover the bend points by ``n1`` hyperplanes (Lemma C), each refuted by
   ``n2 + 1`` points in one open cell of that cover where ``f`` has kinks on ``n2 + 1`` distinct
   hyperplanes (Lemma D);
3. an *anchor*: one cell of the first-layer arrangement where every second-layer neuron has a
   visible, separate piece (Lemma E), and *steps*: pieces in other cells whose rank conditions
   pin every second-layer weight (Lemma F), or *jump steps* at facet points of the first-layer
   hyperplanes (Lemma F'; found on random lines, and when that does not pin everything, the
   facet classes they missed are completed by LP, :func:`_facet_points_lp`);
4. no flip sets in either layer (Lemma G).

When some piece is missing the answer is ``None`` with the reason: the network may still be
identifiable; the theorem just does not see it. The search is a heuristic (sampled points),
the certificate is not: the checker re-verifies every hypothesis.
"""

from __future__ import annotations

from itertools import combinations, product
from random import Random
from typing import Callable, Sequence

from flint import fmpq, fmpq_mat, fmpz_mat

from .network import Network
from .qq import common_denominator, q_str
from .symmetry import canonical_map

__all__ = ["DeepResult", "deep_identifiable_body", "certify_deep", "certify_in_both_frames", "moved_back",
           "anchor_and_steps"]

Vec = list  # list of fmpq
ZERO = fmpq(0)
MAX_BEND_POINTS = 14   # the cover search grows like |P|^((n0-1) n1)
COVER_NODES = 45000    # below the checker's limit of 50,000 search nodes (MAX_NODES, proofs/bend_points.py)


class DeepResult:
    """Body lines of a deep-2 certificate, or the reason why none was found."""

    def __init__(self, body: list[str] | None, reason: str, stats: dict | None = None) -> None:
        self.body, self.reason, self.stats = body, reason, stats or {}


def _dot(a: Sequence[fmpq], x: Sequence[fmpq]) -> fmpq:
    return sum((u * v for u, v in zip(a, x)), ZERO) + a[-1]


def _sgn(v: fmpq) -> int:
    return (v > 0) - (v < 0)


def _rank(rows: list[Vec]) -> int:
    return fmpq_mat([list(r) for r in rows]).rank() if rows else 0


def _norm(v: Sequence[fmpq]) -> tuple:
    a = next(x for x in v if x != 0)
    return tuple(x / a for x in v)


def _forms(net: Network, pattern: Sequence[int]) -> list[list[tuple[Vec, fmpq]]]:
    """Per layer, the pattern-P affine forms (gradient, offset) of every pre-activation."""
    n0 = net.input_dim
    cur = [([fmpq(int(i == j)) for j in range(n0)], ZERO) for i in range(n0)]
    out, pos = [], 0
    for l in range(1, net.depth + 1):
        W, b = net.weights(l), net.biases(l)
        z = []
        for row, c in zip(W, b):
            g = [sum((w * cur[j][0][k] for j, w in enumerate(row) if w != 0), ZERO) for k in range(n0)]
            z.append((g, c + sum((w * cur[j][1] for j, w in enumerate(row) if w != 0), ZERO)))
        out.append(z)
        if l < net.depth:
            cur = [zi if pattern[pos + i] else ([ZERO] * n0, ZERO) for i, zi in enumerate(z)]
            pos += len(z)
    return out


def _val(form: tuple[Vec, fmpq], x: Sequence[fmpq]) -> fmpq:
    return sum((a * v for a, v in zip(form[0], x)), ZERO) + form[1]


def _pattern(net: Network, x: Sequence[fmpq]) -> list[int]:
    return [int(v > 0) for layer in net.preactivations(x)[:-1] for v in layer]


def _maps_differ(net: Network, pattern: list[int], flat: int) -> bool:
    on = pattern[:flat] + [1] + pattern[flat + 1:]
    return _forms(net, pattern)[-1] != _forms(net, on)[-1]


def _bend_ok(net: Network, x: Vec, u: Vec, a: fmpq, b: fmpq, nu: tuple[int, int]) -> bool:
    """The Lemma B conditions, decided exactly (mirrors what the checker verifies)."""
    z = [p - a * d for p, d in zip(x, u)]
    y = [p + b * d for p, d in zip(x, u)]
    mid = [(p + r) / 2 for p, r in zip(z, x)]
    pat = _pattern(net, mid)
    F = _forms(net, pat)
    for l in range(net.depth - 1):
        for i, f in enumerate(F[l]):
            vz, vx = _val(f, z), _val(f, x)
            if (l, i) == nu:
                if vz != 0 or vx != 0:
                    return False
            elif not (vz * vx > 0 or (vz == 0) != (vx == 0)):
                return False
    if not _maps_differ(net, pat, sum(net.architecture[1:nu[0] + 1]) + nu[1]):
        return False
    F = _forms(net, _pattern(net, y))
    for l in range(net.depth - 1):
        for f in F[l]:
            vy, vx = _val(f, y), _val(f, x)
            if vy == 0 or (vx != 0 and _sgn(vx) != _sgn(vy)):
                return False
    return True


def _gamma(net: Network, s: Sequence[int], k: int) -> Vec:
    W1, b1, W2, b2 = net.weights(1), net.biases(1), net.weights(2), net.biases(2)
    v = [ZERO] * (net.input_dim + 1)
    for j, sj in enumerate(s):
        if sj > 0:
            v = [p + W2[k][j] * r for p, r in zip(v, list(W1[j]) + [b1[j]])]
    v[-1] += b2[k]
    return v


def _solve_point(rows: list[Vec], n0: int, rng: Random, tries: int = 6) -> list[Vec]:
    """Rational points on {x : r.x + r[-1] = 0 for r in rows}; extra random constraints pin one."""
    out = []
    for _ in range(tries):
        extra = [[fmpq(rng.randint(-5, 5)) for _ in range(n0)] + [fmpq(rng.randint(-9, 9), rng.randint(1, 4))]
                 for _ in range(n0 - len(rows))]
        A = fmpq_mat([list(r[:-1]) for r in rows + extra])
        if A.rank() < n0:
            continue
        sol = A.solve(fmpq_mat([[-r[-1]] for r in rows + extra]))
        p = [sol[i, 0] for i in range(n0)]
        if p not in out:
            out.append(p)
        if len(rows) == n0:
            break
    return out


def _perp(g: Vec, w: Vec) -> Vec | None:
    """A vector orthogonal to g with nonzero component along w (w projected away from g)."""
    gg = sum((x * x for x in g), ZERO)
    c = sum((x * y for x, y in zip(g, w)), ZERO) / gg
    u = [y - c * x for x, y in zip(g, w)]
    return u if any(v != 0 for v in u) else None


def _bends(net: Network, rng: Random) -> list[tuple[Vec, Vec, fmpq, fmpq, tuple[int, int]]]:
    """Crossings of second-layer zero sets with first-layer hyperplanes where they bend."""
    n0, n1, n2 = net.architecture[:3]
    W1, b1 = net.weights(1), net.biases(1)
    t = [list(W1[j]) + [b1[j]] for j in range(n1)]
    out = []
    for j, k in product(range(n1), range(n2)):
        for rest in product((1, -1), repeat=n1 - 1):
            for sj in (1, -1):
                s = list(rest[:j]) + [sj] + list(rest[j:])
                g = _gamma(net, s, k)
                if _rank([t[j], g]) < 2 or not any(v != 0 for v in g[:-1]):
                    continue
                other = list(s)
                other[j] = -sj
                if net.weights(2)[k][j] == 0 or _rank([t[j], _gamma(net, other, k)]) < 2:
                    continue  # no bend across H_j, or the far side's zero set is H_j itself
                for x in _solve_point([t[j], g], n0, rng, tries=n0 - 1):
                    if any(i != j and _sgn(_dot(t[i], x)) != s[i] for i in range(n1)):
                        continue
                    u = _perp(g[:-1], t[j][:-1])
                    if u is None:
                        continue
                    if _sgn(sum((p * q for p, q in zip(t[j][:-1], u)), ZERO)) == sj:
                        u = [-v for v in u]
                    a = fmpq(1)
                    for _ in range(40):
                        if _bend_ok(net, x, u, a, a, (1, k)):
                            out.append((x, u, a, a, (2, k)))
                            break
                        a /= 2
    return out


def _spread(bends: list, t: list[Vec]) -> list:
    """The bends reordered so that the first ones spread over the hyperplanes and their bend lines.

    Only :data:`MAX_BEND_POINTS` points enter the cover search, and a hyperplane whose points all
    lie on one bend line (or that got no point) is a free hyperplane of some cover. So take one
    point per hyperplane in turn, and within a hyperplane one point per bend line (the crossing
    of one second-layer neuron's piece in one cell) in turn, before second points of a line.
    """
    lines: dict[int, dict[tuple, list]] = {}
    for bend in bends:
        x, (_, k) = bend[0], bend[4]
        side = tuple(_sgn(_dot(r, x)) for r in t)
        j = side.index(0)
        lines.setdefault(j, {}).setdefault((k, side), []).append(bend)
    per_plane = []
    for j in sorted(lines):
        queues = list(lines[j].values())
        order = [q[i] for i in range(max(map(len, queues))) for q in queues if i < len(q)]
        per_plane.append(order)
    if not per_plane:
        return []
    return [o[i] for i in range(max(map(len, per_plane))) for o in per_plane if i < len(o)]


def _flats(P: list[Vec]) -> dict[int, set]:
    n0 = len(P[0])
    res = {}
    for i, p in enumerate(P):
        opts = set()
        others = [j for j in range(len(P)) if j != i]
        for k in range(n0):
            for T in combinations(others, k):
                base = [[r - s for r, s in zip(P[j], p)] for j in T]
                if _rank(base) != len(base):
                    continue
                content = frozenset(m for m, o in enumerate(P)
                                    if _rank(base + [[r - s for r, s in zip(o, p)]]) == len(base))
                opts.add((content, k == n0 - 1))
        res[i] = opts
    return res


def _covers(P: list[Vec], n1: int, fit: Callable[[frozenset, int], bool] | None = None) -> list[tuple] | None:
    """Covers of P by exactly n1 spanned hyperplanes; None if a cover with a free flat exists.

    ``fit(left, k)``: False only when ``k`` flats cannot cover the points ``left`` (Lemma C, pruning);
    by default the ``k`` flats meeting most of them. Another bound changes no outcome, only the work."""
    flats = _flats(P)
    found: list[tuple] = []
    nodes = [0]
    contents = {c for opts in flats.values() for c, _ in opts}

    def sharpest(left: frozenset, k: int) -> bool:
        return sum(sorted((len(c & left) for c in contents), reverse=True)[:k]) >= len(left)

    fit = fit or sharpest

    def can(left: frozenset, k: int) -> bool:
        nodes[0] += 1
        return not left or (k > 0 and fit(left, k) and any(can(left - c, k - 1) for c, _ in flats[min(left)]))

    def go(left: frozenset, chosen: list) -> bool:
        nodes[0] += 1
        if nodes[0] > COVER_NODES:
            raise _TooBig
        if not left:
            if len(chosen) < n1:
                return False
            found.append(tuple(chosen))
            return True
        if len(chosen) == n1 or not fit(left, n1 - len(chosen)):
            return True  # no cover completes from here: nothing found, nothing refuted
        for content, hyper in flats[min(left)]:
            if not hyper:
                if can(left - content, n1 - len(chosen) - 1):
                    return False
                continue
            if not go(left - content, chosen + [content]):
                return False
        return True

    return found if go(frozenset(range(len(P))), []) else None


class _TooBig(Exception):
    pass


def _hyperplane(P: list[Vec], content: frozenset) -> tuple:
    """The normalised ``(a, c)``, ``a.x + c = 0``, of the hyperplane spanned by the points of content."""
    rows = [list(P[i]) + [fmpq(1)] for i in sorted(content)]
    den = common_denominator(v for r in rows for v in r)
    N, _ = fmpz_mat([[int(v * den) for v in r] for r in rows]).nullspace()
    return _norm([fmpq(N[i, 0]) for i in range(N.nrows())])


def _patch_points(net: Network, rng: Random, per: int = 12) -> list[tuple[Vec, tuple]]:
    """Points of V(f) with exactly one vanishing neuron, with their local hyperplane."""
    n0, n1, n2 = net.architecture[:3]
    W1, b1 = net.weights(1), net.biases(1)
    t = [list(W1[j]) + [b1[j]] for j in range(n1)]
    tasks = []
    for sv in product((1, -1), repeat=n1):
        for k in range(n2):
            g = _gamma(net, sv, k)
            if any(v != 0 for v in g[:-1]):
                tasks.append((g, t, sv))
    for j in range(n1):
        rest = t[:j] + t[j + 1:]
        for sv in product((1, -1), repeat=n1 - 1):
            tasks.append((t[j], rest, sv))
    out, seen = [], set()
    for h, rows, sv in tasks:
        for x in _piece_points(net, h, rows, sv, rng, lines=max(2, per // 6)):
            if tuple(x) in seen:
                continue
            seen.add(tuple(x))
            pre = net.preactivations(x)
            zeros = [(l, i) for l, z in enumerate(pre[:-1]) for i, v in enumerate(z) if v == 0]
            if len(zeros) != 1:
                continue
            (l, i), = zeros
            pat = _pattern(net, x)
            if not _maps_differ(net, pat, sum(net.architecture[1:l + 1]) + i):
                continue
            g, c = _forms(net, pat)[l][i]
            out.append((x, _norm(list(g) + [c])))
    return out


def _line_interval(t: list[Vec], s: Sequence[int], x0: Vec, d: Vec) -> list[fmpq] | None:
    """Parameters lam (a few) with sign(t_i(x0 + lam d)) = s_i for all i, or None."""
    lo, hi = None, None
    for r, si in zip(t, s):
        a, c = sum((u * v for u, v in zip(r[:-1], d)), ZERO), _dot(r, x0)
        if a == 0:
            if _sgn(c) != si:
                return None
            continue
        bound = -c / a  # t_i = a (lam - bound); sign s_i needs lam > bound iff a s_i > 0
        if a * si > 0:
            lo = bound if lo is None else max(lo, bound)
        else:
            hi = bound if hi is None else min(hi, bound)
    if lo is not None and hi is not None:
        return [(lo + hi) / 2, (3 * lo + hi) / 4, (lo + 3 * hi) / 4] if lo < hi else None
    if lo is None and hi is None:
        return [fmpq(0), fmpq(1), fmpq(-1)]
    e = lo if hi is None else hi
    sgn = 1 if hi is None else -1
    return [e + sgn * fmpq(1, 2), e + sgn * 1, e + sgn * 3]


def _piece_points(net: Network, h: Vec, t: list[Vec], s: Sequence[int], rng: Random, lines: int = 3) -> list[Vec]:
    """Points on the hyperplane h inside the open cell with first-layer signs s (exact)."""
    n0 = net.input_dim
    base = _solve_point([h], n0, rng, tries=1)
    if not base:
        return []
    out = []
    for _ in range(lines):
        d = _perp(h[:-1], [fmpq(rng.randint(-7, 7), rng.randint(1, 3)) for _ in range(n0)])
        if d is None:
            continue
        lam = _line_interval(t, s, base[0], d)
        for la in lam or []:
            out.append([p + la * v for p, v in zip(base[0], d)])
    if not out:
        x = _lp_piece_point(h, t, s)
        if x is not None:
            out.append(x)
    return out


def _lp_piece_point(h: Vec, t: list[Vec], s: Sequence[int]) -> Vec | None:
    """A point of ``{h = 0}`` strictly inside the cell with signs ``s``: a float LP proposes, exact signs decide.

    Random lines in the hyperplane often miss a thin piece; the LP maximises the smallest signed
    slack ``s_i t_i(x)`` on the hyperplane (in a box), its answer is rounded to a dyadic point,
    moved exactly onto the hyperplane, and kept only when every sign holds exactly.
    """
    import numpy as np
    from .lp import linprog_quiet as linprog

    n0 = len(h) - 1
    if not t:
        return None
    A_ub = [[-si * float(v) for v in r[:-1]] + [1.0] for r, si in zip(t, s)]
    b_ub = [si * float(r[-1]) for r, si in zip(t, s)]
    res = linprog([0.0] * n0 + [-1.0], A_ub=A_ub, b_ub=b_ub,
                  A_eq=[[float(v) for v in h[:-1]] + [0.0]], b_eq=[-float(h[-1])],
                  bounds=[(-1e4, 1e4)] * n0 + [(None, 1.0)], method="highs")
    if res.status != 0 or not np.isfinite(res.x).all() or res.x[-1] <= 1e-12:
        return None
    x = [fmpq(round(v * (1 << 30)), 1 << 30) for v in res.x[:n0]]
    hw = h[:-1]
    c = _dot(h, x) / sum((v * v for v in hw), ZERO)
    x = [xi - c * wi for xi, wi in zip(x, hw)]
    return x if all(_sgn(_dot(r, x)) == si for r, si in zip(t, s)) else None


def _obstruction(cands: list[tuple[Vec, tuple]], hs: list[tuple], n2: int, crossing: bool = False) -> list[Vec] | None:
    """``n2 + 1`` of the kink points ``(y, local line)`` in one open cell of the hyperplanes ``hs``
    with pairwise distinct local lines (``crossing``: and not all of them parallel; rule deep-n), or None."""
    cells: dict[tuple, dict] = {}
    for x, h in cands:
        key = tuple(_sgn(_dot(hh, x)) for hh in hs)
        if 0 in key:
            continue
        cells.setdefault(key, {}).setdefault(h, x)
    for pts in cells.values():
        if len(pts) > n2 and (not crossing or _rank([list(h[:-1]) for h in pts]) >= 2):
            return list(pts.values())[:n2 + 1]
    return None


def _facet_class(net: Network, y: Vec) -> tuple | None:
    """``(j, signs of the other first-layer neurons, active second-layer set)`` of a point ``y`` on
    exactly one first-layer hyperplane ``H_j`` and off every second-layer zero set; else None."""
    z = net.preactivations(y)
    if any(v == 0 for v in z[1]) or sum(v == 0 for v in z[0]) != 1:
        return None
    j = next(i for i, v in enumerate(z[0]) if v == 0)
    return j, tuple(_sgn(v) for i, v in enumerate(z[0]) if i != j), tuple(int(v > 0) for v in z[1])


def _facet_points(net: Network, t: list[Vec], rng: Random) -> list[tuple[int, Vec, tuple]]:
    """Points ``y`` on one first-layer hyperplane ``H_j`` only, off every second-layer zero set.

    Returned as ``(j, y, K_y)`` with ``K_y`` the second-layer neurons active at ``y``; one point per
    distinct ``(j, side of the other hyperplanes, K_y)``.
    """
    n1 = len(t)
    out, seen = [], set()
    for j in range(n1):
        rest = t[:j] + t[j + 1:]
        for sv in product((1, -1), repeat=n1 - 1):
            for y in _piece_points(net, t[j], rest, sv, rng, lines=3):
                key = _facet_class(net, y)
                if key is not None and key not in seen:
                    seen.add(key)
                    out.append((j, y, key[2]))
    return out


#: Facet classes ``(j, other first-layer signs, active second-layer set)`` completed by LP at most.
FACET_LP_LIMIT = 1024


def _facet_points_lp(net: Network, t: list[Vec], have: list) -> list[tuple[int, Vec, tuple]]:
    """Facet points (as :func:`_facet_points`) of the classes that its random lines missed.

    For each first-layer hyperplane ``H_j``, each sign vector of the other first-layer neurons and
    each set ``K`` of active second-layer neurons not in ``have``, a float LP
    (:func:`_lp_piece_point`) proposes a point of ``H_j`` with those signs strictly; it is kept only
    when its exact pre-activations put it on ``H_j`` alone and off every second-layer zero set (its
    class is then read from them). Nothing when there are more than :data:`FACET_LP_LIMIT` classes.
    """
    n1, n2 = len(t), net.architecture[2]
    if n1 * 2 ** (n1 - 1) * 2 ** n2 > FACET_LP_LIMIT:
        return []
    seen = {_facet_class(net, y) for _, y, _ in have}
    out = []
    for j in range(n1):
        rest = t[:j] + t[j + 1:]
        for sv in product((1, -1), repeat=n1 - 1):
            g = [_gamma(net, list(sv[:j]) + [1] + list(sv[j:]), k) for k in range(n2)]  # t_j = 0 on H_j
            for act in product((0, 1), repeat=n2):
                if (j, sv, act) in seen:
                    continue
                y = _lp_piece_point(t[j], rest + g, list(sv) + [1 if a else -1 for a in act])
                key = None if y is None else _facet_class(net, y)
                if key is not None and key not in seen:
                    seen.add(key)
                    out.append((j, y, key[2]))
    return out


def _jump_steps(net: Network, t: list[Vec], s0: tuple, facets: list, known: list[list[bool]],
                equations: dict[int, list[list]], steps: list[str]) -> bool:
    """Lemma F': jump equations ``sum_(k in K_y) W3[:,k] beta_(k,j) = 0`` at facet points ``y`` of ``H_j``.

    A point counts when it lies on the anchor side's facet of a cell ``C`` whose own flipped
    hyperplanes ``J(C)`` are all pinned for every neuron; a column ``j`` is pinned when its equations
    have full rank in the unknown ``beta_(k,j)``.
    """
    W3 = net.weights(3)
    m, n2 = len(W3), len(known)
    progress = False
    for j, y, act in facets:
        if all(known[k][j] for k in range(n2)) or _sgn(_dot(t[j], y)) != 0:
            continue
        side = [_sgn(_dot(r, y)) for r in t]
        J = [i for i in range(len(t)) if i != j and side[i] != s0[i]]
        if not all(known[k][i] for k in range(n2) for i in J):
            continue
        rows = [[W3[o][k] if act[k] else ZERO for k in range(n2)] for o in range(m)]
        eq = equations.setdefault(j, [])
        unknown = [k for k in range(n2) if not known[k][j]]
        before = _rank([[r[k] for k in unknown] for r in eq]) if eq else 0
        if _rank([[r[k] for k in unknown] for r in eq + rows]) == before:
            continue  # adds no equation on the unknown weights
        eq += rows
        steps.append(f"jump {_pt(y)}")
        if _rank([[r[k] for k in unknown] for r in eq]) == len(unknown):
            for k in unknown:
                known[k][j] = True
            progress = True
    return progress


def _zero_subset(vecs: list[Vec]) -> bool:
    from .shallow import find_flip_set

    return find_flip_set(vecs, range(len(vecs))) is not None


def _pt(x: Sequence[fmpq]) -> str:
    return " ".join(q_str(v) for v in x)


def deep_identifiable_body(net: Network, seed: int = 0) -> DeepResult:
    """Try to build the body of an IDENTIFIABLE certificate with rule deep-2."""
    if net.depth != 3 or net.input_dim < 2:
        return DeepResult(None, "rule deep-2 needs two hidden layers and input width >= 2")
    n0, n1, n2, m = net.architecture
    if n1 > 8 or n2 > 12:
        return DeepResult(None, "rule deep-2 is limited to first-layer width 8 and second-layer width 12")
    rng = Random(seed)
    W1, b1, W2, W3 = net.weights(1), net.biases(1), net.weights(2), net.weights(3)
    t = [list(W1[j]) + [b1[j]] for j in range(n1)]
    if any(all(v == 0 for v in W1[j]) for j in range(n1)) or \
            any(_rank([t[i], t[j]]) < 2 for i, j in combinations(range(n1), 2)):
        return DeepResult(None, "first layer has a zero row or two neurons on one hyperplane")
    uT = [[W3[o][k] * W2[k][j] for o in range(m) for j in range(n1)] for k in range(n2)]
    uS = [[W2[k][j] * W1[j][i] for k in range(n2) for i in range(n0)] for j in range(n1)]
    if _zero_subset(uT) or _zero_subset(uS):
        return DeepResult(None, "a flip set exists in one of the layers")
    bends = _spread(_bends(net, rng), t)
    P: list[Vec] = []
    kept = []
    for bend in bends:
        if bend[0] not in P and len(P) < MAX_BEND_POINTS:
            P.append(bend[0])
        if bend[0] in P:
            kept.append(bend)
    bends = kept
    if not P:
        return DeepResult(None, "no bend points found")
    try:
        covers = _covers(P, n1)
    except _TooBig:
        return DeepResult(None, f"the cover search over {len(P)} bend points is too large")
    if covers is None:
        return DeepResult(None, f"the {len(P)} bend points admit a cover with a free hyperplane")
    own = {_norm(r) for r in t}
    pool = _patch_points(net, rng)
    body = ["rule deep-2"]
    body += [f"bend {_pt(x)} {_pt(u)} {q_str(a)} {q_str(b)} {l} {i}" for x, u, a, b, (l, i) in bends]
    obstruct: list[list[Vec]] = []
    for cover in covers:
        hs = [_hyperplane(P, c) for c in cover]
        if set(hs) == own:
            continue
        pts = _obstruction(pool, hs, n2)
        if pts is None:
            return DeepResult(None, "another cover of the bend points could not be refuted",
                              {"bends": len(P), "covers": len(covers)})
        obstruct.append(pts)
    body += [f"obstruct {len(p)} " + " ".join(_pt(x) for x in p) for p in obstruct]
    if not any(any(W3[o][k] != 0 for o in range(m)) for k in range(n2)):
        return DeepResult(None, "zero output weights")
    stats = {"bends": len(P), "covers": len(covers)}
    lines = anchor_and_steps(net, t, rng, pool)
    if lines is None:
        return DeepResult(None, "no anchor cell and steps pin the second layer", stats)
    return DeepResult(body + lines, "rule deep-2 applies", {**stats, "steps": len(lines) - 1})


def anchor_and_steps(net: Network, t: list[Vec], rng: Random, pool: list[tuple[Vec, tuple]],
                     keep: Callable[[Vec], bool] | None = None) -> list[str] | None:
    """The ``anchor`` and ``step`` / ``jump`` lines of Lemmas E, F, F' for the two-hidden-layer
    ``net`` (``t``: its first-layer forms), or None. ``pool``: points of ``V(f)`` with one vanishing
    neuron (:func:`_patch_points`). ``keep``: when given, only points where it holds are used
    (rule deep-3 runs these lemmas on one open cell of a deeper network)."""
    n1, n2, m = len(t), net.architecture[2], net.architecture[3]
    W3 = net.weights(3)
    if keep is not None:
        pool = [(x, h) for x, h in pool if keep(x)]
    cells: dict[tuple, dict[int, Vec]] = {}
    for x, h in pool:
        s = tuple(_sgn(_dot(r, x)) for r in t)
        if 0 in s:
            continue
        for k in range(n2):
            g = _gamma(net, s, k)
            if _dot(g, x) == 0 and any(v != 0 for v in g[:-1]):
                cells.setdefault(s, {}).setdefault(k, x)
    if not any(any(W3[o][k] != 0 for o in range(m)) for k in range(n2)):
        return None

    def distinct(s: tuple, k: int) -> bool:
        g = [_gamma(net, s, mm) for mm in range(n2)]
        return any(v != 0 for v in g[k][:-1]) and all(mm == k or _rank([g[k], g[mm]]) == 2 for mm in range(n2))

    def pin(facets: list) -> list[str] | None:
        """An anchor and steps that pin every second-layer weight, with the facet points ``facets``."""
        for s0, pts in cells.items():
            if len(pts) < n2 or not all(distinct(s0, k) for k in range(n2)):
                continue
            known = [[False] * n1 for _ in range(n2)]
            steps = []
            grads = [[W3[o][k] * v for o in range(m) for v in _gamma(net, s0, k)[:-1]] for k in range(n2)]
            jumps_ok = not _zero_subset(grads)  # (H2'): every eps_k = +1, needed by the jump steps
            equations: dict[int, list[list]] = {}
            progress = True
            while progress and not all(map(all, known)):
                progress = False
                for s, kp in cells.items():
                    if s == s0:
                        continue
                    J = [j for j in range(n1) if s[j] != s0[j]]
                    g = [_gamma(net, s, mm) for mm in range(n2)]
                    for k, z in kp.items():
                        if all(known[k][j] for j in J) or not distinct(s, k):
                            continue
                        ok = True
                        for mm in range(n2):
                            T = [t[j] for j in J if not known[mm][j]]
                            base = _rank(T + [g[k]])
                            if (mm == k and base != len(T) + 1) or \
                                    (mm != k and _rank(T + [g[k], g[mm]]) != base + 1):
                                ok = False
                                break
                        if ok:
                            for j in J:
                                known[k][j] = True
                            steps.append(f"step {k} {_pt(z)}")
                            progress = True
                if not progress and jumps_ok:
                    progress = _jump_steps(net, t, s0, facets, known, equations, steps)
            if all(map(all, known)):
                return ["anchor " + " ".join(_pt(pts[k]) for k in range(n2))] + steps
        return None

    if all(any(W3[o][k] != 0 for o in range(m)) for k in range(n2)):  # an anchor needs them (Lemma E)
        facets = [f for f in _facet_points(net, t, rng) if keep is None or keep(f[1])]
        res = pin(facets)
        if res is None:  # the random lines can miss a facet piece: complete them by LP, try once more
            more = [f for f in _facet_points_lp(net, t, facets) if keep is None or keep(f[1])]
            res = pin(facets + more) if more else None
        return res
    return None


def moved_back(body: list[str], maps) -> list[str]:
    """A deep-2, deep-3 or deep-n body built for ``g.theta`` rewritten for ``theta`` (``maps``:
    :func:`orbit_map`'s ``(perm, scales)`` per hidden layer, neuron ``j`` of ``g.theta`` being neuron
    ``perm[j]`` of ``theta``, scaled). Points are inputs, which ``g`` does not move; every hypothesis
    of the rules is about zero sets, signs and ranks, which positive scalings keep; so only neuron
    indices change: ``bend .. LAYER INDEX``, ``step K ..`` and the order of the ``anchor`` points
    (point ``k`` lies on neuron ``k``'s zero set), both about the last hidden layer."""
    perms = [m[0] for m in maps]
    p2 = perms[-1]
    out = []
    for line in body:
        w = line.split()
        if w[0] == "bend":
            w[-1] = str(perms[int(w[-2]) - 1][int(w[-1])])
        elif w[0] == "step":
            w[1] = str(p2[int(w[1])])
        elif w[0] == "anchor":
            n0 = (len(w) - 1) // len(p2)
            pts = [w[1 + k * n0:1 + (k + 1) * n0] for k in range(len(p2))]
            moved: list[list[str]] = [[] for _ in p2]
            for k, pt in enumerate(pts):
                moved[p2[k]] = pt
            w = ["anchor"] + [v for pt in moved for v in pt]
        out.append(" ".join(w))
    return out


def certify_deep(net: Network, seed: int = 0):
    """An IDENTIFIABLE certify result for two hidden layers, or an UNDECIDED one (no claim).

    The search runs first on the canonical form of ``net``, the same for every member of an orbit,
    with its body moved back to ``net``'s neuron indices (:func:`moved_back`), then, when that
    finds nothing, on ``net`` as given. The search depends on the coordinates, so each alone
    misses networks the other certifies (on the review's networks and the survey samples); with
    both, every member of an orbit whose canonical form is certified gets IDENTIFIABLE, and no
    network loses the answer it had. The certificate is about ``net`` and the checker verifies
    it on ``net``."""
    return certify_in_both_frames(
        net, deep_identifiable_body, moved_back, "deep-2",
        "two hidden layers: the hypotheses of rule deep-2 hold (proofs/lemmas/deep_identifiability.md)", seed)


def certify_in_both_frames(net: Network, search: Callable[[Network, int], DeepResult],
                           move_back: Callable[[list[str], list], list[str]], rule: str, claim: str, seed: int = 0):
    """The certify result of a rule's ``search`` (a body or the reason why not): run on the canonical
    form of ``net`` first, its body moved back to ``net``'s indices by ``move_back``, then on ``net``
    as given (rules deep-2 and deep-3). IDENTIFIABLE with ``claim`` as the reason, else UNDECIDED."""
    from .certificate import write_certificate
    from .certify import CertifyResult

    cm = canonical_map(net)
    res, body = None, None
    if cm is not None and cm[0] != net:  # (an already canonical net is searched once, below)
        res = search(cm[0], seed)
        body = None if res.body is None else move_back(res.body, cm[1])
    if body is None:
        res = search(net, seed)
        body = res.body
    if body is None:
        return CertifyResult("UNDECIDED", None, f"{rule}: {res.reason}")
    return CertifyResult("IDENTIFIABLE", "IDENTIFIABLE", claim, mechanism=None,
                         certificate=write_certificate("IDENTIFIABLE", net, body),
                         details={"rule": rule, **res.stats})
