"""IDENTIFIABLE rule deep-2, two hidden layers (proofs/spec-1.0-identifiable-deep-2.md)."""

from itertools import combinations

from proofs import check as fw

MAX_NODES = 50000

def _sgn(v):
    return (v > 0) - (v < 0)

def _points(net, ln, toks, k):
    """k points of n0 coordinates from one line's tokens."""
    n0 = net.arch[0]
    fw.wellformed(len(toks) == k * n0, "E_SYNTAX", ln, f"expected {k * n0} numbers, got {len(toks)}")
    v = fw.qs(toks, ln)
    return [v[i * n0:(i + 1) * n0] for i in range(k)]

def _hidden(net, pattern, x):
    """Pattern-P forms of the hidden pre-activations evaluated at x (one list per layer)."""
    return [[fw.dot(g, x) + c for g, c in layer] for layer in fw.local_affine(net, pattern)[:-1]]

def _pattern(net, x):
    return [int(v > 0) for z in fw.forward(net, x)[0][:-1] for v in z]

def _kink(net, pat, l, i, code, ln):
    """Lemma B (i): the output maps with neuron (l, i) inactive / active differ."""
    flat = sum(net.arch[1:l + 1]) + i
    on = pat[:flat] + [1] + pat[flat + 1:]
    fw.require(fw.local_affine(net, pat)[-1] != fw.local_affine(net, on)[-1], code, ln,
               f"f is differentiable where neuron ({l + 1},{i}) vanishes")

def _bend(net, ln, t):
    """Lemma B: returns x, a point of E(f)."""
    n0 = net.arch[0]
    fw.wellformed(len(t) == 2 * n0 + 4, "E_SYNTAX", ln, "bend X U A B LAYER INDEX")
    v = fw.qs(t[:2 * n0 + 2], ln)
    x, u, a, b = v[:n0], v[n0:2 * n0], v[2 * n0], v[2 * n0 + 1]
    lay, idx = fw.ints(t[2 * n0 + 2:], ln)
    fw.require(1 <= lay < net.depth and idx < net.arch[lay] and a > 0 and b > 0 and any(u), "E_BEND", ln,
               "need A, B > 0, U != 0 and a hidden neuron")
    z, y = [p - a * d for p, d in zip(x, u)], [p + b * d for p, d in zip(x, u)]
    pat = _pattern(net, [(p + r) / 2 for p, r in zip(z, x)])
    for l, (lz, lx) in enumerate(zip(_hidden(net, pat, z), _hidden(net, pat, x))):
        for i, (vz, vx) in enumerate(zip(lz, lx)):
            ok = vz == vx == 0 if (l, i) == (lay - 1, idx) else vz * vx > 0 or (vz == 0) != (vx == 0)
            fw.require(ok, "E_BEND", ln, f"neuron ({l + 1},{i}) breaks the condition on (z, x)")
    _kink(net, pat, lay - 1, idx, "E_BEND", ln)
    pat = _pattern(net, y)
    for l, (lx, ly) in enumerate(zip(_hidden(net, pat, x), _hidden(net, pat, y))):
        fw.require(all(vy != 0 and (vx == 0 or _sgn(vx) == _sgn(vy)) for vx, vy in zip(lx, ly)), "E_BEND", ln,
                   f"a neuron of layer {l + 1} vanishes on (x, y]")
    return x

