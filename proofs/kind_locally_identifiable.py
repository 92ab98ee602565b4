"""Kind LOCALLY-IDENTIFIABLE (proofs/spec-1.0.md section 4.1, proofs/lemmas/local_identifiability.md)."""

from proofs import check as fw

eliminate = fw.eliminate  # (rank, determinant): fraction-free elimination, in the framework

def jacobian_rows(net, x):
    """The m rows d f_o / d theta at x (pattern of x frozen), flatten order of the spec."""
    pre, _ = fw.forward(net, x)
    L, hs = net.depth, [list(x)] + [[v if v > 0 else fw.Z for v in z] for z in pre[:-1]]
    rows = []
    for o in range(net.arch[-1]):
        deltas = [None] * (L - 1) + [fw.eye(net.arch[-1])[o]]
        for l in range(L - 2, -1, -1):  # back-propagate d f_o / d z_l through the frozen pattern
            up = deltas[l + 1]
            deltas[l] = [sum((net.W[l + 1][k][i] * up[k] for k in range(len(up))), fw.Z) if pre[l][i] > 0 else fw.Z
                         for i in range(net.arch[l + 1])]
        rows.append([v for l in range(L) for v in [d * h for d in deltas[l] for h in hs[l]] + deltas[l]])
    return rows

def check(cert):
    net, body = cert.network, list(cert.body)
    D, N = net.num_parameters, net.num_hidden
    kws = [t[0] for _, t in body]
    fw.wellformed(len(body) >= 2 and kws[:2] == ["rank", "points"] and len(body[0][1]) == len(body[1][1]) == 2,
                  "E_SYNTAX", body[0][0] if body else 0, "body starts with 'rank R' and 'points K'")
    (lr, tr), (lp, tp) = body[0], body[1]
    R, K = fw.ints(tr[1:], lr)[0], fw.ints(tp[1:], lp)[0]
    fw.require(R == D - N, "E_RANK", lr, f"stated rank {R} is not D - N = {D - N}")
    fw.wellformed(K >= 1 and kws[2:2 + K] == ["point"] * K, "E_SYNTAX", lp, f"expected {K} 'point' lines (K >= 1)")
    rest = body[2 + K:]
    fw.wellformed([t[0] for _, t in rest] in ([], ["rows", "cols", "det"]), "E_SYNTAX", rest[0][0] if rest else 0,
                  "after the points only 'rows', 'cols', 'det' may follow")
    for l in range(net.depth - 1):
        for i, (w, b) in enumerate(zip(net.W[l], net.b[l])):
            fw.require(any(w) or b, "E_ZERO_ROW", 0, f"hidden neuron {l + 1}.{i + 1} has a zero incoming row")
    J = []
    for ln, t in body[2:2 + K]:
        fw.wellformed(len(t) == net.arch[0] + 1, "E_SHAPE", ln, f"a point has {net.arch[0]} coordinates")
        x = fw.qs(t[1:], ln)
        fw.require(all(v != 0 for z in fw.forward(net, x)[0][:-1] for v in z), "E_NOT_STRICT", ln,
                   "a hidden pre-activation is zero at this point")
        J += jacobian_rows(net, x)
    if not rest:
        fw.require(eliminate(J)[0] >= R, "E_RANK_LOW", lr, f"the Jacobian at the points has rank below {R}")
        return
    (l1, t1), (l2, t2), (l3, t3) = rest
    rows, cols = fw.ints(t1[1:], l1), fw.ints(t2[1:], l2)
    fw.wellformed(len(t3) == 2, "E_SYNTAX", l3, "expected 'det V'")
    V = fw.q(t3[1], l3)
    fw.require(len(rows) == R and len(cols) == R, "E_MINOR_SIZE", l1, f"the minor must be {R} x {R}")
    for ln, idx, top in ((l1, rows, len(J)), (l2, cols, D)):
        fw.require(len(set(idx)) == len(idx) and all(i < top for i in idx), "E_INDEX", ln,
                   f"indices must be distinct and below {top}")
    d = eliminate([[J[r][c] for c in cols] for r in rows])[1]
    fw.require(d == V, "E_DET_MISMATCH", l3, "the stated determinant is not the minor's determinant")
    fw.require(d != 0, "E_DET_ZERO", l3, "the minor is singular")
