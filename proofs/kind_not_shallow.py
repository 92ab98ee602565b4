"""Kind NOT-SHALLOW (proofs/spec-1.0-not-shallow.md, proofs/lemmas/not_shallow.md)."""

from proofs.check import dot, eliminate, hidden_pre, in_region, local_affine, qs, require, wellformed

def check(cert):
    net, body, vals = cert.network, cert.body, []
    n, N = net.arch[0], net.num_hidden
    keys = ["hyperplane"] + ["vertex"] * n + ["direction", "side", "side", "regular"]
    wellformed([t[0] for _, t in body] == keys, "E_NS_SYNTAX", body[0][0] if body else 0, "wrong body lines")
    for i, (ln, toks) in enumerate(body):
        if toks[0] == "side":
            want = "minus" if i == n + 2 else "plus"
            wellformed(len(toks) == N + 2 and toks[1] == want and set(toks[2:]) <= {"0", "1"},
                       "E_NS_SYNTAX", ln, f"expected: side {want} and {N} bits")
            vals.append([int(b) for b in toks[2:]])
        else:
            wellformed(len(toks) == n + 1 + (i == 0), "E_NS_SYNTAX", ln, f"{toks[0]}: wrong length")
            vals.append(qs(toks[1:], ln))
    (h, *T, d, minus, plus, r), lines = vals, [ln for ln, _ in body]
    a, c = h[:n], h[n]
    require(any(a), "E_NS_NORMAL", lines[0], "the hyperplane's normal is zero")
    for ln, v in zip(lines[1:n + 1] + lines[-1:], T + [r]):
        require(dot(a, v) + c == 0, "E_NS_OFF_PLANE", ln, "point not on the hyperplane")
    require(eliminate([[x - y for x, y in zip(v, T[0])] for v in T[1:]])[0] == n - 1, "E_NS_DEGENERATE",
            lines[1], "vertices not affinely independent")
    require(dot(a, d) != 0, "E_NS_DIRECTION", lines[n + 1], "direction parallel to the hyperplane")
    for ln, pat, sgn in ((lines[n + 2], minus, -1), (lines[n + 3], plus, 1)):
        require(in_region(net, pat, T + [[x + sgn * y for x, y in zip(v, d)] for v in T]), "E_NS_REGION", ln,
                "prism leaves the region of its pattern")
    slopes = [[dot(g, d) for g, _ in local_affine(net, pat)[-1]] for pat in (minus, plus)]
    require(slopes[0] != slopes[1], "E_NS_SMOOTH", lines[n + 1], "equal directional derivatives on the sides")
    require(0 not in hidden_pre(net, r), "E_NS_NOT_REGULAR", lines[-1], "a hidden pre-activation vanishes here")
