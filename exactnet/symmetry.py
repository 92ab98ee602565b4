"""Trivial symmetries of ReLU networks: permutations and positive scalings of hidden neurons.

The group ``G`` acts on the parameters of an architecture by permuting the
neurons of each hidden layer and by scaling hidden neuron ``(l, i)`` by ``c > 0``
(row ``i`` of ``W_l`` and ``b_l[i]`` times ``c``, column ``i`` of ``W_(l+1)``
divided by ``c``). Every element of ``G`` preserves the function.

Canonical form (theory.md section 1). Layer by layer, every hidden neuron whose
incoming row ``(w, b)`` is nonzero is divided by the absolute value of the first
nonzero entry of ``(w, b)`` (columns in the already canonical order of the layer
before) and the next layer compensates; then the neurons of the layer are sorted
by their normalised rows. Two cases need care:

* **Tied rows** (two neurons with the same normalised row): the order among them
  changes the next layers. The canonical form takes, over all orders of every tie
  class, the lexicographically smallest serialisation of the whole network, so it
  stays an orbit invariant. In the last hidden layer that least order is simply the
  sort by (normalised row, scaled outgoing column), found without enumeration
  (proofs/lemmas/orbit.md); ties in earlier hidden layers are enumerated, which is
  exponential in the tie classes' sizes: more than ``TIE_LIMIT`` combinations raise
  :class:`LimitError`.
* **Zero incoming rows** (``w = 0`` and ``b = 0``: a neuron that is identically
  zero). Its scale cannot be read from its row, nor can the scale of a neuron
  whose bias is zero and whose nonzero weights all come from such neurons. These
  neurons (recursively) are *silent*, the others *anchored*; silence is read from
  zeros alone, so it is the same in the whole orbit. A network with a zero incoming
  row (only such a network: without one, the form is exactly the one above) is put
  in canonical form as follows. In every hidden layer the anchored neurons come
  first, normalised and sorted as above by their *anchored row* (the weights from
  the anchored neurons of the layer before, then the bias; in the last hidden layer
  also by the compensated outgoing column). The silent neurons follow, sorted by
  their *root column* (their outgoing weights into the anchored neurons of the next
  layer, into the outputs after the last hidden layer), normalised so that its
  first nonzero entry has absolute value 1. A silent neuron whose root column is
  zero takes its scale from the weights between silent neurons, in serialisation
  order: a weight joining two groups of silent neurons not yet joined is scaled to
  absolute value 1 (Kruskal's algorithm); a group no weight joins to a root column
  keeps a free common scale that changes no parameter. Over every order of the tie
  classes of every hidden layer (anchored neurons whose anchored rows are positive
  multiples, silent neurons whose root columns are; the last hidden layer included;
  identical neurons not reordered) the least serialisation wins, and more than
  ``TIE_LIMIT`` orders raise :class:`LimitError`. Every step applies a group
  element, and the orders tried and the normalisations are the same for every
  element of the orbit (proofs/lemmas/orbit.md, "Zero rows"), so the form is an
  orbit invariant here too, and ``canonical_form(canonical_form(n)) ==
  canonical_form(n)``. (The former rule normalised a zero-row neuron's outgoing
  column before the next layer's rows were scaled and sorted, so it was neither.)

So ``canonical_form(a) == canonical_form(b)`` iff ``a`` and ``b`` are in one orbit,
with or without zero rows (up to :class:`LimitError`). :func:`same_orbit` still
answers only "same orbit" from equal forms when a network has zero rows and the
zero-row counts agree, and :class:`UndecidedError` otherwise: the independent
checker (proofs/orbit.py) canonicalises only networks without zero rows, and
callers that certify "outside the orbit" rely on this answer.
"""

from __future__ import annotations

import itertools
import math
import random
from typing import Sequence

from flint import fmpq

from .errors import ExactnetError, FormatError, LimitError, ShapeError, UndecidedError, ValueRangeError
from .network import Layer, Network, _index  # one integer reader for indices (network.py)
from .qq import Q0, Q1, to_q

