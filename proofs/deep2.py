"""IDENTIFIABLE rule ``deep-2``: two hidden layers (proofs/lemmas/deep_identifiability.md).

Body after ``rule deep-2``, in this order: ``bend`` lines (points of E(f), Lemma B), ``obstruct``
lines (Lemma D), one ``anchor`` line and ``step`` lines (Lemmas E, F). Spec:
proofs/spec-1.0-identifiable.md. Standard library only.
"""

from fractions import Fraction
from itertools import combinations

__all__ = ["deep_2"]

Z = Fraction(0)


def _dot(a, x):
    return sum((u * v for u, v in zip(a, x)), Z) + a[-1]


def _sgn(v):
    return (v > 0) - (v < 0)


def _nums(fw, ln, toks, n):
    if len(toks) != n:
        raise fw.Malformed("E_SYNTAX", ln, f"expected {n} numbers, got {len(toks)}")
    return [fw.q(t, ln) for t in toks]


def _flat_pattern(pre, skip=None):
    return [int(v > 0) for l, z in enumerate(pre[:-1]) for i, v in enumerate(z) if (l, i) != skip]


def _values(fw, net, pattern, x):
    """Pattern-P pre-activations (hidden layers) at x."""
    return [[sum((a * v for a, v in zip(g, x)), Z) + c for g, c in layer] for layer in fw.local_affine(net, pattern)[:-1]]


def _bend(fw, net, ln, t):
    """Lemma B: x is not straight.  Returns x."""
    n0 = net.arch[0]
    v = _nums(fw, ln, t[:2 * n0 + 2], 2 * n0 + 2)
    x, u, a, b = v[:n0], v[n0:2 * n0], v[2 * n0], v[2 * n0 + 1]
    lay, idx = fw.ints(t[2 * n0 + 2:], ln) if len(t) == 2 * n0 + 4 else (None, None)
    if lay is None or not 1 <= lay < net.depth or idx >= net.arch[lay]:
        raise fw.Malformed("E_SYNTAX", ln, "bend X U A B LAYER INDEX with a hidden neuron")
    if a <= 0 or b <= 0 or not any(u):
        raise fw.Reject("E_BEND", ln, "A, B must be positive and U nonzero")
    nu = (lay - 1, idx)
    z, y = [p - a * d for p, d in zip(x, u)], [p + b * d for p, d in zip(x, u)]
    mid = [(p + r) / 2 for p, r in zip(z, x)]
    pm = fw.forward(net, mid)[0]
    pat = _flat_pattern(pm)
    ends = (_values(fw, net, pat, z), _values(fw, net, pat, x))
    for l, layer in enumerate(ends[0]):
        for i, vz in enumerate(layer):
            vx = ends[1][l][i]
            ok = vz == vx == 0 if (l, i) == nu else (vz * vx > 0 or (vz == 0) != (vx == 0))
            if not ok:
                raise fw.Reject("E_BEND", ln, f"neuron ({l + 1},{i}) breaks the segment (z, x) condition")
    flat = sum(net.arch[1:lay]) + idx
    on = pat[:flat] + [1] + pat[flat + 1:]
    if fw.local_affine(net, pat)[-1] == fw.local_affine(net, on)[-1]:
        raise fw.Reject("E_BEND", ln, "f is differentiable on (z, x): the two local maps agree")
    py = fw.forward(net, y)[0]
    pat = _flat_pattern(py)
    ends = (_values(fw, net, pat, x), _values(fw, net, pat, y))
    for l, layer in enumerate(ends[1]):
        for i, vy in enumerate(layer):
            vx = ends[0][l][i]
            if vy == 0 or (vx != 0 and _sgn(vx) != _sgn(vy)):
                raise fw.Reject("E_BEND", ln, f"neuron ({l + 1},{i}) vanishes on (x, y]")
    return x


def _rank(fw, rows):
    from proofs.kind_identifiable import _rank as rank  # noqa: PLC0415
    return rank(rows) if rows else 0


def _flat_key(fw, p, pts, P):
    """Points of P on aff(p, pts) and whether that flat is a hyperplane (or None if dependent)."""
    base = [[r - s for r, s in zip(o, p)] for o in pts]
    if _rank(fw, base) != len(base):
        return None
    content = frozenset(i for i, o in enumerate(P) if _rank(fw, base + [[r - s for r, s in zip(o, p)]]) == len(base))
    return content, len(base) == len(p) - 1


