"""Kind IDENTIFIABLE (proofs/spec-1.0-identifiable.md, -deep-2.md; lemmas/shallow.md, deep_identifiability.md)."""

from itertools import combinations, product
from math import lcm, prod

from proofs.check import Malformed, Net, Z, dot, eliminate, forward, hidden_forms, hidden_pre, ints, local_affine
from proofs.check import no_flip_set, qs, rank, require, wellformed
from proofs.rule_deep3d import deep_3d

MAX_MODE_CONFIGS = 2 ** 12
MAX_NODES = 50000
MAX_POINTS = 48  # distinct bend points in a cover search (its set-up costs about |P|^n0 ranks)
MAX_MODULUS = 16  # neurons dropped by one 'exclude modulus' step (2^16 residues at most)

def _classes(net, ln, name):
    """Classes [(u, J, kappa, size)]; no zero row or column, J_C = 0, or same-sign pair (any pair in shallow-1)."""
    require(net.depth == 2, "E_DEPTH", ln, f"rule {name} needs one hidden layer")
    V, groups = net.W[1], {}
    for j, (w, bj) in enumerate(zip(net.W[0], net.b[0])):
        a = next((v for v in w if v), None)
        require(a is not None and any(r[j] for r in V), "E_ZERO_ROW", ln, f"neuron {j}: zero row or column")
        groups.setdefault(tuple(v / a for v in list(w) + [bj]), []).append((j, a))
    for mem in groups.values():
        require(len(mem) == 1 or len(mem) == 2 and name == "shallow-2" and (mem[0][1] > 0) != (mem[1][1] > 0),
                "E_SAME_HYPERPLANE", ln, "two neurons (one sign) on a hyperplane")
        require(any(sum(abs(a) * r[j] for j, a in mem) for r in V), "E_INVISIBLE", ln, "a pair with J_C = 0")
    return [(rho[:-1], [sum(abs(a) * r[j] for j, a in mem) for r in V],
             [sum(abs(a) * r[j] for j, a in mem if a < 0) for r in V], len(mem)) for rho, mem in groups.items()]

def _shallow_1(cert, body):
    _classes(cert.network, body[0][0], "shallow-1")
    W, V = cert.network.W
    u, R = [[r[j] * x for r in V for x in w] for j, w in enumerate(W)], list(range(len(W)))  # u_j = vec(V_j w_j^T)
    for ln, t in body[1:]:
        wellformed(t[0] == "exclude" and len(t) >= 2 and R, "E_SYNTAX", ln, "expected exclude STEP, neurons left")
        if t[1] == "positive" and len(t) == 2 + len(u[0]):
            phi = qs(t[2:], ln)
            vals = [dot(phi, u[j]) for j in R]
            require(min(vals) >= 0 and any(vals), "E_NOT_POSITIVE", ln, "phi is negative on a u_j, or zero on all")
            R = [j for j, v in zip(R, vals) if v == 0]
        elif t[1] == "modulus" and len(t) == 4:  # Lemma 4: the j with M not dividing L u_j[c] leave R
            M, c = ints(t[2:], ln)
            require(M > 1 and c < len(u[0]), "E_MODULUS", ln, "need M > 1 and a coordinate c of u_j")
            L = lcm(*(u[j][c].denominator for j in R))
            a, reach = {j: int(u[j][c] * L) % M for j in R}, set()
            bad = [j for j in R if a[j]]
            require(0 < len(bad) <= MAX_MODULUS, "E_MODULUS", ln, f"need 1 to {MAX_MODULUS} j with M not dividing")
            for j in bad:  # the residues of the nonempty subsets of bad
                reach |= {(r + a[j]) % M for r in reach} | {a[j]}
            require(0 not in reach, "E_MODULUS", ln, "some of them sum to 0 modulo M")
            R = [j for j in R if not a[j]]
        elif t[1:] == ["independent"]:
            require(rank([u[j] for j in R]) == len(R), "E_DEPENDENT", ln, "the remaining u_j are dependent")
            R = []
        elif t[1:] == ["exhaustive"]:
            no_flip_set([u[j] for j in R], ln, "exhaustive step limited to", "some sum of V_j w_j^T is 0")
            R = []
        else:
            raise Malformed("E_SYNTAX", ln, "unknown or misshapen exclude step")
    require(not R, "E_INCOMPLETE", body[-1][0], f"{len(R)} neurons not excluded from flip sets")

