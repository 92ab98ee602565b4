"""Kind NOT-LOCALLY-IDENTIFIABLE (spec-1.0-not-locally-identifiable.md, lemmas/not_locally_identifiable.md)."""

from proofs.check import Z, dot, forward, ints, q, qs, require, wellformed

ONE, TWO = ("active", "dead", "unused"), ("proportional", "opposite")

def check(cert):
    net, body, need, form = cert.network, cert.body, require, wellformed
    keys, ln = [t[0] for _, t in body], body[0][0] if body else 0
    form(keys[:4] == ["mechanism", "interval", "delta", "invariant"] and not set(keys[4:]) - {"witness"}
         and len(body) >= 5 and len(body[0][1]) >= 4 and len(body[1][1]) == 2 and 2 <= len(body[3][1]) <= 3,
         "E_SYNTAX", ln, "expected mechanism, interval, delta, invariant, witness lines")
    (lm, tm), (li, ti), (ld, td), (lv, tv), wit = *body[:4], body[4:]
    name, idx, inv = tm[1], ints(tm[2:], lm), tv[1]
    form(name in ONE + TWO, "E_MECHANISM", lm, f"unknown mechanism {name!r}")
    form(inv in ("preactivation", "contribution", "ratio"), "E_METHOD", lv, f"unknown invariant {inv!r}")
    form((len(tv) == 3) == (inv == "ratio"), "E_SYNTAX", lv, "only invariant ratio names a neuron K")
    form(len(idx) == (3 if name in TWO else 2) and len(wit) == (1 if inv == "contribution" else 2),
         "E_SYNTAX", lm, "wrong number of neuron indices or witness lines")
    form(len(td) == net.num_parameters + 1 and all(len(t) == net.arch[0] + 1 for _, t in wit),
         "E_SHAPE", ld, "delta needs D numbers and every witness n0")
    T, d, xs = q(ti[1], li), qs(td[1:], ld), [qs(t[1:], n) for n, t in wit]
    L, I, J = idx[0], idx[1], idx[-1]
    need(1 <= L < net.depth and all(0 <= k < net.arch[L] for k in idx[1:]) and (name in ONE or I != J),
         "E_INDEX", lm, "L must be a hidden layer and the neurons in range and distinct")
    need(T > 0, "E_INTERVAL", li, "T must be positive")
    dW, db, it, on = [], [], iter(d), set()  # Delta per layer; 'on': its nonzero positions (layer, row, column)
    for l, (a, m) in enumerate(zip(net.arch, net.arch[1:])):
        dW.append([[next(it) for _ in range(a)] for _ in range(m)])
        db.append([next(it) for _ in range(m)])
        on |= {(l, i, j) for i in range(m) for j in range(a + 1) if (dW[l][i] + [db[l][i]])[j]}
    l0, W, b, V, n = L - 1, net.W[L - 1], net.b[L - 1], net.W[L], net.arch[L - 1]
    row = {(l0, i, j) for i in idx[1:] for j in range(n + 1)}  # incoming rows (bias at j = n)
    col = {(L, o, i) for o in range(len(V)) for i in idx[1:]}  # outgoing columns
    bias = {(l0, i, n) for i in idx[1:]} | {(L, o, len(V[0])) for o in range(len(V))}
    support = {"active": bias, "dead": row | col, "unused": row, "proportional": col, "opposite": bias}[name]
    need(on <= support, "E_SUPPORT", ld, f"delta is nonzero outside the support of {name}")
    r_ = lambda i, t: [x + t * y for x, y in zip(W[i] + [b[i]], dW[l0][i] + [db[l0][i]])]  # noqa: E731
    c_ = lambda i, t: [V[o][i] + t * dW[L][o][i] for o in range(len(V))]  # noqa: E731
    sg = 1 if name == "proportional" else -1  # the rows of I and J: r_J = sg lam r_I with lam > 0
    lam = next((sg * y / x for x, y in zip(r_(I, Z), r_(J, Z)) if x), Z)
    for t in (Z, T):
        r = r_(I, t)
        pair = lam > 0 and r_(J, t) == [sg * lam * x for x in r]  # proportional / opposite rows
        good = {"active": all(w == 0 if L == 1 else w >= 0 for w in r[:-1]) and r[-1] >= 0,
                "dead": all(w == 0 if L == 1 else w <= 0 for w in r[:-1]) and r[-1] <= 0,
                "unused": not any(c_(I, t))}.get(name, pair)
        good = good and (name != "opposite" or all(x + lam * y == 0 for x, y in zip(c_(I, t), c_(J, t))))
        need(good, "E_CONDITION", lm, f"the side condition of {name} fails at t = {t}")
    beta = db[l0][I]
    need((name not in ("active", "opposite") or db[L] == [-x * beta for x in c_(I, Z)])
         and (name != "proportional" or not any(dW[L][o][I] + lam * dW[L][o][J] for o in range(len(V)))),
         "E_SUPPORT", ld, f"delta does not compensate ({name})")
    pres = [forward(net, x)[0] for x in xs]  # gu: (g(x), u(x)) per witness, z_(L,I)(t)(x) = g(x) + t u(x)
    gu = [(p[l0][I], dot(dW[l0][I], [max(v, Z) for v in p[l0 - 1]] if l0 else x) + beta) for p, x in zip(pres, xs)]
    if inv == "contribution":
        need(L == net.depth - 1, "E_DEPTH", lv, "invariant contribution needs the last hidden layer")
        (g, u), dC = gu[0], [dW[L][o][I] for o in range(len(V))]
        ok = any(v * u + e * g for v, e in zip(c_(I, Z), dC)) or any(e * u for e in dC)
    elif inv == "ratio":
        K = ints(tv[2:], lv)[0]
        need(K < net.arch[L + 1], "E_INDEX", lv, "neuron K is not in layer L + 1")
        (g, u), e, zk = gu[0], dW[L][K][I], pres[1][L][K]
        ok = zk != 0 and (V[K][I] * u + e * g != 0 or e * u != 0)
    else:
        ok = gu[0][0] * gu[1][1] - gu[1][0] * gu[0][1] != 0
    need(ok, "E_INVARIANT", lv, f"the witnesses do not certify the {inv} invariant")