def _covers(fw, P, n1):
    """All covers of P by <= n1 spanned hyperplanes, as tuples of point-index sets; None when a
    cover with fewer than n1 flats or with a flat of lower dimension exists (Lemma C)."""
    n0, found = len(P[0]), []
    flats = {}
    for i, p in enumerate(P):
        others = [j for j in range(len(P)) if j != i]
        opts = set()
        for k in range(n0):
            for T in combinations(others, k):
                key = _flat_key(fw, p, [P[j] for j in T], P)
                if key is not None:
                    opts.add(key)
        flats[i] = opts

    def go(left, chosen):
        if not left:
            return len(chosen) == n1 and found.append(tuple(c for c, _ in chosen)) is None
        if len(chosen) == n1:
            return True
        for content, hyper in flats[min(left)]:
            nxt = chosen + [(content, hyper)]
            if not hyper:
                if _complete(left - content, n1 - len(nxt)):
                    return False
                continue
            if not go(left - content, nxt):
                return False
        return True

    def _complete(left, k):
        if not left:
            return True
        return k > 0 and any(_complete(left - c, k - 1) for c, _ in flats[min(left)])

    return found if go(frozenset(range(len(P))), []) else None


def _hyper(fw, P, content):
    """The normalised (a, c), a.x + c = 0, of the hyperplane spanned by the points of content."""
    return _norm(_null1([list(P[i]) + [Fraction(1)] for i in sorted(content)], len(P[0]) + 1))


def _null1(rows, n):
    """A nonzero vector v with rows . v = 0 (rows of rank n - 1)."""
    rows = [list(r) for r in rows]
    piv, r = [], 0
    for c in range(n):
        p = next((i for i in range(r, len(rows)) if rows[i][c]), None)
        if p is None:
            continue
        rows[r], rows[p] = rows[p], rows[r]
        rows[r] = [v / rows[r][c] for v in rows[r]]
        for i in range(len(rows)):
            if i != r and rows[i][c]:
                rows[i] = [v - rows[i][c] * w for v, w in zip(rows[i], rows[r])]
        piv.append(c)
        r += 1
    free = next(c for c in range(n) if c not in piv)
    v = [Z] * n
    v[free] = Fraction(1)
    for i, c in enumerate(piv):
        v[c] = -rows[i][free]
    return v


def _norm(v):
    a = next(x for x in v if x)
    return tuple(x / a for x in v)


def _patch(fw, net, ln, y):
    """Lemma D's points: exactly one hidden neuron vanishes at y and the maps differ there.
    Returns the normalised local hyperplane (a, c)."""
    pre = fw.forward(net, y)[0]
    zeros = [(l, i) for l, z in enumerate(pre[:-1]) for i, v in enumerate(z) if v == 0]
    if len(zeros) != 1:
        raise fw.Reject("E_OBSTRUCT", ln, "an obstruction point needs exactly one vanishing neuron")
    (l, i), = zeros
    pat = _flat_pattern(pre)
    flat = sum(net.arch[1:l + 1]) + i
    on = pat[:flat] + [1] + pat[flat + 1:]
    if fw.local_affine(net, pat)[-1] == fw.local_affine(net, on)[-1]:
        raise fw.Reject("E_OBSTRUCT", ln, "f is differentiable at an obstruction point")
    g, c = fw.local_affine(net, pat)[l][i]
    return _norm(list(g) + [c])


def _gamma(net, s, k):
    """gamma_(C,k) of Lemma E as (gradient..., offset) on the cell with sign vector s."""
    W1, b1, W2, b2 = net.W[0], net.b[0], net.W[1], net.b[1]
    v = [Z] * (len(W1[0]) + 1)
    for j, sj in enumerate(s):
        if sj > 0:
            v = [a + W2[k][j] * r for a, r in zip(v, list(W1[j]) + [b1[j]])]
    v[-1] += b2[k]
    return v


