"""Rules deep-2, deep-3, deep-n of kind IDENTIFIABLE (spec-1.0-identifiable-deep-2.md, lemmas/deep*.md)."""

from itertools import combinations

from proofs.bend_points import bend, covers, inside, kinked, read_points, sgn, sides
from proofs.check import Net, Z, dot, forward, hidden_forms, hidden_pre, ints, local_affine
from proofs.check import no_flip_set, rank, require, wellformed

def _piece(net, ln, code, k, z, keep):
    """Lemma E: z in an open first-layer cell C on a separate visible piece of neuron (2, k): (signs, gamma_C)."""
    s = [sgn(v) for v in forward(net, z)[0][0]]
    g = [list(a) + [c] for a, c in local_affine(net, [int(v > 0) for v in s] + [0] * net.arch[2])[1]]
    require(keep(z) and 0 not in s and k < net.arch[2] and dot(g[k], z) + g[k][-1] == 0 and any(g[k][:-1])
            and all(r == k or rank([g[k], g[r]]) == 2 for r in range(net.arch[2])), code, ln,
            f"not on a separate visible piece of second-layer neuron {k} in an open cell (in C_L for deep-3, -n)")
    return s, g

def _refutes(P, y, pair, u, g):
    """lemmas/deep3_identifiability.md, Step 1 (a): a kink at y (local normal g) that no theta' with first layer
    pair, both active on the quadrant u, has: off u, not parallel to a line of pair on whose side (by u) it is."""
    v = sides(P, pair, y)  # each line of pair is spanned by two points (deep-3: n0 = 2)
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
    xs = [bend(full, ln, tk) for ln, tk in groups["bend"]]
    P = [x for i, x in enumerate(xs) if x not in xs[:i]]
    require(P, "E_COVER", ln0, "no bend points")
    patches, kinks = [], []  # (points, number of local hyperplanes) per obstruct line; (point, local normal)
    for ln, tk in groups["obstruct"]:
        pts, hyps = read_points(n0, ln, tk[1:], ints(tk[:1], ln)[0]), set()
        for y in pts:
            pre = hidden_pre(full, y)
            pat, zeros = [int(v > 0) for v in pre], [k for k, v in enumerate(pre) if v == 0]
            require(len(zeros) == 1 and kinked(full, pat, zeros[0]), "E_OBSTRUCT", ln,
                    "an obstruction point needs one vanishing neuron, with a kink")
            g, c = hidden_forms(full, pat)[zeros[0]]
            hyps.add(tuple(v / next(a for a in [*g, c] if a) for v in [*g, c]))
            kinks.append((y, g))
        patches.append((pts, len(hyps), rank([h[:-1] for h in hyps])))
    on = lambda sp, F: any(all(dot(r, P[i]) + r[-1] == 0 for i in sp) for r in F)  # noqa: E731 (P[sp] on one of F)
    require(not levels or all(any(dot(r, x) + r[-1] == 0 and keep(x) for x in P) for r in t), "E_COVER", ln0,
            "a line of the first layer of the collapse has no bend point inside C_L")
    for span in covers(n0, n1 + 2 * levels, P, ln0):  # theta's own hyperplanes, or obstructed / refuted
        rest = list(span)
        for i in range(levels):  # Step 1 at level i + 1: an admissible pair is theta's or refuted
            mine = False
            for A in combinations(rest, 2):
                off = [x for x in P if keep(x, i) and 0 not in sides(P, A, x)]
                u = {sides(P, A, x) for x in off}
                if len(u) == 1 and rank([[p - q for p, q in zip(P[sp[1]], P[sp[0]])] for sp in A]) == 2:
                    ok = all(on(sp, lv[i]) for sp in A) and all(keep(x, i + 1) for x in off) and (
                        i + 1 < levels or all(on(sp, t) for sp in rest if sp not in A))
                    mine |= ok
                    require(ok or any(keep(y, i) and _refutes(P, y, A, *u, g) for y, g in kinks) or any(
                        nh > n2 and (i + 1 == levels or par == 2) and keep(pts[0], i) and inside(P, span, pts)
                        and {sides(P, A, pts[0])} == u for pts, nh, par in patches),
                        "E_COVER", ln0, f"an admissible pair at level {i + 1} other than theta's is not refuted")
            if not mine:
                break  # no theta' has this cover
            rest = [sp for sp in rest if not on(sp, lv[i])]
        require(levels or all(on(sp, t) for sp in span) or any(k > n2 and inside(P, span, y)
                                                                for y, k, _ in patches), "E_COVER", ln0,
                "a cover of the bend points other than theta's first layer is not obstructed")
    # Lemma E: the anchor cell C0.
    ln, tk = groups["anchor"][0]
    pieces = [_piece(net, ln, "E_ANCHOR", k, z, keep) for k, z in enumerate(read_points(n0, ln, tk, n2))]
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
            y = read_points(n0, ln, tk[1:], 1)[0]
            s, g = ([sgn(v) for v in z] for z in forward(net, y)[0][:2])  # two layers
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
        s, g = _piece(net, ln, "E_STEP", k, read_points(n0, ln, tk[2:], 1)[0], keep)
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

def deep_3(cert, body):
    """Rule deep-3: deep-2 once the width-2 first hidden layer is merged (lemmas/deep3_identifiability.md)."""
    deep_2(cert, body, 1)

def deep_n(cert, body):
    """Rule deep-n: the same, every width-2 layer but the last two hidden layers merged, level by level."""
    deep_2(cert, body, max(cert.network.depth - 3, 1))
