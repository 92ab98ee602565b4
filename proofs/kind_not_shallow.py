"""Checker for kind NOT-SHALLOW (proofs/lemmas/not_shallow.md, proofs/spec-1.0-not-shallow.md).

Standard library only; uses the framework's strict rationals, exact forward evaluation,
pattern-P local forms and the "polytope in region" primitive. It re-derives every claim.
"""

from fractions import Fraction

from proofs import check as fw

__all__ = ["check"]

Z = Fraction(0)


def _dot(a, x):
    return sum((u * v for u, v in zip(a, x)), Z)


def _rank(rows):
    rows, rank = [list(r) for r in rows], 0
    for col in range(len(rows[0]) if rows else 0):
        piv = next((k for k in range(rank, len(rows)) if rows[k][col]), None)
        if piv is not None:
            rows[rank], rows[piv] = rows[piv], rows[rank]
            for k in range(rank + 1, len(rows)):
                f = rows[k][col] / rows[rank][col]
                rows[k] = [a - f * b for a, b in zip(rows[k], rows[rank])]
            rank += 1
    return rank


def check(cert):
    net, body = cert.network, cert.body
    n, N = net.arch[0], net.num_hidden
    keys = ["hyperplane"] + ["vertex"] * n + ["direction", "side", "side", "regular"]
    if [t[0] for _, t in body] != keys:
        raise fw.Malformed("E_NS_SYNTAX", body[0][0] if body else 0, "wrong body lines (see the spec)")
    val = {}
    for (ln, toks), key in zip(body, keys):
        if key == "side":
            want = "plus" if key in val else "minus"
            if len(toks) != N + 2 or toks[1] != want or any(b not in ("0", "1") for b in toks[2:]):
                raise fw.Malformed("E_NS_SYNTAX", ln, f"expected: side {want} and {N} bits")
            vec = [int(b) for b in toks[2:]]
        else:
            if len(toks) != n + 1 + (key == "hyperplane"):
                raise fw.Malformed("E_NS_SYNTAX", ln, f"{key}: wrong number of coordinates")
            vec = [fw.q(t, ln) for t in toks[1:]]
        val.setdefault(key, []).append((ln, vec))
    (lh, h), (ld, d), (lr, r) = val["hyperplane"][0], val["direction"][0], val["regular"][0]
    a, c, T = h[:n], h[n], [v for _, v in val["vertex"]]
    if not any(a):
        raise fw.Reject("E_NS_NORMAL", lh, "the hyperplane's normal is zero")
    for ln, v in val["vertex"] + [(lr, r)]:
        if _dot(a, v) + c != 0:
            raise fw.Reject("E_NS_OFF_PLANE", ln, "point not on the hyperplane")
    if _rank([[x - y for x, y in zip(v, T[0])] for v in T[1:]]) != n - 1:
        raise fw.Reject("E_NS_DEGENERATE", val["vertex"][0][0], "vertices not affinely independent")
    if _dot(a, d) == 0:
        raise fw.Reject("E_NS_DIRECTION", ld, "direction parallel to the hyperplane")
    derivs = []
    for (ls, pat), sgn in zip(val["side"], (-1, 1)):
        if not fw.in_region(net, pat, T + [[x + sgn * y for x, y in zip(v, d)] for v in T]):
            raise fw.Reject("E_NS_REGION", ls, "prism leaves the region of its pattern")
        derivs.append([_dot(g, d) for g, _ in fw.local_affine(net, pat)[-1]])
    if derivs[0] == derivs[1]:
        raise fw.Reject("E_NS_SMOOTH", ld, "equal directional derivatives on both sides")
    if any(z == 0 for zs in fw.forward(net, r)[0][:-1] for z in zs):
        raise fw.Reject("E_NS_NOT_REGULAR", lr, "a hidden pre-activation vanishes at the regular point")
