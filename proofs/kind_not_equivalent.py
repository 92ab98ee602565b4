"""Kind NOT-EQUIVALENT (proofs/spec-1.0.md section 4.2, proofs/lemmas/not_equivalent.md)."""

from proofs.check import forward, qs, require, wellformed

def check(cert):
    f, g, body = cert.network, cert.other, cert.body
    wellformed([t[0] for _, t in body] == ["witness", "value", "other-value"], "E_SYNTAX",
               body[0][0] if body else 0, "body must be the lines witness, value, other-value")
    (lw, tw), (lv, tv), (lo, to) = body
    require(f.arch[0] == g.arch[0] and f.arch[-1] == g.arch[-1], "E_SHAPE", lw, "the widths n0 or m differ")
    wellformed(len(tw) == f.arch[0] + 1 and len(tv) == len(to) == f.arch[-1] + 1, "E_SHAPE", lw,
               "wrong number of coordinates in witness, value or other-value")
    x, y, z = qs(tw[1:], lw), qs(tv[1:], lv), qs(to[1:], lo)
    require(forward(f, x)[1] == y, "E_VALUE", lv, "value is not f(witness)")
    require(forward(g, x)[1] == z, "E_VALUE", lo, "other-value is not g(witness)")
    require(y != z, "E_EQUAL", lo, "f and g agree at the witness")