__all__ = [
    "TIE_LIMIT",
    "zero_row_counts",
    "permute_layer",
    "scale_neuron",
    "scale_layer",
    "canonical_form",
    "same_orbit",
    "has_zero_rows",
    "orbit_map",
    "pull_back",
    "canonical_map",
    "random_orbit_element",
    "normalised_row",
]

#: Most orderings of tied neurons the canonical form tries before giving up.
TIE_LIMIT = 40320


def _rows(net: Network) -> list[tuple[list[list[fmpq]], list[fmpq]]]:
    return [([list(r) for r in L.weights], list(L.biases)) for L in net.layers]


def _build(rows, like: Network) -> Network:
    layers = [Layer(tuple(tuple(r) for r in W), tuple(b)) for W, b in rows]
    return Network(layers, name=like.name, metadata=like.metadata)


def _check_hidden(net: Network, l: int) -> None:
    if not isinstance(net, Network):
        raise FormatError(f"expected a Network, got {type(net).__name__}")
    l = _index(l, "layer index")
    if not 1 <= l < net.depth:
        raise ShapeError(f"layer {l} is not a hidden layer (hidden layers are 1..{net.depth - 1})")


def permute_layer(net: Network, l: int, perm: Sequence[int]) -> Network:
    """Reorder the neurons of hidden layer ``l``: new neuron ``k`` is old neuron ``perm[k]``."""
    _check_hidden(net, l)
    n = net.architecture[l]
    if isinstance(perm, (str, bytes)) or not hasattr(perm, "__iter__"):
        raise FormatError(f"a permutation must be a sequence of integers, got {perm!r}")
    perm = [_index(p, "permutation entry") for p in perm]
    if sorted(perm) != list(range(n)):
        raise ValueRangeError(f"{list(perm)} is not a permutation of 0..{n - 1}")
    rows = _rows(net)
    W, b = rows[l - 1]
    rows[l - 1] = ([W[p] for p in perm], [b[p] for p in perm])
    W2, b2 = rows[l]
    rows[l] = ([[r[p] for p in perm] for r in W2], b2)
    return _build(rows, net)


def scale_neuron(net: Network, l: int, i: int, c: object) -> Network:
    """Scale hidden neuron ``(l, i)`` by ``c > 0`` (incoming row times c, outgoing column over c).

    ``i`` is ``0..n_l-1`` (no negative indices; ShapeError otherwise); ``c`` is an exact positive
    rational (ValueRangeError for ``c <= 0``, FormatError for floats and non-numbers)."""
    _check_hidden(net, l)
    n = net.architecture[l]
    i = _index(i, "neuron index")
    if not 0 <= i < n:
        raise ShapeError(f"neuron {i} is not in hidden layer {l} (neurons are 0..{n - 1})")
    c = to_q(c)
    if not c > 0:
        raise ValueRangeError(f"scaling factor must be positive, got {c}")
    rows = _rows(net)
    W, b = rows[l - 1]
    W[i] = [v * c for v in W[i]]
    b[i] = b[i] * c
    W2, _ = rows[l]
    for r in W2:
        r[i] = r[i] / c
    return _build(rows, net)


def scale_layer(net: Network, l: int, factors: Sequence[object]) -> Network:
    """Scale every neuron of hidden layer ``l`` by its factor (all > 0): exactly one factor per
    neuron (ShapeError otherwise)."""
    _check_hidden(net, l)
    if isinstance(factors, (str, bytes)) or not hasattr(factors, "__len__"):
        raise FormatError(f"factors must be a sequence of positive rationals, got {factors!r}")
    n = net.architecture[l]
    if len(factors) != n:
        raise ShapeError(f"hidden layer {l} has {n} neurons but {len(factors)} factors were given")
    out = net
    for i, c in enumerate(factors):
        out = scale_neuron(out, l, i, c)
    return out


def normalised_row(w: Sequence[fmpq], b: fmpq) -> tuple[fmpq, ...] | None:
    """``(w, b)`` divided by ``|first nonzero entry|``, or None for the zero row."""
    full = list(w) + [b]
    for v in full:
        if v != 0:
            s = abs(v)
            return tuple(x / s for x in full)
    return None


