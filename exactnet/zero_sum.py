"""A bounded witness search for zero-sum subsets of rational vectors (it can only find, never refute).

The flip-set question of ``proofs/lemmas/shallow.md`` (Theorem 2; Theorem 4 (ii) with ``|T| = q``
after projecting away ``span(U_T)``) asks for a nonempty ``S`` with ``sum_(j in S) v_j = 0``, a
multi-dimensional subset sum. :mod:`exactnet.shallow` decides it exactly (meet in the middle) up to
24 vectors; beyond that it calls :func:`zero_sum_subset`, whose answer is only ever used as a
*witness*: a returned ``S`` has been re-added in exact rational arithmetic here, and the caller
builds ``theta'`` and checks it again by Theorem 1 and Lemma 3 before it reports it. A ``None``
answer proves nothing that a certificate could express; the caller keeps UNDECIDED.

What is searched, and why this way:

1. **Exact pruning** (no subset is lost). *p-adic rule:* if, in one coordinate and for one prime
   ``p``, exactly one vector has the largest power of ``p`` in its denominator, that vector lies in
   no zero-sum subset (its ``p``-adic term cannot cancel: every other summand has a larger
   valuation). *Sign rule:* if in one coordinate no remaining vector is negative, the positive ones
   lie in no zero-sum subset (and symmetrically). Both are applied until nothing changes; a zero
   vector is a zero-sum subset by itself.
2. **Dynamic programming over the reachable sums**, one vector at a time, keeping for every
   distinct sum one subset that reaches it (a parent pointer). A zero-sum subset whose largest
   index (in the processing order) is ``j`` is found at step ``j`` as the sum ``-v_j`` reached by
   the earlier vectors. Small-denominator weights make many subsets share a sum, and the
   vectors are processed in the order of their denominators (lcm over the coordinates, then the
   largest numerator): the sums of the vectors whose denominators divide ``D`` lie in the lattice
   ``(1/D) Z^k``, so the sets of reachable sums stay small and collide early. The states are
   integer ``numpy`` rows scaled to the common denominator of the vectors processed so far (the
   scale grows with the denominators); a 64-bit hash of a row serves as its key and equal keys
   are compared row by row, so a hash collision can only make the search incomplete, never
   wrong.
3. **The bound.** When more than ``max_states`` distinct sums are reachable, the ``max_states``
   sums nearest to ``0`` (maximum norm) are kept and the rest are forgotten (a beam): the search
   is then incomplete but still sound. Work is at most ``len(vectors) * 2 max_states`` row
   operations. Without truncation (and without a hash collision or an integer bound reached) the
   search is *complete*: ``complete=True`` with ``subset=None`` means no nonempty zero-sum subset
   exists.

Floats play no part; lattice reduction (short vectors of the kernel lattice have entries of both
signs, while a flip set needs ``0/1`` entries) and meet in the middle on chosen subsets
(``2^(k/2)`` sums even when almost all of them coincide) were the alternatives considered; the
dynamic programme exploits the coincidences instead.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from math import lcm
from typing import Sequence

import numpy as np
from flint import fmpq, fmpz

__all__ = ["ZeroSumResult", "zero_sum_subset", "prune", "MAX_STATES"]

#: Default bound on the number of reachable sums kept by :func:`zero_sum_subset`.
MAX_STATES = 2 ** 12

_BOUND = 2 ** 60  # largest absolute integer coordinate kept (sums of two stay below 2^62)


@dataclass(frozen=True)
class ZeroSumResult:
    """``subset``: indices of a nonempty zero-sum subset (checked exactly) or None.

    ``complete``: every subset was covered, so ``subset is None`` proves that none exists.
    ``states``: the largest number of reachable sums held; ``considered``: the vectors left after
    the exact pruning."""

    subset: tuple[int, ...] | None
    complete: bool
    states: int
    considered: int


def _den_primes(x: fmpq) -> dict[int, int]:
    q = int(x.q)
    return {} if q == 1 else {int(p): int(e) for p, e in fmpz(q).factor()}


def prune(vectors: Sequence[Sequence[fmpq]]) -> list[int]:
    """The indices that may lie in a nonempty zero-sum subset (p-adic and sign rules, step 1)."""
    alive = [j for j in range(len(vectors))]
    if not alive:
        return []
    k = len(vectors[0])
    dens = [[_den_primes(x) for x in v] for v in vectors]
    changed = True
    while changed and alive:
        changed = False
        for i in range(k):
            best: dict[int, tuple[int, list[int]]] = {}
            for j in alive:
                for p, e in dens[j][i].items():
                    e0, who = best.get(p, (0, []))
                    if e > e0:
                        best[p] = (e, [j])
                    elif e == e0:
                        who.append(j)
            drop = {who[0] for _, who in best.values() if len(who) == 1}
            pos = [j for j in alive if vectors[j][i] > 0]
            neg = [j for j in alive if vectors[j][i] < 0]
            if not pos or not neg:
                drop |= set(pos) | set(neg)
            if drop:
                alive = [j for j in alive if j not in drop]
                changed = True
    return alive


def _order(vectors: Sequence[Sequence[fmpq]], idx: list[int]) -> list[int]:
    def key(j: int):
        v = vectors[j]
        return lcm(*[int(x.q) for x in v]), max(abs(int(x.p)) for x in v), j
    return sorted(idx, key=key)


def _dedup(rows: np.ndarray, coeffs: np.ndarray) -> tuple[np.ndarray, bool]:
    """Indices of the first row of each distinct row (stable), and whether a hash collided."""
    keys = rows @ coeffs  # wraps modulo 2^64: a hash, compared row by row below
    order = np.argsort(keys, kind="stable")
    ks = keys[order]
    first = np.ones(len(ks), dtype=bool)
    first[1:] = ks[1:] != ks[:-1]
    dup = np.flatnonzero(~first)
    collided = bool(dup.size) and bool((rows[order[dup]] != rows[order[dup - 1]]).any())
    return np.sort(order[first]), collided


def zero_sum_subset(vectors: Sequence[Sequence[fmpq]], max_states: int = MAX_STATES,
                    seed: int = 0) -> ZeroSumResult:
    """A nonempty ``S`` with ``sum_(j in S) vectors[j] = 0`` found by the bounded search above.

    All vectors must have the same length. ``seed`` only chooses the hash coefficients."""
    n = len(vectors)
    if n == 0:
        return ZeroSumResult(None, True, 0, 0)
    for j, v in enumerate(vectors):
        if all(x == 0 for x in v):
            return ZeroSumResult((j,), True, 1, n)
    idx = prune(vectors)
    if not idx:
        return ZeroSumResult(None, True, 1, 0)
    k = len(vectors[0])
    rng = random.Random(seed)
    coeffs = np.array([rng.getrandbits(63) | 1 for _ in range(k)], dtype=np.int64)
    L = 1
    sums = np.zeros((1, k), dtype=np.int64)
    ids = np.zeros(1, dtype=np.int64)  # state id of each row; id 0 is the empty set
    parents: list[np.ndarray] = [np.array([-1], dtype=np.int64)]
    items: list[np.ndarray] = [np.array([-1], dtype=np.int64)]
    next_id, complete, peak = 1, True, 1
    for j in _order(vectors, idx):
        v = vectors[j]
        L2 = lcm(L, *[int(x.q) for x in v])
        top = int(np.abs(sums).max())
        big = max(abs(int(x * L2)) for x in v)
        if top * (L2 // L) + big >= _BOUND:
            complete = False
            break
        if L2 != L:
            sums = sums * (L2 // L)
            L = L2
        u = np.array([int(x * L) for x in v], dtype=np.int64)
        cand = sums + u
        hit = np.flatnonzero(~cand.any(axis=1))
        if hit.size:
            S = _walk(parents, items, int(ids[hit[0]])) + [j]
            assert all(sum((vectors[t][i] for t in S), fmpq(0)) == 0 for i in range(k))
            return ZeroSumResult(tuple(sorted(S)), complete, peak, len(idx))
        rows = np.concatenate([sums, cand])
        keep, collided = _dedup(rows, coeffs)
        complete = complete and not collided
        new = keep[keep >= len(sums)] - len(sums)
        new_ids = np.arange(next_id, next_id + len(new), dtype=np.int64)
        parents.append(ids[new])
        items.append(np.full(len(new), j, dtype=np.int64))
        next_id += len(new)
        sums = rows[keep]
        ids = np.concatenate([ids[keep[keep < len(ids)]], new_ids])
        if len(sums) > max_states:
            complete = False
            near = np.argpartition(np.abs(sums).max(axis=1), max_states - 1)[:max_states]
            sums, ids = sums[near], ids[near]
        peak = max(peak, len(sums))
    return ZeroSumResult(None, complete, peak, len(idx))


def _walk(parents: list[np.ndarray], items: list[np.ndarray], sid: int) -> list[int]:
    par, itm = np.concatenate(parents), np.concatenate(items)
    out = []
    while sid > 0:
        out.append(int(itm[sid]))
        sid = int(par[sid])
    return out
