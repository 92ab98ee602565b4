"""Replay of the function-preserving rules of proofs/lemmas/symmetry_rules.md (spec-1.0-hidden-symmetry.md)."""

import re
from fractions import Fraction

class RuleError(Exception):
    def __init__(self, code, msg):
        super().__init__(msg)
        self.code = code

def replay(Ws, bs, tokens):
    """Tokens ``NAME LAYER ARGS...`` of a rule line applied to the Fraction lists (Ws, bs) -> new (Ws, bs)."""
    if len(tokens) < 2 or not all(re.fullmatch(r"0|[1-9][0-9]{0,8}", t) for t in tokens[1:]):
        raise RuleError("E_RULE_SYNTAX", "expected: rule NAME LAYER INDICES...")
    name, l, args = tokens[0], int(tokens[1]), [int(t) for t in tokens[2:]]
    Ws, bs = [[list(r) for r in W] for W in Ws], [list(b) for b in bs]
    if not 1 <= l < len(Ws):
        raise RuleError("E_RULE_INDEX", f"layer {l} is not hidden")
    W, b, V, c = Ws[l - 1], bs[l - 1], Ws[l], bs[l]  # layer l's rows and the next layer (edited in place)
    outs = range(len(V))
    if any(not 0 <= i < len(W) for i in args):
        raise RuleError("E_RULE_INDEX", "neuron index out of range")

    def need(cond, msg):
        if not cond:
            raise RuleError("E_RULE_CONDITION", f"rule {name}: {msg}")

    if name == "flip":
        need(args and len(set(args)) == len(args), "needs distinct neurons")
        need(all(any(W[i] + [b[i]]) for i in args), "zero incoming row")
        need(all(sum(V[o][i] * W[i][j] for i in args) == 0 for o in outs for j in range(len(W[0]))),
             "sum of W[l+1][:,i] W[l][i,:] is not 0")
        for i in args:
            for o in outs:
                c[o] += V[o][i] * b[i]
            W[i], b[i] = [-v for v in W[i]], -b[i]
    elif name == "split":
        need(len(args) == 2 and args[0] != args[1], "needs two neurons")
        i, j = args
        u, v = W[i] + [b[i]], W[j] + [b[j]]
        need(any(v) and any(V[o][i] for o in outs), "zero row or column")
        k = next(t for t in range(len(v)) if v[t] != 0)
        r = u[k] / v[k]
        need(r > 0 and all(x == r * y for x, y in zip(u, v)), "rows not positively proportional")
        for o in outs:
            V[o][i] /= 2
            V[o][j] += r * V[o][i]
    elif name in ("unused", "dead", "active", "hidden"):
        need(len(args) == 1, "needs one neuron")
        i, w = args[0], W[args[0]]
        if name == "unused":
            need(all(V[o][i] == 0 for o in outs), "outgoing column not zero")
            if not any(w + [b[i]]):
                b[i] = Fraction(1)
            else:
                W[i], b[i] = [-x for x in w], -b[i]
        elif name == "dead":
            need((not any(w) if l == 1 else all(x <= 0 for x in w)) and b[i] <= 0, "not dead by structure")
            V[0][i] += 1
        else:  # active / hidden: the neuron is active wherever it matters; b_i += 1 is absorbed by c
            if name == "active":
                need((not any(w) if l == 1 else all(x >= 0 for x in w)) and b[i] >= 0,
                     "not active by structure")
            else:
                need(l + 1 < len(Ws), "next layer must be hidden")
                for k, row in enumerate(V):
                    need(row[i] > 0 and c[k] < 0 and all(x <= 0 for t, x in enumerate(row) if t != i),
                         "not hidden")
            b[i] += 1
            for o in outs:
                c[o] -= V[o][i]
    elif name == "reflect":
        need(not args and len(W) == 1 and l + 1 < len(Ws), "needs a width-1 layer before a hidden layer")
        need(all(V[k][0] < 0 < c[k] for k in outs), "next layer needs a < 0 < c")
        Ts = {-c[k] / V[k][0] for k in outs}
        need(len(Ts) == 1, "no common T")
        W[0], b[0] = [-x for x in W[0]], Ts.pop() - b[0]
        U, d = Ws[l + 1], bs[l + 1]
        for o in range(len(U)):
            d[o] += sum(U[o][k] * c[k] for k in outs)
            U[o] = [-x for x in U[o]]
    else:
        raise RuleError("E_RULE_UNKNOWN", f"unknown rule {name!r}")
    return Ws, bs