def _shallow_2(cert, body):
    ln, m, n0 = body[0][0], len(cert.network.W[-1]), cert.network.arch[0]  # W[-1]: E_DEPTH comes from _classes
    cls = _classes(cert.network, ln, "shallow-2")
    p, pairs = len(cls), [C[0] for C in cls if C[3] == 2]
    q, phis, plan, count = len(pairs), {}, [], 0
    for l, t in body[1:]:  # 'positive q T_1..T_q PHI_1..PHI_(m*n0)' (Lemma 5)
        k = ints(t[1:2], l)[0] if t[0] == "positive" and len(t) > 1 else -1
        T = ints(t[2:2 + k], l) if k == q else []
        wellformed(k == q and len(t) == 2 + k + m * n0 and T == sorted(set(T)) and all(i < p for i in T),
                   "E_SYNTAX", l, "expected 'positive q T_1..T_q PHI...' (increasing class indices)")
        phis.setdefault(tuple(T), []).append((l, qs(t[2 + k:], l)))
    require(rank(pairs) == q, "E_DEPENDENT", ln, "the directions of the opposite pairs are dependent")
    for k in range(q % 2, q + 1, 2):
        for T in combinations(range(p), k):
            out = [i for i in range(p) if i not in T]
            co = {(i, v): [x - y * v for x, y in zip(cls[i][2], cls[i][1])] for i in out for v in (0, 1)}
            allowed = {i: (0, 1) for i in out}
            for l, phi in phis.get(T, []):
                rows = [phi[o * n0:(o + 1) * n0] for o in range(m)]
                val = {iv: sum(c * dot(r, cls[iv[0]][0]) for c, r in zip(cv, rows)) for iv, cv in co.items()}
                require(not any(dot(r, cls[i][0]) for i in T for r in rows)
                        and all(val[(i, v)] >= 0 for i in out for v in allowed[i]), "E_NOT_POSITIVE", l,
                        "phi does not vanish on the classes of T, or is negative on an allowed class mode")
                allowed = {i: tuple(v for v in allowed[i] if val[(i, v)] == 0) for i in out}
            plan.append((T, out, co, allowed))
            count += prod(len(a) for a in allowed.values())
            require(count <= MAX_MODE_CONFIGS, "E_LIMIT", ln, f"over {MAX_MODE_CONFIGS} class-mode configurations")
    for T, out, co, allowed in plan:
        UT = [cls[i][0] for i in T]
        rT = rank(UT)
        for nu in product(*(allowed[i] for i in out)):
            cs = [co[(i, v)] for i, v in zip(out, nu)]
            D = [[sum(c[o] * cls[i][0][t] for c, i in zip(cs, out)) for t in range(n0)] for o in range(m)]
            require(not any(map(any, cs)) or rank(D + UT) - rT > (q - len(T)) // 2, "E_MODES", ln,
                    f"classes {list(T)} as pairs and modes {nu} elsewhere reproduce the linear part")

def _sgn(v):
    return (v > 0) - (v < 0)

def _points(n0, ln, toks, k):
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

def _covers(n0, n1, P, ln0):
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

def _piece(net, ln, code, k, z, keep):
    """Lemma E: z in an open first-layer cell C on a separate visible piece of neuron (2, k): (signs, gamma_C)."""
    s = [_sgn(v) for v in forward(net, z)[0][0]]
    g = [list(a) + [c] for a, c in local_affine(net, [int(v > 0) for v in s] + [0] * net.arch[2])[1]]
    require(keep(z) and 0 not in s and k < net.arch[2] and dot(g[k], z) + g[k][-1] == 0 and any(g[k][:-1])
            and all(r == k or rank([g[k], g[r]]) == 2 for r in range(net.arch[2])), code, ln,
            f"not on a separate visible piece of second-layer neuron {k} in an open cell (in C_L for deep-3, -n)")
    return s, g

def _sides(P, span, y):
    """The sides (-1, 0, 1) of y of the hyperplanes through P[i], i in sp, for each sp in span."""
    return tuple(_sgn(eliminate([[a - b for a, b in zip(P[i], P[sp[0]])] for i in sp[1:]] +
                                [[a - b for a, b in zip(y, P[sp[0]])]])[1]) for sp in span)

