"""Checker for kind NOT-SHALLOW (proofs/lemmas/not_shallow.md, proofs/spec-1.0-not-shallow.md).

Standard library only. ``verify(Ws, bs, body, fail)`` takes the network as lists of
``Fraction`` rows (``Ws[l-1]`` is ``W_l``), the body as ``(lineno, tokens)`` pairs and a
callback ``fail(kind, code, lineno, msg)`` that raises (kind "reject" or "malformed").
``check(cert)`` adapts it to the framework in ``proofs/check.py``.
"""

import re
from fractions import Fraction

__all__ = ["verify", "check"]

_Q = re.compile(r"-?(0|[1-9][0-9]{0,3999})(/[1-9][0-9]{0,3999})?\Z")
Z = Fraction(0)


def _q(tok):
    if not _Q.match(tok) or tok == "-0":
        return None
    num, _, den = tok.partition("/")
    q = Fraction(int(num), int(den) if den else 1)
    return q if str(q) == tok else None


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


def _local(Ws, bs, pat):
    """Pattern-frozen (grad, offset) rows: hidden neurons in layer order, then the outputs."""
    n = len(Ws[0][0])
    A, c, hidden, k = [[Fraction(int(r == s)) for s in range(n)] for r in range(n)], [Z] * n, [], 0
    for l, (W, b) in enumerate(zip(Ws, bs)):
        rows = [([_dot(row, [a[t] for a in A]) for t in range(n)], bi + _dot(row, c)) for row, bi in zip(W, b)]
        if l == len(Ws) - 1:
            return hidden, rows
        hidden += rows
        bits, k = pat[k:k + len(rows)], k + len(rows)
        A = [g if on else [Z] * n for (g, _), on in zip(rows, bits)]
        c = [o if on else Z for (_, o), on in zip(rows, bits)]


def verify(Ws, bs, body, fail):
    n, N = len(Ws[0][0]), sum(len(b) for b in bs[:-1])
    keys = ["hyperplane"] + ["vertex"] * n + ["direction", "side", "side", "regular"]
    if [t[0] if t else "" for _, t in body] != keys:
        fail("malformed", "E_NS_SYNTAX", body[0][0] if body else 0, "wrong body lines (see the spec)")
    val = {}
    for (ln, toks), key in zip(body, keys):
        if key == "side":
            want = "plus" if key in val else "minus"
            if len(toks) != N + 2 or toks[1] != want or any(b not in ("0", "1") for b in toks[2:]):
                fail("malformed", "E_NS_SYNTAX", ln, f"expected: side {want} and {N} bits")
            vec = [int(b) for b in toks[2:]]
        else:
            vec = [_q(t) for t in toks[1:]]
            if len(vec) != n + (key == "hyperplane") or None in vec:
                fail("malformed", "E_NS_SYNTAX", ln, f"{key}: wrong count or non-canonical rational")
        val.setdefault(key, []).append((ln, vec))
    (lh, h), (ld, d), (lr, r) = val["hyperplane"][0], val["direction"][0], val["regular"][0]
    a, c, T = h[:n], h[n], [v for _, v in val["vertex"]]
    if not any(a):
        fail("reject", "E_NS_NORMAL", lh, "the hyperplane's normal is zero")
    for ln, v in val["vertex"] + [(lr, r)]:
        if _dot(a, v) + c != 0:
            fail("reject", "E_NS_OFF_PLANE", ln, "point not on the hyperplane")
    if _rank([[x - y for x, y in zip(v, T[0])] for v in T[1:]]) != n - 1:
        fail("reject", "E_NS_DEGENERATE", val["vertex"][0][0], "vertices not affinely independent")
    if _dot(a, d) == 0:
        fail("reject", "E_NS_DIRECTION", ld, "direction parallel to the hyperplane")
    derivs = []
    for (ls, pat), sgn in zip(val["side"], (-1, 1)):
        hidden, out = _local(Ws, bs, pat)
        pts = T + [[x + sgn * y for x, y in zip(v, d)] for v in T]
        for (g, o), on in zip(hidden, pat):
            if any((_dot(g, x) + o < 0) if on else (_dot(g, x) + o > 0) for x in pts):
                fail("reject", "E_NS_REGION", ls, "prism leaves the region of its pattern")
        derivs.append([_dot(g, d) for g, _ in out])
    if derivs[0] == derivs[1]:
        fail("reject", "E_NS_SMOOTH", ld, "equal directional derivatives on both sides")
    x = r
    for W, b in zip(Ws[:-1], bs[:-1]):
        z = [bi + _dot(row, x) for row, bi in zip(W, b)]
        if 0 in z:
            fail("reject", "E_NS_NOT_REGULAR", lr, "a hidden pre-activation vanishes at the regular point")
        x = [max(v, Z) for v in z]
    return "NOT-SHALLOW"


def check(cert):
    """Framework entry point (see proofs/check.py for ``cert``)."""
    from proofs import check as fw  # noqa: PLC0415  (the framework, standard library)

    def fail(kind, code, ln, msg):
        raise (fw.Reject if kind == "reject" else fw.Malformed)(code, ln, msg)

    verify(cert.weights, cert.biases, [(ln, toks) for ln, toks in cert.body], fail)
