"""Producer for rule deep-3d (``proofs/lemmas/deep3d_identifiability.md``), architecture (3,4,3,2,1) only.

Random rational sampling only *proposes* points; every witness is kept only when the exact conditions the
checker verifies hold (Fractions; the checker's own helpers from ``proofs`` decide Lemma B bends and the
cover search), and the finished body is verified by the independent checker before it is used.
Exact slice complexes (:mod:`exactnet.regions`, :mod:`exactnet.cert_regions`) give hypothesis (A).
"""

from __future__ import annotations

from fractions import Fraction as Q
from itertools import combinations, product
from random import Random

from .deep_identifiable import _sgn
from .equivalence import _fractions
from .errors import ExactnetError
from .network import Network

__all__ = ["ARCH", "deep3d_identifiable_body", "certify_deep3d"]

ARCH = (3, 4, 3, 2, 1)


def _s(v: Q) -> str:
    return str(v)  # a Fraction prints canonically: "-3/4", "5"


def _pt(x) -> str:
    return " ".join(_s(v) for v in x)


def _cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


class _Ctx:
    def __init__(self, net: Network, seed: int):
        from proofs.check import Net

        self.net = net
        W, b = _fractions(net)  # the producer works in Fractions, like the checker whose helpers it calls
        self.N, self.W, self.b = Net.of(W, b), W, b
        self.N0 = Net.of(W, [[Q(0)] * len(c) for c in b])
        self.t = [list(w) + [c] for w, c in zip(W[0], b[0])]
        self.rng = Random(seed)

    def pre(self, x, net=None):
        from proofs.check import hidden_pre
        return hidden_pre(net or self.N, x)

    def forms(self, pat, net=None):
        from proofs.check import hidden_forms
        return [list(g) + [c] for g, c in hidden_forms(net or self.N, list(pat))]

    def rq(self, scale):
        return Q(self.rng.randint(-100 * scale, 100 * scale), self.rng.choice((10, 20, 25, 50, 100)))

    def on_planes(self, rows, scale=4, box=None):
        """A random rational point on {r . x + r[-1] = 0 for r in rows} (1 or 2 rows), or None."""
        x = [self.rq(scale) for _ in range(3)] if box is None else [
            box[0][c] + (box[1][c] - box[0][c]) * Q(self.rng.randint(1, 99), 100) for c in range(3)]
        if len(rows) == 1:
            a = rows[0]
            i = max(range(3), key=lambda c: abs(a[c]))
            if a[i] == 0:
                return None
            x[i] = -(a[3] + sum(a[c] * x[c] for c in range(3) if c != i)) / a[i]
            return x
        a, b = rows
        for i in range(3):
            c1, c2 = [c for c in range(3) if c != i]
            det = a[c1] * b[c2] - a[c2] * b[c1]
            if det:
                ra, rb = -(a[3] + a[i] * x[i]), -(b[3] + b[i] * x[i])
                x[c1], x[c2] = (ra * b[c2] - rb * a[c2]) / det, (a[c1] * rb - b[c1] * ra) / det
                return x
        return None


def _val(f, x):
    return sum(a * b for a, b in zip(f, x)) + f[-1]


def _line_points(C: _Ctx, rows, cons, n=3):
    """Up to n rational points of the line {rows = 0} where every form of cons is > 0 (a bounded stretch)."""
    d = _cross(rows[0][:3], rows[1][:3])
    if not any(d):
        return []
    x0 = C.on_planes(rows, 1)
    lo, hi = None, None
    for f in cons:
        a, c = sum(u * v for u, v in zip(f[:3], d)), _val(f, x0)
        if a == 0:
            if c <= 0:
                return []
            continue
        r = -c / a
        if a > 0:
            lo = r if lo is None or r > lo else lo
        else:
            hi = r if hi is None or r < hi else hi
    if lo is None and hi is None:
        lo, hi = Q(-5), Q(5)
    elif lo is None:
        lo = hi - 10
    elif hi is None:
        hi = lo + 10
    if lo >= hi:
        return []
    out = []
    for i in range(n):
        r = lo + (hi - lo) * Q(C.rng.randint(5, 95), 100)
        out.append([a + r * b for a, b in zip(x0, d)])
    return out


