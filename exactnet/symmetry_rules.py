"""Function-preserving rewrite rules that are not group elements: hidden symmetries.

Each rule takes a network and parameters, checks an exact side condition, and
returns a different parameter ``theta'`` of the same architecture that computes
the same function. Their proofs are in ``proofs/lemmas/symmetry_rules.md``; the
checker replays the same rules (``proofs/rules.py``) from the certificate's
``rule`` line. The side conditions are *structural* (read off the weights), so
that replaying a rule needs no region enumeration.

Rules (``l`` a hidden layer, ``i`` a neuron of it, indices from 0):

``flip l i1 i2 ...``
    Negate the (nonzero) incoming rows of the set ``S`` of layer-``l`` neurons and add
    ``sum_(i in S) W_(l+1)[:, i] b_l[i]`` to ``b_(l+1)``. Side condition:
    ``M = sum_(i in S) W_(l+1)[:, i] W_l[i, :] = 0`` (for ``l = 1`` this is theory.md's
    ``W2[:, S] W1[S, :] = 0``; example A is ``S`` = all three neurons).
``split l i j``
    Neurons ``i`` and ``j`` have positively proportional incoming rows
    ``(w_i, b_i) = c (w_j, b_j)``, ``c > 0``; move the outgoing weight of ``i`` onto ``j``:
    column ``j`` of ``W_(l+1)`` gains ``c`` times column ``i`` and column ``i`` becomes
    half of itself, the other half going to ``j`` too (so ``i`` keeps a nonzero column).
``unused l i``
    Column ``i`` of ``W_(l+1)`` is zero: the neuron's incoming row is negated (or,
    when zero, set to ``b = 1``).
``dead l i``
    The pre-activation of ``(l, i)`` is ``<= 0`` on the whole input space by structure:
    ``l = 1`` with ``w = 0`` and ``b <= 0``, or ``l >= 2`` with ``w <= 0`` entrywise and
    ``b <= 0`` (its inputs are ReLU outputs, hence ``>= 0``). The outgoing column gains
    ``1`` in its first entry.
``active l i``
    The pre-activation is ``>= 0`` everywhere by structure: ``l = 1`` with ``w = 0`` and
    ``b >= 0``, or ``l >= 2`` with ``w >= 0`` and ``b >= 0``. Then ``relu(z) = z``; add 1 to
    ``b_l[i]`` and subtract ``W_(l+1)[:, i]`` from ``b_(l+1)``.
``hidden l i``
    Layer ``l+1`` is hidden and every neuron ``k`` of it has ``W_(l+1)[k, i] > 0``,
    ``W_(l+1)[k, j] <= 0`` for ``j != i`` and ``b_(l+1)[k] < 0``: wherever ``z_(l,i) < 0`` every
    such ``k`` is inactive, so the bent hyperplane of ``(l, i)`` is invisible. Add 1 to
    ``b_l[i]`` and subtract ``W_(l+1)[:, i]`` from ``b_(l+1)`` (theory.md example B, ``a > 0 > c``).
``reflect l``
    Hidden layer ``l`` has width 1 and is followed by a hidden layer ``l+1`` whose every
    neuron ``k`` has ``a_k = W_(l+1)[k, 0] < 0`` and ``c_k = b_(l+1)[k] > 0`` with one common
    ``T = -c_k / a_k``. Then ``relu(a_k relu(t) + c_k) = c_k - relu(a_k relu(T - t) + c_k)``;
    replace ``(w, b)`` of layer ``l`` by ``(-w, T - b)``, negate ``W_(l+2)`` and add
    ``W_(l+2) c`` to ``b_(l+2)`` (theory.md example B).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Sequence

from flint import fmpq

from .errors import ShapeError, ValueRangeError
from .network import Layer, Network
from .qq import Q0, Q1

__all__ = ["Rule", "apply_rule", "find_rules", "sign_move", "RULE_NAMES", "MAX_FLIP_WIDTH"]

RULE_NAMES = ("flip", "split", "unused", "dead", "active", "hidden", "reflect")

#: Largest layer width for which every flip subset is tried (2^width subsets).
MAX_FLIP_WIDTH = 14


@dataclass(frozen=True)
class Rule:
    """One rule application: ``name``, hidden layer ``layer`` (from 1), neuron indices ``args``."""

    name: str
    layer: int
    args: tuple[int, ...] = ()

    def line(self) -> str:
        """The certificate spelling: ``rule NAME LAYER ARGS...``."""
        return " ".join(["rule", self.name, str(self.layer), *map(str, self.args)])

    @property
    def mechanism(self) -> str:
        return {
            "flip": "flip-set",
            "split": "proportional-neurons",
            "unused": "zero-outgoing-weights",
            "dead": "dead-neuron",
            "active": "stably-active-neuron",
            "hidden": "invisible-hyperplane",
            "reflect": "width-one-reflection",
        }[self.name]


def _mut(net: Network) -> list[tuple[list[list[fmpq]], list[fmpq]]]:
    return [([list(r) for r in L.weights], list(L.biases)) for L in net.layers]


def _freeze(rows, like: Network) -> Network:
    return Network([Layer(tuple(map(tuple, W)), tuple(b)) for W, b in rows], name=like.name, metadata=like.metadata)


def _fail(rule: Rule, why: str) -> ValueRangeError:
    return ValueRangeError(f"rule {rule.line()[5:]} does not apply: {why}")


def _flip_matrix(net: Network, l: int, S: Sequence[int]) -> list[list[fmpq]]:
    W, V = net.weights(l), net.weights(l + 1)
    m, n = len(V), len(W[0])
    M = [[Q0] * n for _ in range(m)]
    for i in S:
        for o in range(m):
            if V[o][i]:
                for j in range(n):
                    if W[i][j]:
                        M[o][j] += V[o][i] * W[i][j]
    return M


def _ratio(u: Sequence[fmpq], v: Sequence[fmpq]) -> fmpq | None:
    """c > 0 with u = c v, else None (v nonzero)."""
    c = None
    for a, b in zip(u, v):
        if b == 0:
            if a != 0:
                return None
            continue
        r = a / b
        if c is None:
            c = r
        elif r != c:
            return None
    return c if c is not None and c > 0 else None


def _sign_move(rows, l: int, i: int, kind: str) -> None:
    """In place on ``_mut`` rows: for ``kind`` "dead", ``W_(l+1)[0, i]`` plus 1; for "active", ``b_l[i]``
    plus 1 and ``b_(l+1)`` minus ``W_(l+1)[:, i]``."""
    (W, b), (V, c) = rows[l - 1], rows[l]
    if kind == "dead":
        V[0][i] += Q1
        return
    b[i] += Q1
    for o in range(len(V)):
        c[o] -= V[o][i]


def sign_move(net: Network, l: int, i: int, kind: str) -> Network:
    """The move of rule ``dead`` or ``active`` (``kind``) on neuron ``(l, i)`` *without* its structural
    side condition: the caller has proved the sign on the whole input space another way
    (:mod:`exactnet.sign_symmetry`), and a certificate must prove ``f`` unchanged."""
    rows = _mut(net)
    _sign_move(rows, l, i, kind)
    return _freeze(rows, net)


def apply_rule(net: Network, rule: Rule) -> Network:
    """``theta'`` from ``theta`` by ``rule``; raises ValueRangeError when the side condition fails."""
    l = rule.layer
    if not 1 <= l < net.depth:
        raise ShapeError(f"rule {rule.name}: layer {l} is not a hidden layer")
    width = net.architecture[l]
    if any(not 0 <= i < width for i in rule.args):
        raise ShapeError(f"rule {rule.name}: neuron index out of range for layer {l} of width {width}")
    rows = _mut(net)
    W, b = rows[l - 1]
    V, c = rows[l]
    name = rule.name
    if name == "flip":
        S = rule.args
        if not S or len(set(S)) != len(S):
            raise _fail(rule, "needs a nonempty set of distinct neurons")
        if any(all(v == 0 for v in W[i]) and b[i] == 0 for i in S):
            raise _fail(rule, "a neuron of the set has a zero incoming row (flipping it changes nothing)")
        if any(v != 0 for r in _flip_matrix(net, l, S) for v in r):
            raise _fail(rule, "sum of W_(l+1)[:, i] W_l[i, :] over the set is not zero")
        for i in S:
            for o in range(len(V)):
                c[o] += V[o][i] * b[i]
            W[i] = [-v for v in W[i]]
            b[i] = -b[i]
    elif name == "split":
        if len(rule.args) != 2 or rule.args[0] == rule.args[1]:
            raise _fail(rule, "needs two distinct neurons")
        i, j = rule.args
        if all(v == 0 for v in W[j]) and b[j] == 0:
            raise _fail(rule, "neuron j has a zero incoming row")
        ratio = _ratio(W[i] + [b[i]], W[j] + [b[j]])
        if ratio is None:
            raise _fail(rule, "incoming rows are not positively proportional")
        if all(V[o][i] == 0 for o in range(len(V))):
            raise _fail(rule, "neuron i has no outgoing weight to move")
        for o in range(len(V)):
            half = V[o][i] / 2
            V[o][i] = half
            V[o][j] += ratio * half
    elif name == "unused":
        (i,) = rule.args
        if any(V[o][i] != 0 for o in range(len(V))):
            raise _fail(rule, "the outgoing column is not zero")
        if all(v == 0 for v in W[i]) and b[i] == 0:
            b[i] = Q1
        else:
            W[i] = [-v for v in W[i]]
            b[i] = -b[i]
    elif name in ("dead", "active"):
        (i,) = rule.args
        w = W[i]
        if l == 1:
            ok_w = all(v == 0 for v in w)
        elif name == "dead":
            ok_w = all(v <= 0 for v in w)
        else:
            ok_w = all(v >= 0 for v in w)
        if name == "dead":
            if not (ok_w and b[i] <= 0):
                raise _fail(rule, "the pre-activation is not <= 0 by structure")
        elif not (ok_w and b[i] >= 0):
            raise _fail(rule, "the pre-activation is not >= 0 by structure")
        _sign_move(rows, l, i, name)
    elif name == "hidden":
        (i,) = rule.args
        if l + 1 >= net.depth:
            raise _fail(rule, "the next layer must be hidden")
        for k, row in enumerate(V):
            if not (row[i] > 0 and c[k] < 0 and all(v <= 0 for j, v in enumerate(row) if j != i)):
                raise _fail(rule, f"neuron {k} of layer {l + 1} does not hide the hyperplane")
        _sign_move(rows, l, i, "active")  # the same bias shift: proof in symmetry_rules.md
    elif name == "reflect":
        if rule.args:
            raise _fail(rule, "takes no neuron indices")
        if width != 1 or l + 1 >= net.depth:
            raise _fail(rule, "needs a width-1 hidden layer followed by another hidden layer")
        T = None
        for k in range(len(V)):
            a_k, c_k = V[k][0], c[k]
            if not (a_k < 0 and c_k > 0):
                raise _fail(rule, f"neuron {k} of the next layer needs a < 0 < c")
            t = -c_k / a_k
            if T is not None and t != T:
                raise _fail(rule, "the next layer's neurons do not share one T = -c/a")
            T = t
        W[0] = [-v for v in W[0]]
        b[0] = T - b[0]
        U, d = rows[l + 1]
        for o in range(len(U)):
            d[o] += sum((U[o][k] * c[k] for k in range(len(c))), Q0)
            U[o] = [-v for v in U[o]]
    else:
        raise ValueRangeError(f"unknown rule {name!r}: choose one of {', '.join(RULE_NAMES)}")
    return _freeze(rows, net)