def has_zero_rows(net: Network) -> bool:
    """True when some hidden neuron has incoming row ``(w, b) = 0``."""
    return any(zero_row_counts(net))


def zero_row_counts(net: Network) -> list[int]:
    """Per hidden layer, the number of neurons with incoming row ``(w, b) = 0``: an orbit invariant
    (a permutation moves rows, a positive scaling keeps a row zero or nonzero)."""
    return [sum(all(v == 0 for v in row) and bias == 0 for row, bias in zip(L.weights, L.biases))
            for L in net.layers[:-1]]


def _serial(rows) -> tuple:
    """The order in which forms are compared: every weight matrix (row by row), then every bias
    vector, as the checker's ``(Ws, bs)`` compare (proofs/orbit.py), so both pick the same form."""
    return tuple(tuple(map(tuple, W)) for W, _ in rows), tuple(tuple(b) for _, b in rows)


class _Counter:
    def __init__(self) -> None:
        self.n = 0


def _permuted(rows, l: int, perm: list[int], W, b, W2, b2):
    """``rows`` with layer ``l``'s neurons in the order ``perm`` (rows ``W``, ``b``; next layer's
    columns of ``W2``, whose bias ``b2`` is unchanged)."""
    new = list(rows)
    new[l - 1] = ([W[p] for p in perm], [b[p] for p in perm])
    new[l] = ([[r[p] for p in perm] for r in W2], b2)
    return new


def _layer_orders(rows, l: int, L: int, counter: _Counter):
    """Normalise hidden layer ``l`` of ``rows`` and list the orders of its neurons to try.

    Returns ``(W, b, W2, b2, orders)``: the layer's scaled rows ``W``, ``b``, the next layer's
    compensated columns ``W2`` (bias ``b2``), and the neuron orders whose canonical completions
    compete (one order in the last hidden layer, or when no neurons tie). Counts the orders in
    ``counter`` and raises :class:`LimitError` past :data:`TIE_LIMIT`. Networks without zero
    incoming rows only (:func:`canonical_form` sends the others to :func:`_canon_silent`).
    """
    W, b = rows[l - 1]
    W2, b2 = rows[l]
    n = len(b)
    normal: list[tuple[tuple, int]] = []
    W = [list(r) for r in W]
    b = list(b)
    W2 = [list(r) for r in W2]
    for i in range(n):
        nr = normalised_row(W[i], b[i])
        if nr is None:
            raise ExactnetError("internal: a zero incoming row reached the form without zero rows")
        s = abs(next(v for v in list(W[i]) + [b[i]] if v != 0))
        W[i] = [v / s for v in W[i]]
        b[i] = b[i] / s
        for r in W2:
            r[i] = r[i] * s
        normal.append((nr, i))
    if l == L - 1:
        # Last hidden layer: no later layer depends on the order, so sorting by (normalised row,
        # scaled outgoing column) gives the least serialisation at once, with no enumeration
        # (Lemma L of proofs/lemmas/orbit.md); neurons still tied are identical.
        normal.sort(key=lambda t: (t[0], tuple(r[t[1]] for r in W2)))
        counter.n += 1  # one ordering, counted as the checker counts it (proofs/orbit.py)
        if counter.n > TIE_LIMIT:
            raise LimitError(f"canonical form: more than {TIE_LIMIT} orderings of tied neurons to try")
        return W, b, W2, b2, [[i for _, i in normal]]
    # group into tie classes, sorted
    normal.sort(key=lambda t: t[0])
    groups: list[list[int]] = []
    for k, (nr, i) in enumerate(normal):
        if k and normal[k - 1][0] == nr:
            groups[-1].append(i)
        else:
            groups.append([i])
    combos = 1
    for g in groups:
        for m in range(2, len(g) + 1):
            combos *= m
    counter.n += combos
    if counter.n > TIE_LIMIT:
        raise LimitError(
            f"canonical form: more than {TIE_LIMIT} orderings of tied neurons to try"
        )
    orders = [[i for g in choice for i in g]
              for choice in itertools.product(*[itertools.permutations(g) for g in groups])]
    return W, b, W2, b2, orders


