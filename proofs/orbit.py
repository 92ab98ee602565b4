"""Canonical forms under permutation and positive scaling (proofs/lemmas/orbit.md; kind HIDDEN-SYMMETRY)."""
from itertools import groupby, permutations, product

LIMIT = 5040  # orderings of tied neurons tried

def canonical(Ws, bs, l=1, budget=None):
    """Canonical form (lemmas/orbit.md); None for a zero incoming row or over LIMIT orderings of tied rows."""
    if budget is None:
        Ws, bs, budget = [[list(r) for r in W] for W in Ws], [list(b) for b in bs], [LIMIT]
    if l >= len(Ws):
        return Ws, bs
    full = [list(w) + [c] for w, c in zip(Ws[l - 1], bs[l - 1])]  # the incoming rows (w, b) of layer l
    scales = [next((abs(v) for v in r if v != 0), None) for r in full]
    if None in scales:
        return None
    rows = [([v / s for v in r], s, i) for i, (r, s) in enumerate(zip(full, scales))]  # normalised, scale
    last = l + 1 == len(Ws)  # last hidden layer: sort by (row, scaled column), nothing to enumerate (orbit.md)
    best, key = None, lambda r: (r[0], [v[r[2]] * r[1] for v in Ws[l]], r[2]) if last else r[0]
    for choice in product(*[permutations(g) for _, g in groupby(sorted(rows, key=key), key=key)]):
        budget[0] -= 1
        order = [r for g in choice for r in g]
        nW, nb = list(Ws), list(bs)
        nW[l - 1], nb[l - 1] = [r[0][:-1] for r in order], [r[0][-1] for r in order]
        nW[l] = [[row[r[2]] * r[1] for r in order] for row in Ws[l]]
        done = canonical(nW, nb, l + 1, budget) if budget[0] >= 0 else None
        if done is None:  # over budget, or a zero row deeper
            return None
        best = done if best is None else min(best, done)
    return best

def outside_orbit(Ws, bs, Ws2, bs2):
    """True when (Ws2, bs2), of the same widths, is proved outside the orbit of (Ws, bs); None: undecided."""
    zeros = [[sum(not any(r) and not c for r, c in zip(W, b)) for W, b in zip(X[:-1], Y)] for X, Y in
             ((Ws, bs), (Ws2, bs2))]  # zero incoming rows per hidden layer: an orbit invariant
    c1, c2 = canonical(Ws, bs), canonical(Ws2, bs2)
    return zeros[0] != zeros[1] or (None if c1 is None else c2 is None or c1 != c2)  # None: zero rows, ties
