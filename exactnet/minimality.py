"""Minimal number of hidden neurons of a one-hidden-layer function, and deep lower bounds.

One hidden layer (``proofs/lemmas/minimal_shallow.md``). Write
``f = sum_C J_C relu(t_C) + A x + c`` with the visible classes ``C`` (``k`` of them,
:func:`exactnet.shallow.invariants`), ``t_C = w_C . x + beta_C``. Every class is realised in
one of three *modes*: ``P`` (one neuron ``relu(t_C)``, linear part ``0``), ``N`` (one neuron
``relu(-t_C)``, linear part ``-J_C w_C^T``), ``F`` (two neurons of opposite orientation, any
linear part ``u w_C^T``). Invisible opposite pairs add any rank-one ``u s^T`` at cost 2. So

    min neurons = k + min over modes of ( |F| + 2 rank( R Q_F ) ),
    R = A + sum_(C in N) J_C w_C^T,   Q_F a basis of { x : w_C . x = 0 for C in F },

found by exhaustive search over the ``3^k`` modes (:class:`LimitError` beyond ``MAX_MODES``).
:func:`minimal_shallow` also builds a network of that size and checks it exactly.

Deep networks: no exact minimum and no nontrivial proven lower bound is offered (the lemma
says why the obvious counts do not bound anything); :func:`minimal_shallow` refuses them.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from flint import fmpq, fmpq_mat

from .errors import LimitError, ShapeError, UndecidedError
from .network import Layer, Network
from .qq import Q0, Q1

__all__ = ["MinimalShallow", "minimal_shallow", "MAX_MODES"]

#: Largest number of mode assignments (3^k) searched.
MAX_MODES = 3**10


@dataclass
class MinimalShallow:
    neurons: int
    modes: tuple  # per visible class: "P", "N" or "F"
    pairs: int  # invisible opposite pairs
    network: Network  # a one-hidden-layer realisation with exactly ``neurons`` hidden neurons


def _kernel_basis(rows: list[list[fmpq]], n: int) -> list[list[fmpq]]:
    """Basis of {x : r . x = 0 for r in rows} (exact)."""
    if not rows:
        return [[Q1 if i == j else Q0 for j in range(n)] for i in range(n)]
    R, rank = fmpq_mat(rows).rref()
    R = R.tolist()
    piv = []
    for r in R[:rank]:
        piv.append(next(j for j, a in enumerate(r) if a))
    out = []
    for f in (j for j in range(n) if j not in piv):
        v = [Q0] * n
        v[f] = Q1
        for r, p in zip(R[:rank], piv):
            v[p] = -r[f]
        out.append(v)
    return out


def _rank(rows) -> int:
    if not rows or not rows[0]:
        return 0
    return fmpq_mat(rows).rank()


def _residual_rank(R, free_ws, n):
    Q = _kernel_basis(free_ws, n)
    if not Q:
        return 0
    RQ = (fmpq_mat(R) * fmpq_mat(Q).transpose()).tolist() if R else []
    return _rank(RQ)


def minimal_shallow(net: Network) -> MinimalShallow:
    """Minimal hidden width of a one-hidden-layer network computing ``f`` (exact)."""
    from .equivalence import equivalent
    from .shallow import invariants

    if net.depth != 2:
        raise ShapeError(f"expected one hidden layer, got architecture {net.architecture}")
    inv = invariants(net)
    n, m = net.input_dim, net.output_dim
    classes = [(list(rho[:n]), rho[n], list(J)) for rho, J in inv.classes]
    k = len(classes)
    if 3**k > MAX_MODES:
        raise LimitError(f"{k} visible classes: 3^{k} mode assignments exceed MAX_MODES")
    A = [list(r) for r in inv.A]
    best = None
    for modes in itertools.product("PNF", repeat=k):
        R = [row[:] for row in A]
        for (w, _, J), md in zip(classes, modes):
            if md == "N":
                for o in range(m):
                    R[o] = [a + J[o] * wi for a, wi in zip(R[o], w)]
        free = [w for (w, _, _), md in zip(classes, modes) if md == "F"]
        cost = k + len(free) + 2 * _residual_rank(R, free, n)
        if best is None or cost < best[0]:
            best = (cost, modes, R)
    cost, modes, R = best
    out = _realise(classes, modes, R, net.evaluate([Q0] * n), n, m)
    if out.num_hidden != max(cost, 1) or not equivalent(out, net).equivalent:
        raise UndecidedError("internal: the minimal realisation does not check")  # pragma: no cover
    return MinimalShallow(cost, tuple(modes), (cost - k - modes.count("F")) // 2, out)


def _realise(classes, modes, R, f0, n, m) -> Network:
    rows, bias, cols = [], [], []
    free = [(i, w) for i, ((w, _, _), md) in enumerate(zip(classes, modes)) if md == "F"]
    # U on an independent subset of the free normals: R - U T vanishes off ker(T)
    T = []
    for _, w in free:
        if _rank(T + [w]) > len(T):
            T.append(w)
    U = [[Q0] * len(T) for _ in range(m)]
    if T:
        Tm = fmpq_mat(T)
        U = (fmpq_mat(R) * Tm.transpose() * (Tm * Tm.transpose()).inv()).tolist()
        Rm = (fmpq_mat(R) - fmpq_mat(U) * Tm).tolist()
    else:
        Rm = R
    ucol = {tuple(w): [U[o][t] for o in range(m)] for t, w in enumerate(T)}
    for (w, beta, J), md in zip(classes, modes):
        if md in "PF":
            rows.append(w), bias.append(beta)
            u = ucol.get(tuple(w), [Q0] * m) if md == "F" else [Q0] * m
            cols.append([J[o] + u[o] for o in range(m)])
        if md in "NF":
            rows.append([-a for a in w]), bias.append(-beta)
            u = ucol.get(tuple(w), [Q0] * m) if md == "F" else [Q0] * m
            cols.append([J[o] if md == "N" else -u[o] for o in range(m)])
            if md == "F":
                ucol.pop(tuple(w), None)
    Rq = fmpq_mat(Rm).rref()
    for r in [r for r in Rq[0].tolist() if any(r)]:
        p = next(j for j, a in enumerate(r) if a)
        c = [Rm[o][p] for o in range(m)]
        rows += [r, [-a for a in r]]
        bias += [Q0, Q0]
        cols += [c, [-v for v in c]]
    if not rows:  # affine f with zero linear part needs no neuron; keep one dead neuron
        rows, bias, cols = [[Q0] * n], [Q0], [[Q0] * m]
    V = [[col[o] for col in cols] for o in range(m)]
    net = Network([Layer(tuple(map(tuple, rows)), tuple(bias)), Layer(tuple(map(tuple, V)), tuple([Q0] * m))])
    d = [a - b for a, b in zip(f0, net.evaluate([Q0] * n))]
    return Network([net.layers[0], Layer(net.layers[1].weights, tuple(d))])
