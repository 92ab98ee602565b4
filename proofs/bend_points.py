"""Lemmas B and C (lemmas/deep_identifiability.md): bend points of f, their tight covers, sides of hyperplanes."""

from itertools import combinations

from proofs.check import dot, eliminate, hidden_forms, hidden_pre, ints, local_affine, qs, rank, require
from proofs.check import wellformed

MAX_NODES = 50000
MAX_POINTS = 48  # distinct bend points in a cover search (its set-up costs about |P|^n0 ranks)

def sgn(v):
    return (v > 0) - (v < 0)

def read_points(n0, ln, toks, k):
    wellformed(len(toks) == k * n0, "E_SYNTAX", ln, f"expected {k * n0} numbers, got {len(toks)}")
    return [qs(toks[i * n0:(i + 1) * n0], ln) for i in range(k)]

def _at(forms, x):
    return [dot(g, x) + c for g, c in forms]

def kinked(net, pat, k):
    """Lemma B (i): the output maps with hidden neuron k (flat index) inactive / active differ."""
    return local_affine(net, pat)[-1] != local_affine(net, pat[:k] + [1] + pat[k + 1:])[-1]

def bend(net, ln, t):
    """Lemma B: returns x, a point of E(f)."""
    n0 = net.arch[0]
    wellformed(len(t) == 2 * n0 + 4, "E_SYNTAX", ln, "bend X U A B LAYER INDEX")
    *v, a, b = qs(t[:2 * n0 + 2], ln)
    x, u, (lay, idx) = v[:n0], v[n0:], ints(t[2 * n0 + 2:], ln)
    require(1 <= lay < net.depth and idx < net.arch[lay] and a > 0 and b > 0 and any(u), "E_BEND", ln,
            "need A, B > 0, U != 0 and a hidden neuron")
    z, y = [p - a * d for p, d in zip(x, u)], [p + b * d for p, d in zip(x, u)]
    nu = sum(net.arch[1:lay]) + idx  # the neuron's flat index
    pat, pre = [int(v > 0) for v in hidden_pre(net, [(p + r) / 2 for p, r in zip(z, x)])], hidden_pre(net, y)
    fm, fy = hidden_forms(net, pat), hidden_forms(net, [int(v > 0) for v in pre])  # patterns on (z, x), at y
    require(all(vz == vx == 0 if k == nu else vz * vx > 0 or (vz == 0) != (vx == 0)
                for k, (vz, vx) in enumerate(zip(_at(fm, z), _at(fm, x)))) and kinked(net, pat, nu)
            and all(vy != 0 and vx * vy >= 0 for vx, vy in zip(_at(fy, x), pre)), "E_BEND", ln,
            "a hidden neuron breaks the condition on (z, x), or vanishes on (x, y], or no kink")
    return x

def covers(n0, n1, P, ln0):
    """Lemma C: the tight covers by n1 hyperplanes, as lists of spanning point tuples (E_COVER if one is free)."""
    require(len(P) <= MAX_POINTS, "E_LIMIT", ln0, f"cover search limited to {MAX_POINTS} bend points")
    flats, found, nodes = [{} for _ in P], [], [0]
    for i, p in enumerate(P):
        for k in range(n0):
            for T in combinations([j for j in range(len(P)) if j != i], k):
                base = [[r - s for r, s in zip(P[j], p)] for j in T]
                if rank(base) == k:
                    c = frozenset(m for m, o in enumerate(P) if rank(base + [[r - s for r, s in zip(o, p)]]) == k)
                    flats[i].setdefault(c, (k == n0 - 1, (i,) + T))
    contents = {c for opts in flats for c in opts}
    def fit(left, r):  # Lemma C, pruning: the r flats meeting most of the points left cover them all
        return sum(sorted((len(c & left) for c in contents), reverse=True)[:r]) >= len(left)
    def can(left, r):  # r flats can cover the points left
        nodes[0] += 1
        return not left or 0 < r and fit(left, r) and any(can(left - c, r - 1) for c in flats[min(left)])
    def go(left, chosen):
        nodes[0] += 1
        require(nodes[0] <= MAX_NODES, "E_LIMIT", ln0, f"cover search limited to {MAX_NODES} nodes")
        require(left or len(chosen) >= n1, "E_COVER", ln0, "a cover by fewer hyperplanes")
        if not left or len(chosen) == n1:
            found.extend([] if left else [chosen])
        elif fit(left, n1 - len(chosen)):  # else prune (Lemma C): the flats left cannot cover P
            for c, (hyper, span) in flats[min(left)].items():
                require(hyper or not can(left - c, n1 - len(chosen) - 1), "E_COVER", ln0, "cover with a free flat")
                if hyper:
                    go(left - c, chosen + [span])
    go(frozenset(range(len(P))), [])
    return found

def sides(P, span, y):
    """The sides (-1, 0, 1) of y of the hyperplanes through P[i], i in sp, for each sp in span."""
    return tuple(sgn(eliminate([[a - b for a, b in zip(P[i], P[sp[0]])] for i in sp[1:]] +
                                [[a - b for a, b in zip(y, P[sp[0]])]])[1]) for sp in span)

def inside(P, span, pts):
    """Every point strictly on one side of each hyperplane of the cover as pts[0]."""
    return all(0 not in v and v == sides(P, span, pts[0]) for v in (sides(P, span, y) for y in pts))
