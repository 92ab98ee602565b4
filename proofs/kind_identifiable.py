"""Kind IDENTIFIABLE: dispatch on ``rule NAME`` (proofs/spec-1.0-identifiable.md, proofs/lemmas/shallow.md)."""

from itertools import combinations, product
from math import prod

from proofs import check as fw
from proofs.deep2 import deep_2

MAX_MODE_CONFIGS = 2 ** 12

def _classes(cert, ln, name):
    """Classes [(u, J, kappa, size)] of a one-hidden-layer network with no zero row or column;
    rejects two neurons of one orientation on a hyperplane (any two for shallow-1) or J_C = 0."""
    net = cert.network
    fw.require(net.depth == 2, "E_DEPTH", ln, f"rule {name} needs one hidden layer")
    W, b, V, groups, cls = net.W[0], net.b[0], net.W[1], {}, []
    for j in range(len(W)):
        a = next((v for v in W[j] if v), None)
        fw.require(a is not None and any(r[j] for r in V), "E_ZERO_ROW", ln,
                   f"neuron {j} has a zero incoming weight or outgoing column")
        groups.setdefault(tuple(v / a for v in list(W[j]) + [b[j]]), []).append((j, a))
    for rho, mem in groups.items():
        same = len(mem) == 2 and (name == "shallow-1" or (mem[0][1] > 0) == (mem[1][1] > 0))
        fw.require(len(mem) <= 2 and not same, "E_SAME_HYPERPLANE", ln, "two neurons (one sign) on a hyperplane")
        J = [sum(abs(a) * r[j] for j, a in mem) for r in V]
        fw.require(any(J), "E_INVISIBLE", ln, "an opposite pair has J_C = 0")
        cls.append((rho[:-1], J, [sum(abs(a) * r[j] for j, a in mem if a < 0) for r in V], len(mem)))
    return cls

def _shallow_1(cert, body):
    _classes(cert, body[0][0], "shallow-1")
    W, V = cert.network.W[0], cert.network.W[1]
    n, m, n0 = len(W), len(V), len(W[0])
    u = [[V[o][j] * W[j][i] for o in range(m) for i in range(n0)] for j in range(n)]
    R = list(range(n))
    for ln, t in body[1:]:
        fw.wellformed(t[0] == "exclude" and len(t) >= 2, "E_SYNTAX", ln,
                      "expected 'exclude positive|independent|exhaustive'")
        fw.wellformed(R, "E_SYNTAX", ln, "no neurons left to exclude")
        if t[1] == "positive" and len(t) == 2 + m * n0:
            phi = fw.qs(t[2:], ln)
            vals = {j: fw.dot(phi, u[j]) for j in R}
            fw.require(all(v >= 0 for v in vals.values()) and any(vals.values()), "E_NOT_POSITIVE", ln,
                       "phi is negative on some u_j (or zero on all)")
            R = [j for j in R if vals[j] == 0]
        elif t[1:] == ["independent"]:
            fw.require(fw.rank([u[j] for j in R]) == len(R), "E_DEPENDENT", ln,
                       "the remaining u_j are linearly dependent")
            R = []
        elif t[1:] == ["exhaustive"]:
            fw.no_flip_set([u[j] for j in R], ln, "exhaustive step limited to",
                           "a nonempty set S has sum V_j w_j^T = 0")
            R = []
        else:
            raise fw.Malformed("E_SYNTAX", ln, "unknown or misshapen exclude step")
    fw.require(not R, "E_INCOMPLETE", body[-1][0], f"{len(R)} neurons not excluded from flip sets")

def _shallow_2(cert, body):
    ln, m, n0 = body[0][0], len(cert.network.W[1]), cert.network.arch[0]
    cls = _classes(cert, ln, "shallow-2")
    p, pairs = len(cls), [C[0] for C in cls if C[3] == 2]
    q, phis, plan, count = len(pairs), {}, [], 0
    for l, t in body[1:]:  # 'positive q T_1..T_q PHI_1..PHI_(m*n0)' (Lemma 5)
        k = fw.ints(t[1:2], l)[0] if t[0] == "positive" and len(t) > 1 else -1
        T = tuple(fw.ints(t[2:2 + k], l)) if k == q else ()
        fw.wellformed(k == q and len(t) == 2 + k + m * n0 and list(T) == sorted(set(T)) and all(i < p for i in T),
                      "E_SYNTAX", l, "expected 'positive q T_1..T_q PHI...' (increasing class indices)")
        phis.setdefault(T, []).append((l, fw.qs(t[2 + k:], l)))
    fw.require(fw.rank(pairs) == q, "E_DEPENDENT", ln,
               "the directions of the opposite pairs are linearly dependent")
    for k in range(q % 2, q + 1, 2):
        for T in combinations(range(p), k):
            out = [i for i in range(p) if i not in T]
            co = {(i, v): [x - y * v for x, y in zip(cls[i][2], cls[i][1])] for i in out for v in (0, 1)}
            allowed = {i: (0, 1) for i in out}
            for l, phi in phis.get(T, []):
                rows = [phi[o * n0:(o + 1) * n0] for o in range(m)]
                fw.require(not any(fw.dot(r, cls[i][0]) for i in T for r in rows), "E_NOT_POSITIVE", l,
                           "phi does not vanish on the classes of T")
                val = {iv: sum(c * fw.dot(r, cls[iv[0]][0]) for c, r in zip(cv, rows)) for iv, cv in co.items()}
                fw.require(all(val[(i, v)] >= 0 for i in out for v in allowed[i]), "E_NOT_POSITIVE", l,
                           "phi is negative on an allowed class mode")
                allowed = {i: tuple(v for v in allowed[i] if val[(i, v)] == 0) for i in out}
            plan.append((T, out, co, allowed))
            count += prod(len(a) for a in allowed.values())
            fw.require(count <= MAX_MODE_CONFIGS, "E_LIMIT", ln,
                       f"over {MAX_MODE_CONFIGS} class-mode configurations")
    for T, out, co, allowed in plan:
        UT = [cls[i][0] for i in T]
        rT = fw.rank(UT)
        for nu in product(*(allowed[i] for i in out)):
            cs = [co[(i, v)] for i, v in zip(out, nu)]
            D = [[sum(c[o] * cls[i][0][t] for c, i in zip(cs, out)) for t in range(n0)] for o in range(m)]
            fw.require(not any(any(c) for c in cs) or fw.rank(D + UT) - rT > (q - len(T)) // 2, "E_MODES", ln,
                       f"classes {list(T)} as pairs and modes {nu} elsewhere reproduce the linear part")

RULES = {"shallow-1": _shallow_1, "shallow-2": _shallow_2, "deep-2": deep_2}  # deep-2: proofs/deep2.py

def check(cert):
    body = cert.body
    fw.wellformed(body and body[0][1][0] == "rule" and len(body[0][1]) == 2, "E_SYNTAX", body[0][0] if body else 0,
                  "body starts with 'rule NAME'")
    rule = RULES.get(body[0][1][1])
    fw.require(rule, "E_RULE_UNKNOWN", body[0][0], f"unknown IDENTIFIABLE rule {body[0][1][1]!r}")
    rule(cert, body)
