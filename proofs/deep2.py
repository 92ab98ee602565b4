"""IDENTIFIABLE rule deep-2 for two hidden layers (proofs/spec-1.0-identifiable-deep-2.md): bend points,
obstructions, anchor cell, steps and jumps, no flip sets (proofs/lemmas/deep_identifiability.md)."""

from itertools import combinations

from proofs.check import Z, dot, eliminate, forward, hidden_forms, hidden_pre, ints, local_affine, no_flip_set, qs
from proofs.check import rank, require, wellformed

MAX_NODES = 50000

def _sgn(v):
    return (v > 0) - (v < 0)

def _points(n0, ln, toks, k):
    """k points of n0 coordinates from one line's tokens."""
    wellformed(len(toks) == k * n0, "E_SYNTAX", ln, f"expected {k * n0} numbers, got {len(toks)}")
    return [qs(toks[i * n0:(i + 1) * n0], ln) for i in range(k)]

def _at(forms, x):
    return [dot(g, x) + c for g, c in forms]

def _kinked(net, pat, k):
    """Lemma B (i): the output maps with hidden neuron k (flat index) inactive / active differ."""
    return local_affine(net, pat)[-1] != local_affine(net, pat[:k] + [1] + pat[k + 1:])[-1]

def _bend(net, ln, t):
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
                for k, (vz, vx) in enumerate(zip(_at(fm, z), _at(fm, x)))) and _kinked(net, pat, nu)
            and all(vy != 0 and vx * vy >= 0 for vx, vy in zip(_at(fy, x), pre)), "E_BEND", ln,
            "a hidden neuron breaks the condition on (z, x), or vanishes on (x, y], or no kink")
    return x

def _covers(net, P, ln0):
    """Lemma C: the tight covers, as lists of spanning point tuples (E_COVER when one is free)."""
    flats, found, nodes, n0, n1 = [{} for _ in P], [], [0], net.arch[0], net.arch[1]
    for i, p in enumerate(P):
        for k in range(n0):
            for T in combinations([j for j in range(len(P)) if j != i], k):
                base = [[r - s for r, s in zip(P[j], p)] for j in T]
                if rank(base) == k:
                    c = frozenset(m for m, o in enumerate(P) if rank(base + [[r - s for r, s in zip(o, p)]]) == k)
                    flats[i].setdefault(c, (k == n0 - 1, (i,) + T))
    M = max(len(c) for opts in flats for c in opts)  # the largest content of a flat
    def can(left, r):  # r flats can cover the points left
        nodes[0] += 1
        return not left or 0 < r and len(left) <= r * M and any(can(left - c, r - 1) for c in flats[min(left)])
    def go(left, chosen):
        nodes[0] += 1
        require(nodes[0] <= MAX_NODES, "E_LIMIT", ln0, f"cover search limited to {MAX_NODES} nodes")
        require(left or len(chosen) >= n1, "E_COVER", ln0, "a cover by fewer hyperplanes")
        if not left or len(chosen) == n1:
            found.extend([] if left else [chosen])
        elif len(left) <= (n1 - len(chosen)) * M:  # else prune (Lemma C): the flats left cannot cover P
            for c, (hyper, span) in flats[min(left)].items():
                require(hyper or not can(left - c, n1 - len(chosen) - 1), "E_COVER", ln0, "cover with a free flat")
                if hyper:
                    go(left - c, chosen + [span])
    go(frozenset(range(len(P))), [])
    return found

def _piece(net, ln, code, k, z):
    """z strictly inside a first-layer cell C, on a separate non-constant piece of second-layer neuron k;
    returns the signs s of C and gamma_(C,r) = the local form (g, c) of second-layer neuron r (Lemma E)."""
    s = [_sgn(v) for v in forward(net, z)[0][0]]
    g = [list(a) + [c] for a, c in local_affine(net, [int(v > 0) for v in s] + [0] * net.arch[2])[1]]
    require(0 not in s and k < net.arch[2] and dot(g[k], z) + g[k][-1] == 0 and any(g[k][:-1])
            and all(r == k or rank([g[k], g[r]]) == 2 for r in range(net.arch[2])), code, ln,
            f"not on a separate visible piece of second-layer neuron {k} in an open cell")
    return s, g

def _inside(P, span, pts):
    """Every point strictly on one side of each hyperplane of the cover (through P[i], i in sp) as pts[0]."""
    sg = [[_sgn(eliminate([[a - b for a, b in zip(P[i], P[sp[0]])] for i in sp[1:]] +
                          [[a - b for a, b in zip(y, P[sp[0]])]])[1]) for sp in span] for y in pts]
    return all(0 not in v and v == sg[0] for v in sg)

