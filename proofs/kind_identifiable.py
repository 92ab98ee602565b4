"""Checker for kind IDENTIFIABLE (proofs/spec-1.0-identifiable.md).

Dispatch on the first body line ``rule NAME``. ``rule shallow-1`` (Theorem 2 and Lemma 4 of
proofs/lemmas/shallow.md): one hidden layer, every w_j != 0 and V_j != 0, pairwise distinct
hyperplanes, and ``exclude`` steps that leave no nonempty S with sum V_j w_j^T = 0.
"""

from fractions import Fraction

__all__ = ["MAX_EXHAUSTIVE", "check"]

MAX_EXHAUSTIVE = 24
Z = Fraction(0)


def _rank(rows):
    rows, r = [list(x) for x in rows], 0
    for c in range(len(rows[0]) if rows else 0):
        p = next((i for i in range(r, len(rows)) if rows[i][c]), None)
        if p is None:
            continue
        rows[r], rows[p] = rows[p], rows[r]
        for i in range(r + 1, len(rows)):
            if rows[i][c]:
                f = rows[i][c] / rows[r][c]
                rows[i] = [x - f * y for x, y in zip(rows[i], rows[r])]
        r += 1
    return r


def _zero_sum_subset(vecs):
    """True iff some nonempty subset sums to zero (meet in the middle)."""
    h = len(vecs) // 2

    def sums(part):
        out = [((Z,) * len(vecs[0]), False)]
        for v in part:
            out += [(tuple(a + c for a, c in zip(s, v)), True) for s, _ in out]
        return out
    left = {}
    for s, ne in sums(vecs[:h]):
        left[s] = left.get(s, False) or ne
    return any(tuple(-a for a in s) in left and (ne or left[tuple(-a for a in s)]) for s, ne in sums(vecs[h:]))


def _shallow_1(cert, fw, body):
    net = cert.network
    if net.depth != 2:
        raise fw.Reject("E_DEPTH", body[0][0], "rule shallow-1 needs one hidden layer")
    W, b, V = net.W[0], net.b[0], net.W[1]
    n, m, n0 = len(W), len(V), len(W[0])
    rhos = set()
    for j in range(n):
        a = next((v for v in W[j] if v), None)
        if a is None or not any(V[o][j] for o in range(m)):
            raise fw.Reject("E_ZERO_ROW", body[0][0], f"neuron {j} has a zero incoming weight or outgoing column")
        rhos.add(tuple(v / a for v in list(W[j]) + [b[j]]))
    if len(rhos) != n:
        raise fw.Reject("E_SAME_HYPERPLANE", body[0][0], "two neurons share a hyperplane")
    u = [[V[o][j] * W[j][i] for o in range(m) for i in range(n0)] for j in range(n)]
    R = list(range(n))
    for ln, t in body[1:]:
        if t[0] != "exclude" or len(t) < 2:
            raise fw.Malformed("E_SYNTAX", ln, "expected 'exclude positive|independent|exhaustive'")
        if not R:
            raise fw.Malformed("E_SYNTAX", ln, "no neurons left to exclude")
        if t[1] == "positive" and len(t) == 2 + m * n0:
            phi = [fw.q(x, ln) for x in t[2:]]
            vals = {j: sum(p * x for p, x in zip(phi, u[j])) for j in R}
            if any(v < 0 for v in vals.values()) or all(v == 0 for v in vals.values()):
                raise fw.Reject("E_NOT_POSITIVE", ln, "phi is negative on some u_j (or zero on all)")
            R = [j for j in R if vals[j] == 0]
        elif t[1:] == ["independent"]:
            if _rank([u[j] for j in R]) != len(R):
                raise fw.Reject("E_DEPENDENT", ln, "the remaining u_j are linearly dependent")
            R = []
        elif t[1:] == ["exhaustive"]:
            if len(R) > MAX_EXHAUSTIVE:
                raise fw.Reject("E_LIMIT", ln, f"exhaustive step limited to {MAX_EXHAUSTIVE} neurons")
            if _zero_sum_subset([u[j] for j in R]):
                raise fw.Reject("E_FLIP_SET", ln, "a nonempty set S has sum V_j w_j^T = 0")
            R = []
        else:
            raise fw.Malformed("E_SYNTAX", ln, "unknown or misshapen exclude step")
    if R:
        raise fw.Reject("E_INCOMPLETE", body[-1][0], f"{len(R)} neurons not excluded from flip sets")


RULES = {"shallow-1": _shallow_1}


def check(cert):
    from proofs import check as fw  # noqa: PLC0415

    body = list(cert.body)
    if not body or body[0][1][0] != "rule" or len(body[0][1]) != 2:
        raise fw.Malformed("E_SYNTAX", body[0][0] if body else 0, "body starts with 'rule NAME'")
    rule = RULES.get(body[0][1][1])
    if rule is None:
        raise fw.Reject("E_RULE_UNKNOWN", body[0][0], f"unknown IDENTIFIABLE rule {body[0][1][1]!r}")
    rule(cert, fw, body)
