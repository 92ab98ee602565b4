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


def _q(tok):
    m = _Q.match(tok)
    if not m or tok == "-0":
        return None
    q = Fraction(int(m.group(0).split("/")[0]), int(m.group(2)[1:]) if m.group(2) else 1)
    return q if str(q) == tok else None


def _rank(rows):
    rows = [list(r) for r in rows]
    rank, col = 0, 0
    while rows and rank < len(rows) and col < len(rows[0]):
        piv = next((k for k in range(rank, len(rows)) if rows[k][col] != 0), None)
        if piv is None:
            col += 1
            continue
        rows[rank], rows[piv] = rows[piv], rows[rank]
        for k in range(rank + 1, len(rows)):
            f = rows[k][col] / rows[rank][col]
            rows[k] = [a - f * b for a, b in zip(rows[k], rows[rank])]
        rank, col = rank + 1, col + 1
    return rank


def _local(Ws, bs, pat):
    """P-local forms: list per hidden layer of (grad, offset) rows, and the output rows."""
    n = len(Ws[0][0])
    A = [[Fraction(int(r == c)) for c in range(n)] for r in range(n)]
    c = [Fraction(0)] * n
    hidden, k = [], 0
    for l, (W, b) in enumerate(zip(Ws, bs)):
        rows = [([sum(w * A[j][t] for j, w in enumerate(row)) for t in range(n)],
                 bi + sum(w * c[j] for j, w in enumerate(row))) for row, bi in zip(W, b)]
        if l == len(Ws) - 1:
            return hidden, rows
        hidden.append(rows)
        bits = pat[k:k + len(rows)]
        k += len(rows)
        A = [g if on else [Fraction(0)] * n for (g, _), on in zip(rows, bits)]
        c = [o if on else Fraction(0) for (_, o), on in zip(rows, bits)]


def _dot(a, x):
    return sum(u * v for u, v in zip(a, x))


def verify(Ws, bs, body, fail):
    n, N = len(Ws[0][0]), sum(len(b) for b in bs[:-1])
    keys = ["hyperplane"] + ["vertex"] * n + ["direction", "side", "side", "regular"]
    if [t[0] if t else "" for _, t in body] != keys:
        fail("malformed", "E_NS_SYNTAX", body[0][0] if body else 0,
             "expected hyperplane, %d vertex lines, direction, side minus, side plus, regular" % n)
    val = {}
    for (ln, toks), key in zip(body, keys):
        if key == "side":
            if len(toks) != N + 2 or toks[1] != ["minus", "plus"][key in val] or any(b not in "01" or len(b) != 1 for b in toks[2:]):
                fail("malformed", "E_NS_SYNTAX", ln, "side line: side minus|plus and %d bits" % N)
            vec = [int(b) for b in toks[2:]]
        else:
            vec = [_q(t) for t in toks[1:]]
            if len(vec) != n + (key == "hyperplane") or None in vec:
                fail("malformed", "E_NS_SYNTAX", ln, "%s: expected %d canonical rationals" % (key, n + (key == "hyperplane")))
        val.setdefault(key, []).append((ln, vec))
    (lh, h), = val["hyperplane"]
    a, c = h[:n], h[n]
    if not any(a):
        fail("reject", "E_NS_NORMAL", lh, "the hyperplane's normal is zero")
    T = [v for _, v in val["vertex"]]
    for ln, v in val["vertex"]:
        if _dot(a, v) + c != 0:
            fail("reject", "E_NS_OFF_PLANE", ln, "vertex not on the hyperplane")
    if _rank([[x - y for x, y in zip(v, T[0])] for v in T[1:]]) != n - 1:
        fail("reject", "E_NS_DEGENERATE", val["vertex"][0][0], "vertices not affinely independent")
    (ld, d), = val["direction"]
    if _dot(a, d) == 0:
        fail("reject", "E_NS_DIRECTION", ld, "direction parallel to the hyperplane")
    outs = []
    for (ls, pat), sgn in zip(val["side"], (-1, 1)):
        hidden, out = _local(Ws, bs, pat)
        pts = T + [[x + sgn * y for x, y in zip(v, d)] for v in T]
        k = 0
        for rows in hidden:
            for g, o in rows:
                for x in pts:
                    z = _dot(g, x) + o
                    if (pat[k] and z < 0) or (not pat[k] and z > 0):
                        fail("reject", "E_NS_REGION", ls, "prism leaves the region of its pattern")
                k += 1
        outs.append([_dot(g, d) for g, _ in out])
    if outs[0] == outs[1]:
        fail("reject", "E_NS_SMOOTH", ld, "equal directional derivatives on both sides")
    (lr, r), = val["regular"]
    if _dot(a, r) + c != 0:
        fail("reject", "E_NS_OFF_PLANE", lr, "regular point not on the hyperplane")
    x = r
    for W, b in zip(Ws[:-1], bs[:-1]):
        z = [bi + _dot(row, x) for row, bi in zip(W, b)]
        if any(v == 0 for v in z):
            fail("reject", "E_NS_NOT_REGULAR", lr, "a hidden pre-activation vanishes at the regular point")
        x = [max(v, Fraction(0)) for v in z]
    return "NOT-SHALLOW"


def check(cert):
    """Framework entry point (see proofs/check.py for ``cert``)."""
    from proofs import check as fw  # noqa: PLC0415  (the framework, standard library)

    def fail(kind, code, ln, msg):
        raise (fw.Reject if kind == "reject" else fw.Malformed)(code, ln, msg)

    body = [(ln, toks) for ln, toks in cert.body]
    verify(cert.weights, cert.biases, body, fail)
