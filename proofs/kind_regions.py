"""Checker for kind REGIONS (lemma and spec of the body: proofs/lemmas/regions.md).

Standard library only. ``verify(Ws, bs, body, fail)`` takes the network as lists of
``Fraction`` rows (``Ws[l-1]`` is ``W_l``, ``bs[l-1]`` is ``b_l``), the body as
``(lineno, tokens)`` pairs and a callback ``fail(kind, code, lineno, msg)`` that raises
(kind "reject" or "malformed"). It returns the number of cells. ``check(cert)`` adapts it to
the framework in ``proofs/check.py``. It re-derives every claim; it never searches.
"""

import re
from fractions import Fraction

__all__ = ["verify", "check"]

_Q = re.compile(r"-?(0|[1-9][0-9]{0,3999})(/[1-9][0-9]{0,3999})?\Z")
_INT = re.compile(r"(0|[1-9][0-9]{0,8})\Z")


def _q(tok):
    m = _Q.match(tok)
    if not m or tok == "-0":
        return None
    num, _, den = tok.partition("/")
    q = Fraction(int(num), int(den) if den else 1)
    return q if str(q) == tok else None


def _dot(a, x):
    return sum((u * v for u, v in zip(a, x)), Fraction(0))


def _local(Ws, bs, bits):
    """Pattern-frozen pre-activation (grad, offset) of every hidden neuron, in layer order."""
    n = len(Ws[0][0])
    A = [[Fraction(int(r == c)) for c in range(n)] for r in range(n)]
    c = [Fraction(0)] * n
    out, k = [], 0
    for W, b in zip(Ws[:-1], bs[:-1]):
        rows = [([sum((w * A[j][t] for j, w in enumerate(row)), Fraction(0)) for t in range(n)],
                 bi + _dot(row, c)) for row, bi in zip(W, b)]
        on = bits[k:k + len(rows)]
        k += len(rows)
        out.extend(rows)
        A = [g if o else [Fraction(0)] * n for (g, _), o in zip(rows, on)]
        c = [v if o else Fraction(0) for (_, v), o in zip(rows, on)]
    return out


