"""Rule deep-3d (spec-1.0-identifiable-deep-2.md, section Rule deep-3d; lemmas/deep3d_identifiability.md)."""

from itertools import combinations

from proofs.bend_points import bend, covers, inside, kinked, read_points, sgn
from proofs.check import Net, Z, dot, eliminate, hidden_forms, hidden_pre, ints, local_affine, no_flip_set, rank
from proofs.check import require, wellformed
from proofs.kind_regions import verify_net

ORDER = ("plane", "orient", "bend", "jumpline", "obstruct", "twist", "anchor", "step")

def _cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]

def _val(f, x):
    return dot(f[:-1], x) + f[-1]

def deep_3d(cert, body):
    """Theorem deep-3d: (G0), (A), (R1), (P+), (Q), (L1)-(L7) of the lemma file, in the spec's order."""
    net, ln0 = cert.network, body[0][0]
    require(net.arch == [3, 4, 3, 2, 1], "E_DEPTH", ln0, "rule deep-3d is for the architecture (3,4,3,2,1)")
    (W1, W2, W3, W4), b = net.W, net.b
    t, W4 = [list(w) + [c] for w, c in zip(W1, b[0])], W4[0]
    require(all(map(any, W1)) and rank(W1) == 3 and all(rank([W1[i], W1[j]]) == 2 for i, j in
                                                         combinations(range(4), 2)), "E_SAME_HYPERPLANE", ln0,
            "(G0): a zero row, two proportional rows or rank < 3 in the first layer")
    lam = [(-1) ** j * eliminate([W1[i] for i in range(4) if i != j])[1] for j in range(4)]  # sum lam_j w_j = 0
    groups, last = {k: [] for k in ORDER}, 0
    for ln, tk in body[1:]:
        key = "step" if tk[0] == "jump" else tk[0]
        idx = ("0", "1", "2", "3")[:4 if key == "plane" else 3]
        wellformed(len(tk) > 1 and key in ORDER and ORDER.index(key) >= last and (
            key not in ("plane", "twist") or tk[1] in idx), "E_SYNTAX", ln, "expected plane J (0..3), "
                   "orient, bend, jumpline, obstruct, twist K (0..2), anchor, step/jump lines in this order")
        last = ORDER.index(key)
        groups[key].append((ln, tk if key == "step" else tk[1:]))
    wellformed(len(groups["anchor"]) == 1, "E_SYNTAX", ln0, "exactly one anchor line")
    def pat(x):
        return [int(v > 0) for v in hidden_pre(net, x)]
    def forms(p):  # per hidden neuron (flat), the local form as [gradient..., constant]
        return [list(g) + [c] for g, c in hidden_forms(net, p)]
    def cj(j, p):  # the kink coefficient of f across H_j for the pattern p (layers 2, 3 bits used)
        return sum(W4[m] * p[7 + m] * sum(W3[m][k] * p[4 + k] * W2[k][j] for k in range(3)) for m in range(2))
    # (A): H_j lies in V(f), by a REGIONS body for the slice of the network on H_j.
    for j in range(4):
        lines = [(ln, tk[1:]) for ln, tk in groups["plane"] if tk[0] == str(j)]
        require(lines and lines[0][1] == ["domain", "all"], "E_PLANE", ln0, f"plane {j}: no lines, or a box")
        i = next(a for a in range(3) if W1[j][a])
        p0 = [-b[0][j] / W1[j][i] if a == i else Z for a in range(3)]
        ds = [[Z + (a == e) - (W1[j][e] / W1[j][i] if a == i else 0) for a in range(3)] for e in range(3)
              if e != i]
        S = Net.of([[[dot(r, d) for d in ds] for r in W1]] + net.W[1:],
                   [[c + dot(r, p0) for r, c in zip(W1, b[0])]] + b[1:])
        for P in verify_net(S, lines)[1]:  # a form not identically 0 is strictly signed at the point (REGIONS)
            F = hidden_forms(S, list(P))
            require(all(k == j or any(g) or c for k, (g, c) in enumerate(F)) and cj(j, P), "E_PLANE", lines[0][0],
                    f"plane {j}: a slice cell with another identically zero neuron, or c_j = 0")
    # (R1): every flip set of the first layer is refuted on the bias-free network theta_0.
    net0, refuted = Net.of(net.W, [[Z] * len(c) for c in b]), set()
    for ln, tk in groups["orient"]:
        x = read_points(3, ln, tk, 1)[0]
        pre = hidden_pre(net0, x)
        zeros, p = [k for k, v in enumerate(pre) if v == 0], [int(v > 0) for v in pre]
        require(len(zeros) == 1 and zeros[0] >= 4 and kinked(net0, p, zeros[0]), "E_ORIENT", ln,
                "not a kink point of the bias-free network inside a cone")
        n = hidden_forms(net0, p)[zeros[0]][0]
        for F in range(1, 16):
            S = [j for j in range(4) if (pre[j] > 0) != bool(F >> j & 1)]
            r = rank([W1[j] for j in S]) if S else 0
            if r == 0 or r == 1 and rank([n, W1[S[0]]]) == 2 or r == 2 and dot(n, _cross(W1[S[0]], W1[S[1]])):
                refuted.add(F)
    require(len(refuted) == 15, "E_ORIENT", ln0, "a flip set of the first layer is not refuted (R1)")
    # (P+), (L1), (L2): bend points in C+, no cover by 2 planes, the covers by 3 planes are theta's or obstructed.
    inC = lambda x: all(_val(r, x) > 0 for r in t)  # noqa: E731 (strictly inside C+)
    xs = [bend(net, ln, tk) for ln, tk in groups["bend"]]
    require(all(map(inC, xs)), "E_BEND", ln0, "a bend point is not strictly inside C+")
    P = [x for i, x in enumerate(xs) if x not in xs[:i]]
    gam = [list(g) + [c] for g, c in local_affine(net, [1] * 9)[1]]
    require(P and all(any(g[:-1]) for g in gam) and all(rank(c) == 2 for c in combinations(gam, 2)), "E_COVER",
            ln0, "no bend points, or a form of the second layer on C+ constant or two proportional")
    require(not covers(3, 2, P, ln0), "E_COVER", ln0, "two planes cover the bend points (P+)")
    patches = []
    for ln, tk in groups["obstruct"]:
        pts, hyps = read_points(3, ln, tk[1:], ints(tk[:1], ln)[0]), set()
        for y in pts:
            p = pat(y)
            zeros = [k for k, v in enumerate(hidden_pre(net, y)) if v == 0]
            require(inC(y) and len(zeros) == 1 and kinked(net, p, zeros[0]), "E_OBSTRUCT", ln,
                    "an obstruction point needs to be in C+, with one vanishing neuron and a kink")
            f = forms(p)[zeros[0]]
            hyps.add(tuple(v / next(a for a in f if a) for v in f))
        patches.append((pts, len(hyps)))
    on = lambda sp: any(all(_val(r, P[i]) == 0 for i in sp) for r in gam)  # noqa: E731
    for span in covers(3, 3, P, ln0):
        require(all(map(on, span)) or any(nh > 2 and inside(P, span, pts) for pts, nh in patches), "E_COVER",
                ln0, "a cover of the bend points by three planes other than theta's is not obstructed")
    # (Q): jump lines of c_j in the faces F_j.
    lines = {j: [] for j in range(4)}
    for ln, tk in groups["jumpline"]:
        (j, lay, idx), y = ints(tk[:3], ln), read_points(3, ln, tk[3:], 1)[0]
        pre, nu = hidden_pre(net, y), 4 + 3 * (lay == 3) + idx
        p = [int(v > 0) for v in pre]
        ok = j < 4 and lay in (2, 3) and idx < net.arch[lay] and pre[j] == 0 and all(
            pre[a] > 0 for a in range(4) if a != j) and [k for k in range(4, 9) if pre[k] == 0] == [nu]
        d = _cross(W1[j], forms(p)[nu][:3]) if ok else [0]
        lo, hi = p[:nu] + [0] + p[nu + 1:], p[:nu] + [1] + p[nu + 1:]
        require(ok and any(d) and cj(j, lo) != cj(j, hi), "E_JUMPLINE", ln, "not a certified jump line of c_j")
        if all(any(_cross(d, e)) or any(_cross(d, [a - c for a, c in zip(y, z)])) for z, e in lines[j]):
            lines[j].append((y, d))
    for j, L in lines.items():
        require(len(L) >= 4 or any(all(any(_cross(a[1], c[1])) for a, c in combinations(T, 2))
                                   for T in combinations(L, 3)), "E_JUMPLINE", ln0, f"too few jump lines in F_{j}")
    # (L3): four collinear bend points in one cell kill the twist kappa_k.
    for k in range(3):
        tw = [(ln, tk[1:]) for ln, tk in groups["twist"] if tk[0] == str(k)]
        xs = [bend(net, ln, tk) for ln, tk in tw]
        X = [x for i, x in enumerate(xs) if x not in xs[:i]]
        s = [sgn(_val(r, X[0])) for r in t] if X else [0] * 4
        g = [list(a) + [c] for a, c in local_affine(net, [int(v > 0) for v in s] + [0] * 5)[1]] * (0 not in s)
        rho = [-sum(lam[j] * t[j][a] for j in range(4) if s[j] < 0) for a in range(4)]
        require(len(X) >= 4 and g and rank([[a - c for a, c in zip(x, X[0])] for x in X[1:]]) == 1
                and all([sgn(_val(r, x)) for r in t] == s and _val(g[k], x) == 0 for x in X)
                and any(_val(rho, x) for x in X) and all(_val(g[r], X[0]) * _val(rho, X[1]) != _val(g[r], X[1])
                                                         * _val(rho, X[0]) for r in range(3) if r != k),
                "E_TWIST", tw[-1][0] if tw else ln0, f"the twist witness for second-layer neuron {k} fails (L3)")
    # (L4), (L5): the anchor region R0.
    ln, tk = groups["anchor"][0]
    z = read_points(3, ln, tk, 2)
    pre = [hidden_pre(net, y) for y in z]
    p0 = pat(z[0])
    eta, g0 = forms(p0)[7:9], forms(p0)[4:7]
    s0 = [sgn(v) for v in pre[0][4:7]]
    require(all(0 not in v[:7] and [sgn(a) for a in v[:7]] == [sgn(a) for a in pre[0][:7]] for v in pre)
            and all(_val(eta[m], z[m]) == 0 and any(eta[m][:3]) and W4[m] for m in range(2))
            and rank(eta) == 2 and rank([r[:3] for r in g0]) == 3, "E_ANCHOR", ln, "the anchor fails (L4)")
    no_flip_set([[W4[m] * v for v in eta[m][:3]] for m in range(2)], ln, "flip-set search limited to",
                "the anchor region has a flip set (L5)")
    # (L6): steps and jumps prove beta_(m,k) = 0; K holds the known pairs.
    K, eqs = set(), {}
    for ln, tk in groups["step"]:
        if tk[0] == "jump":
            y = read_points(3, ln, tk[1:], 1)[0]
            pre = hidden_pre(net, y)
            s, F = [sgn(v) for v in pre], forms(pat(y))
            ok = 0 not in s[:4] + s[7:9] and s[4:7].count(0) == 1
            j = s[4:7].index(0) if ok else 0
            J = [i for i in range(3) if i != j and s[4 + i] != s0[i]]
            require(ok and any(F[4 + j][:3]) and all((m, i) in K for m in range(2) for i in J), "E_JUMP", ln,
                    "not a jump point (one vanishing layer-2 neuron), or a crossed pair unknown")
            rows = eqs.setdefault(j, [])
            rows.append([W4[m] if s[7 + m] > 0 else Z for m in range(2)])
            unknown = [m for m in range(2) if (m, j) not in K]
            if rank([[r[m] for m in unknown] for r in rows]) == len(unknown):
                K |= {(m, j) for m in unknown}
            continue
        m, y = ints(tk[1:2], ln)[0], read_points(3, ln, tk[2:], 1)[0]
        pre = hidden_pre(net, y)
        F = forms(pat(y))
        g, e = F[4:7], F[7:9]
        require(m < 2 and 0 not in pre[:7] and pre[7 + m] == 0 and any(e[m][:3]) and rank(e) == 2 and W4[m],
                "E_STEP", ln, f"not on a separate visible piece of third-layer neuron {m} inside a region")
        J = [k for k in range(3) if sgn(pre[4 + k]) != s0[k]]
        for r in range(2):
            T = [g[k] for k in J if (r, k) not in K]
            base = rank(T + [e[m]])
            require(base == len(T) + 1 if r == m else rank(T + [e[m], e[r]]) == base + 1, "E_STEP", ln,
                    f"rank condition fails for neuron {r}")
        K |= {(m, k) for k in J}
    require(len(K) == 6, "E_INCOMPLETE", ln0, "some third-layer weight is not pinned by the steps")
    no_flip_set([[W3[m][k] * v for m in range(2) for v in gam[k][:3]] for k in range(3)], ln0,
                "flip-set search limited to", "a flip set of the second layer on C+ (L7)")
