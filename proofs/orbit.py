"""Canonical forms under permutation and positive scaling (proofs/lemmas/orbit.md; kind HIDDEN-SYMMETRY)."""
from itertools import groupby, islice, permutations, product

LIMIT = 5040  # orderings of tied neurons tried

def canonical(Ws, bs):
    """Canonical form (lemmas/orbit.md), no recursion; None for a zero incoming row or over LIMIT tie orderings."""
    stack, best, budget = [([[list(r) for r in W] for W in Ws], [list(b) for b in bs], 1)], None, LIMIT
    while stack and budget >= 0:
        Ws, bs, l = stack.pop()
        if l >= len(Ws):
            best = (Ws, bs) if best is None else min(best, (Ws, bs))
            continue
        full = [list(w) + [c] for w, c in zip(Ws[l - 1], bs[l - 1])]  # the incoming rows (w, b) of layer l
        scales = [next((abs(v) for v in r if v != 0), None) for r in full]
        if None in scales:
            return None
        rows = [([v / s for v in r], s, i) for i, (r, s) in enumerate(zip(full, scales))]  # normalised, scale
        last = l + 1 == len(Ws)  # last hidden layer: sort by (row, scaled column), nothing to enumerate (orbit.md)
        key = (lambda r: (r[0], [v[r[2]] * r[1] for v in Ws[l]], r[2])) if last else (lambda r: r[0])
        for choice in islice(product(*[permutations(g) for _, g in groupby(sorted(rows, key=key), key=key)]),
                             budget + 1):  # at most one ordering over LIMIT
            budget -= 1
            order = [r for g in choice for r in g]
            nW, nb = list(Ws), list(bs)
            nW[l - 1], nb[l - 1] = [r[0][:-1] for r in order], [r[0][-1] for r in order]
            nW[l] = [[row[r[2]] * r[1] for r in order] for row in Ws[l]]
            stack.append((nW, nb, l + 1))
    return best if budget >= 0 else None

def outside_orbit(Ws, bs, Ws2, bs2):
    """True when (Ws2, bs2), of the same widths, is proved outside the orbit of (Ws, bs); None: undecided."""
    zeros = [[sum(not any(r) and not c for r, c in zip(W, b)) for W, b in zip(X[:-1], Y)] for X, Y in
             ((Ws, bs), (Ws2, bs2))]  # zero incoming rows per hidden layer: an orbit invariant
    c1, c2 = canonical(Ws, bs), canonical(Ws2, bs2)
    return zeros[0] != zeros[1] or (None if c1 is None else c2 is None or c1 != c2)  # None: zero rows, ties
