"""Rules shallow-1 and shallow-2 of kind IDENTIFIABLE (spec-1.0-identifiable.md; lemmas/shallow.md)."""

from itertools import combinations, product
from math import lcm, prod

from proofs.check import Malformed, dot, ints, no_flip_set, qs, rank, require, wellformed

MAX_MODE_CONFIGS = 2 ** 12
MAX_MODULUS = 16  # neurons dropped by one 'exclude modulus' step (2^16 residues at most)

def _classes(net, ln, name):
    """Classes [(u, J, kappa, size)]; no zero row or column, J_C = 0, or same-sign pair (any pair in shallow-1)."""
    require(net.depth == 2, "E_DEPTH", ln, f"rule {name} needs one hidden layer")
    V, groups = net.W[1], {}
    for j, (w, bj) in enumerate(zip(net.W[0], net.b[0])):
        a = next((v for v in w if v), None)
        require(a is not None and any(r[j] for r in V), "E_ZERO_ROW", ln, f"neuron {j}: zero row or column")
        groups.setdefault(tuple(v / a for v in list(w) + [bj]), []).append((j, a))
    for mem in groups.values():
        require(len(mem) == 1 or len(mem) == 2 and name == "shallow-2" and (mem[0][1] > 0) != (mem[1][1] > 0),
                "E_SAME_HYPERPLANE", ln, "two neurons (one sign) on a hyperplane")
        require(any(sum(abs(a) * r[j] for j, a in mem) for r in V), "E_INVISIBLE", ln, "a pair with J_C = 0")
    return [(rho[:-1], [sum(abs(a) * r[j] for j, a in mem) for r in V],
             [sum(abs(a) * r[j] for j, a in mem if a < 0) for r in V], len(mem)) for rho, mem in groups.items()]

def shallow_1(cert, body):
    _classes(cert.network, body[0][0], "shallow-1")
    W, V = cert.network.W
    u, R = [[r[j] * x for r in V for x in w] for j, w in enumerate(W)], list(range(len(W)))  # u_j = vec(V_j w_j^T)
    for ln, t in body[1:]:
        wellformed(t[0] == "exclude" and len(t) >= 2 and R, "E_SYNTAX", ln, "expected exclude STEP, neurons left")
        if t[1] == "positive" and len(t) == 2 + len(u[0]):
            phi = qs(t[2:], ln)
            vals = [dot(phi, u[j]) for j in R]
            require(min(vals) >= 0 and any(vals), "E_NOT_POSITIVE", ln, "phi is negative on a u_j, or zero on all")
            R = [j for j, v in zip(R, vals) if v == 0]
        elif t[1] == "modulus" and len(t) == 4:  # Lemma 4: the j with M not dividing L u_j[c] leave R
            M, c = ints(t[2:], ln)
            require(M > 1 and c < len(u[0]), "E_MODULUS", ln, "need M > 1 and a coordinate c of u_j")
            L = lcm(*(u[j][c].denominator for j in R))
            a, reach = {j: int(u[j][c] * L) % M for j in R}, set()
            bad = [j for j in R if a[j]]
            require(0 < len(bad) <= MAX_MODULUS, "E_MODULUS", ln, f"need 1 to {MAX_MODULUS} j with M not dividing")
            for j in bad:  # the residues of the nonempty subsets of bad
                reach |= {(r + a[j]) % M for r in reach} | {a[j]}
            require(0 not in reach, "E_MODULUS", ln, "some of them sum to 0 modulo M")
            R = [j for j in R if not a[j]]
        elif t[1:] == ["independent"]:
            require(rank([u[j] for j in R]) == len(R), "E_DEPENDENT", ln, "the remaining u_j are dependent")
            R = []
        elif t[1:] == ["exhaustive"]:
            no_flip_set([u[j] for j in R], ln, "exhaustive step limited to", "some sum of V_j w_j^T is 0")
            R = []
        else:
            raise Malformed("E_SYNTAX", ln, "unknown or misshapen exclude step")
    require(not R, "E_INCOMPLETE", body[-1][0], f"{len(R)} neurons not excluded from flip sets")

def shallow_2(cert, body):
    ln, m, n0 = body[0][0], len(cert.network.W[-1]), cert.network.arch[0]  # W[-1]: E_DEPTH comes from _classes
    cls = _classes(cert.network, ln, "shallow-2")
    p, pairs = len(cls), [C[0] for C in cls if C[3] == 2]
    q, phis, plan, count = len(pairs), {}, [], 0
    for l, t in body[1:]:  # 'positive q T_1..T_q PHI_1..PHI_(m*n0)' (Lemma 5)
        k = ints(t[1:2], l)[0] if t[0] == "positive" and len(t) > 1 else -1
        T = ints(t[2:2 + k], l) if k == q else []
        wellformed(k == q and len(t) == 2 + k + m * n0 and T == sorted(set(T)) and all(i < p for i in T),
                   "E_SYNTAX", l, "expected 'positive q T_1..T_q PHI...' (increasing class indices)")
        phis.setdefault(tuple(T), []).append((l, qs(t[2 + k:], l)))
    require(rank(pairs) == q, "E_DEPENDENT", ln, "the directions of the opposite pairs are dependent")
    for k in range(q % 2, q + 1, 2):
        for T in combinations(range(p), k):
            out = [i for i in range(p) if i not in T]
            co = {(i, v): [x - y * v for x, y in zip(cls[i][2], cls[i][1])] for i in out for v in (0, 1)}
            allowed = {i: (0, 1) for i in out}
            for l, phi in phis.get(T, []):
                rows = [phi[o * n0:(o + 1) * n0] for o in range(m)]
                val = {iv: sum(c * dot(r, cls[iv[0]][0]) for c, r in zip(cv, rows)) for iv, cv in co.items()}
                require(not any(dot(r, cls[i][0]) for i in T for r in rows)
                        and all(val[(i, v)] >= 0 for i in out for v in allowed[i]), "E_NOT_POSITIVE", l,
                        "phi does not vanish on the classes of T, or is negative on an allowed class mode")
                allowed = {i: tuple(v for v in allowed[i] if val[(i, v)] == 0) for i in out}
            plan.append((T, out, co, allowed))
            count += prod(len(a) for a in allowed.values())
            require(count <= MAX_MODE_CONFIGS, "E_LIMIT", ln, f"over {MAX_MODE_CONFIGS} class-mode configurations")
    for T, out, co, allowed in plan:
        UT = [cls[i][0] for i in T]
        rT = rank(UT)
        for nu in product(*(allowed[i] for i in out)):
            cs = [co[(i, v)] for i, v in zip(out, nu)]
            D = [[sum(c[o] * cls[i][0][t] for c, i in zip(cs, out)) for t in range(n0)] for o in range(m)]
            require(not any(map(any, cs)) or rank(D + UT) - rT > (q - len(T)) // 2, "E_MODES", ln,
                    f"classes {list(T)} as pairs and modes {nu} elsewhere reproduce the linear part")
