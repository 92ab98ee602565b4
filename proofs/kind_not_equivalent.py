"""Kind NOT-EQUIVALENT (proofs/spec-1.0.md section 4.2, proofs/lemmas/not_equivalent.md)."""

from proofs import check as fw

def check(cert):
    f, g, body = cert.network, cert.other, cert.body
    fw.wellformed([t[0] for _, t in body] == ["witness", "value", "other-value"], "E_SYNTAX",
                  body[0][0] if body else 0, "body must be the lines witness, value, other-value")
    (lw, tw), (lv, tv), (lo, to) = body
    fw.require(f.arch[0] == g.arch[0] and f.arch[-1] == g.arch[-1], "E_SHAPE", lw,
               "the two networks have different input or output widths")
    fw.wellformed(len(tw) == f.arch[0] + 1 and len(tv) == len(to) == f.arch[-1] + 1, "E_SHAPE", lw,
                  "wrong number of coordinates in witness, value or other-value")
    x, y, z = fw.qs(tw[1:], lw), fw.qs(tv[1:], lv), fw.qs(to[1:], lo)
    fw.require(fw.forward(f, x)[1] == y, "E_VALUE", lv, "value is not f(witness)")
    fw.require(fw.forward(g, x)[1] == z, "E_VALUE", lo, "other-value is not g(witness)")
    fw.require(y != z, "E_EQUAL", lo, "f and g agree at the witness")
