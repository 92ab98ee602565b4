"""Benchmark of the exact region engine against two baselines run in the same process.

    python benchmarks/bench_regions.py [--quick] [--only NAME] [--skip-baselines]

Suite (fixed seeds, ``exactnet.randnet.random_network(arch, seed=0)``): ``[2,8,8,1]``,
``[2,32,32,1]``, ``[2,20,20,20,1]`` over R^2 and ``[3,16,16,16,1]``, ``[4,16,16,1]``,
``[6,12,12,1]`` in the box ``[-1,1]^n0``. ``--quick`` scales the last three down (widths 8; 6 for the 6-D one)
because the exact engine needs minutes there on a 2-core machine.

Printed per network: cells, vertices, seconds, cells per second, and the time ratios
``exact / float`` and ``fraction / exact`` where

* **float**: the same algorithm (neuron-by-neuron subdivision, split test by ``min g`` with a
  phase-2 Bland simplex started at the node's interior point, redundancy removal per layer)
  in float64 NumPy (tableau pivots as NumPy row operations, tolerance 1e-9);
* **fraction**: the same algorithm written naively with ``fractions.Fraction`` and Python lists.

The baselines run the subdivision and the per-layer and final redundancy removal only; the
exact timing also includes facet witnesses, vertices and boundedness (so the ratios are
conservative). Cells counted by the baselines are printed for comparison (the float count
can differ on degenerate inputs: that is the point of the exact engine).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from fractions import Fraction

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from exactnet.randnet import random_network  # noqa: E402
from exactnet.regions import compute_regions  # noqa: E402

SUITE = [
    ("2-8-8-1", (2, 8, 8, 1), None),
    ("2-32-32-1", (2, 32, 32, 1), None),
    ("2-20-20-20-1", (2, 20, 20, 20, 1), None),
    ("3-16-16-16-1", (3, 16, 16, 16, 1), (-1, 1)),
    ("4-16-16-1", (4, 16, 16, 1), (-1, 1)),
    ("6-12-12-1", (6, 12, 12, 1), (-1, 1)),
]
QUICK = {"3-16-16-16-1": (3, 8, 8, 8, 1), "4-16-16-1": (4, 8, 8, 1), "6-12-12-1": (6, 6, 6, 1)}


# ------------------------------------------------------------------ generic baseline engine
class Field:
    """Arithmetic used by the baseline: exact Fraction or float64 with a tolerance."""

    def __init__(self, kind: str):
        self.kind = kind
        self.eps = 1e-9 if kind == "float" else 0
        self.zero = 0.0 if kind == "float" else Fraction(0)
        self.one = 1.0 if kind == "float" else Fraction(1)

    def conv(self, q):
        f = Fraction(int(q.p), int(q.q))
        return float(f) if self.kind == "float" else f

    def pos(self, x):
        return x > self.eps

    def neg(self, x):
        return x < -self.eps


def lp_min_numpy(obj, rows, offs, x0, eps=1e-9):
    """min obj.x over rows.x + offs >= 0 from feasible x0: float64 tableau, Bland's rule."""
    A = np.asarray(rows, dtype=float).reshape(len(rows), len(x0))
    m, n = A.shape
    s0 = A @ np.asarray(x0) + np.asarray(offs)
    s0 = np.maximum(s0, 0.0)
    T = np.zeros((m, 2 * n + m + 1))
    T[:, :n] = -A
    T[:, n : 2 * n] = A
    T[:, 2 * n : 2 * n + m] = np.eye(m)
    T[:, -1] = s0
    o = np.asarray(obj, dtype=float)
    d = np.concatenate([-o, o, np.zeros(m)])
    basis = list(range(2 * n, 2 * n + m))
    for _ in range(500):
        cand = np.nonzero(d > eps)[0]
        if len(cand) == 0:
            break
        e = cand[0]
        col = T[:, e]
        ok = col > eps
        if not ok.any():
            dy = np.zeros(n)
            for var, coef in [(e, 1.0)] + [(basis[k], -col[k]) for k in range(m) if abs(col[k]) > eps]:
                if var < n:
                    dy[var] += coef
                elif var < 2 * n:
                    dy[var - n] -= coef
            return "unbounded", None, dy
        ratios = np.where(ok, T[:, -1] / np.where(ok, col, 1.0), np.inf)
        r = int(np.argmin(ratios))
        T[r] /= T[r, e]
        f = T[:, e].copy()
        f[r] = 0.0
        T -= np.outer(f, T[r])
        d = d - d[e] * T[r, :-1]
        basis[r] = e
    x = np.asarray(x0, dtype=float).copy()
    for r, b in enumerate(basis):
        if b < n:
            x[b] += T[r, -1]
        elif b < 2 * n:
            x[b - n] -= T[r, -1]
    return "optimal", x, float(o @ x)