def _inside(P, span, pts):
    """Every point strictly on one side of each hyperplane of the cover as pts[0]."""
    return all(0 not in v and v == _sides(P, span, pts[0]) for v in (_sides(P, span, y) for y in pts))

def _refutes(P, y, pair, u, g):
    """lemmas/deep3_identifiability.md, Step 1 (a): a kink at y (local normal g) that no theta' with first layer
    pair, both active on the quadrant u, has: off u, not parallel to a line of pair on whose side (by u) it is."""
    v = _sides(P, pair, y)  # each line of pair is spanned by two points (deep-3: n0 = 2)
    return 0 not in v and v != u and all(a != b or dot(g, [p - q for p, q in zip(P[sp[1]], P[sp[0]])])
                                         for a, b, sp in zip(v, u, pair))

def deep_2(cert, body, levels=0):
    """Rule deep-2 (levels = 0) and, with ``levels`` = L width-2 layers merged into the first, deep-3 / deep-n."""
    full, ln0 = cert.network, body[0][0]
    ij = levels and next((c for c in combinations(range(full.arch[0]), 2)
                          if rank([[r[i] for i in c] for r in full.W[0]]) == 2), 0)  # first pair of rank 2
    if ij:  # Lemma R (deep3_identifiability.md): f on the coordinate plane ij decides (n0 = 2: the same network)
        full = Net.of([[[r[i] for i in ij] for r in full.W[0]]] + full.W[1:], full.b)
    forms = local_affine(full, [1] * full.num_hidden)  # per layer, the pre-activations where all is active
    lv = [[list(g) + [c] for g, c in layer] for layer in forms[:levels]]  # T^1 .. T^L
    require(full.depth == 3 + levels and full.arch[0] >= 2 and (not levels or set(full.arch[:levels + 1]) == {2})
            and all(rank([r[:-1] for r in t]) == 2 for t in lv), "E_DEPTH", ln0, "deep-2 needs two hidden layers "
            "and n0 >= 2; deep-3, deep-n: width 2 (input: restricted) but in the last two, independent rows")
    net = Net.of([[g for g, _ in forms[levels]]] + full.W[levels + 1:], [[c for _, c in forms[levels]]]
                 + full.b[levels + 1:])  # deep-3 / deep-n: f on C_L; deep-2: the network itself
    keep = lambda x, i=levels: all(dot(r, x) + r[-1] > 0 for t in lv[:i] for r in t)  # noqa: E731 (in C_i)
    (n0, n1, n2, m), (W1, W2, W3), t = net.arch, net.W, [list(w) + [c] for w, c in zip(net.W[0], net.b[0])]
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
    # Lemmas A-D (deep-3: Steps 0-2): every theta' has theta's first-layer hyperplanes.
    xs = [_bend(full, ln, tk) for ln, tk in groups["bend"]]
    P = [x for i, x in enumerate(xs) if x not in xs[:i]]
    require(P, "E_COVER", ln0, "no bend points")
    patches, kinks = [], []  # (points, number of local hyperplanes) per obstruct line; (point, local normal)
    for ln, tk in groups["obstruct"]:
        pts, hyps = _points(n0, ln, tk[1:], ints(tk[:1], ln)[0]), set()
        for y in pts:
            pre = hidden_pre(full, y)
            pat, zeros = [int(v > 0) for v in pre], [k for k, v in enumerate(pre) if v == 0]
            require(len(zeros) == 1 and _kinked(full, pat, zeros[0]), "E_OBSTRUCT", ln,
                    "an obstruction point needs one vanishing neuron, with a kink")
            g, c = hidden_forms(full, pat)[zeros[0]]
            hyps.add(tuple(v / next(a for a in [*g, c] if a) for v in [*g, c]))
            kinks.append((y, g))
        patches.append((pts, len(hyps), rank([h[:-1] for h in hyps])))
    on = lambda sp, F: any(all(dot(r, P[i]) + r[-1] == 0 for i in sp) for r in F)  # noqa: E731 (P[sp] on one of F)
    require(not levels or all(any(dot(r, x) + r[-1] == 0 and keep(x) for x in P) for r in t), "E_COVER", ln0,
            "a line of the first layer of the collapse has no bend point inside C_L")
    for span in _covers(n0, n1 + 2 * levels, P, ln0):  # theta's own hyperplanes, or obstructed / refuted
        rest = list(span)
        for i in range(levels):  # Step 1 at level i + 1: an admissible pair is theta's or refuted
            mine = False
            for A in combinations(rest, 2):
                off = [x for x in P if keep(x, i) and 0 not in _sides(P, A, x)]
                u = {_sides(P, A, x) for x in off}
                if len(u) == 1 and rank([[p - q for p, q in zip(P[sp[1]], P[sp[0]])] for sp in A]) == 2:
                    ok = all(on(sp, lv[i]) for sp in A) and all(keep(x, i + 1) for x in off) and (
                        i + 1 < levels or all(on(sp, t) for sp in rest if sp not in A))
                    mine |= ok
                    require(ok or any(keep(y, i) and _refutes(P, y, A, *u, g) for y, g in kinks) or any(
                        nh > n2 and (i + 1 == levels or par == 2) and keep(pts[0], i) and _inside(P, span, pts)
                        and {_sides(P, A, pts[0])} == u for pts, nh, par in patches),
                        "E_COVER", ln0, f"an admissible pair at level {i + 1} other than theta's is not refuted")
            if not mine:
                break  # no theta' has this cover
            rest = [sp for sp in rest if not on(sp, lv[i])]
        require(levels or all(on(sp, t) for sp in span) or any(k > n2 and _inside(P, span, y)
                                                                for y, k, _ in patches), "E_COVER", ln0,
                "a cover of the bend points other than theta's first layer is not obstructed")
    # Lemma E: the anchor cell C0.
    ln, tk = groups["anchor"][0]
    pieces = [_piece(net, ln, "E_ANCHOR", k, z, keep) for k, z in enumerate(_points(n0, ln, tk, n2))]
    s0, g0 = pieces[0]
    require(all(s == s0 and any(row[k] for row in W3) for k, (s, _) in enumerate(pieces)), "E_ANCHOR", ln,
            "an anchor point in another cell than the first, or a zero output column")
    if any(tk[0] == "jump" for _, tk in groups["step"]):  # Lemma E' (H2'): no flip set of C0's gradients
        no_flip_set([[W3[o][k] * v for o in range(m) for v in g0[k][:-1]] for k in range(n2)], ln,
                    "flip-set search limited to", "the anchor cell has a flip set (H2')")
    # Lemmas F, F': steps and jumps proving beta_(k,j) = 0; K holds the known pairs.
    K, eqs = set(), {}
    for ln, tk in groups["step"]:
        if tk[0] == "jump":
            y = _points(n0, ln, tk[1:], 1)[0]
            s, g = ([_sgn(v) for v in z] for z in forward(net, y)[0][:2])  # two layers
            require(keep(y) and s.count(0) == 1 and 0 not in g and all(
                (k, i) in K for k in range(n2) for i in range(n1) if s[i] == -s0[i]), "E_JUMP", ln,
                "not on exactly one first-layer hyperplane (in C_L for deep-3, -n), or a crossed pair unknown")
            j, rows = s.index(0), eqs.setdefault(s.index(0), [])
            rows += [[W3[o][k] if g[k] > 0 else Z for k in range(n2)] for o in range(m)]
            unknown = [k for k in range(n2) if (k, j) not in K]
            if rank([[r[k] for k in unknown] for r in rows]) == len(unknown):
                K |= {(k, j) for k in unknown}
            continue
        k = ints(tk[1:2], ln)[0]
        s, g = _piece(net, ln, "E_STEP", k, _points(n0, ln, tk[2:], 1)[0], keep)
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

RULES = {"shallow-1": _shallow_1, "shallow-2": _shallow_2, "deep-2": deep_2,
         "deep-3": lambda cert, body: deep_2(cert, body, 1),
         "deep-n": lambda cert, body: deep_2(cert, body, max(cert.network.depth - 3, 1)), "deep-3d": deep_3d}

def check(cert):
    ln, t = cert.body[0] if cert.body else (0, [""])
    wellformed(t[0] == "rule" and len(t) == 2, "E_SYNTAX", ln, "body starts with 'rule NAME'")
    require(t[1] in RULES, "E_RULE_UNKNOWN", ln, f"unknown rule {t[1]!r}")
    RULES[t[1]](cert, cert.body)
