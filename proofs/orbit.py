"""Canonical forms under permutation and positive scaling (proofs/lemmas/orbit.md; kind HIDDEN-SYMMETRY)."""

from itertools import groupby, permutations, product

LIMIT = 5040

def _canon(Ws, bs, l, budget):
    if l >= len(Ws):
        return Ws, bs
    rows = []  # (normalised row (w, b), scale, neuron index) of hidden layer l
    for i, (w, c) in enumerate(zip(Ws[l - 1], bs[l - 1])):
        full = list(w) + [c]
        s = next((abs(v) for v in full if v != 0), None)
        if s is None:
            return None
        rows.append(([v / s for v in full], s, i))
    rows.sort(key=lambda r: r[0])
    groups = [list(g) for _, g in groupby(rows, key=lambda r: r[0])]
    best = None
    for choice in product(*[permutations(g) for g in groups]):
        budget[0] -= 1
        if budget[0] < 0:
            return None
        order = [r for g in choice for r in g]
        nW, nb = list(Ws), list(bs)
        nW[l - 1], nb[l - 1] = [r[0][:-1] for r in order], [r[0][-1] for r in order]
        nW[l] = [[row[r[2]] * r[1] for r in order] for row in Ws[l]]
        done = _canon(nW, nb, l + 1, budget)
        if done is None:
            return None
        best = done if best is None else min(best, done)
    return best

def canonical(Ws, bs):
    return _canon([[list(r) for r in W] for W in Ws], [list(b) for b in bs], 1, [LIMIT])

def outside_orbit(Ws, bs, Ws2, bs2):
    """True when (Ws2, bs2) is proved outside the orbit of (Ws, bs); None when undecided."""
    if [len(W) for W in Ws] != [len(W) for W in Ws2] or len(Ws[0][0]) != len(Ws2[0][0]):
        return True
    c1, c2 = canonical(Ws, bs), canonical(Ws2, bs2)
    if c1 is None:
        return None  # zero rows or too many ties in theta: the form is not a complete invariant
    return c2 is None or c1 != c2
