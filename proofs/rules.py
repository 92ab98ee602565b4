"""Replay of the function-preserving rules of proofs/lemmas/symmetry_rules.md (kind HIDDEN-SYMMETRY)."""

from proofs.check import SMALL, Reject, require

RuleError = type("RuleError", (Reject,), {})  # a rule line that does not apply (E_RULE_*)

def replay(Ws, bs, tokens, lineno=0):
    """Tokens ``NAME LAYER ARGS...`` of a rule line applied to the Fraction lists (Ws, bs) -> new (Ws, bs)."""
    def need(cond, msg, code="E_RULE_CONDITION"):
        require(cond, code, lineno, msg if code != "E_RULE_CONDITION" else f"rule {name}: {msg}", RuleError)
    name = tokens[0] if tokens else ""
    need(tokens[1:] and all(map(SMALL.match, tokens[1:])), "expected: rule NAME LAYER INDICES...", "E_RULE_SYNTAX")
    l, args = int(tokens[1]), [int(t) for t in tokens[2:]]
    Ws, bs = [[list(r) for r in W] for W in Ws], [list(b) for b in bs]
    need(1 <= l < len(Ws) and all(i < len(Ws[l - 1]) for i in args), "no such hidden neuron", "E_RULE_INDEX")
    W, b, V, c = Ws[l - 1], bs[l - 1], Ws[l], bs[l]  # layer l's rows and the next layer (edited in place)
    if name == "flip":
        need(args and len(set(args)) == len(args) and all(any(W[i] + [b[i]]) for i in args)
             and all(sum(r[i] * W[i][j] for i in args) == 0 for r in V for j in range(len(W[0]))),
             "needs distinct neurons with nonzero rows and sum of W[l+1][:,i] W[l][i,:] = 0")
        for i in args:
            c[:] = [x + r[i] * b[i] for x, r in zip(c, V)]
            W[i], b[i] = [-v for v in W[i]], -b[i]
    elif name == "split":
        need(len(args) == 2 and args[0] != args[1], "needs two neurons")
        i, j = args
        u, v = W[i] + [b[i]], W[j] + [b[j]]
        ratio = next((x / y for x, y in zip(u, v) if y), 0)  # 0: a zero row
        need(any(r[i] for r in V) and ratio > 0 and all(x == ratio * y for x, y in zip(u, v)),
             "zero column, or rows not positively proportional")
        for r in V:
            r[i] /= 2
            r[j] += ratio * r[i]
    elif name in ("unused", "dead", "active", "hidden"):
        need(len(args) == 1, "needs one neuron")
        i, w = args[0], W[args[0]]
        need({"unused": all(r[i] == 0 for r in V),  # the side conditions, by structure
              "dead": (not any(w) if l == 1 else max(w) <= 0) and b[i] <= 0,
              "active": (not any(w) if l == 1 else min(w) >= 0) and b[i] >= 0,
              "hidden": l + 1 < len(Ws) and all(row[i] > 0 > x and max(row[:i] + row[i + 1:], default=0) <= 0
                                                for row, x in zip(V, c))}[name], f"the neuron is not {name}")
        if name == "unused":
            W[i], b[i] = ([-x for x in w], -b[i]) if any(w + [b[i]]) else (w, b[i] + 1)  # zero row: b_i = 1
        elif name == "dead":
            V[0][i] += 1
        else:  # active / hidden: the neuron is active wherever it matters; b_i += 1 is absorbed by c
            b[i] += 1
            c[:] = [x - r[i] for x, r in zip(c, V)]
    elif name == "reflect":
        Ts = {-x / r[0] for r, x in zip(V, c) if r[0]}
        need(not args and len(W) == 1 and l + 1 < len(Ws) and all(r[0] < 0 < x for r, x in zip(V, c))
             and len(Ts) == 1, "needs a width-1 layer before a hidden layer with a < 0 < c and one T")
        W[0], b[0] = [-x for x in W[0]], Ts.pop() - b[0]
        bs[l + 1] = [e + sum(u * x for u, x in zip(row, c)) for row, e in zip(Ws[l + 1], bs[l + 1])]
        Ws[l + 1] = [[-x for x in row] for row in Ws[l + 1]]
    else:
        need(False, f"unknown rule {name!r}", "E_RULE_UNKNOWN")
    return Ws, bs