def find_rules(net: Network, max_flip_width: int = MAX_FLIP_WIDTH) -> list[Rule]:
    """Every rule whose side condition holds (flip sets: minimal ones, layers up to ``max_flip_width``)."""
    found: list[Rule] = []
    for l in range(1, net.depth):
        W, b, V = net.weights(l), net.biases(l), net.weights(l + 1)
        n = len(W)
        for i in range(n):
            for name in ("unused", "dead", "active", "hidden"):
                try:
                    apply_rule(net, Rule(name, l, (i,)))
                    found.append(Rule(name, l, (i,)))
                except (ValueRangeError, ShapeError):
                    pass
            for j in range(n):
                if i != j:
                    try:
                        apply_rule(net, Rule("split", l, (i, j)))
                        found.append(Rule("split", l, (i, j)))
                    except ValueRangeError:
                        pass
        try:
            apply_rule(net, Rule("reflect", l))
            found.append(Rule("reflect", l))
        except (ValueRangeError, ShapeError):
            pass
        if n <= max_flip_width:
            minimal: list[frozenset[int]] = []
            for size in range(1, n + 1):
                for S in combinations(range(n), size):
                    fs = frozenset(S)
                    if any(m <= fs for m in minimal):
                        continue
                    if any(all(v == 0 for v in W[i]) and b[i] == 0 for i in S):
                        continue
                    if all(v == 0 for r in _flip_matrix(net, l, S) for v in r):
                        minimal.append(fs)
                        found.append(Rule("flip", l, tuple(S)))
    return found