class _Frame:
    """One hidden layer being canonicalised: its input ``rows``, the normalised pieces, the
    neuron orders still to try and the least completion ``best = (serialisation, rows)`` so far."""

    __slots__ = ("l", "rows", "parts", "orders", "next", "best")

    def __init__(self, l: int, rows, parts, orders: list[list[int]]) -> None:
        self.l, self.rows, self.parts, self.orders = l, rows, parts, orders
        self.next = 0
        self.best: tuple | None = None


def _canon_from(rows, l: int, L: int, counter: _Counter):
    """Canonicalise hidden layers l..L-1 of ``rows`` (layers < l already canonical).

    Depth-first over the layers with an explicit stack (not recursion, so any number of layers
    works): in each hidden layer every order of its tie classes is completed canonically through
    the later layers and the least serialisation wins; layers are visited, and orders counted
    against :data:`TIE_LIMIT`, in the same order as the recursive definition.
    """
    stack: list[_Frame] = []
    cur, cl = rows, l  # the next layer to descend into
    while True:
        # descend until a complete canonical network ``done`` is reached
        while cl < L:
            W, b, W2, b2, orders = _layer_orders(cur, cl, L, counter)
            if cl == L - 1:
                cur = _permuted(cur, cl, orders[0], W, b, W2, b2)
                break
            fr = _Frame(cl, cur, (W, b, W2, b2), orders)
            stack.append(fr)
            fr.next = 1
            cur, cl = _permuted(cur, cl, orders[0], W, b, W2, b2), cl + 1
        done = cur
        # climb: hand ``done`` to the frames above; start the next untried order, if any
        while stack:
            fr = stack[-1]
            if len(fr.orders) == 1:  # the only completion: no comparison needed
                fr.best = (None, done)
            else:
                s = _serial(done)
                if fr.best is None or s < fr.best[0]:
                    fr.best = (s, done)
            if fr.next < len(fr.orders):
                order = fr.orders[fr.next]
                fr.next += 1
                cur, cl = _permuted(fr.rows, fr.l, order, *fr.parts), fr.l + 1
                break
            stack.pop()
            done = fr.best[1]
        else:
            return done


# --- networks with zero incoming rows (module docstring, "Zero incoming rows") -------------------


def _silent_flags(rows) -> list[list[bool]]:
    """Per hidden layer, which neurons are *silent*: zero bias and nonzero incoming weights only
    from silent neurons of the layer before (a zero incoming row is the first case). A silent
    neuron outputs 0 at every input; the others are *anchored*. Silence is read from zeros alone,
    so the same neurons (moved by the permutations) are silent in every element of the orbit;
    a network has silent neurons iff it has zero incoming rows."""
    out: list[list[bool]] = []
    prev: list[bool] = []  # the inputs are anchored
    for W, b in rows[:-1]:
        cur = [bias == 0 and all(v == 0 or (i < len(prev) and prev[i]) for i, v in enumerate(row))
               for row, bias in zip(W, b)]
        out.append(cur)
        prev = cur
    return out


def _first_abs(vals: Sequence[fmpq]) -> fmpq | None:
    """``|first nonzero entry|`` of ``vals``, or None when every entry is zero."""
    return next((abs(v) for v in vals if v != 0), None)


def _unit(vals: Sequence[fmpq]) -> tuple[fmpq, ...]:
    """``vals`` divided by ``|first nonzero entry|``; the zero vector as it is."""
    s = _first_abs(vals)
    return tuple(vals) if s is None else tuple(v / s for v in vals)