def verify(Ws, bs, body, fail):
    n = len(Ws[0][0])
    names = [(l, i) for l in range(1, len(Ws)) for i in range(len(Ws[l - 1]))]
    N = len(names)
    index = {nm: k for k, nm in enumerate(names)}

    def bad(ln, msg, code="E_SYNTAX"):
        fail("malformed", code, ln, msg)

    def nums(ln, toks):
        out = [_q(t) for t in toks]
        if any(v is None for v in out):
            bad(ln, "number not in canonical spelling", "E_NUMBER")
        return out

    def ints(ln, toks):
        if not all(_INT.match(t) for t in toks):
            bad(ln, "expected a nonnegative integer")
        return [int(t) for t in toks]

    it = iter(body)
    ln, toks = next(it, (0, []))
    box = None
    if toks == ["domain", "all"]:
        pass
    elif len(toks) == 4 and toks[:2] == ["domain", "box"]:
        box = nums(ln, toks[2:])
        if not box[0] < box[1]:
            bad(ln, "box needs LO < HI", "E_VALUE")
    else:
        bad(ln, "expected 'domain all' or 'domain box LO HI'")
    ln, toks = next(it, (ln, []))
    if len(toks) != 2 or toks[0] != "cells":
        bad(ln, "expected 'cells K'")
    K = ints(ln, toks[1:])[0]
    pats, pts, forced, facets = [None] * K, [None] * K, {}, []
    for ln, toks in it:
        if len(toks) < 2:
            bad(ln, "short line")
        kw = toks[0]
        I = ints(ln, toks[1:2])[0]
        if I >= K:
            bad(ln, "cell index out of range", "E_INDEX")
        if kw == "cell":
            if len(toks) != 2 + N or any(t not in ("0", "1") for t in toks[2:]) or pats[I] is not None:
                bad(ln, "bad or repeated cell line")
            pats[I] = tuple(int(t) for t in toks[2:])
        elif kw == "point":
            if len(toks) != 2 + n or pts[I] is not None:
                bad(ln, "bad or repeated point line")
            pts[I] = (ln, nums(ln, toks[2:]))
        elif kw == "forced":
            if len(toks) < 5 or (len(toks) - 5) % 4:
                bad(ln, "bad forced line")
            l, i = ints(ln, toks[2:4])
            mu = nums(ln, toks[4:5])[0]
            terms = []
            for k in range(5, len(toks), 4):
                kind, a, b, lam = toks[k:k + 4]
                if kind not in ("n", "b"):
                    bad(ln, "term kind must be n or b")
                terms.append((kind, tuple(ints(ln, [a, b])), nums(ln, [lam])[0]))
            if (l, i) not in index or (I, index[(l, i)]) in forced:
                bad(ln, "unknown or repeated forced neuron", "E_INDEX")
            forced[(I, index[(l, i)])] = (ln, mu, terms)
        elif kw in ("facet", "facet-box"):
            m = 5 if kw == "facet" else 4
            if len(toks) != m + n:
                bad(ln, "bad facet line")
            facets.append((ln, kw, I, ints(ln, toks[2:m]), nums(ln, toks[m:])))
        else:
            bad(ln, f"unknown keyword {kw!r}")
    if any(p is None for p in pats) or any(p is None for p in pts):
        bad(ln, "every cell needs a cell line and a point line", "E_MISSING")
    if len(set(pats)) != K or K == 0:
        fail("reject", "E_DUPLICATE", ln, "patterns must be distinct and at least one cell listed")
    local = [_local(Ws, bs, p) for p in pats]

    def sgn(I, k):
        g, c = local[I][k]
        s = 1 if pats[I][k] else -1
        return [s * v for v in g], s * c

    def boxside(c, s):
        e = [Fraction(int(j == c)) * (1 if s == 0 else -1) for j in range(n)]
        return e, (-box[0] if s == 0 else box[1])

    # 1. interior points: strict signs (zero only for a neuron identically zero, pattern bit 0)
    for I in range(K):
        pln, x = pts[I]
        if box is not None and not all(box[0] < v < box[1] for v in x):
            fail("reject", "E_POINT", pln, "interior point not strictly inside the box")
        for k in range(N):
            g, c = local[I][k]
            z = _dot(g, x) + c
            zero_ok = not pats[I][k] and not any(g) and c == 0
            if not ((z > 0) if pats[I][k] else (z < 0 or zero_ok)):
                fail("reject", "E_SIGN", pln, f"neuron {names[k]} has the wrong sign at the point of cell {I}")
    # 2. covering: every absent sibling prefix needs a forced line with a valid certificate
    prefixes = {p[:k] for p in pats for k in range(N + 1)}
    used = set()
    for I in range(K):
        for k in range(N):
            sib = pats[I][:k] + (1 - pats[I][k],)
            if sib in prefixes:
                continue
            if (I, k) not in forced:
                fail("reject", "E_UNCOVERED", ln, f"cell {I}: neuron {names[k]} neither splits nor is forced")
            used.add((I, k))
            fln, mu, terms = forced[(I, k)]
            h, hc = sgn(I, k)
            acc, accc = [Fraction(0)] * n, mu
            if mu < 0:
                fail("reject", "E_MULTIPLIER", fln, "negative constant")
            for kind, (a, b), lam in terms:
                if lam < 0:
                    fail("reject", "E_MULTIPLIER", fln, "negative multiplier")
                if kind == "n":
                    t = index.get((a, b))
                    if t is None or t >= k:
                        fail("reject", "E_INDEX", fln, "term must name an earlier neuron")
                    g, c = sgn(I, t)
                else:
                    if box is None or a >= n or b > 1:
                        fail("reject", "E_INDEX", fln, "bad box side")
                    g, c = boxside(a, b)
                acc = [u + lam * v for u, v in zip(acc, g)]
                accc += lam * c
            if acc != h or accc != hc:
                fail("reject", "E_IDENTITY", fln, f"multipliers do not reproduce neuron {names[k]}")
    if set(forced) - used:
        fail("reject", "E_UNUSED", ln, "a forced line for a neuron that splits")
    # 3. facet witnesses: w on the facet's hyperplane, strict elsewhere (coincident allowed),
    #    and w in the closed region of the named neighbour
    for fln, kw, I, ids, w in facets:
        if box is not None and not all(box[0] <= v <= box[1] for v in w):
            fail("reject", "E_FACET", fln, "witness outside the box")
        if kw == "facet":
            l, i, J = ids
            k = index.get((l, i))
            if k is None or J >= K or J == I:
                fail("reject", "E_INDEX", fln, "bad neuron or neighbour")
            g0, c0 = sgn(I, k)
        else:
            a, b = ids
            if box is None or a >= n or b > 1:
                fail("reject", "E_INDEX", fln, "bad box side")
            g0, c0 = boxside(a, b)
        if _dot(g0, w) + c0 != 0 or not any(g0):
            fail("reject", "E_FACET", fln, "witness not on the facet")
        others = [sgn(I, t) for t in range(N)] + ([boxside(a, s) for a in range(n) for s in (0, 1)] if box else [])
        for g, c in others:
            v = _dot(g, w) + c
            par = all(g[p] * g0[q] == g[q] * g0[p] for p in range(n) for q in range(n))
            if v < 0 or (v == 0 and not par):
                fail("reject", "E_FACET", fln, "witness not in the relative interior of the facet")
        if kw == "facet":
            if pats[J][k] == pats[I][k]:
                fail("reject", "E_FACET", fln, "neighbour has the same sign of the facet neuron")
            if any(_dot(g, w) + c < 0 for g, c in (sgn(J, t) for t in range(N))):
                fail("reject", "E_FACET", fln, "witness not in the neighbour's region")
    return K


def check(cert):
    """Framework entry point (see proofs/check.py for ``cert``)."""
    from proofs import check as fw  # noqa: PLC0415  (the framework, standard library)

    def fail(kind, code, ln, msg):
        raise (fw.Reject if kind == "reject" else fw.Malformed)(code, ln, msg)

    verify(cert.weights, cert.biases, [(ln, toks) for ln, toks in cert.body], fail)