def _try_bend(C: _Ctx, x, dl, normals, neurons):
    """Lemma B tokens at x (directions perpendicular to the line dl inside the given planes), or None."""
    from proofs.check import CheckError
    from proofs.bend_points import bend as _bend

    for n, (lay, idx), sgn in product(normals, neurons, (1, -1)):
        u = [sgn * v for v in _cross(n, dl)]
        if not any(u):
            continue
        a = Q(1, 8)
        for _ in range(14):
            toks = [_s(v) for v in list(x) + u + [a, a]] + [str(lay), str(idx)]
            try:
                _bend(C.N, 0, toks)
                return " ".join(toks)
            except CheckError:
                a /= 4
    return None


def _eline(C: _Ctx, x, k, m):
    """At x with g_k = h_m = 0 only (hidden neurons 4 + k and 7 + m): (line direction, plane normals)."""
    pat = [int(v > 0) for v in C.pre(x)]
    F = C.forms(pat)
    on = pat[:4 + k] + [1] + pat[5 + k:]
    g, e0, e1 = F[4 + k][:3], F[7 + m][:3], C.forms(on)[7 + m][:3]
    dl = _cross(g, e0)
    return (dl, [g, e0, e1]) if any(dl) else (None, None)


def _plane_lines(C: _Ctx) -> list[str] | None:
    """(A): the REGIONS body of the slice of f on each H_j, parametrised as the checker does."""
    from .cert_regions import regions_certificate_body
    from .regions import compute_regions, slice_network

    out = []
    for j in range(4):
        w, bj = C.W[0][j], C.b[0][j]
        i = next(a for a in range(3) if w[a])
        p0 = [-bj / w[i] if a == i else Q(0) for a in range(3)]
        ds = [[Q(a == e) - (w[e] / w[i] if a == i else 0) for a in range(3)] for e in range(3) if e != i]
        pts = [p0] + [[p + d for p, d in zip(p0, dd)] for dd in ds]
        rc = compute_regions(slice_network(C.net, *[[_s(v) for v in p] for p in pts]))
        out += [f"plane {j} {line}" for line in regions_certificate_body(rc)]
    return out


def _orient(C: _Ctx, tries=4000) -> list[str] | None:
    from proofs.bend_points import kinked as _kinked
    from proofs.check import rank

    W1, need, out = C.W[0], set(range(1, 16)), []
    for _ in range(tries):
        x = [C.rq(10) for _ in range(3)]
        pat = [int(v > 0) for v in C.pre(x, C.N0)]
        nu = C.rng.randrange(4, 9)
        y = C.on_planes([C.forms(pat, C.N0)[nu]], 10)
        if y is None:
            continue
        pre = C.pre(y, C.N0)
        zeros = [k for k, v in enumerate(pre) if v == 0]
        p = [int(v > 0) for v in pre]
        if zeros != [nu] or not _kinked(C.N0, p, nu):
            continue
        n, got = C.forms(p, C.N0)[nu][:3], set()
        for F in need:
            S = [j for j in range(4) if (pre[j] > 0) != bool(F >> j & 1)]
            r = rank([W1[j] for j in S]) if S else 0
            if r == 0 or r == 1 and rank([n, W1[S[0]]]) == 2 or r == 2 and sum(
                    a * c for a, c in zip(n, _cross(W1[S[0]], W1[S[1]]))):
                got.add(F)
        if got:
            need -= got
            out.append("orient " + _pt(y))
        if not need:
            return out
    return None


def _cplus_box(C: _Ctx):
    """A box around the bounded part of C+ (its vertices; widened when C+ is unbounded), or None."""
    from proofs.check import eliminate

    verts = []
    for T in combinations(range(4), 3):
        A = [C.t[j][:3] for j in T]
        det = eliminate(A)[1]
        if det:
            x = [eliminate([[(-C.t[j][3] if c == col else C.t[j][c]) for c in range(3)] for j in T])[1] / det
                 for col in range(3)]
            if all(_val(r, x) >= 0 for r in C.t):
                verts.append(x)
    if not verts:
        return None
    lo, hi = [min(v[c] for v in verts) for c in range(3)], [max(v[c] for v in verts) for c in range(3)]
    pad = 0 if len(verts) == 4 and min(hi[c] - lo[c] for c in range(3)) > 0 else 10
    return [v - pad for v in lo], [v + pad for v in hi]


