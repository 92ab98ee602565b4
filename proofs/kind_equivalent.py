"""Checker for kind EQUIVALENT (proofs/lemmas/equivalent.md, proofs/spec-1.0-equivalent.md).

Standard library only. The body is a REGIONS body (proofs/kind_regions.py) for the
difference network ``h = f - g``, which this module rebuilds from the two embedded networks
exactly as the lemma says; the REGIONS rule verifies that the listed cells cover the domain,
and this rule verifies that the pattern-local affine map of ``h`` is zero on every cell.
"""

from fractions import Fraction

from proofs import kind_regions

__all__ = ["difference", "verify", "check"]

Z, ONE = Fraction(0), Fraction(1)


def _eye(n):
    return [[ONE if i == j else Z for j in range(n)] for i in range(n)]


def _pad(Ws, bs, H):
    """Pad to H hidden layers with the same function (lemma, (P0)-(P2))."""
    k = len(Ws) - 1
    if k == H:
        return Ws, bs
    if k == 0:
        W, b, m = Ws[0], bs[0], len(bs[0])
        hid = [[r for r in W] + [[-v for v in r] for r in W]] + [_eye(2 * m) for _ in range(H - 1)]
        hb = [list(b) + [-v for v in b]] + [[Z] * (2 * m) for _ in range(H - 1)]
        read = [[ONE if j == i else (-ONE if j == i + m else Z) for j in range(2 * m)] for i in range(m)]
        return hid + [read], hb + [[Z] * m]
    w = len(bs[-2])
    return (Ws[:-1] + [_eye(w) for _ in range(H - k)] + [Ws[-1]],
            bs[:-1] + [[Z] * w for _ in range(H - k)] + [bs[-1]])


def difference(Wf, bf, Wg, bg):
    """Layers (weights, biases) of the difference network h = f - g."""
    H = max(len(Wf), len(Wg)) - 1
    if H == 0:
        return ([[[a - b for a, b in zip(ra, rb)] for ra, rb in zip(Wf[0], Wg[0])]],
                [[a - b for a, b in zip(bf[0], bg[0])]])
    (F, fb), (G, gb) = _pad(Wf, bf, H), _pad(Wg, bg, H)
    Ws, bs = [[list(r) for r in F[0]] + [list(r) for r in G[0]]], [list(fb[0]) + list(gb[0])]
    for l in range(1, H):
        na, nb = len(F[l][0]), len(G[l][0])
        Ws.append([list(r) + [Z] * nb for r in F[l]] + [[Z] * na + list(r) for r in G[l]])
        bs.append(list(fb[l]) + list(gb[l]))
    Ws.append([list(ra) + [-v for v in rb] for ra, rb in zip(F[H], G[H])])
    bs.append([a - b for a, b in zip(fb[H], gb[H])])
    return Ws, bs


def verify(Wf, bf, Wg, bg, body, fail):
    """Verify ``f = g`` on the body's domain; returns the number of cells."""
    if len(Wf[0][0]) != len(Wg[0][0]) or len(bf[-1]) != len(bg[-1]):
        fail("reject", "E_SHAPE", 0, "the two networks have different input or output widths")
    Ws, bs = difference(Wf, bf, Wg, bg)
    if len(Ws) == 1:
        if len(body) != 1 or body[0][1][:1] != ["domain"]:
            fail("malformed", "E_SYNTAX", body[0][0] if body else 0, "affine pair: body is one domain line")
        if any(v for r in Ws[0] for v in r) or any(bs[0]):
            fail("reject", "E_NONZERO", 0, "the affine difference is not zero")
        return 0
    K = kind_regions.verify(Ws, bs, body, fail)
    out = [[Z] * len(bs[-1])]  # a dummy layer makes _local return the output rows too
    for ln, toks in body:
        if toks[0] == "cell":
            rows = kind_regions._local(Ws + [out], bs + [out[0]], tuple(int(t) for t in toks[2:]))
            if any(any(g) or c for g, c in rows[-len(bs[-1]):]):
                fail("reject", "E_NONZERO", ln, f"the difference is not zero on cell {toks[1]}")
    return K


def check(cert):
    """Framework entry point (see proofs/check.py for ``cert``)."""
    from proofs import check as fw  # noqa: PLC0415

    def fail(kind, code, ln, msg):
        raise (fw.Reject if kind == "reject" else fw.Malformed)(code, ln, msg)

    verify(cert.weights, cert.biases, cert.other_weights, cert.other_biases, list(cert.body), fail)
