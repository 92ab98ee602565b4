"""Kind NOT-SHALLOW (proofs/spec-1.0-not-shallow.md, proofs/lemmas/not_shallow.md)."""

from proofs.check import dot, eliminate, forward, in_region, local_affine, qs, require, wellformed

def check(cert):
    net, body = cert.network, cert.body
    n, N = net.arch[0], net.num_hidden
    keys = ["hyperplane"] + ["vertex"] * n + ["direction", "side", "side", "regular"]
    wellformed([t[0] for _, t in body] == keys, "E_NS_SYNTAX", body[0][0] if body else 0, "wrong body lines")
    val = {}
    for (ln, toks), key in zip(body, keys):
        if key == "side":
            want = "plus" if key in val else "minus"
            wellformed(len(toks) == N + 2 and toks[1] == want and set(toks[2:]) <= {"0", "1"},
                       "E_NS_SYNTAX", ln, f"expected: side {want} and {N} bits")
            vec = [int(b) for b in toks[2:]]
        else:
            wellformed(len(toks) == n + 1 + (key == "hyperplane"), "E_NS_SYNTAX", ln, f"{key}: wrong length")
            vec = qs(toks[1:], ln)
        val.setdefault(key, []).append((ln, vec))
    (lh, h), (ld, d), (lr, r) = val["hyperplane"][0], val["direction"][0], val["regular"][0]
    a, c, T = h[:n], h[n], [v for _, v in val["vertex"]]
    require(any(a), "E_NS_NORMAL", lh, "the hyperplane's normal is zero")
    for ln, v in val["vertex"] + [(lr, r)]:
        require(dot(a, v) + c == 0, "E_NS_OFF_PLANE", ln, "point not on the hyperplane")
    require(eliminate([[x - y for x, y in zip(v, T[0])] for v in T[1:]])[0] == n - 1, "E_NS_DEGENERATE",
            val["vertex"][0][0], "vertices not affinely independent")
    require(dot(a, d) != 0, "E_NS_DIRECTION", ld, "direction parallel to the hyperplane")
    derivs = []
    for (ls, pat), sgn in zip(val["side"], (-1, 1)):
        require(in_region(net, pat, T + [[x + sgn * y for x, y in zip(v, d)] for v in T]), "E_NS_REGION", ls,
                "prism leaves the region of its pattern")
        derivs.append([dot(g, d) for g, _ in local_affine(net, pat)[-1]])
    require(derivs[0] != derivs[1], "E_NS_SMOOTH", ld, "equal directional derivatives on both sides")
    require(0 not in [z for zs in forward(net, r)[0][:-1] for z in zs], "E_NS_NOT_REGULAR", lr,
            "a hidden pre-activation vanishes at the regular point")
