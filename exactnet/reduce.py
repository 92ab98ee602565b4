"""Reduce a ReLU network to an exactly equivalent one without removable neurons.

Each step preserves the function on all of ``R^n0`` (proofs in
``proofs/lemmas/reduce.md``); steps repeat until none applies, so :func:`reduce_network`
is idempotent and never increases the number of neurons or layers.

* **dead**: pre-activation ``<= 0`` everywhere. Decided exactly on the activation-region
  complex (:func:`exactnet.regions.compute_regions`): pattern bit 0 on every cell (a cell's
  interior point has the strict sign, or the neuron is identically zero there). Removed.
* **constant** (first layer, ``w = 0``, ``b > 0``): outputs ``b``; folded into the next bias.
* **unused**: zero outgoing column. Removed.
* **duplicate**: ``(w_j, b_j) = lam (w_i, b_i)``, ``lam > 0``: ``relu(z_j) = lam relu(z_i)``;
  the outgoing column of ``j`` times ``lam`` is added to ``i``'s, ``j`` removed.
* **opposite pairs with affine sum**: ``(w_j, b_j) = -lam (w_i, b_i)`` and
  ``lam V_j = -V_i``: the pair computes ``V_i z_i`` (``relu(t) - relu(-t) = t``). All such
  pairs of a layer sum to ``M h + beta``; ``beta`` goes to the next bias and ``M = C R``
  (rank ``r``) is re-realised by ``r`` pairs ``relu(+-R_k h)``, only if ``r`` is smaller
  than the number of pairs; if the layer consists of such pairs only, it is composed into
  the next layer (which then reads ``M h + beta + c``; if ``M = 0`` ``f`` is constant).
* **stably active layer**: every neuron of the layer has pre-activation ``>= 0`` on every
  cell: the layer is affine and is composed into the next one (one layer fewer).
* A layer that would lose all its neurons makes the rest of the network constant: the
  result is then the affine network ``x -> K`` with ``K = f(p)`` (architecture ``(n0, m)``),
  ``p`` the centre of the box when one is given (a layer dead on the box is zero only on
  the box, so ``f(0)`` would be wrong when ``0`` lies outside it), else ``0``.

With ``box=(lo, hi)`` the "dead" and "stably active" steps are decided on ``[lo, hi]^n0``
only, so the result equals ``f`` on the box (not necessarily outside it). Every result is
re-checked by exact evaluation at seeded random points of the domain before it is returned
(and, with ``certificate=True``, by the EQUIVALENT certificate): a mismatch raises
:class:`~exactnet.errors.UndecidedError` instead of returning a wrong network.

Compositions (steps "opposite pairs" for a whole layer and "stably active layer") are
done only when they do not increase the number of parameters, so the result is never
larger in neurons, layers or parameters.

Partially stably active layers are kept as they are: a single always-active neuron
computes an affine function of the layer *before*, which the next layer cannot read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from flint import fmpq, fmpq_mat

from .errors import UndecidedError
from .network import Layer, Network

__all__ = ["ReduceResult", "reduce_network", "cheap_reduce"]

Q0 = fmpq(0)


@dataclass
class ReduceResult:
    network: Network
    steps: list = field(default_factory=list)  # (kind, layer, neuron indices)
    certificate_text: str | None = None


def _rows(net):
    return [([list(r) for r in L.weights], list(L.biases)) for L in net.layers]


def _build(rows) -> Network:
    return Network([Layer(tuple(tuple(r) for r in W), tuple(b)) for W, b in rows])


def _centre(net: Network, box) -> list[fmpq]:
    """A point of the domain: the centre of ``[lo, hi]^n0``, or ``0`` without a box."""
    if box is None:
        return [Q0] * net.input_dim
    return [(box[0] + box[1]) / 2] * net.input_dim


def _constant(net: Network, box=None) -> Network:
    """The affine network ``x -> net(p)``, ``p`` a point of the domain (see :func:`_centre`);
    callers use it only when ``net`` is constant on the whole domain."""
    K = net.evaluate(_centre(net, box))
    return Network([Layer(tuple(tuple(Q0 for _ in range(net.input_dim)) for _ in K), tuple(K))])


def _remove(rows, l, keep):
    """Keep only neurons ``keep`` of hidden layer ``l`` (1-based)."""
    W, b = rows[l - 1]
    rows[l - 1] = ([W[i] for i in keep], [b[i] for i in keep])
    V, c = rows[l]
    rows[l] = ([[r[i] for i in keep] for r in V], c)


def _ratio(u, v):
    """``lam`` with ``v = lam u`` (u nonzero), or None."""
    k = next(i for i, a in enumerate(u) if a)
    lam = v[k] / u[k]
    return lam if all(lam * a == x for a, x in zip(u, v)) else None


def _classify(net: Network, box):
    from .regions import compute_regions

    rc = compute_regions(net, box=box)
    dead, active = set(), set()
    for l in range(1, net.depth):
        for i in range(net.architecture[l]):
            bits = [c.pattern[l - 1][i] for c in rc.cells]
            if not any(bits):
                dead.add((l, i))
            if all(bit or (l, i) in c.zero for bit, c in zip(bits, rc.cells)):
                active.add((l, i))
    return dead, active


def _step(net: Network, box, regions: bool = True):
    """One reduction step: (new network, step description) or None (``regions=False``: only
    the steps that need no region complex)."""
    rows = _rows(net)
    L = net.depth
    for l in range(1, L):  # unused, constant first-layer neurons, duplicates, opposite pairs
        W, b = rows[l - 1]
        V, c = rows[l]
        n = len(b)
        unused = [i for i in range(n) if not any(r[i] for r in V)]
        if unused:
            return _drop(net, rows, l, unused, "unused", box)
        if l == 1:
            const = [i for i in range(n) if not any(W[i])]
            if const:
                add = [sum((r[i] * b[i] for i in const if b[i] > 0), Q0) for r in V]
                rows[l] = (V, [cj + a for cj, a in zip(c, add)])
                return _drop(net, rows, l, const, "constant", box)
        full = [W[i] + [b[i]] for i in range(n)]
        for i in range(n):
            if not any(full[i]):
                continue
            for j in range(i + 1, n):
                lam = _ratio(full[i], full[j]) if any(full[j]) else None
                if lam is not None and lam > 0:
                    for r in V:
                        r[i] += lam * r[j]
                    return _drop(net, rows, l, [j], "duplicate", box)
        red = _merge_pairs(rows, l, box)
        if red is not None:
            return red
    if not regions:
        return None
    dead, active = _classify(net, box)
    for l in range(1, L):
        n = net.architecture[l]
        d = [i for i in range(n) if (l, i) in dead]
        if d:
            return _drop(net, rows, l, d, "dead", box)
        if all((l, i) in active for i in range(n)) and (
            _params([([[Q0] * len(rows[l - 1][0][0])] * len(rows[l][1]), rows[l][1])]) <= _params(rows[l - 1 : l + 1])
        ):
            W, b = rows[l - 1]
            V, c = rows[l]
            Vm, Wm = fmpq_mat(V), fmpq_mat(W)
            new_w = (Vm * Wm).tolist()
            new_b = [cj + sum((a * bb for a, bb in zip(r, b)), Q0) for cj, r in zip(c, V)]
            rows[l - 1 : l + 1] = [(new_w, new_b)]
            return _build(rows), ("stably-active-layer", l, list(range(n)))
    return None


def _params(rows) -> int:
    return sum(len(b) * (len(W[0]) + 1) for W, b in rows)


def _drop(net, rows, l, idx, kind, box=None):
    keep = [i for i in range(len(rows[l - 1][1])) if i not in idx]
    if not keep:  # layer l outputs 0 on the whole domain: f is constant there, f(p) at any p in it
        return _constant(net, box), (kind, l, list(idx))
    _remove(rows, l, keep)
    return _build(rows), (kind, l, list(idx))


def _merge_pairs(rows, l, box=None):
    W, b = rows[l - 1]
    V, c = rows[l]
    n = len(b)
    full = [W[i] + [b[i]] for i in range(n)]
    used, pairs = set(), []
    for i in range(n):
        for j in range(i + 1, n):
            if i in used or j in used or not any(full[i]) or not any(full[j]):
                continue
            lam = _ratio(full[i], full[j])
            if lam is not None and lam < 0 and all(-lam * r[j] == -r[i] for r in V):
                pairs.append(i)
                used.update((i, j))
    if not pairs:
        return None
    # sum of pairs: sum_i V_i (w_i . h + b_i)
    M = fmpq_mat(len(V), len(W[0]))
    for i in pairs:
        M += fmpq_mat([[r[i]] for r in V]) * fmpq_mat([W[i]])
    beta = [sum((r[i] * b[i] for i in pairs), Q0) for r in V]
    R = M.rref()[0]
    Rrows = [row for row in R.tolist() if any(row)]
    keep = [i for i in range(n) if i not in used]
    compose = not keep and Rrows and _params([(M.tolist(), c)]) <= _params(rows[l - 1 : l + 1])
    if not keep and not Rrows:  # layer l+1 reads a constant: f is constant
        return _constant(_build(rows), box), ("opposite-pairs-constant", l, sorted(used))
    if len(Rrows) >= len(pairs) and not compose:
        return None
    piv = [next(k for k, a in enumerate(row) if a) for row in Rrows]
    Ml = M.tolist()
    newW = [W[i] for i in keep]
    newb = [b[i] for i in keep]
    newV = [[r[i] for i in keep] for r in V]
    for k, row in enumerate(Rrows):
        newW += [list(row), [-a for a in row]]
        newb += [Q0, Q0]
        for r, mrow in zip(newV, Ml):
            r += [mrow[piv[k]], -mrow[piv[k]]]
    newc = [cj + bj for cj, bj in zip(c, beta)]
    net_rows = list(rows)
    if compose:  # the layer is all affine pairs: compose it into the next layer
        net_rows[l - 1 : l + 1] = [(Ml, newc)]
        return _build(net_rows), ("opposite-pairs-layer", l, sorted(used))
    net_rows[l - 1] = (newW, newb)
    net_rows[l] = (newV, newc)
    return _build(net_rows), ("opposite-pairs", l, sorted(used))


def reduce_network(net: Network, box=None, certificate: bool = False, max_steps: int = 10000) -> ReduceResult:
    """An exactly equivalent network without dead, unused, constant, duplicate neurons,
    mergeable opposite pairs or stably active layers (see the module docstring).

    ``box=(lo, hi)``: equivalent on ``[lo, hi]^n0`` only (see :func:`exactnet.equivalence.parse_box`
    for the accepted forms). ``certificate=True`` adds an EQUIVALENT certificate of the input
    and the result (on the box). UndecidedError if the re-check of the result fails.
    """
    from .equivalence import equivalent, parse_box, random_points

    box = parse_box(box)
    cur, steps = net, []
    for _ in range(max_steps):
        if cur.depth == 1:
            break
        out = _step(cur, box)
        if out is None:
            break
        cur, st = out
        steps.append(st)
    res = ReduceResult(Network(cur.layers, name=net.name, metadata=net.metadata), steps)
    pts = random_points(net.input_dim, 8, seed=7, box=box) + [_centre(net, box)]
    if any(net.evaluate(p) != res.network.evaluate(p) for p in pts):
        raise UndecidedError("internal: the reduced network differs from the input at a sample point")
    if certificate:
        eq = equivalent(net, res.network, box=box, certificate=True)
        if not eq.equivalent:
            raise UndecidedError("internal: the reduced network is not equivalent to the input")
        res.certificate_text = eq.certificate_text
    return res


def cheap_reduce(net: Network, max_steps: int = 100000) -> Network:
    """Only the steps without a region complex (unused, constant, duplicate, opposite pairs):
    fast, exactly equivalent on all of ``R^n0``."""
    cur = net
    for _ in range(max_steps):
        if cur.depth == 1:
            break
        out = _step(cur, None, regions=False)
        if out is None:
            break
        cur = out[0]
    return cur