def lp_min_fraction(obj, rows, offs, x0):
    """The same simplex, naively with Fraction and lists."""
    n, m = len(x0), len(rows)
    s0 = [sum(a * x for a, x in zip(r, x0)) + c for r, c in zip(rows, offs)]
    T = [[-a for a in r] + list(r) + [Fraction(int(j == k)) for j in range(m)] + [s0[k]] for k, r in enumerate(rows)]
    d = [-o for o in obj] + list(obj) + [Fraction(0)] * m
    basis = list(range(2 * n, 2 * n + m))
    while True:
        e = next((v for v in range(2 * n + m) if d[v] > 0), -1)
        if e < 0:
            break
        best, r = None, -1
        for k in range(m):
            if T[k][e] > 0:
                ratio = T[k][-1] / T[k][e]
                if best is None or ratio < best or (ratio == best and basis[k] < basis[r]):
                    best, r = ratio, k
        if r < 0:
            dy = [Fraction(0)] * n
            for var, coef in [(e, Fraction(1))] + [(basis[k], -T[k][e]) for k in range(m) if T[k][e]]:
                if var < n:
                    dy[var] += coef
                elif var < 2 * n:
                    dy[var - n] -= coef
            return "unbounded", None, dy
        piv = T[r][e]
        T[r] = [v / piv for v in T[r]]
        for k in range(m):
            if k != r and T[k][e] != 0:
                f = T[k][e]
                T[k] = [a - f * b for a, b in zip(T[k], T[r])]
        f = d[e]
        d = [a - f * b for a, b in zip(d, T[r][:-1])]
        basis[r] = e
    x = list(x0)
    for k, b in enumerate(basis):
        if b < n:
            x[b] += T[k][-1]
        elif b < 2 * n:
            x[b - n] -= T[k][-1]
    return "optimal", x, sum(o * v for o, v in zip(obj, x))


