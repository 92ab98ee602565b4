"""Kind LOCALLY-IDENTIFIABLE (proofs/spec-1.0.md section 4.1, proofs/lemmas/local_identifiability.md)."""

from proofs.check import Z, dot, eliminate, eye, forward, hidden_pre, ints, q, qs, rank_mod, require, wellformed

def jacobian_rows(net, x):
    """The m rows d f_o / d theta at x (pattern of x frozen), flatten order of the spec."""
    pre, rows = forward(net, x)[0], []
    hs = [list(x)] + [[max(v, Z) for v in z] for z in pre[:-1]]
    for delta in eye(net.arch[-1]):
        deltas = [delta]  # back-propagate d f_o / d z_l through the frozen pattern, output layer first
        for W, z in zip(net.W[:0:-1], pre[-2::-1]):
            deltas.insert(0, [dot([r[i] for r in W], deltas[0]) if v > 0 else Z for i, v in enumerate(z)])
        rows.append([v for d, h in zip(deltas, hs) for v in [a * b for a in d for b in h] + d])
    return rows

def check(cert):
    net, body = cert.network, cert.body
    D, N, kws = net.num_parameters, net.num_hidden, [t[0] for _, t in body]
    wellformed(kws[:2] == ["rank", "points"] and len(body[0][1]) == len(body[1][1]) == 2, "E_SYNTAX",
               body[0][0] if body else 0, "body starts with 'rank R' and 'points K'")
    (lr, tr), (lp, tp) = body[:2]
    R, K = ints(tr[1:], lr)[0], ints(tp[1:], lp)[0]
    require(R == D - N, "E_RANK", lr, f"stated rank {R} is not D - N = {D - N}")
    wellformed(K >= 1 and kws[2:2 + K] == ["point"] * K, "E_SYNTAX", lp, "expected K >= 1 'point' lines")
    rest = body[2 + K:]
    wellformed(kws[2 + K:] in ([], ["rows", "cols", "det"]), "E_SYNTAX", rest[0][0] if rest else 0,
               "after the points only 'rows', 'cols', 'det' may follow")
    require(all(any(w) or b for W, bs in zip(net.W[:-1], net.b) for w, b in zip(W, bs)), "E_ZERO_ROW", 0,
            "a hidden neuron has a zero incoming row")
    J = []
    for ln, t in body[2:2 + K]:
        wellformed(len(t) == net.arch[0] + 1, "E_SHAPE", ln, f"a point has {net.arch[0]} coordinates")
        x = qs(t[1:], ln)
        require(0 not in hidden_pre(net, x), "E_NOT_STRICT", ln, "a hidden pre-activation is zero at this point")
        J += jacobian_rows(net, x)
    if not rest:
        require(rank_mod(J) >= R or eliminate(J)[0] >= R, "E_RANK_LOW", lr, f"the Jacobian has rank < {R}")
        return
    (l1, t1), (l2, t2), (l3, t3) = rest
    rows, cols = ints(t1[1:], l1), ints(t2[1:], l2)
    wellformed(len(t3) == 2, "E_SYNTAX", l3, "expected 'det V'")
    V = q(t3[1], l3)
    require(len(rows) == R and len(cols) == R, "E_MINOR_SIZE", l1, f"the minor must be {R} x {R}")
    for ln, idx, top in ((l1, rows, len(J)), (l2, cols, D)):
        require(len(set(idx)) == len(idx) and all(i < top for i in idx), "E_INDEX", ln,
                f"indices must be distinct and below {top}")
    d = eliminate([[J[r][c] for c in cols] for r in rows])[1]
    require(d == V, "E_DET_MISMATCH", l3, "the stated determinant is not the minor's determinant")
    require(d != 0, "E_DET_ZERO", l3, "the minor is singular")