def _arrangements(members: list[int], ident: dict[int, tuple]) -> list[tuple[int, ...]]:
    """The orders of the tie class ``members`` that can give different networks: neurons with equal
    ``ident`` (incoming row and outgoing column equal up to the scaling ``(c row, col / c)``) are
    exchanged by a group element that fixes the network, so one order per sequence of their labels
    is enough (members with one label in increasing index order)."""
    pools: dict[tuple, list[int]] = {}
    for i in members:
        pools.setdefault(ident[i], []).append(i)
    groups = list(pools.values())
    counts = [len(g) for g in groups]
    out: list[tuple[int, ...]] = []
    seq: list[int] = []

    def extend(left: int) -> None:  # recursion depth = size of one tie class
        if not left:
            taken = [0] * len(groups)
            order = []
            for t in seq:
                order.append(groups[t][taken[t]])
                taken[t] += 1
            out.append(tuple(order))
            return
        for t in range(len(groups)):
            if counts[t]:
                counts[t] -= 1
                seq.append(t)
                extend(left - 1)
                seq.pop()
                counts[t] += 1

    extend(len(members))
    return out


def _count_arrangements(members: list[int], ident: dict[int, tuple]) -> int:
    """How many orders :func:`_arrangements` gives: a multinomial coefficient."""
    sizes: dict[tuple, int] = {}
    for i in members:
        sizes[ident[i]] = sizes.get(ident[i], 0) + 1
    out = math.factorial(len(members))
    for c in sizes.values():
        out //= math.factorial(c)
    return out


def _silent_classes(rows, L: int, silent: list[list[bool]]) -> list[list[tuple[bool, list[tuple[int, ...]]]]]:
    """Per hidden layer, its tie classes as ``(silent, arrangements)``.

    Anchored neurons tie when their *anchored rows* (weights from the anchored neurons of the layer
    before, then the bias) are positive multiples, and in the last hidden layer also their
    outgoing columns (compensated); silent neurons tie when their *root columns* (outgoing weights
    into the anchored neurons of the next layer, the outputs after the last hidden layer) are
    positive multiples. Positive multiples stay so under every permutation and positive scaling,
    so the classes, read here in the network's own order, are those of every order met later.
    Raises :class:`LimitError` when the orders of all classes together exceed :data:`TIE_LIMIT`."""
    out = []
    combos = 1
    for l in range(1, L):
        W, b = rows[l - 1]
        W2 = rows[l][0]
        prev_a = [i for i in range(len(W[0])) if l == 1 or not silent[l - 2][i]]
        roots = list(range(len(W2))) if l == L - 1 else [k for k in range(len(W2)) if not silent[l][k]]
        keys: dict[tuple, list[int]] = {}
        ident: dict[int, tuple] = {}
        for j in range(len(b)):
            col = [r[j] for r in W2]
            if silent[l - 1][j]:
                key: tuple = (True, _unit([W2[k][j] for k in roots]))
            else:
                part = [W[j][i] for i in prev_a] + [b[j]]
                s = _first_abs(part)
                key = (False, tuple(v / s for v in part), tuple(v * s for v in col) if l == L - 1 else ())
            keys.setdefault(key, []).append(j)
            full = list(W[j]) + [b[j]]
            s = _first_abs(full)
            ident[j] = ((), _unit(col)) if s is None else \
                (tuple(v / s for v in full), tuple(v * s for v in col))
        for g in keys.values():
            combos *= _count_arrangements(g, ident)
            if combos > TIE_LIMIT:
                raise LimitError(f"canonical form: more than {TIE_LIMIT} orderings of tied neurons to try")
        out.append([(key[0], _arrangements(g, ident)) for key, g in keys.items()])
    return out


