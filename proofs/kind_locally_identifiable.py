"""Checker for kind LOCALLY-IDENTIFIABLE (proofs/lemmas/local_identifiability.md).

Body (proofs/spec-1.0.md): ``rank R`` with R = D - N; ``points K``; K lines ``point X..``;
optionally the minor hint ``rows r..`` (indices k*m + o of the stacked Jacobian: point k,
output o), ``cols c..`` (parameter indices, order W_1 row-major, b_1, W_2, ...), ``det V``.
The checker requires strict signs of every hidden pre-activation at every point, a nonzero
incoming row for every hidden neuron, recomputes the parameter Jacobian exactly and then
either the stated minor's determinant (equal to V, nonzero) or the rank (>= R).
"""

import math
from fractions import Fraction

from proofs import check as fw

__all__ = ["check", "jacobian_rows", "eliminate"]

Z = Fraction(0)


def jacobian_rows(net, x):
    """The m rows d f_o / d theta at x (pattern of x frozen), flatten order of the spec."""
    pre, _ = fw.forward(net, x)
    L, hs = net.depth, [list(x)]
    for l in range(L - 1):
        hs.append([v if v > 0 else Z for v in pre[l]])
    rows = []
    for o in range(net.arch[-1]):
        deltas = [None] * L
        deltas[L - 1] = [Fraction(int(i == o)) for i in range(net.arch[-1])]
        for l in range(L - 2, -1, -1):
            up = deltas[l + 1]
            deltas[l] = [sum((net.W[l + 1][k][i] * up[k] for k in range(len(up))), Z) if pre[l][i] > 0 else Z
                         for i in range(net.arch[l + 1])]
        row = []
        for l in range(L):
            row += [d * h for d in deltas[l] for h in hs[l]]
            row += list(deltas[l])
        rows.append(row)
    return rows


def eliminate(M):
    """(rank, determinant if M is square else 0): rows cleared of denominators, then
    fraction-free (Bareiss) elimination over the integers, every division exact."""
    rows, scale = [], 1
    for r in M:
        d = math.lcm(*(v.denominator for v in r)) if r else 1
        rows.append([int(v * d) for v in r])
        scale *= d
    ncol, r, prev, sign = (len(rows[0]) if rows else 0), 0, 1, 1
    for c in range(ncol):
        piv = next((i for i in range(r, len(rows)) if rows[i][c]), None)
        if piv is None:
            continue
        if piv != r:
            rows[r], rows[piv], sign = rows[piv], rows[r], -sign
        p, top = rows[r][c], rows[r]
        for i in range(r + 1, len(rows)):
            a = rows[i][c]
            rows[i] = [0] * (c + 1) + [(p * v - a * t) // prev for v, t in zip(rows[i][c + 1:], top[c + 1:])]
        prev, r = p, r + 1
        if r == len(rows):
            break
    return r, (Fraction(sign * prev, scale) if len(rows) == ncol == r else Z)


def check(cert):
    net, body = cert.network, list(cert.body)
    D, N = net.num_parameters, net.num_hidden
    kws = [t[0] for _, t in body]
    if len(body) < 2 or kws[:2] != ["rank", "points"] or len(body[0][1]) != 2 or len(body[1][1]) != 2:
        raise fw.Malformed("E_SYNTAX", body[0][0] if body else 0, "body starts with 'rank R' and 'points K'")
    (lr, tr), (lp, tp) = body[0], body[1]
    R, K = fw.ints(tr[1:], lr)[0], fw.ints(tp[1:], lp)[0]
    if R != D - N:
        raise fw.Reject("E_RANK", lr, f"stated rank {R} is not D - N = {D - N}")
    if K < 1 or kws[2:2 + K] != ["point"] * K:
        raise fw.Malformed("E_SYNTAX", lp, f"expected {K} 'point' lines (K >= 1)")
    rest = body[2 + K:]
    if [t[0] for _, t in rest] not in ([], ["rows", "cols", "det"]):
        raise fw.Malformed("E_SYNTAX", rest[0][0], "after the points only 'rows', 'cols', 'det' may follow")
    for l in range(net.depth - 1):
        for i, (w, b) in enumerate(zip(net.W[l], net.b[l])):
            if not any(w) and not b:
                raise fw.Reject("E_ZERO_ROW", 0, f"hidden neuron {l + 1}.{i + 1} has a zero incoming row")
    J = []
    for ln, t in body[2:2 + K]:
        if len(t) != net.arch[0] + 1:
            raise fw.Malformed("E_SHAPE", ln, f"a point has {net.arch[0]} coordinates")
        x = [fw.q(v, ln) for v in t[1:]]
        pre, _ = fw.forward(net, x)
        if any(v == 0 for z in pre[:-1] for v in z):
            raise fw.Reject("E_NOT_STRICT", ln, "a hidden pre-activation is zero at this point")
        J += jacobian_rows(net, x)
    if not rest:
        if eliminate(J)[0] < R:
            raise fw.Reject("E_RANK_LOW", lr, f"the Jacobian at the points has rank below {R}")
        return
    (l1, t1), (l2, t2), (l3, t3) = rest
    rows, cols = fw.ints(t1[1:], l1), fw.ints(t2[1:], l2)
    if len(t3) != 2:
        raise fw.Malformed("E_SYNTAX", l3, "expected 'det V'")
    V = fw.q(t3[1], l3)
    if len(rows) != R or len(cols) != R:
        raise fw.Reject("E_MINOR_SIZE", l1, f"the minor must be {R} x {R}")
    for ln, idx, top in ((l1, rows, len(J)), (l2, cols, D)):
        if len(set(idx)) != len(idx) or any(i >= top for i in idx):
            raise fw.Reject("E_INDEX", ln, f"indices must be distinct and below {top}")
    d = eliminate([[J[r][c] for c in cols] for r in rows])[1]
    if d != V:
        raise fw.Reject("E_DET_MISMATCH", l3, "the stated determinant is not the minor's determinant")
    if d == 0:
        raise fw.Reject("E_DET_ZERO", l3, "the minor is singular")