def baseline_regions(net, box, kind):
    F = Field(kind)
    lp = lp_min_numpy if kind == "float" else lp_min_fraction
    n = net.input_dim
    layers = [([[F.conv(w) for w in row] for row in L.weights], [F.conv(b) for b in L.biases]) for L in net.layers]
    cons = []
    if box is not None:
        lo, hi = F.one * box[0], F.one * box[1]
        for i in range(n):
            e = [F.one if j == i else F.zero for j in range(n)]
            cons.append((e, -lo))
            cons.append(([-v for v in e], hi))
        p = [(lo + hi) / 2 for _ in range(n)]
    else:
        p = [F.zero] * n
    ident = [[F.one if i == j else F.zero for j in range(n)] for i in range(n)]
    items = [(cons, p, ident, [F.zero] * n)]

    def ev(c, x):
        return sum(a * v for a, v in zip(c[0], x)) + c[1]

    def lpmin(c, cs, x):
        res = lp(c[0], [k[0] for k in cs], [k[1] for k in cs], x)
        if res[0] == "optimal":
            return res[0], res[1], res[2] + c[1]
        return res

    def prune(cs, x):
        kept = list(cs)
        k = 0
        while k < len(kept):
            others = kept[:k] + kept[k + 1 :]
            res = lpmin(kept[k], others, x) if others else ("unbounded", None, None)
            if res[0] == "optimal" and not F.neg(res[2]):
                kept.pop(k)
            else:
                k += 1
        return kept

    for li, (W, b) in enumerate(layers[:-1]):
        new = []
        for cs, x, A, c in items:
            gs = [([sum(W[i][j] * A[j][t] for j in range(len(A))) for t in range(n)], b[i] + sum(W[i][j] * c[j] for j in range(len(c)))) for i in range(len(W))]
            nodes = [(cs, x, [])]
            for g in gs:
                nxt = []
                for ncs, nx, bits in nodes:
                    if not any(F.pos(abs(a)) for a in g[0]):
                        nxt.append((ncs, nx, bits + [1 if F.pos(g[1]) else 0]))
                        continue
                    val = ev(g, nx)
                    h = g if val > 0 else ([-a for a in g[0]], -g[1])
                    res = lpmin(h, ncs, nx) if ncs else ("unbounded", None, [-a for a in h[0]])
                    if res[0] == "optimal" and not F.neg(res[2]):
                        nxt.append((ncs, nx, bits + [1 if val > 0 else 0]))
                        continue
                    neg = ([-a for a in h[0]], -h[1])
                    if res[0] == "optimal":
                        hp, hv = ev(h, nx), res[2]
                        s = (hp / (hp - hv) + 1) / 2
                        q = [(1 - s) * a + s * v for a, v in zip(nx, res[1])]
                    else:
                        dr = res[2]
                        rate = sum(a * v for a, v in zip(h[0], dr))
                        t = 2 * ev(h, nx) / (-rate)
                        q = [a + t * v for a, v in zip(nx, dr)]
                    bit = 1 if val > 0 else 0
                    nxt.append((ncs + [h], nx, bits + [bit]))
                    nxt.append((ncs + [neg], q, bits + [1 - bit]))
                nodes = nxt
            for ncs, nx, bits in nodes:
                A2 = [g[0] if bt else [F.zero] * n for g, bt in zip(gs, bits)]
                c2 = [g[1] if bt else F.zero for g, bt in zip(gs, bits)]
                new.append((prune(ncs, nx), nx, A2, c2))
        items = new
    return len(items)


# ------------------------------------------------------------------ driver
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="scale the 3-D/4-D/6-D networks down to widths 8")
    ap.add_argument("--only", help="run one network of the suite by name")
    ap.add_argument("--skip-baselines", action="store_true")
    ap.add_argument("--no-fraction", action="store_true", help="skip the (slow) Fraction baseline")
    args = ap.parse_args(argv)
    print(f"{'network':16} {'cells':>7} {'verts':>7} {'exact s':>9} {'cells/s':>9} {'float s':>9} "
          f"{'fcells':>7} {'exact/float':>11} {'frac s':>9} {'frac/exact':>10}")
    for name, arch, box in SUITE:
        if args.only and name != args.only:
            continue
        if args.quick and name in QUICK:
            arch = QUICK[name]
            name = name + "*"
        net = random_network(arch, seed=0)
        t = time.perf_counter()
        rc = compute_regions(net, box=box)
        te = time.perf_counter() - t
        cells = len(rc.cells)
        verts = len(rc.vertex_set()) if rc.has_vertices else -1  # -1: not enumerated (n0 > 4)
        tf = ff = tq = None
        if not args.skip_baselines:
            t = time.perf_counter()
            ff = baseline_regions(net, box, "float")
            tf = time.perf_counter() - t
            if not args.no_fraction:
                t = time.perf_counter()
                baseline_regions(net, box, "fraction")
                tq = time.perf_counter() - t
        fmt = lambda v, d=2: "-" if v is None else f"{v:.{d}f}"  # noqa: E731
        print(f"{name:16} {cells:7d} {verts:7d} {te:9.2f} {cells / te:9.0f} {fmt(tf):>9} {ff if ff is not None else '-':>7} "
              f"{fmt(te / tf if tf else None):>11} {fmt(tq):>9} {fmt(tq / te if tq else None):>10}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
