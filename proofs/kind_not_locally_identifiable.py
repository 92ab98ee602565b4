"""Checker for kind NOT-LOCALLY-IDENTIFIABLE (proofs/spec-1.0-not-locally-identifiable.md).

Body: ``mechanism NAME L I [J]``, ``interval T``, ``delta`` (D rationals), ``invariant NAME``,
``witness`` line(s). The family theta + t*Delta (0 <= t <= T) keeps the function by the
mechanism (its support and side conditions, checked at t = 0 and t = T: Lemma 2 of
proofs/lemmas/not_locally_identifiable.md) and leaves the orbit for all but finitely many t by
the invariant (Lemma 3), certified at the witness points.
"""

from fractions import Fraction

from proofs import check as fw

__all__ = ["check"]

Z = Fraction(0)
ONE, TWO = ("active", "dead", "unused"), ("proportional", "opposite")


def _ratio(u, v):
    """lam with v = lam * u (u nonzero), else None."""
    k = next((k for k, x in enumerate(u) if x), None)
    lam = None if k is None else v[k] / u[k]
    return lam if lam is not None and all(y == lam * x for x, y in zip(u, v)) else None


def check(cert):
    net, body = cert.network, cert.body
    keys, ln = [t[0] for _, t in body], body[0][0] if body else 0
    if keys[:4] != ["mechanism", "interval", "delta", "invariant"] or set(keys[4:]) - {"witness"} \
            or len(body) < 5 or len(body[0][1]) < 4 or len(body[1][1]) != 2 or len(body[3][1]) != 2:
        raise fw.Malformed("E_SYNTAX", ln, "expected mechanism, interval, delta, invariant, witness lines")
    (lm, tm), (li, ti), (ld, td), (lv, tv), wit = *body[:4], body[4:]
    name, idx, inv = tm[1], fw.ints(tm[2:], lm), tv[1]
    if name not in ONE + TWO:
        raise fw.Malformed("E_MECHANISM", lm, f"unknown mechanism {name!r}")
    if inv not in ("preactivation", "contribution"):
        raise fw.Malformed("E_METHOD", lv, f"unknown invariant {inv!r}")
    if len(idx) != (3 if name in TWO else 2) or len(wit) != (2 if inv == "preactivation" else 1):
        raise fw.Malformed("E_SYNTAX", lm, "wrong number of neuron indices or witness lines")
    if len(td) != net.num_parameters + 1 or any(len(t) != net.arch[0] + 1 for _, t in wit):
        raise fw.Malformed("E_SHAPE", ld, "delta needs D numbers and every witness n0")
    T, d = fw.q(ti[1], li), [fw.q(v, ld) for v in td[1:]]
    xs = [[fw.q(v, n) for v in t[1:]] for n, t in wit]
    L, I, J = idx[0], idx[1], idx[-1]
    if not 1 <= L < net.depth or any(not 0 <= k < net.arch[L] for k in idx[1:]) or (name in TWO and I == J):
        raise fw.Reject("E_INDEX", lm, "L must be a hidden layer and the neurons in range and distinct")
    if T <= 0:
        raise fw.Reject("E_INTERVAL", li, "T must be positive")
    dW, db, k = [], [], 0
    for a, m in zip(net.arch, net.arch[1:]):
        dW.append([d[k + i * a:k + (i + 1) * a] for i in range(m)])
        db.append(d[k + a * m:k + a * m + m])
        k += a * m + m
    l0, W, b, V = L - 1, net.W[L - 1], net.b[L - 1], net.W[L]
    R = lambda i: {("w", l0, i, j) for j in range(net.arch[l0])} | {("b", l0, i, None)}  # noqa: E731
    C = lambda i: {("w", L, o, i) for o in range(len(V))}  # noqa: E731
    B, bi = {("b", L, o, None) for o in range(len(V))}, lambda i: {("b", l0, i, None)}  # noqa: E731
    allowed = {"active": bi(I) | B, "dead": R(I) | C(I), "unused": R(I), "proportional": C(I) | C(J),
               "opposite": bi(I) | bi(J) | B}[name]
    if any(v and key not in allowed for key, v in _entries(dW, db)):
        raise fw.Reject("E_SUPPORT", ld, f"delta is nonzero outside the support of {name}")
    row = lambda i, t: [x + t * y for x, y in zip(W[i] + [b[i]], dW[l0][i] + [db[l0][i]])]  # noqa: E731
    col = lambda i, t: [V[o][i] + t * dW[L][o][i] for o in range(len(V))]  # noqa: E731
    beta, sg = db[l0][I], 1 if name == "proportional" else -1
    lam = _ratio(row(I, Z), row(J, Z)) if name in TWO else None
    lam = None if lam is None or sg * lam <= 0 else sg * lam
    for t in (Z, T):
        r = row(I, t)
        good = {"active": all(w == 0 if L == 1 else w >= 0 for w in r[:-1]) and r[-1] >= 0,
                "dead": all(w == 0 if L == 1 else w <= 0 for w in r[:-1]) and r[-1] <= 0,
                "unused": not any(col(I, t))}.get(name, lam is not None and row(J, t) == [sg * lam * x for x in r])
        if name == "opposite" and good:
            good = all(x + lam * y == 0 for x, y in zip(col(I, t), col(J, t)))
        if not good:
            raise fw.Reject("E_CONDITION", lm, f"the side condition of {name} fails at t = {t}")
    comp = {"active": [-V[o][I] * beta for o in range(len(V))], "opposite": [-x * beta for x in col(I, Z)]}.get(name)
    if (comp is not None and db[L] != comp) or \
            (name == "proportional" and any(dW[L][o][I] + lam * dW[L][o][J] for o in range(len(V)))):
        raise fw.Reject("E_SUPPORT", ld, f"delta does not compensate as {name} requires")
    gu = []
    for x in xs:
        pre, _ = fw.forward(net, x)
        h = x if l0 == 0 else [v if v > 0 else Z for v in pre[l0 - 1]]
        gu.append((pre[l0][I], sum((p * v for p, v in zip(dW[l0][I], h)), Z) + db[l0][I]))
    if inv == "contribution":
        if L != net.depth - 1:
            raise fw.Reject("E_DEPTH", lv, "invariant contribution needs the last hidden layer")
        (g, u), dC = gu[0], [dW[L][o][I] for o in range(len(V))]
        ok = any(v * u + e * g for v, e in zip(col(I, Z), dC)) or any(e * u for e in dC)
    else:
        ok = gu[0][0] * gu[1][1] - gu[1][0] * gu[0][1] != 0
    if not ok:
        raise fw.Reject("E_INVARIANT", lv, f"the witnesses do not certify the {inv} invariant")


def _entries(dW, db):
    for l, (M, v) in enumerate(zip(dW, db)):
        yield from ((("w", l, i, j), x) for i, r in enumerate(M) for j, x in enumerate(r))
        yield from ((("b", l, i, None), x) for i, x in enumerate(v))