def _complete(rows, L: int, silent: list[list[bool]], chosen: list[list[tuple[bool, tuple[int, ...]]]]):
    """The network in the form fixed by ``chosen`` (per hidden layer, every tie class as
    ``(silent, order of its members)``), with zero incoming rows present.

    Layer by layer, every anchored neuron is divided by ``|first nonzero entry|`` of its anchored
    row (columns in the layer before's final order) and the anchored classes are sorted by
    normalised anchored row (in the last hidden layer: and compensated outgoing column); then the
    silent classes of the layer before are sorted by normalised root column and put after its
    anchored ones. Last, the silent neurons' scales (:func:`_silent_scales`)."""
    n0 = len(rows[0][0][0])
    order: list[list[int]] = [list(range(n0))]
    mult: list[list[fmpq]] = [[Q1] * n0]  # row multipliers (column divisors); the inputs: 1
    a_prev = order[0]
    for l in range(1, L + 1):
        W, b = rows[l - 1]
        if l < L:
            m = [Q1] * len(b)
            keys: dict[int, tuple] = {}
            for j in range(len(b)):
                if not silent[l - 1][j]:
                    part = [W[j][i] / mult[l - 1][i] for i in a_prev] + [b[j]]
                    s = _first_abs(part)
                    m[j] = 1 / s
                    keys[j] = tuple(v / s for v in part)
                    if l == L - 1:
                        keys[j] = (keys[j], tuple(r[j] * s for r in rows[l][0]))
            mult.append(m)
            a_cur = [i for _, arr in sorted(((keys[arr[0]], arr) for sil, arr in chosen[l - 1] if not sil))
                     for i in arr]
            roots = a_cur
        else:
            m, roots = [Q1] * len(b), list(range(len(b)))
        if l >= 2:  # the silent neurons of layer l-1, by their root columns into layer l
            skeys = [(_unit([W[k][arr[0]] * m[k] for k in roots]), arr) for sil, arr in chosen[l - 2] if sil]
            order.append(a_prev + [i for _, arr in sorted(skeys) for i in arr])
        if l < L:
            a_prev = a_cur
    order.append(list(range(len(rows[L - 1][1]))))
    mult.append([Q1] * len(order[L]))
    _silent_scales(rows, L, silent, order, mult)
    out = []
    for l in range(1, L + 1):
        W, b = rows[l - 1]
        mo, mi = mult[l], mult[l - 1]
        out.append(([[W[k][i] * mo[k] / mi[i] for i in order[l - 1]] for k in order[l]],
                    [b[k] * mo[k] for k in order[l]]))
    return out


def _silent_scales(rows, L: int, silent: list[list[bool]], order: list[list[int]],
                   mult: list[list[fmpq]]) -> None:
    """Set ``mult`` of the silent neurons (in place), ``order`` being final and the anchored
    multipliers set. A silent neuron whose root column is nonzero is scaled so that the first
    nonzero entry of that column (rows in order) has absolute value 1. The others are reached
    through weights between silent neurons, taken in serialisation order (layer, row, column as
    ordered) as in Kruskal's algorithm: a weight joining two groups not yet joined is scaled to
    absolute value 1. A group that no weight joins to a root column keeps one free common scale,
    which changes no parameter (silent neurons have zero biases and only these weights)."""
    rooted: dict[tuple[int, int], fmpq] = {}
    for l in range(1, L):
        nxt_w = rows[l][0]
        roots = order[l + 1] if l == L - 1 else [k for k in order[l + 1] if not silent[l][k]]
        for i in order[l]:
            if silent[l - 1][i]:
                s = _first_abs([nxt_w[k][i] * mult[l + 1][k] for k in roots])
                if s is not None:
                    rooted[(l, i)] = s
    parent: dict[object, object] = {}

    def find(x: object) -> object:
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    for node in rooted:
        parent[node] = "root"
    links: dict[tuple[int, int], list[tuple[tuple[int, int], fmpq, bool]]] = {}
    for l in range(2, L):
        W = rows[l - 1][0]
        for k in order[l]:
            if not silent[l - 1][k]:
                continue
            for i in order[l - 1]:
                w = W[k][i]
                if w != 0:  # i is silent: a silent neuron has no other nonzero weights
                    a, c = find((l - 1, i)), find((l, k))
                    if a != c:
                        if a == "root":  # the root stays a root: hang the other group under it
                            a, c = c, a
                        parent[a] = c
                        links.setdefault((l - 1, i), []).append(((l, k), abs(w), True))
                        links.setdefault((l, k), []).append(((l - 1, i), abs(w), False))
    scale = dict(rooted)
    seen: set[tuple[int, int]] = set()
    starts = list(rooted) + [(l, i) for l in range(1, L) for i in order[l] if silent[l - 1][i]]
    for start in starts:  # the rooted neurons first, then the first neuron of every free group
        if start in seen:
            continue
        seen.add(start)
        scale.setdefault(start, Q1)  # a free group: any common scale gives the same parameters
        stack = [start]
        while stack:
            x = stack.pop()
            for y, w, forward in links.get(x, ()):
                if y not in seen:  # a forest: y is reached once, from x
                    # weight w from the earlier of the two to the later: |w * m_later / m_earlier| = 1
                    scale[y] = scale[x] / w if forward else scale[x] * w
                    seen.add(y)
                    stack.append(y)
    for (l, i), c in scale.items():
        mult[l][i] = c


