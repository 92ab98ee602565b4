"""IDENTIFIABLE rule ``deep-2``: two hidden layers (proofs/lemmas/deep_identifiability.md).

Body after ``rule deep-2``, in this order: ``bend`` lines (points of E(f), Lemma B), ``obstruct``
lines (Lemma D), one ``anchor`` line and ``step`` lines (Lemmas E, F); Lemma G is checked on the
weights. Spec: proofs/spec-1.0-identifiable-deep-2.md. Standard library only.
"""

from fractions import Fraction
from itertools import combinations

from proofs import check as fw

__all__ = ["MAX_NODES", "deep_2"]

MAX_NODES = 50000
Z = Fraction(0)


def _dot(a, x):
    return sum((u * v for u, v in zip(a, x)), Z) + a[-1]


def _sgn(v):
    return (v > 0) - (v < 0)


def _rank(rows):
    return fw.eliminate(rows)[0] if rows else 0


def _det(rows):
    return fw.eliminate(rows)[1]


class _Rule:
    def __init__(self, fw, cert, ln0):
        self.fw, self.net, self.ln0 = fw, cert.network, ln0
        self.n0, self.n1, self.n2 = self.net.arch[:3]

    def reject(self, code, ln, msg):
        raise self.fw.Reject(code, ln, msg)

    def nums(self, ln, toks, n):
        if len(toks) != n:
            raise self.fw.Malformed("E_SYNTAX", ln, f"expected {n} numbers, got {len(toks)}")
        return [self.fw.q(t, ln) for t in toks]

    def points(self, ln, toks, k):
        v = self.nums(ln, toks, k * self.n0)
        return [v[i * self.n0:(i + 1) * self.n0] for i in range(k)]

    def hidden(self, pattern, x):
        """Pattern-P forms of the hidden pre-activations evaluated at x (one list per layer)."""
        return [[_dot(list(g) + [c], x) for g, c in layer] for layer in self.fw.local_affine(self.net, pattern)[:-1]]

    def pattern(self, x):
        return [int(v > 0) for z in self.fw.forward(self.net, x)[0][:-1] for v in z]

    def kink(self, pat, l, i, code, ln):
        """Lemma B (i): the output maps with neuron (l, i) inactive / active differ."""
        flat = sum(self.net.arch[1:l + 1]) + i
        on = pat[:flat] + [1] + pat[flat + 1:]
        if self.fw.local_affine(self.net, pat)[-1] == self.fw.local_affine(self.net, on)[-1]:
            self.reject(code, ln, f"f is differentiable where neuron ({l + 1},{i}) vanishes")

    def bend(self, ln, t):
        """Lemma B: returns x, a point of E(f)."""
        n0 = self.n0
        if len(t) != 2 * n0 + 4:
            raise self.fw.Malformed("E_SYNTAX", ln, "bend X U A B LAYER INDEX")
        v = self.nums(ln, t[:2 * n0 + 2], 2 * n0 + 2)
        x, u, a, b = v[:n0], v[n0:2 * n0], v[2 * n0], v[2 * n0 + 1]
        lay, idx = self.fw.ints(t[2 * n0 + 2:], ln)
        if not 1 <= lay < self.net.depth or idx >= self.net.arch[lay] or a <= 0 or b <= 0 or not any(u):
            self.reject("E_BEND", ln, "need A, B > 0, U != 0 and a hidden neuron")
        z, y = [p - a * d for p, d in zip(x, u)], [p + b * d for p, d in zip(x, u)]
        pat = self.pattern([(p + r) / 2 for p, r in zip(z, x)])
        for l, (lz, lx) in enumerate(zip(self.hidden(pat, z), self.hidden(pat, x))):
            for i, (vz, vx) in enumerate(zip(lz, lx)):
                ok = vz == vx == 0 if (l, i) == (lay - 1, idx) else vz * vx > 0 or (vz == 0) != (vx == 0)
                if not ok:
                    self.reject("E_BEND", ln, f"neuron ({l + 1},{i}) breaks the condition on (z, x)")
        self.kink(pat, lay - 1, idx, "E_BEND", ln)
        pat = self.pattern(y)
        for l, (lx, ly) in enumerate(zip(self.hidden(pat, x), self.hidden(pat, y))):
            if any(vy == 0 or (vx != 0 and _sgn(vx) != _sgn(vy)) for vx, vy in zip(lx, ly)):
                self.reject("E_BEND", ln, f"a neuron of layer {l + 1} vanishes on (x, y]")
        return x

    def covers(self, P):
        """Lemma C: the tight covers, as lists of spanning point tuples (E_COVER when one is free)."""
        flats, found, nodes, n0, n1 = {}, [], [0], self.n0, self.n1
        for i, p in enumerate(P):
            opts = {}
            for k in range(n0):
                for T in combinations([j for j in range(len(P)) if j != i], k):
                    base = [[r - s for r, s in zip(P[j], p)] for j in T]
                    if _rank(base) == k:
                        c = frozenset(m for m, o in enumerate(P) if _rank(base + [[r - s for r, s in zip(o, p)]]) == k)
                        opts.setdefault(c, (k == n0 - 1, (i,) + T))
            flats[i] = opts

        def can(left, k):
            nodes[0] += 1
            return not left or k > 0 and any(can(left - c, k - 1) for c in flats[min(left)])

        def go(left, chosen):
            nodes[0] += 1
            if nodes[0] > MAX_NODES:
                self.reject("E_LIMIT", self.ln0, f"cover search limited to {MAX_NODES} nodes")
            if not left and len(chosen) < n1:
                self.reject("E_COVER", self.ln0, "the bend points have a cover with fewer hyperplanes")
            if not left or len(chosen) == n1:
                found.extend([] if left else [chosen])
                return
            for c, (hyper, span) in flats[min(left)].items():
                if hyper:
                    go(left - c, chosen + [span])
                elif can(left - c, n1 - len(chosen) - 1):
                    self.reject("E_COVER", self.ln0, "the bend points have a cover with a free hyperplane")

        go(frozenset(range(len(P))), [])
        return found

    def gammas(self, x):
        """The sign vector s of x's first-layer cell and gamma_(C,k) for every k (Lemma E)."""
        net = self.net
        s = [_sgn(_dot(list(w) + [c], x)) for w, c in zip(net.W[0], net.b[0])]
        g = []
        for k in range(self.n2):
            v = [Z] * self.n0 + [net.b[1][k]]
            for j in (j for j in range(self.n1) if s[j] > 0):
                v = [a + net.W[1][k][j] * r for a, r in zip(v, list(net.W[0][j]) + [net.b[0][j]])]
            g.append(v)
        return s, g

    def piece(self, ln, code, k, z):
        """z strictly inside a cell, on a separate non-constant piece of neuron k there."""
        s, g = self.gammas(z)
        if 0 in s or k >= self.n2 or _dot(g[k], z) != 0 or not any(g[k][:-1]) or \
                any(r != k and _rank([g[k], g[r]]) < 2 for r in range(self.n2)):
            self.reject(code, ln, f"not on a separate visible piece of second-layer neuron {k} in an open cell")
        return s, g