def _covers(net, P, ln0):
    """Lemma C: the tight covers, as lists of spanning point tuples (E_COVER when one is free)."""
    flats, found, nodes, n0, n1 = {}, [], [0], net.arch[0], net.arch[1]
    for i, p in enumerate(P):
        opts = {}
        for k in range(n0):
            for T in combinations([j for j in range(len(P)) if j != i], k):
                base = [[r - s for r, s in zip(P[j], p)] for j in T]
                if fw.rank(base) == k:
                    c = frozenset(m for m, o in enumerate(P)
                                  if fw.rank(base + [[r - s for r, s in zip(o, p)]]) == k)
                    opts.setdefault(c, (k == n0 - 1, (i,) + T))
        flats[i] = opts
    M = max(len(c) for opts in flats.values() for c in opts)  # the largest content of a flat

    def can(left, k):
        nodes[0] += 1
        return not left or 0 < k and len(left) <= k * M and any(can(left - c, k - 1) for c in flats[min(left)])

    def go(left, chosen):
        nodes[0] += 1
        fw.require(nodes[0] <= MAX_NODES, "E_LIMIT", ln0, f"cover search limited to {MAX_NODES} nodes")
        fw.require(left or len(chosen) >= n1, "E_COVER", ln0,
                   "the bend points have a cover with fewer hyperplanes")
        if not left or len(chosen) == n1:
            found.extend([] if left else [chosen])
            return
        if len(left) > (n1 - len(chosen)) * M:
            return  # pruning (Lemma C): the flats left cannot cover the points left
        for c, (hyper, span) in flats[min(left)].items():
            if hyper:
                go(left - c, chosen + [span])
            else:
                fw.require(not can(left - c, n1 - len(chosen) - 1), "E_COVER", ln0,
                           "the bend points have a cover with a free hyperplane")

    go(frozenset(range(len(P))), [])
    return found

def _piece(net, ln, code, k, z):
    """z strictly inside a first-layer cell C, on a separate non-constant piece of second-layer neuron k;
    returns the signs s of C and gamma_(C,r) = the local form (g, c) of second-layer neuron r (Lemma E)."""
    s = [_sgn(fw.dot(w, z) + c) for w, c in zip(net.W[0], net.b[0])]
    g = [list(a) + [c] for a, c in fw.local_affine(net, [int(v > 0) for v in s] + [0] * net.arch[2])[1]]
    fw.require(0 not in s and k < net.arch[2] and fw.dot(g[k], z) + g[k][-1] == 0 and any(g[k][:-1])
               and all(r == k or fw.rank([g[k], g[r]]) == 2 for r in range(net.arch[2])), code, ln,
               f"not on a separate visible piece of second-layer neuron {k} in an open cell")
    return s, g

