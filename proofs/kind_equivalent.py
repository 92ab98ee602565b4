"""Kind EQUIVALENT (proofs/spec-1.0-equivalent.md, proofs/lemmas/equivalent.md): REGIONS body of f - g or orbit."""

from proofs import kind_regions
from proofs.check import Net, Z, eye, ints, local_affine, qs, require, wellformed

def _pad(Ws, bs, H):
    """Pad to H hidden layers, same function (lemma, (P0)-(P2)); Wx + b becomes relu(Wx + b) - relu(-Wx - b)."""
    if len(Ws) == 1:
        W, b, m = Ws[0], bs[0], len(bs[0])
        Ws = [list(W) + [[-v for v in r] for r in W], [r + [-v for v in r] for r in eye(m)]]
        bs = [list(b) + [-v for v in b], [Z] * m]
    n, w = H + 1 - len(Ws), len(bs[-2])  # insert n identity layers of the last hidden width w
    return Ws[:-1] + [eye(w) for _ in range(n)] + Ws[-1:], bs[:-1] + [[Z] * w for _ in range(n)] + bs[-1:]

def difference(Wf, bf, Wg, bg):
    """Layers (weights, biases) of the difference network h = f - g (at least one hidden layer)."""
    H = max(len(Wf), len(Wg)) - 1
    (F, fb), (G, gb) = _pad(Wf, bf, H), _pad(Wg, bg, H)
    Ws = [list(F[0]) + list(G[0])] + [[list(r) + [Z] * len(G[l][0]) for r in F[l]]
                                      + [[Z] * len(F[l][0]) + list(r) for r in G[l]] for l in range(1, H)]
    Ws.append([list(ra) + [-v for v in rb] for ra, rb in zip(F[H], G[H])])
    return Ws, [list(fb[l]) + list(gb[l]) for l in range(H)] + [[a - b for a, b in zip(fb[H], gb[H])]]

def _orbit(f, g, body):
    """Lemma O: g is f moved by the permutation and positive scaling of the lines 'perm L', 'scale L' per layer."""
    require(f.arch == g.arch, "E_SHAPE", 0, "an orbit body needs equal architectures")
    wellformed(len(body) == 2 * (f.depth - 1), "E_SYNTAX", body[0][0] if body else 0,
               "one perm and one scale line per layer")
    W, b = list(f.W), list(f.b)
    for L in range(1, f.depth):
        (lp, tp), (ls, ts), n = body[2 * L - 2], body[2 * L - 1], f.arch[L]
        wellformed(tp[:2] == ["perm", str(L)] and ts[:2] == ["scale", str(L)] and len(tp) == len(ts) == n + 2,
                   "E_SYNTAX", lp, f"expected 'perm {L}' and 'scale {L}' with {n} entries")
        p, c = ints(tp[2:], lp), qs(ts[2:], ls)
        require(sorted(p) == list(range(n)) and min(c) > 0, "E_ORBIT_MAP", lp, "a bad perm or scale")
        W[L - 1] = [[c[j] * v for v in W[L - 1][p[j]]] for j in range(n)]
        b[L - 1] = [c[j] * b[L - 1][p[j]] for j in range(n)]
        W[L] = [[r[p[j]] / c[j] for j in range(n)] for r in W[L]]
    require(W == g.W and b == g.b, "E_NOT_DERIVED", 0, "the permutations and scalings do not map f onto g")
    return 0

def verify_pair(f, g, body):
    """Verify f = g (Net objects) on the domain of the body; returns the number of cells."""
    require(f.arch[0] == g.arch[0] and f.arch[-1] == g.arch[-1], "E_SHAPE", 0, "the widths n0 or m differ")
    if body and body[0][1] == ["orbit"]:
        return _orbit(f, g, body[1:])
    if f.depth == g.depth == 1:  # an affine pair: h has no hidden layer
        wellformed(len(body) == 1 and body[0][1][:1] == ["domain"], "E_SYNTAX", body[0][0] if body else 0,
                   "affine pair: body is one domain line")
        require(f.W == g.W and f.b == g.b, "E_NONZERO", 0, "the affine difference is not zero")
        return 0
    h = Net.of(*difference(f.W, f.b, g.W, g.b))
    cells, pats = kind_regions.verify_net(h, body)
    for ln, I in cells:
        require(not any(any(a) or c for a, c in local_affine(h, pats[I])[-1]), "E_NONZERO", ln,
                f"the difference is not zero on cell {I}")
    return len(pats)

def check(cert):
    verify_pair(cert.network, cert.other, cert.body)