def _canon_silent(rows, L: int):
    """The canonical form of a network with zero incoming rows: the least serialisation of
    :func:`_complete` over every choice of orders of the tie classes (:func:`_silent_classes`)
    of every hidden layer."""
    silent = _silent_flags(rows)
    classes = _silent_classes(rows, L, silent)
    options = [[(sil, arr) for arr in arrs] for layer in classes for sil, arrs in layer]
    only = all(len(o) == 1 for o in options)
    best: tuple | None = None
    for choice in itertools.product(*options):
        it = iter(choice)
        done = _complete(rows, L, silent, [[next(it) for _ in layer] for layer in classes])
        if only:
            return done
        s = _serial(done)
        if best is None or s < best[0]:
            best = (s, done)
    return best[1]


def canonical_form(net: Network) -> Network:
    """The canonical representative of ``net``'s orbit (see the module docstring): an element
    of the orbit, the same for the whole orbit. :class:`LimitError` past :data:`TIE_LIMIT`.

    >>> from exactnet.network import Network
    >>> a = Network.from_lists([([[2, 0], [0, -3]], [2, 0]), ([[1, 1]], [0])])
    >>> [[str(v) for v in row] for row in canonical_form(a).weights(1)]
    [['0', '-1'], ['1', '0']]
    """
    rows = _rows(net)
    if has_zero_rows(net):
        out = _canon_silent(rows, net.depth)
    else:  # the form stored certificates and searches rely on: do not change it
        out = _canon_from(rows, 1, net.depth, _Counter())
    return _build(out, net)


def same_orbit(a: Network, b: Network) -> bool:
    """Decide whether ``b`` is ``g.a`` for a permutation-and-positive-scaling ``g``.

    Raises :class:`UndecidedError` when the canonical forms differ, a hidden neuron has
    a zero incoming row and the zero-row counts agree: the forms separate such orbits,
    but the checker (proofs/orbit.py) does not canonicalise networks with zero rows, so
    "different orbits" is left to certificates that it can check (module docstring).
    """
    if a.architecture != b.architecture:
        return False
    ca, cb = canonical_form(a), canonical_form(b)
    if ca == cb:
        return True
    if has_zero_rows(a) or has_zero_rows(b):
        if zero_row_counts(a) != zero_row_counts(b):
            return False  # zero rows are preserved by every group element
        raise UndecidedError(
            "same_orbit: both networks have hidden neurons with zero incoming rows; their canonical "
            "forms differ, but the checker (proofs/orbit.py) cannot certify 'different orbits' there"
        )
    return False


def random_orbit_element(net: Network, rng: random.Random | int | None = None, max_den: int = 7) -> Network:
    """A random element of ``net``'s orbit: random permutations and positive rational scales
    ``p/q`` with ``1 <= p, q <= max_den`` (an integer ``>= 1``; ValueRangeError otherwise)."""
    if not isinstance(net, Network):
        raise FormatError(f"expected a Network, got {type(net).__name__}")
    max_den = _index(max_den, "max_den")
    if max_den < 1:
        raise ValueRangeError(f"max_den must be at least 1, got {max_den}")
    if not isinstance(rng, random.Random):
        rng = random.Random(rng)
    out = net
    for l in range(1, net.depth):
        n = net.architecture[l]
        perm = list(range(n))
        rng.shuffle(perm)
        out = permute_layer(out, l, perm)
        out = scale_layer(out, l, [fmpq(rng.randint(1, max_den), rng.randint(1, max_den)) for _ in range(n)])
    return out


