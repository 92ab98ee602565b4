"""Kernel vectors of the functional dimension from *sensitivity relations* on a column.

Layer of :mod:`exactnet.fdim` (its step 3c): upper bounds on the functional dimension need
vectors ``v`` proved to satisfy ``J(x) v = 0`` at every strictly generic input ``x``.
This module proves one family: ``v`` supported on column ``j`` of ``W_l`` (the weights from
neuron ``(l-1, j)`` into layer ``l``, ``2 <= l <= L-1``). There

    J(x) v = h_(l-1,j)(x) * S(x),   S(x) = sum_i v_i c_(l,i)(x),

where ``c_(l,i) = d f / d z_(l,i)`` is a function of the activation pattern of layers ``l..L-1``
only: ``c_(L-1,k) = [z_(L-1,k) > 0] W_L[:,k]`` and ``c_(l,i) = [z_(l,i) > 0] sum_m W_(l+1)[m,i]
c_(l+1,m)``. Where ``z_(l-1,j) < 0`` the factor ``h`` is 0. So ``v`` is a kernel vector as soon as
every activation pattern of layers ``l..L-1`` that some strictly generic ``x`` with
``z_(l-1,j)(x) > 0`` has gives ``S = 0``.

**Proposal.** The sample (points of :func:`exactnet.fdim.functional_dimension`) gives the
rows ``(c_(l,i)(x))_i`` at its points with ``z_(l-1,j) > 0``; every vector of their exact null
space is a candidate. Floats and samples only propose.

**Proof** (:func:`prove_column_relation`): branch and bound over the patterns of the neurons of
layers ``l..L-1`` (those not already proved dead or stably active). A node fixes some of them
active or inactive; all hidden neurons not fixed are relaxed (``h >= 0``, ``h >= y``), a superset
of the graph of the network. Its LP maximises ``t`` under ``y - t >= 0`` for each fixed-active
neuron, ``-y - t >= 0`` for each fixed-inactive one and ``z_(l-1,j) - t >= 0``. A node is closed

* when exact multipliers prove ``sup t <= 0`` (no strictly generic point has these signs:
  the certificate is checked in ``fmpq`` by :func:`exactnet.fdim._exact_multipliers`), or
* when the neurons fixed so far give ``S = 0`` for every state of the others (exact, before any
  LP): ``S = W_L (u_(L-1) * P_(L-1))`` with ``u_l = v`` and ``u_(k+1) = W_(k+1) (u_k * P_k)``, so
  only the neurons where some ``u_k != 0`` matter (:func:`_undetermined`); the search branches
  on those only, in layer order.

The children of a node (one more neuron fixed either way) cover it, so the closed leaves cover
every strictly generic ``x`` with ``z_(l-1,j) > 0``; a node whose LP stays undecided (numerical
trouble in both solvers of :class:`exactnet.phase_lp.PhaseLP`) is replaced by its children. A
node whose fixed neurons give ``S != 0`` whatever the others (and ``t > 0``) is refuted when the LP's point, rounded (or, when rounding leaves the pattern, a point that
:func:`exactnet.fdim.margin_point` proposes deep inside the LP point's pattern), is checked
exactly to be a network point with that pattern (it becomes a sample point); otherwise the
relaxed lower neurons are branched on as in :func:`exactnet.fdim._neuron_never_positive`. The search is
depth first and takes the child on the LP point's side of the branched neuron's ``y = 0`` first (a
dive toward a refuting point; a proof closes the same tree in any order). Out of nodes: undecided, and nothing is claimed.
"""

from __future__ import annotations

import importlib.util
import time
from typing import Sequence

from flint import fmpq

from .modrank import nullspace_basis
from .network import Network

__all__ = ["column_candidates", "prove_column_relation", "prove_column_relations", "column_vectors",
           "sensitivities"]


def sensitivities(net: Network, pattern: dict, l: int) -> list[list[fmpq]] | None:
    """``c_(l,i)`` (a vector over the outputs) for every ``i`` of layer ``l``, or None when some neuron
    of layers ``l..L-1`` has no state in ``pattern`` (``(layer, index) -> bool``, True = active)."""
    L, A = net.depth, net.architecture
    if l >= L or any(pattern.get((layer, k)) is None for layer in range(l, L) for k in range(A[layer])):
        return None
    return _sensitivity_layers(net, pattern, l)[l]