def deep_2(cert, fw, body):
    from proofs.kind_identifiable import MAX_EXHAUSTIVE, _zero_sum_subset  # noqa: PLC0415

    net, ln0 = cert.network, body[0][0]
    if net.depth != 3 or net.arch[0] < 2:
        raise fw.Reject("E_DEPTH", ln0, "rule deep-2 needs two hidden layers and n0 >= 2")
    R = _Rule(fw, cert, ln0)
    n0, n1, n2 = R.n0, R.n1, R.n2
    W1, W2, W3 = net.W
    t = [list(W1[j]) + [net.b[0][j]] for j in range(n1)]
    if not all(map(any, W1)) or any(_rank([t[i], t[j]]) < 2 for i, j in combinations(range(n1), 2)):
        R.reject("E_SAME_HYPERPLANE", ln0, "first layer: a zero row or two rows on one hyperplane")
    order, groups = ["bend", "obstruct", "anchor", "step"], {}
    for ln, tk in body[1:]:
        if tk[0] not in order or any(groups.get(o) for o in order[order.index(tk[0]) + 1:]):
            raise fw.Malformed("E_SYNTAX", ln, "expected bend*, obstruct*, anchor, step* in this order")
        groups.setdefault(tk[0], []).append((ln, tk[1:]))
    if len(groups.get("anchor", [])) != 1:
        raise fw.Malformed("E_SYNTAX", ln0, "exactly one anchor line")
    # Lemmas A-D: every theta' has theta's first-layer hyperplanes.
    P = []
    for ln, tk in groups.get("bend", []):
        x = R.bend(ln, tk)
        P += [x] if x not in P else []
    if not P:
        R.reject("E_COVER", ln0, "no bend points")
    patches = []
    for ln, tk in groups.get("obstruct", []):
        k = fw.ints(tk[:1], ln)[0]
        pts, hyps = R.points(ln, tk[1:], k), set()
        for y in pts:
            pre = fw.forward(net, y)[0][:-1]
            zeros = [(l, i) for l, z in enumerate(pre) for i, v in enumerate(z) if v == 0]
            if len(zeros) != 1:
                R.reject("E_OBSTRUCT", ln, "an obstruction point needs exactly one vanishing neuron")
            (l, i), = zeros
            pat = R.pattern(y)
            R.kink(pat, l, i, "E_OBSTRUCT", ln)
            g, c = fw.local_affine(net, pat)[l][i]
            h = list(g) + [c]
            hyps.add(tuple(v / next(a for a in h if a) for v in h))
        patches.append((pts, len(hyps)))
    for span in R.covers(P):
        if all(any(all(_dot(r, P[i]) == 0 for i in sp) for r in t) for sp in span):
            continue  # this cover is theta's own first layer
        def inside(pts):
            sg = [[_sgn(_det([[a - b for a, b in zip(P[i], P[sp[0]])] for i in sp[1:]] +
                             [[a - b for a, b in zip(y, P[sp[0]])]])) for sp in span] for y in pts]
            return all(0 not in v and v == sg[0] for v in sg)

        if not any(nh > n2 and inside(pts) for pts, nh in patches):
            R.reject("E_COVER", ln0, "a cover of the bend points other than theta's first layer is not obstructed")
    # Lemma E: the anchor cell C0.
    ln, tk = groups["anchor"][0]
    zs = R.points(ln, tk, n2)
    s0 = R.gammas(zs[0])[0]
    for k, z in enumerate(zs):
        if R.piece(ln, "E_ANCHOR", k, z)[0] != s0 or not any(row[k] for row in W3):
            R.reject("E_ANCHOR", ln, f"anchor point {k}: another cell, or a zero output column")
    # Lemma F: steps proving beta_(k,j) = 0; K holds the known pairs.
    K = set()
    for ln, tk in groups.get("step", []):
        k = fw.ints(tk[:1], ln)[0]
        s, g = R.piece(ln, "E_STEP", k, R.points(ln, tk[1:], 1)[0])
        J = [j for j in range(n1) if s[j] != s0[j]]
        for r in range(n2):
            T = [t[j] for j in J if (r, j) not in K]
            base = _rank(T + [g[k]])
            if base != len(T) + 1 if r == k else _rank(T + [g[k], g[r]]) != base + 1:
                R.reject("E_STEP", ln, f"rank condition fails for neuron {r}")
        K |= {(k, j) for j in J}
    if len(K) != n1 * n2:
        R.reject("E_INCOMPLETE", ln0, "some second-layer weight is not pinned by the steps")
    # Lemma G: no flip sets in either layer.
    uT = [[W3[o][k] * W2[k][j] for o in range(len(W3)) for j in range(n1)] for k in range(n2)]
    uS = [[W2[k][j] * W1[j][i] for k in range(n2) for i in range(n0)] for j in range(n1)]
    for u in (uT, uS):
        if len(u) > MAX_EXHAUSTIVE:
            R.reject("E_LIMIT", ln0, f"flip-set search limited to {MAX_EXHAUSTIVE} neurons")
        if _zero_sum_subset(u):
            R.reject("E_FLIP_SET", ln0, "a layer has a flip set")