def orbit_map(a: Network, b: Network) -> list[tuple[list[int], list[fmpq]]] | None:
    """Per hidden layer ``(perm, scales)`` with ``b`` = ``a`` moved by them (neuron ``j`` of ``b`` is
    ``scales[j]`` times neuron ``perm[j]`` of ``a``), or None when this greedy layer-by-layer
    matching finds none (zero rows, or ties it resolves the wrong way). Exact; used to write
    cheap ``orbit`` bodies of EQUIVALENT certificates (proofs/lemmas/equivalent.md, Lemma O)."""
    if a.architecture != b.architecture:
        return None
    W = [[list(r) for r in a.weights(l)] for l in range(1, a.depth + 1)]
    bs = [list(a.biases(l)) for l in range(1, a.depth + 1)]
    out = []
    for L in range(1, a.depth):
        rows_a = [normalised_row(W[L - 1][i], bs[L - 1][i]) for i in range(len(bs[L - 1]))]
        rows_b = [normalised_row(r, c) for r, c in zip(b.weights(L), b.biases(L))]
        if any(r is None for r in rows_a + rows_b):
            return None
        perm, scales, used = [], [], set()
        for j, rb in enumerate(rows_b):
            i = next((i for i, ra in enumerate(rows_a) if i not in used and ra == rb), None)
            if i is None:
                return None
            used.add(i)
            full_a = list(W[L - 1][i]) + [bs[L - 1][i]]
            full_b = list(b.weights(L)[j]) + [b.biases(L)[j]]
            k = next(t for t, v in enumerate(full_a) if v != 0)
            perm.append(i)
            scales.append(full_b[k] / full_a[k])
        n = len(perm)
        W[L - 1] = [[scales[j] * v for v in W[L - 1][perm[j]]] for j in range(n)]
        bs[L - 1] = [scales[j] * bs[L - 1][perm[j]] for j in range(n)]
        W[L] = [[r[perm[j]] / scales[j] for j in range(n)] for r in W[L]]
        out.append((perm, scales))
    same = all(W[l - 1] == [list(r) for r in b.weights(l)] and bs[l - 1] == list(b.biases(l))
               for l in range(1, a.depth + 1))
    return out if same else None


def pull_back(net: Network, maps: Sequence[tuple[Sequence[int], Sequence[object]]]) -> Network:
    """``g^-1 . net`` for the group element ``g`` that :func:`orbit_map` describes by ``maps`` (per
    hidden layer ``(perm, scales)``: neuron ``j`` after ``g`` is ``scales[j]`` times neuron ``perm[j]``
    before). So ``pull_back(b, orbit_map(a, b)) == a``, and for any ``c`` in the fibre of ``b``,
    ``pull_back(c, orbit_map(a, b))`` is in the fibre of ``a``, outside its orbit when ``c`` is
    outside ``b``'s (group elements preserve functions and orbits)."""
    if len(maps) != net.depth - 1:
        raise ShapeError(f"{len(maps)} layer maps for {net.depth - 1} hidden layers")
    out = net
    for l, (perm, scales) in enumerate(maps, start=1):
        out = scale_layer(out, l, [1 / to_q(c) for c in scales])
        inverse = [0] * len(perm)
        for j, p in enumerate(perm):
            inverse[p] = j
        out = permute_layer(out, l, inverse)
    return out


def canonical_map(net: Network) -> tuple[Network, list] | None:
    """``(canonical_form(net), orbit_map(net, canonical))``, for searches that run on the canonical
    form (the same for the whole orbit) and move their results back with :func:`pull_back`; None
    when the form is out of reach (:data:`TIE_LIMIT`) or the greedy map does not exist (ties,
    zero rows)."""
    try:
        canon = canonical_form(net)
        maps = orbit_map(net, canon)
    except ExactnetError:
        return None
    return None if maps is None else (canon, maps)
