"""Checker for kind NOT-EQUIVALENT (proofs/lemmas/not_equivalent.md, proofs/spec-1.0.md).

Body: ``witness X..`` (n0 rationals), ``value Y..`` (f's m outputs), ``other-value Z..``
(g's m outputs).  Both outputs are recomputed exactly; they must match the stated values
and differ from each other.
"""

from proofs import check as fw

__all__ = ["check"]


def check(cert):
    f, g, body = cert.network, cert.other, cert.body
    if [t[0] for _, t in body] != ["witness", "value", "other-value"]:
        ln = body[0][0] if body else 0
        raise fw.Malformed("E_SYNTAX", ln, "body must be the lines witness, value, other-value")
    (lw, tw), (lv, tv), (lo, to) = body
    if f.arch[0] != g.arch[0] or f.arch[-1] != g.arch[-1]:
        raise fw.Reject("E_SHAPE", lw, "the two networks have different input or output widths")
    if len(tw) != f.arch[0] + 1 or len(tv) != f.arch[-1] + 1 or len(to) != g.arch[-1] + 1:
        raise fw.Malformed("E_SHAPE", lw, "wrong number of coordinates in witness, value or other-value")
    x = [fw.q(t, lw) for t in tw[1:]]
    y, z = [fw.q(t, lv) for t in tv[1:]], [fw.q(t, lo) for t in to[1:]]
    if fw.forward(f, x)[1] != y:
        raise fw.Reject("E_VALUE", lv, "value is not f(witness)")
    if fw.forward(g, x)[1] != z:
        raise fw.Reject("E_VALUE", lo, "other-value is not g(witness)")
    if y == z:
        raise fw.Reject("E_EQUAL", lo, "f and g agree at the witness")