def deep_2(cert, body):
    net, ln0 = cert.network, body[0][0]
    require(net.depth == 3 and net.arch[0] >= 2, "E_DEPTH", ln0, "deep-2 needs two hidden layers and n0 >= 2")
    (n0, n1, n2, m), (W1, W2, W3) = net.arch, net.W
    t = [list(w) + [c] for w, c in zip(W1, net.b[0])]
    require(all(map(any, W1)) and all(rank([t[i], t[j]]) == 2 for i, j in combinations(range(n1), 2)),
            "E_SAME_HYPERPLANE", ln0, "first layer: a zero row or two rows on one hyperplane")
    order, groups, last = ("bend", "obstruct", "anchor", "step"), {"bend": [], "obstruct": [], "step": []}, 0
    for ln, tk in body[1:]:
        key = "step" if tk[0] == "jump" else tk[0]  # step and jump lines interleave
        wellformed(len(tk) > 2 and key in order and order.index(key) >= last, "E_SYNTAX", ln,
                   "expected bend*, obstruct*, anchor, step* in this order, each with its arguments")
        last = order.index(key)
        groups.setdefault(key, []).append((ln, tk[1:] if key != "step" else tk))
    wellformed(len(groups.get("anchor", [])) == 1, "E_SYNTAX", ln0, "exactly one anchor line")
    # Lemmas A-D: every theta' has theta's first-layer hyperplanes.
    xs = [_bend(net, ln, tk) for ln, tk in groups["bend"]]
    P = [x for i, x in enumerate(xs) if x not in xs[:i]]
    require(P, "E_COVER", ln0, "no bend points")
    patches = []  # (points, number of local hyperplanes) of each obstruct line
    for ln, tk in groups["obstruct"]:
        pts, hyps = _points(n0, ln, tk[1:], ints(tk[:1], ln)[0]), set()
        for y in pts:
            pre = hidden_pre(net, y)
            pat, zeros = [int(v > 0) for v in pre], [k for k, v in enumerate(pre) if v == 0]
            require(len(zeros) == 1 and _kinked(net, pat, zeros[0]), "E_OBSTRUCT", ln,
                    "an obstruction point needs one vanishing neuron, with a kink")
            g, c = hidden_forms(net, pat)[zeros[0]]
            hyps.add(tuple(v / next(a for a in [*g, c] if a) for v in [*g, c]))
        patches.append((pts, len(hyps)))
    for span in _covers(net, P, ln0):  # theta's own hyperplanes, or obstructed
        require(all(any(all(dot(r, P[i]) + r[-1] == 0 for i in sp) for r in t) for sp in span)
                or any(nh > n2 and _inside(P, span, pts) for pts, nh in patches), "E_COVER", ln0,
                "a cover of the bend points other than theta's first layer is not obstructed")
    # Lemma E: the anchor cell C0.
    ln, tk = groups["anchor"][0]
    zs = _points(n0, ln, tk, n2)
    s0, g0 = _piece(net, ln, "E_ANCHOR", 0, zs[0])
    for k, z in enumerate(zs):
        require(_piece(net, ln, "E_ANCHOR", k, z)[0] == s0 and any(row[k] for row in W3), "E_ANCHOR", ln,
                f"anchor point {k}: another cell, or a zero output column")
    if any(tk[0] == "jump" for _, tk in groups["step"]):  # Lemma E' (H2'): no flip set of C0's gradients
        no_flip_set([[W3[o][k] * v for o in range(m) for v in g0[k][:-1]] for k in range(n2)], ln,
                    "flip-set search limited to", "the anchor cell has a flip set (H2')")
    # Lemmas F, F': steps and jumps proving beta_(k,j) = 0; K holds the known pairs.
    K, eqs = set(), {}
    for ln, tk in groups["step"]:
        if tk[0] == "jump":
            y = _points(n0, ln, tk[1:], 1)[0]
            s, g = ([_sgn(v) for v in z] for z in forward(net, y)[0][:2])  # signs of both hidden layers
            zero = [j for j in range(n1) if s[j] == 0]
            require(len(zero) == 1 and 0 not in g and all((k, i) in K for k in range(n2) for i in range(n1)
                                                          if i != zero[0] and s[i] != s0[i]), "E_JUMP", ln,
                    "not on exactly one first-layer hyperplane, or a crossed pair is not known")
            j, rows = zero[0], eqs.setdefault(zero[0], [])
            rows += [[W3[o][k] if g[k] > 0 else Z for k in range(n2)] for o in range(m)]
            unknown = [k for k in range(n2) if (k, j) not in K]
            if rank([[r[k] for k in unknown] for r in rows]) == len(unknown):
                K |= {(k, j) for k in unknown}
            continue
        k = ints(tk[1:2], ln)[0]
        s, g = _piece(net, ln, "E_STEP", k, _points(n0, ln, tk[2:], 1)[0])
        J = [j for j in range(n1) if s[j] != s0[j]]
        for r in range(n2):
            T = [t[j] for j in J if (r, j) not in K]
            base = rank(T + [g[k]])
            require(base == len(T) + 1 if r == k else rank(T + [g[k], g[r]]) == base + 1, "E_STEP", ln,
                    f"rank condition fails for neuron {r}")
        K |= {(k, j) for j in J}
    require(len(K) == n1 * n2, "E_INCOMPLETE", ln0, "some second-layer weight is not pinned by the steps")
    # Lemma G: no flip sets in either layer.
    for u in ([[W3[o][k] * W2[k][j] for o in range(m) for j in range(n1)] for k in range(n2)],
              [[W2[k][j] * W1[j][i] for k in range(n2) for i in range(n0)] for j in range(n1)]):
        no_flip_set(u, ln0, "flip-set search limited to", "a layer has a flip set")