def deep_2(cert, fw, body):
    from proofs.kind_identifiable import MAX_EXHAUSTIVE, _zero_sum_subset  # noqa: PLC0415

    net, ln0 = cert.network, body[0][0]
    if net.depth != 3 or net.arch[0] < 2:
        raise fw.Reject("E_DEPTH", ln0, "rule deep-2 needs two hidden layers and n0 >= 2")
    n0, n1, n2 = net.arch[:3]
    W1, b1, W2, W3 = net.W[0], net.b[0], net.W[1], net.W[2]
    t = [list(W1[j]) + [b1[j]] for j in range(n1)]
    if any(not any(W1[j]) for j in range(n1)) or any(_rank(fw, [t[i], t[j]]) < 2 for i, j in combinations(range(n1), 2)):
        raise fw.Reject("E_SAME_HYPERPLANE", ln0, "first layer: a zero row or two rows on one hyperplane")
    groups = {"bend": [], "obstruct": [], "anchor": [], "step": []}
    order = list(groups)
    last = 0
    for ln, tk in body[1:]:
        if tk[0] not in groups or order.index(tk[0]) < last:
            raise fw.Malformed("E_SYNTAX", ln, "expected bend*, obstruct*, anchor, step* in this order")
        last = order.index(tk[0])
        groups[tk[0]].append((ln, tk[1:]))
    if len(groups["anchor"]) != 1:
        raise fw.Malformed("E_SYNTAX", ln0, "exactly one anchor line")
    # Lemmas B, C, D: the first layer of every theta' lies on theta's hyperplanes.
    P = []
    for ln, tk in groups["bend"]:
        x = _bend(fw, net, ln, tk)
        if x not in P:
            P.append(x)
    if not P:
        raise fw.Reject("E_COVER", ln0, "no bend points")
    covers = _covers(fw, P, n1)
    if covers is None:
        raise fw.Reject("E_COVER", ln0, "the bend points admit a cover with a free hyperplane")
    own = {_norm(r) for r in t}
    patches = []
    for ln, tk in groups["obstruct"]:
        k = fw.ints(tk[:1], ln)[0]
        pts = [_nums(fw, ln, tk[1 + i * n0:1 + (i + 1) * n0], n0) for i in range(k)]
        if len(tk) != 1 + k * n0:
            raise fw.Malformed("E_SYNTAX", ln, "obstruct K then K points")
        patches.append((pts, {_patch(fw, net, ln, y) for y in pts}))
    for cover in covers:
        hs = [_hyper(fw, P, c) for c in cover]
        if set(hs) == own:
            continue
        if not any(len(hp) > n2 and all(len({_sgn(_dot(h, y)) for y in pts} - {0}) == 1 and
                                        all(_dot(h, y) for y in pts) for h in hs) for pts, hp in patches):
            raise fw.Reject("E_COVER", ln0, "a cover of the bend points other than theta's hyperplanes is not obstructed")
    # Lemma E: the anchor cell.
    ln, tk = groups["anchor"][0]
    zs = [_nums(fw, ln, tk[k * n0:(k + 1) * n0], n0) for k in range(n2)]
    if len(tk) != n2 * n0:
        raise fw.Malformed("E_SYNTAX", ln, "anchor needs n2 points")
    s0 = [_sgn(_dot(r, zs[0])) for r in t]
    g0 = [_gamma(net, s0, k) for k in range(n2)]
    for k, z in enumerate(zs):
        if [_sgn(_dot(r, z)) for r in t] != s0 or 0 in s0 or _dot(g0[k], z) != 0 or not any(g0[k][:-1]) \
                or not any(W3[o][k] for o in range(len(W3))):
            raise fw.Reject("E_ANCHOR", ln, f"anchor point {k}: not on a visible piece of neuron {k} in one open cell")
    if any(_rank(fw, [g0[a], g0[c]]) < 2 for a, c in combinations(range(n2), 2)):
        raise fw.Reject("E_ANCHOR", ln, "two second-layer pieces coincide in the anchor cell")
    # Lemma F: steps that prove beta_(k,j) = 0.
    known = [[False] * n1 for _ in range(n2)]
    for ln, tk in groups["step"]:
        k = fw.ints(tk[:1], ln)[0]
        z = _nums(fw, ln, tk[1:], n0)
        s = [_sgn(_dot(r, z)) for r in t]
        if k >= n2 or 0 in s:
            raise fw.Reject("E_STEP", ln, "step point on a first-layer hyperplane or bad neuron")
        g = [_gamma(net, s, m) for m in range(n2)]
        J = [j for j in range(n1) if s[j] != s0[j]]
        if _dot(g[k], z) != 0 or not any(g[k][:-1]) or any(m != k and _rank(fw, [g[k], g[m]]) < 2 for m in range(n2)):
            raise fw.Reject("E_STEP", ln, "the point is not on a distinct visible piece of the neuron")
        for m in range(n2):
            T = [t[j] for j in J if not known[m][j]]
            base = _rank(fw, T + [g[k]])
            if m == k and base != len(T) + 1 or m != k and _rank(fw, T + [g[k], g[m]]) != base + 1:
                raise fw.Reject("E_STEP", ln, f"rank condition fails for neuron {m}")
        for j in J:
            known[k][j] = True
    if not all(map(all, known)):
        raise fw.Reject("E_INCOMPLETE", ln0, "some second-layer weight is not pinned by the steps")
    # Lemma G: no flip sets in either layer.
    m = len(W3)
    uT = [[W3[o][k] * W2[k][j] for o in range(m) for j in range(n1)] for k in range(n2)]
    uS = [[W2[k][j] * W1[j][i] for k in range(n2) for i in range(n0)] for j in range(n1)]
    for u in (uT, uS):
        if len(u) > MAX_EXHAUSTIVE:
            raise fw.Reject("E_LIMIT", ln0, f"flip-set search limited to {MAX_EXHAUSTIVE} neurons")
        if _zero_sum_subset(u):
            raise fw.Reject("E_FLIP_SET", ln0, "a layer has a flip set")