def _cplus_bends(C: _Ctx, box, per=3, tries=4000):
    """Bend points strictly inside C+ on the lines {g_k = 0} ∩ {h_m = 0}, at most ``per`` a line."""
    out, pts, count = [], [], {}
    allon = [1] * 4
    for it in range(tries):
        k, m, s2 = C.rng.randrange(3), C.rng.randrange(2), [C.rng.randrange(2) for _ in range(3)]
        s2[k] = 1
        if count.get((k, m, tuple(s2)), 0) >= per:
            continue
        F = C.forms(allon + s2 + [0, 0])
        cons = C.t + [F[4 + r] if s2[r] else [-v for v in F[4 + r]] for r in range(3) if r != k]
        x = next(iter(_line_points(C, [F[4 + k], F[7 + m]], cons, 1)), None)
        if x is None or x in pts:
            continue
        pre = C.pre(x)
        if min(pre[:4]) <= 0 or [i for i in range(4, 9) if pre[i] == 0] != [4 + k, 7 + m]:
            continue
        dl, normals = _eline(C, x, k, m)
        tok = dl and _try_bend(C, x, dl, normals[1:], [(3, m), (2, k)])
        if tok:
            out.append("bend " + tok)
            pts.append(x)
            count[(k, m, tuple(s2))] = count.get((k, m, tuple(s2)), 0) + 1
    return out, pts


def _jumplines(C: _Ctx, tries=1500):
    from proofs.check import hidden_pre

    out = []
    W2, W3, W4 = C.W[1], C.W[2], C.W[3][0]

    def cj(j, p):
        return sum(W4[m] * p[7 + m] * sum(W3[m][k] * p[4 + k] * W2[k][j] for k in range(3)) for m in range(2))
    for j in range(4):
        lines = []
        for _ in range(tries):
            nu = C.rng.randrange(4, 9)
            pat = [int(a != j) for a in range(4)] + [C.rng.randrange(2) for _ in range(5)]
            F = C.forms(pat)
            cons = [C.t[a] for a in range(4) if a != j] + [
                F[r] if pat[r] else [-v for v in F[r]] for r in range(4, 7) if r != nu and nu >= 7]
            y = next(iter(_line_points(C, [C.t[j], F[nu]], cons, 1)), None)
            if y is None:
                continue
            pre = hidden_pre(C.N, y)
            if pre[j] != 0 or min(pre[a] for a in range(4) if a != j) <= 0 or [
                    i for i in range(4, 9) if pre[i] == 0] != [nu]:
                continue
            p = [int(v > 0) for v in pre]
            d = _cross(C.W[0][j], C.forms(p)[nu][:3])
            lo, hi = p[:nu] + [0] + p[nu + 1:], p[:nu] + [1] + p[nu + 1:]
            if not any(d) or cj(j, lo) == cj(j, hi):
                continue
            if any(not any(_cross(d, e)) and not any(_cross(d, [a - c for a, c in zip(y, z)])) for z, e in lines):
                continue
            lines.append((y, d))
            lay, idx = (2, nu - 4) if nu < 7 else (3, nu - 7)
            out.append(f"jumpline {j} {lay} {idx} {_pt(y)}")
            if len(lines) >= 4:
                break
        if len(lines) < 3:
            return None
    return out


def _kink_pool(C: _Ctx, box, n=400):
    from proofs.bend_points import kinked as _kinked

    pool = []
    for _ in range(20 * n):
        nu = C.rng.randrange(4, 9)
        pat = [1] * 4 + [C.rng.randrange(2) for _ in range(5)]
        y = C.on_planes([C.forms(pat)[nu]], 2, box)
        if y is None:
            continue
        pre = C.pre(y)
        if min(pre[:4]) <= 0 or [i for i in range(9) if pre[i] == 0] != [nu]:
            continue
        p = [int(v > 0) for v in pre]
        if _kinked(C.N, p, nu):
            f = C.forms(p)[nu]
            piv = next(a for a in f if a)
            pool.append((y, tuple(v / piv for v in f)))
            if len(pool) >= n:
                break
    return pool


def _obstructions(C: _Ctx, P, covers, gam, box):
    from proofs.bend_points import sides as _sides

    on = lambda sp: any(all(_val(r, P[i]) == 0 for i in sp) for r in gam)  # noqa: E731
    wrong = [sp for sp in covers if not all(map(on, sp))]
    out, pool = [], _kink_pool(C, box) if wrong else []
    for span in wrong:
        for more in range(4):  # a larger pool when the cells of this cover are not yet seen with 3 planes
            groups = {}
            for y, h in pool:
                sv = _sides(P, span, y)
                if 0 not in sv:
                    groups.setdefault(sv, {}).setdefault(h, y)
            best = next((g for g in groups.values() if len(g) >= 3), None)
            if best is not None:
                break
            pool += _kink_pool(C, box, 600)
        if best is None:
            return None
        out.append("obstruct 3 " + " ".join(_pt(y) for y in list(best.values())[:3]))
    return out


