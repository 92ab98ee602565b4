"""Kind REGIONS (proofs/spec-1.0-regions.md, proofs/lemmas/regions.md); checks every claim, never searches."""

from proofs.check import Z, dot, eye, hidden_forms, ints, q, qs, rank, require, wellformed

def verify_net(net, body):
    """Verify a REGIONS body for the ``check.Net`` net; returns its cell lines [(lineno, I)] and patterns."""
    def bad(ok, ln, msg, code="E_SYNTAX"):
        wellformed(ok, code, ln, msg)
    def side(ln, a, s):  # the box side b_(a,s) >= 0
        require(box is not None and a < n and s <= 1, "E_INDEX", ln, "bad box side")
        return [v if s == 0 else -v for v in eye(n)[a]], (-box[0] if s == 0 else box[1])
    n, N = net.arch[0], net.num_hidden
    names = [(l, i) for l in range(1, net.depth) for i in range(net.arch[l])]
    index = {nm: k for k, nm in enumerate(names)}
    it, box = iter(body), None  # reading: the malformed checks, line by line
    ln, toks = next(it, (0, []))
    if toks != ["domain", "all"]:
        bad(len(toks) == 4 and toks[:2] == ["domain", "box"], ln, "expected 'domain all' or 'domain box A B'")
        box = qs(toks[2:], ln, "E_NUMBER")  # E_NUMBER for too long numbers too (the spec)
        bad(box[0] < box[1], ln, "box needs LO < HI", "E_VALUE")
    ln, toks = next(it, (ln, []))
    bad(len(toks) == 2 and toks[0] == "cells", ln, "expected 'cells K'")
    K = ints(toks[1:], ln, True)[0]
    pats, pts, forced, facets, cells = {}, {}, {}, [], []  # dicts: K is not trusted before the lines are read
    for ln, toks in it:
        bad(len(toks) >= 2, ln, "short line")
        kw, I = toks[0], ints(toks[1:2], ln, True)[0]
        bad(I < K, ln, "cell index out of range", "E_INDEX")
        if kw == "cell":
            bad(len(toks) == 2 + N and set(toks[2:]) <= {"0", "1"} and I not in pats, ln, "bad cell line")
            pats[I], cells = tuple(int(t) for t in toks[2:]), cells + [(ln, I)]
        elif kw == "point":
            bad(len(toks) == 2 + n and I not in pts, ln, "bad or repeated point line")
            pts[I] = (ln, qs(toks[2:], ln, "E_NUMBER"))
        elif kw == "forced":
            bad(len(toks) >= 5 and (len(toks) - 5) % 4 == 0, ln, "bad forced line")
            (l, i), mu, terms = ints(toks[2:4], ln, True), q(toks[4], ln, "E_NUMBER"), []
            for kind, a, b, lam in zip(*[iter(toks[5:])] * 4):  # the terms, four tokens each
                bad(kind in ("n", "b"), ln, "term kind must be n or b")
                terms.append((kind, tuple(ints([a, b], ln, True)), q(lam, ln, "E_NUMBER")))
            bad((l, i) in index and (I, index[(l, i)]) not in forced, ln, "bad forced neuron", "E_INDEX")
            forced[(I, index[(l, i)])] = (ln, mu, terms)
        elif kw in ("facet", "facet-box"):
            m = 5 if kw == "facet" else 4
            bad(len(toks) == m + n, ln, "bad facet line")
            facets.append((ln, kw, I, ints(toks[2:m], ln, True), qs(toks[m:], ln, "E_NUMBER")))
        else:
            bad(False, ln, f"unknown keyword {kw!r}")
    bad(len(pats) == len(pts) == K, ln, "a cell without cell or point line", "E_MISSING")
    pats, pts = [pats[I] for I in range(K)], [pts[I] for I in range(K)]
    require(len(set(pats)) == K > 0, "E_DUPLICATE", ln, "no cell, or two cells with one pattern")
    # sgn[I][k]: the signed local pre-activation s_k(P_I) g_k of cell I, as (gradient, constant)
    sgn = [[(g, c) if p else ([-v for v in g], -c) for p, (g, c) in zip(P, hidden_forms(net, P))] for P in pats]
    sides = [side(ln, a, s) for a in range(n) for s in (0, 1)] if box else []  # the 2n box sides, >= 0 inside
    # 1. interior points: strict signs (zero only for a neuron identically zero, pattern bit 0)
    for I, (pln, x) in enumerate(pts):
        require(all(dot(g, x) + c > 0 for g, c in sides), "E_POINT", pln, "point not strictly inside the box")
        for k, (g, c) in enumerate(sgn[I]):
            require(dot(g, x) + c > 0 or not pats[I][k] and not any(g) and c == 0, "E_SIGN", pln,
                    f"neuron {names[k]} has the wrong sign at the point of cell {I}")
    # 2. covering: every absent sibling prefix needs a forced line with a valid certificate
    prefixes = {p[:k] for p in pats for k in range(N + 1)}
    unsplit = [(I, k) for I, P in enumerate(pats) for k in range(N) if P[:k] + (1 - P[k],) not in prefixes]
    for I, k in unsplit:
        require((I, k) in forced, "E_UNCOVERED", ln, f"cell {I}: {names[k]} neither splits nor forced")
        fln, mu, terms = forced[(I, k)]
        require(mu >= 0, "E_MULTIPLIER", fln, "negative constant")
        acc, accc = [Z] * n, mu
        for kind, (a, b), lam in terms:
            require(lam >= 0, "E_MULTIPLIER", fln, "negative multiplier")
            require(kind == "b" or index.get((a, b), k) < k, "E_INDEX", fln, "term must name an earlier neuron")
            g, c = sgn[I][index[(a, b)]] if kind == "n" else side(fln, a, b)
            acc, accc = [u + lam * v for u, v in zip(acc, g)], accc + lam * c
        require((acc, accc) == sgn[I][k], "E_IDENTITY", fln, f"the multipliers miss {names[k]}")
    require(not set(forced) - set(unsplit), "E_UNUSED", ln, "a forced line for a neuron that splits")
    # 3. facet witnesses: w on its hyperplane, strict on other walls (coincident allowed), in the closed neighbour
    for fln, kw, I, ids, w in facets:
        require(all(dot(g, w) + c >= 0 for g, c in sides), "E_FACET", fln, "outside the box")
        if kw == "facet":
            k, J = index.get(tuple(ids[:2])), ids[2]
            require(k is not None and J < K and J != I, "E_INDEX", fln, "bad neuron or neighbour")
        g0, c0 = sgn[I][k] if kw == "facet" else side(fln, *ids)
        vals = [(dot(g, w) + c, rank([g, g0]) < 2) for g, c in sgn[I] + sides]  # (value at w, parallel to g0)
        require(dot(g0, w) + c0 == 0 and any(g0) and all(v > 0 or v == 0 and par for v, par in vals) and (
            kw != "facet" or pats[J][k] != pats[I][k] and all(dot(g, w) + c >= 0 for g, c in sgn[J])),
            "E_FACET", fln, "witness not inside the facet, or not in a neighbour across it")
    return cells, pats

def check(cert):
    verify_net(cert.network, cert.body)