def _sensitivity_layers(net: Network, pattern: dict, lowest: int) -> dict[int, list[list[fmpq]]]:
    """``sensitivities(net, pattern, l)`` for every ``l`` from ``L-1`` down to ``lowest`` in one backward
    pass (``pattern`` gives every neuron of those layers a state)."""
    L, A = net.depth, net.architecture
    W = net.weights(L)
    zero = fmpq(0)
    c = [[W[o][k] for o in range(A[L])] for k in range(A[L - 1])]
    out = {}
    for layer in range(L - 1, lowest - 1, -1):
        c = [row if pattern[(layer, k)] else [zero] * A[L] for k, row in enumerate(c)]
        out[layer] = c
        if layer == lowest:
            break
        Wl = net.weights(layer)
        c = [[sum((Wl[m][i] * c[m][o] for m in range(A[layer]) if Wl[m][i] and c[m][o]), zero)
              for o in range(A[L])] for i in range(A[layer - 1])]
    return out


def _pattern_of(z, net: Network) -> dict:
    return {(l, i): z[l - 1][i] > 0 for l in range(1, net.depth) for i in range(net.architecture[l])}


def column_candidates(net: Network, zs: Sequence[Sequence[Sequence[fmpq]]], skip: frozenset = frozenset()):
    """Candidates ``((l-1, j), l, v)`` from the sample's pre-activations ``zs`` (see the module docstring).
    ``skip``: neurons ``(l-1, j)`` left out (dead or irrelevant ones)."""
    from .fdim import scaled_to_unit

    L, A = net.depth, net.architecture
    out = []
    pats = [_pattern_of(z, net) for z in zs]
    sens = [_sensitivity_layers(net, pat, 2) for pat in pats] if L > 2 else []
    for l in range(2, L):
        for j in range(A[l - 1]):
            if (l - 1, j) in skip:
                continue
            cols = [i for i in range(A[l]) if net.weights(l)[i][j] != 0]
            if len(cols) < 2:
                continue
            rows = []
            for z, sz in zip(zs, sens):
                if z[l - 2][j] > 0:
                    c = sz[l]
                    for o in range(A[L]):
                        rows.append([c[i][o] for i in cols])
            if not rows:
                continue
            for x in nullspace_basis(rows, len(cols)):
                v = [fmpq(0)] * A[l]
                for t, i in enumerate(cols):
                    v[i] = x[t]
                out.append(((l - 1, j), l, scaled_to_unit(v)))
    return out


def _undetermined(net: Network, state: dict, l: int, v: Sequence[fmpq]):
    """Whether the states fix ``S = sum_i v_i c_(l,i)`` for every completion of the pattern.

    ``S = W_L (u_(L-1) * P_(L-1))`` with ``u_l = v`` and ``u_(k+1) = W_(k+1) (u_k * P_k)`` (``*``:
    entrywise, ``P_k`` the 0/1 states of layer ``k``), so ``u_(k+1)`` depends only on the states of
    the neurons of layer ``k`` where ``u_k != 0``. Returns ``"zero"`` (``S = 0`` whatever the other
    states), ``"nonzero"`` (``S != 0`` whatever they are) or a neuron whose state is still needed."""
    L, A = net.depth, net.architecture
    u = {i: vi for i, vi in enumerate(v) if vi}
    for layer in range(l, L):
        for i in u:
            if state.get((layer, i)) is None:
                return (layer, i)
        W = net.weights(layer + 1)
        on = [(i, ui) for i, ui in u.items() if state[(layer, i)]]
        u = {}
        for m in range(A[layer + 1]):
            s = sum((W[m][i] * ui for i, ui in on if W[m][i]), fmpq(0))
            if s:
                u[m] = s
        if not u:
            return "zero"
    return "nonzero"