def _twists(C: _Ctx, lam, tries=3000):
    out = []
    for k in range(3):
        found = None
        for _ in range(tries):
            s = [C.rng.choice((0, 1)) for _ in range(4)]
            if all(s):
                continue
            m, s2 = C.rng.randrange(2), [C.rng.randrange(2) for _ in range(3)]
            F = C.forms(s + s2 + [0, 0])
            cons = [r if s[j] else [-v for v in r] for j, r in enumerate(C.t)] + [
                F[4 + r] if s2[r] else [-v for v in F[4 + r]] for r in range(3) if r != k]
            x = next(iter(_line_points(C, [F[4 + k], F[7 + m]], cons, 1)), None)
            if x is None:
                continue
            pre = C.pre(x)
            if 0 in pre[:4] or [int(v > 0) for v in pre[:4]] != s or [i for i in range(4, 9) if pre[i] == 0] != [
                    4 + k, 7 + m]:
                continue
            dl, normals = _eline(C, x, k, m)
            if dl is None:
                continue
            g = F[4:7]
            rho = [-sum(lam[j] * C.t[j][a] for j in range(4) if not s[j]) for a in range(4)]
            scale = Q(1, 1000) / max(abs(v) for v in dl)
            X = [[a + i * scale * d for a, d in zip(x, dl)] for i in range(4)]
            if not any(_val(rho, y) for y in X) or any(_val(g[r], X[0]) * _val(rho, X[1]) == _val(g[r], X[1])
                                                       * _val(rho, X[0]) for r in range(3) if r != k):
                continue
            toks = []
            for y in X:
                pre = C.pre(y)
                tk = ([int(v > 0) for v in pre[:4]] == s and 0 not in pre[:4] and
                      _try_bend(C, y, dl, normals[1:], [(3, m), (2, k)]))
                if not tk:
                    break
                toks.append(f"twist {k} {tk}")
            if len(toks) == 4:
                found = toks
                break
        if found is None:
            return None
        out += found
    return out


