"""Kind HIDDEN-SYMMETRY: the other block is theta' (proofs/spec-1.0-hidden-symmetry.md and the lemmas it names)."""

from proofs import kind_equivalent, orbit, rules
from proofs.check import Malformed, Z, require, wellformed

def shallow_invariants(net):
    """(visible classes rho -> J, A, c) of f = V relu(W x + b) + d (Lemma 1 of proofs/lemmas/shallow.md)."""
    (W, V), (b, d) = net.W, net.b
    J, A, c = {}, [[Z] * len(W[0]) for _ in V], list(d)
    for j, (w, bj) in enumerate(zip(W, b)):
        col, a = [r[j] for r in V], next((v for v in w if v), Z)
        if a <= 0:  # constant (w = 0): V_j max(b_j, 0); a < 0: relu(t) = t + relu(-t), the affine part to A, c
            A = [[x + v * wi for x, wi in zip(row, w)] for row, v in zip(A, col)]
            c = [ci + v * (bj if a else max(bj, Z)) for ci, v in zip(c, col)]
        if a:
            rho = tuple(v / a for v in list(w) + [bj])
            J[rho] = [x + abs(a) * v for x, v in zip(J.get(rho, [Z] * len(V)), col)]
    return {r: tuple(v) for r, v in J.items() if any(v)}, A, c

def orbit_key(net):
    """Orbit invariant (Lemma 3 of proofs/lemmas/shallow.md; deeper: first layer only)."""
    keys = []
    for j, (w, bj) in enumerate(zip(net.W[0], net.b[0])):
        row, col = list(w) + [bj], [r[j] for r in net.W[1]] if net.depth == 2 else []
        a, s = next((abs(v) for v in row if v), None), next((abs(v) for v in col if v), 1)
        keys.append((0, tuple(row), tuple(v / s for v in col)) if a is None else
                    (1, tuple(v / a for v in row), tuple(v * a for v in col)))
    return sorted(keys), list(net.b[-1])

def check(cert):
    net, other, body = cert.network, cert.other, cert.body
    require(net.arch == other.arch, "E_SHAPE", 0, "theta' has a different architecture")
    wellformed(len(body) >= 2 and body[0][1][0] == "mechanism" and len(body[0][1]) == 2, "E_SYNTAX",
               body[0][0] if body else 0, "body starts with 'mechanism NAME'")
    eq, ln = body[1:], body[1][0]
    if eq[0][1] == ["equivalence", "complex"]:  # an EQUIVALENT body (proofs/lemmas/equivalent.md)
        require(len(eq) > 1 and eq[1][1] == ["domain", "all"], "E_DOMAIN", ln, "needs 'domain all'")
        kind_equivalent.verify_pair(net, other, eq[1:])
    elif not all(t[0] == "equivalence" and len(t) >= 2 for _, t in eq):
        raise Malformed("E_SYNTAX", ln, "expected 'equivalence METHOD ...' lines")
    elif eq[0][1][1:] == ["shallow-invariants"] and len(eq) == 1:
        require(net.depth == 2, "E_DEPTH", ln, "shallow-invariants needs one hidden layer")
        require(shallow_invariants(net) == shallow_invariants(other), "E_NOT_EQUIVALENT", ln, "invariants differ")
    elif all(t[1] == "rule" for _, t in eq):
        Ws, bs = net.W, net.b
        for n, t in eq:
            Ws, bs = rules.replay(Ws, bs, t[2:], n)
        require(Ws == other.W and bs == other.b, "E_NOT_DERIVED", ln, "the rules do not give theta'")
    else:
        raise Malformed("E_METHOD", ln, "unknown equivalence method")
    out = orbit.outside_orbit(net.W, net.b, other.W, other.b)  # canonical forms
    require(out is True or (out is None and orbit_key(net) != orbit_key(other)), "E_ORBIT", ln,
            "the orbit invariant does not separate theta' from theta")