def prove_column_relation(net: Network, neuron: tuple[int, int], l: int, v: Sequence[fmpq], dead: set,
                          active: set, max_nodes: int = 200, deadline: float | None = None):
    """``(True, None)`` proved, ``(False, x)`` refuted at the exact point ``x``, ``(None, None)`` undecided
    (more than ``max_nodes`` nodes, or past ``deadline``, a ``time.process_time()`` value)."""
    from .fdim import margin_point
    from .phase_tree import DONE, next_node, resume_tree, save_tree
    from .phase_lp import PhaseLP

    L, A, n0 = net.depth, net.architecture, net.input_dim
    zero = fmpq(0)
    index, nv = {}, n0
    for layer in range(1, L):
        for i in range(A[layer]):
            index[(layer, i)] = nv
            nv += 1

    def affine(layer, i):  # y_(layer,i) over the variables (t not included), and its constant
        a = [zero] * nv
        for jj, w in enumerate(net.weights(layer)[i]):
            if w:
                a[jj if layer == 1 else index[(layer - 1, jj)]] = w
        return a, net.biases(layer)[i]

    Y = {k: affine(*k) for k in index}
    order = [k for k in index if k[0] >= l and k not in dead and k not in active]
    fixed0 = {k: False for k in dead} | {k: True for k in active}
    # the node LPs (exactnet.phase_lp): the neuron active with margin t, the branched upper neurons
    # with their signs strict by the same margin, t <= 1 keeps every node bounded
    # (an earlier pass's open tree goes on: exactnet.phase_tree.resume_tree)
    key = ("column", id(net), neuron, l, tuple(v), tuple(sorted(fixed0.items())))
    plp, tree = resume_tree(key, lambda: PhaseLP(Y, index, [Y[neuron]], nv, margin=order,
                                                    t_max=fmpq(1)), [dict(fixed0)])
    if plp is None:
        return True, None
    stack = tree.stack
    while True:  # (phase_tree.next_node: the leaves closed in floats get their exact checks at the end)
        state = next_node(plp, tree, key, max_nodes, deadline)
        if state is None:
            return None, None
        if state is DONE:
            break
        nxt = _undetermined(net, state, l, v)
        if nxt == "zero":
            continue  # S = 0 for every pattern with these states
        how, x_lp = plp.solve({k: "active" if s else "dead" for k, s in state.items()},
                              defer=tree.defers(state))
        if how == "closing":
            tree.pending.append((state, x_lp))
            continue
        if how is None:  # undecided LP (numerical trouble): its children cover it, try them
            nxt = nxt if nxt != "nonzero" else next((k for k in Y if k not in state), None)
            if nxt is None:
                return None, None
            stack += [{**state, nxt: False}, {**state, nxt: True}]
            continue
        if how == "closed":
            continue  # no strictly generic point with these signs
        if nxt == "nonzero":
            best, bk = 1e-9, None  # a relaxed lower neuron whose h sits above relu(y)
            for k in Y:
                if k in state:
                    continue
                gap = plp.gap(k, x_lp)
                if gap > best:
                    best, bk = gap, k
            if bk is None:
                def refutes(x):
                    z = net.preactivations(x)
                    pat = _pattern_of(z, net)
                    return z[neuron[0] - 1][neuron[1]] > 0 and net.is_generic_point(x) and \
                        all(pat[k] == s for k, s in state.items())

                x = [fmpq(round(t * 4096), 4096) for t in x_lp[:n0]]
                if refutes(x):
                    return False, x
                # rounding left the pattern (a thin region, or large coordinates): freeze the LP
                # point's pattern, with the neuron active and the fixed states, and propose a
                # point deep inside it (floats propose; refutes() decides exactly)
                pattern = {k: float(sum(float(ai) * x_lp[jj] for jj, ai in enumerate(a) if ai)) + float(b) > 0
                           for k, (a, b) in Y.items()}
                pattern.update(state)
                pattern[neuron] = True
                x = margin_point(net, pattern, L - 1)
                if x is not None and refutes(x):
                    return False, x
                return None, None
            nxt = bk
        # the child on the LP point's side of y = 0 is popped first: it is where a refuting point
        # lies if the node has one (the tree, so a proof, is the same in either order)
        first = plp.y_value(nxt, x_lp) > 0
        for s in (not first, first):
            child = dict(state)
            child[nxt] = s
            stack.append(child)
    save_tree(key, None, tree)
    return True, None


def prove_column_relations(net: Network, candidates, dead, active, budget: float = 10.0,
                           max_nodes: int = 5000, left: list | None = None) -> tuple[list, list]:
    """The proved candidates and exact refuting points (see :func:`prove_column_relation`)."""
    if importlib.util.find_spec("scipy") is None:
        return [], []
    from .fdim import _prove_each

    deadline = time.process_time() + budget

    def proofs(cand, nodes):
        neuron, l, v = cand
        yield prove_column_relation(net, neuron, l, v, set(dead), set(active), max_nodes=nodes,
                                    deadline=deadline)
    return _prove_each(candidates, proofs, budget, max_nodes, left)


def column_vectors(net: Network, proved) -> list[list[fmpq]]:
    """Kernel vectors of proved candidates: ``v`` on column ``j`` of ``W_l``."""
    D, vecs = net.num_parameters, []
    for (lm1, j), l, v in proved:
        u = [fmpq(0)] * D
        for i, vi in enumerate(v):
            u[net.parameter_index(l, i, j)] = vi
        vecs.append(u)
    return vecs