def _layers(C: _Ctx, tries=6000):
    """anchor, step and jump lines (Lemmas E_R, F_R, F′_R), or None."""
    from proofs.check import rank

    W4 = C.W[3][0]
    pieces = {}  # (cell signs, layer-2 signs) -> {m: point}
    for _ in range(tries):
        s = [C.rng.randrange(2) for _ in range(7)]
        m = C.rng.randrange(2)
        y = C.on_planes([C.forms(s + [0, 0])[7 + m]], C.rng.choice((2, 8, 30)))
        if y is None:
            continue
        pre = C.pre(y)
        if 0 in pre[:7] or [int(v > 0) for v in pre[:7]] != s or pre[7 + m] != 0:
            continue
        pieces.setdefault(tuple(s), {}).setdefault(m, y)
    jumps = []
    for _ in range(tries // 2):
        s = [C.rng.randrange(2) for _ in range(4)]
        j = C.rng.randrange(3)
        y = C.on_planes([C.forms(s + [0] * 5)[4 + j]], C.rng.choice((2, 8)))
        if y is None:
            continue
        pre = C.pre(y)
        if 0 in pre[:4] + pre[7:9] or [i for i in range(4, 7) if pre[i] == 0] != [4 + j]:
            continue
        jumps.append((j, y, pre))
    for key, pm in pieces.items():
        if len(pm) < 2:
            continue
        F = C.forms(list(key) + [0, 0])
        eta, g0 = F[7:9], F[4:7]
        if not (all(any(e[:3]) for e in eta) and rank(eta) == 2 and all(W4) and rank([r[:3] for r in g0]) == 3):
            continue
        if not any(W4[0] * a + W4[1] * b for a, b in zip(eta[0][:3], eta[1][:3])):
            continue
        s0 = [1 if v else -1 for v in key[4:7]]
        lines, K, eqs = ["anchor " + _pt(pm[0]) + " " + _pt(pm[1])], set(), {}
        progress = True
        while progress and len(K) < 6:
            progress = False
            for k2, pm2 in pieces.items():
                F2 = C.forms(list(k2) + [0, 0])
                g, e = F2[4:7], F2[7:9]
                J = [k for k in range(3) if (1 if k2[4 + k] else -1) != s0[k]]
                for m, y in pm2.items():
                    if all((m, k) in K for k in J) or not any(e[m][:3]) or rank(e) != 2:
                        continue
                    ok = True
                    for r in range(2):
                        T = [g[k] for k in J if (r, k) not in K]
                        base = rank(T + [e[m]])
                        ok &= base == len(T) + 1 if r == m else rank(T + [e[m], e[r]]) == base + 1
                    if ok:
                        K |= {(m, k) for k in J}
                        lines.append(f"step {m} {_pt(y)}")
                        progress = True
            for j, y, pre in jumps:
                J = [i for i in range(3) if i != j and _sgn(pre[4 + i]) != s0[i]]
                unknown = [m for m in range(2) if (m, j) not in K]
                if not unknown or not all((m, i) in K for m in range(2) for i in J):
                    continue
                rows = eqs.get(j, []) + [[W4[m] if pre[7 + m] > 0 else Q(0) for m in range(2)]]
                old = rank([[r[m] for m in unknown] for r in eqs.get(j, [])])
                if rank([[r[m] for m in unknown] for r in rows]) > old:
                    eqs[j] = rows
                    lines.append("jump " + _pt(y))
                    progress = True
                    if rank([[r[m] for m in unknown] for r in rows]) == len(unknown):
                        K |= {(m, j) for m in unknown}
        if len(K) == 6:
            return lines
    return None


def deep3d_identifiable_body(net: Network, seed: int = 0):
    """(body lines, None) for rule deep-3d, or (None, the reason why not)."""
    from .certificate import load_checker

    load_checker()  # puts the repository's proofs/ on the path: the helpers below import from it
    from proofs.check import CheckError, eliminate, rank
    from proofs.bend_points import covers as _covers

    if tuple(net.architecture) != ARCH:
        return None, "rule deep-3d is for the architecture (3,4,3,2,1) only"
    C = _Ctx(net, seed)
    W1 = C.W[0]
    if not (all(map(any, W1)) and rank(W1) == 3 and all(rank([a, b]) == 2 for a, b in combinations(W1, 2))):
        return None, "(G0) fails: first-layer rows zero, proportional or of rank < 3"
    lam = [(-1) ** j * eliminate([W1[i] for i in range(4) if i != j])[1] for j in range(4)]
    orient = _orient(C)
    if orient is None:
        return None, "(R1): some flip set of the first layer was not refuted"
    box = _cplus_box(C)
    if box is None:
        return None, "C+ is empty"
    bends, P = _cplus_bends(C, box)
    gam = C.forms([1] * 9)[4:7]
    if not P:
        return None, "(P+): no bend points in C+"
    try:
        if _covers(3, 2, P, 0):
            return None, "(P+): two planes cover the bend points found in C+"
        covers = _covers(3, 3, P, 0)
    except CheckError as e:
        return None, f"(P+)/(L1): the cover search fails ({e})"
    jl = _jumplines(C)
    if jl is None:
        return None, "(Q): too few certified jump lines on a face of C+"
    obs = _obstructions(C, P, covers, gam, box)
    if obs is None:
        return None, "(L2): a wrong cover of the bend points was not obstructed"
    tw = _twists(C, lam)
    if tw is None:
        return None, "(L3): no twist witness found for some second-layer neuron"
    lay = _layers(C) or _layers(C, 24000)  # a second, larger sample when the first finds no plan
    if lay is None:
        return None, "(L4)-(L6): no anchor with steps and jumps pinning layer 3 was found"
    try:
        planes = _plane_lines(C)
    except ExactnetError as e:  # the slice engine's limits
        return None, f"(A): slice complexes not computed ({e})"
    return ["rule deep-3d"] + planes + orient + bends + jl + obs + tw + lay, None


def certify_deep3d(net: Network, seed: int = 0):
    """An IDENTIFIABLE certify result by rule deep-3d for a (3,4,3,2,1) network, or an UNDECIDED one (no
    claim). The search runs on ``net`` as given (not on its canonical form)."""
    from .certificate import write_certificate
    from .certify import CertifyResult

    body, why = deep3d_identifiable_body(net, seed)
    if body is None:
        return CertifyResult("UNDECIDED", None, f"deep-3d: {why}")
    return CertifyResult("IDENTIFIABLE", "IDENTIFIABLE", "architecture (3,4,3,2,1): the hypotheses of rule deep-3d "
                         "hold (proofs/lemmas/deep3d_identifiability.md)", mechanism=None,
                         certificate=write_certificate("IDENTIFIABLE", net, body), details={"rule": "deep-3d"})