def deep_2(cert, body):
    net, ln0 = cert.network, body[0][0]
    fw.require(net.depth == 3 and net.arch[0] >= 2, "E_DEPTH", ln0,
               "rule deep-2 needs two hidden layers and n0 >= 2")
    n0, n1, n2 = net.arch[:3]
    W1, W2, W3 = net.W
    t = [list(W1[j]) + [net.b[0][j]] for j in range(n1)]
    fw.require(all(map(any, W1)) and all(fw.rank([t[i], t[j]]) == 2 for i, j in combinations(range(n1), 2)),
               "E_SAME_HYPERPLANE", ln0, "first layer: a zero row or two rows on one hyperplane")
    order, groups = ["bend", "obstruct", "anchor", "step"], {}
    for ln, tk in body[1:]:
        key = "step" if tk[0] == "jump" else tk[0]  # step and jump lines interleave
        late = any(groups.get(o) for o in order[order.index(key) + 1:]) if key in order else True
        fw.wellformed(len(tk) > 2 and not late, "E_SYNTAX", ln,
                      "expected bend*, obstruct*, anchor, step* in this order, each with its arguments")
        groups.setdefault(key, []).append((ln, tk[1:] if key != "step" else tk))
    fw.wellformed(len(groups.get("anchor", [])) == 1, "E_SYNTAX", ln0, "exactly one anchor line")
    # Lemmas A-D: every theta' has theta's first-layer hyperplanes.
    P = []
    for ln, tk in groups.get("bend", []):
        x = _bend(net, ln, tk)
        P += [x] if x not in P else []
    fw.require(P, "E_COVER", ln0, "no bend points")
    patches = []
    for ln, tk in groups.get("obstruct", []):
        pts, hyps = _points(net, ln, tk[1:], fw.ints(tk[:1], ln)[0]), set()
        for y in pts:
            pre = fw.forward(net, y)[0][:-1]
            zeros = [(l, i) for l, z in enumerate(pre) for i, v in enumerate(z) if v == 0]
            fw.require(len(zeros) == 1, "E_OBSTRUCT", ln,
                       "an obstruction point needs exactly one vanishing neuron")
            (l, i), = zeros
            pat = _pattern(net, y)
            _kink(net, pat, l, i, "E_OBSTRUCT", ln)
            g, c = fw.local_affine(net, pat)[l][i]
            h = list(g) + [c]
            hyps.add(tuple(v / next(a for a in h if a) for v in h))
        patches.append((pts, len(hyps)))
    for span in _covers(net, P, ln0):
        if all(any(all(fw.dot(r, P[i]) + r[-1] == 0 for i in sp) for r in t) for sp in span):
            continue  # this cover is theta's own first layer

        def inside(pts):
            sg = [[_sgn(fw.eliminate([[a - b for a, b in zip(P[i], P[sp[0]])] for i in sp[1:]] +
                                     [[a - b for a, b in zip(y, P[sp[0]])]])[1]) for sp in span] for y in pts]
            return all(0 not in v and v == sg[0] for v in sg)

        fw.require(any(nh > n2 and inside(pts) for pts, nh in patches), "E_COVER", ln0,
                   "a cover of the bend points other than theta's first layer is not obstructed")
    # Lemma E: the anchor cell C0.
    ln, tk = groups["anchor"][0]
    zs = _points(net, ln, tk, n2)
    s0, g0 = _piece(net, ln, "E_ANCHOR", 0, zs[0])
    for k, z in enumerate(zs):
        fw.require(_piece(net, ln, "E_ANCHOR", k, z)[0] == s0 and any(row[k] for row in W3), "E_ANCHOR", ln,
                   f"anchor point {k}: another cell, or a zero output column")
    moves = groups.get("step", [])
    if any(tk[0] == "jump" for _, tk in moves):  # Lemma E' (H2'): no flip set of the anchor cell's gradients
        fw.no_flip_set([[W3[o][k] * v for o in range(len(W3)) for v in g0[k][:-1]] for k in range(n2)], ln,
                       "flip-set search limited to", "the anchor cell has a flip set (H2')")
    # Lemmas F, F': steps and jumps proving beta_(k,j) = 0; K holds the known pairs.
    K, eqs = set(), {}
    for ln, tk in moves:
        if tk[0] == "jump":
            y = _points(net, ln, tk[1:], 1)[0]
            s, g = [_sgn(fw.dot(w, y) + c) for w, c in zip(W1, net.b[0])], fw.forward(net, y)[0][1]
            zero = [j for j in range(n1) if s[j] == 0]
            fw.require(len(zero) == 1 and 0 not in g and all((k, i) in K for k in range(n2) for i in range(n1)
                                                             if i != zero[0] and s[i] != s0[i]), "E_JUMP", ln,
                       "not on exactly one first-layer hyperplane, or a crossed pair is not known")
            j, rows = zero[0], eqs.setdefault(zero[0], [])
            rows += [[W3[o][k] if g[k] > 0 else fw.Z for k in range(n2)] for o in range(len(W3))]
            unknown = [k for k in range(n2) if (k, j) not in K]
            if fw.rank([[r[k] for k in unknown] for r in rows]) == len(unknown):
                K |= {(k, j) for k in unknown}
            continue
        k = fw.ints(tk[1:2], ln)[0]
        s, g = _piece(net, ln, "E_STEP", k, _points(net, ln, tk[2:], 1)[0])
        J = [j for j in range(n1) if s[j] != s0[j]]
        for r in range(n2):
            T = [t[j] for j in J if (r, j) not in K]
            base = fw.rank(T + [g[k]])
            fw.require(base == len(T) + 1 if r == k else fw.rank(T + [g[k], g[r]]) == base + 1, "E_STEP", ln,
                       f"rank condition fails for neuron {r}")
        K |= {(k, j) for j in J}
    fw.require(len(K) == n1 * n2, "E_INCOMPLETE", ln0, "some second-layer weight is not pinned by the steps")
    # Lemma G: no flip sets in either layer.
    uT = [[W3[o][k] * W2[k][j] for o in range(len(W3)) for j in range(n1)] for k in range(n2)]
    uS = [[W2[k][j] * W1[j][i] for k in range(n2) for i in range(n0)] for j in range(n1)]
    for u in (uT, uS):
        fw.no_flip_set(u, ln0, "flip-set search limited to", "a layer has a flip set")
