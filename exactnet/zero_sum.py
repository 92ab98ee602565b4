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
2. **Dynamic programming over the reachable sums, met in the middle.** The vectors are put in the
   order of their denominators (lcm over the coordinates, then the largest numerator) and dealt
   alternately to two halves ``A`` and ``B``, so that both see every denominator. For ``A``, one
   vector at a time, the programme keeps every distinct reachable sum with one subset that
   reaches it (a parent pointer); a zero-sum subset of ``A`` whose last vector is ``j`` shows up at
   step ``j`` as the sum ``-v_j`` of earlier vectors. ``B`` is grown the same way, and every sum
   ``s`` it reaches (a nonempty subset of ``B``) is looked up as ``-s`` among the final sums of ``A``
   (the empty subset of ``A`` included): so every zero-sum ``S`` is met at the step of the last
   vector of ``S`` in ``B``. Why this works on small-denominator weights: many subsets share a sum
   -- the sums of the vectors whose denominators divide ``D`` lie in the lattice ``(1/D) Z^k`` and,
   in the denominator order, collide early -- so the sets stay small, and the final join pairs
   every kept sum of ``B`` with every kept sum of ``A`` (``|A| |B|`` combinations for the price of a
   sort). The sums are exact integer ``numpy`` rows at the common denominator of the vectors
   searched (vectors whose sums would pass ``2^60`` are left out, and the search is then
   incomplete); a 64-bit hash of a row serves as its key and equal keys are compared row by row,
   so a hash collision can only make the search incomplete, never wrong.
3. **The bound.** When a half reaches more than ``max_states`` distinct sums, the ``max_states``
   sums nearest to ``0`` (maximum norm) are kept and the rest are forgotten (a beam): the search
   is then incomplete but still sound. The work is ``O(len(vectors) max_states log max_states)``
   (a sort of at most ``2 max_states`` keys per vector). Without truncation, collision or left-out
   vectors the search is *complete*: ``complete=True`` with ``subset=None`` means that no nonempty
   zero-sum subset exists (the brute-force tests rely on this; :mod:`exactnet.shallow` does not,
   since no certificate rule could replay it).

Floats play no part. Alternatives considered: lattice reduction (the short vectors of the kernel
lattice have entries of both signs and of size above 1, while a flip set needs ``0/1`` entries; at
the high densities met here, ``2^64`` subsets against about ``2^48`` sums, the ``0/1`` vectors are far
from the shortest) and a plain meet in the middle on chosen subsets (``2^(k/2)`` sums per half even
when almost all of them coincide); the dynamic programme exploits the coincidences instead. On 40
random ``(2, 64, 1)`` and ``(2, 40, 1)`` networks with nonzero weights (the law of
:mod:`exactnet.randnet` without zeros) it finds a flip set in every one of the 74 cases that reach
it, in at most about 0.1 s with ``MAX_STATES = 2^12``; for ``(3, 64, 1)`` and ``(2, 64, 2)`` (3 and 4
dimensions) it rarely does at that bound.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from math import lcm
from typing import Sequence

import numpy as np
from flint import fmpq, fmpz

from .errors import ExactnetError

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


def _dedup(rows: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, bool]:
    """Indices of the first row of each distinct row (ascending), and whether a hash collided."""
    order = np.argsort(keys, kind="stable")
    ks = keys[order]
    first = np.ones(len(ks), dtype=bool)
    first[1:] = ks[1:] != ks[:-1]
    dup = np.flatnonzero(~first)
    collided = bool(dup.size) and bool((rows[order[dup]] != rows[order[dup - 1]]).any())
    return np.sort(order[first]), collided


class _Reach:
    """The reachable sums of a growing set of vectors (step 2): integer rows, state ids, parents.

    Id 0 is the empty set; every other id records the vector added last and the id it extends,
    so :meth:`subset` walks back to the vectors of a state."""

    def __init__(self, k: int, coeffs: np.ndarray, max_states: int) -> None:
        self.coeffs, self.max_states = coeffs, max_states
        self.sums = np.zeros((1, k), dtype=np.int64)
        self.ids = np.zeros(1, dtype=np.int64)
        self.parents: list[np.ndarray] = [np.array([-1], dtype=np.int64)]
        self.items: list[np.ndarray] = [np.array([-1], dtype=np.int64)]
        self.next_id, self.complete, self.peak = 1, True, 1

    def keys(self, rows: np.ndarray) -> np.ndarray:
        return rows @ self.coeffs  # wraps modulo 2^64: a hash, always confirmed row by row

    def add(self, j: int, u: np.ndarray) -> None:
        """Add vector ``j`` (integer row ``u``): every state ``s`` also reaches ``s + u``."""
        cand = self.sums + u
        rows = np.concatenate([self.sums, cand])
        keep, collided = _dedup(rows, self.keys(rows))
        self.complete = self.complete and not collided
        old = len(self.sums)
        new = keep[keep >= old] - old
        new_ids = np.arange(self.next_id, self.next_id + len(new), dtype=np.int64)
        self.parents.append(self.ids[new])
        self.items.append(np.full(len(new), j, dtype=np.int64))
        self.next_id += len(new)
        self.sums = rows[keep]
        self.ids = np.concatenate([self.ids[keep[keep < old]], new_ids])
        if len(self.sums) > self.max_states:  # the beam: keep the sums nearest to 0
            self.complete = False
            near = np.argpartition(np.abs(self.sums).max(axis=1), self.max_states - 1)[:self.max_states]
            self.sums, self.ids = self.sums[near], self.ids[near]
        self.peak = max(self.peak, len(self.sums))

    def subset(self, sid: int) -> list[int]:
        par, itm = np.concatenate(self.parents), np.concatenate(self.items)
        out = []
        while sid > 0:
            out.append(int(itm[sid]))
            sid = int(par[sid])
        return out


def _opposite(cand: np.ndarray, ckeys: np.ndarray, sums: np.ndarray, skeys_sorted: np.ndarray,
              order: np.ndarray) -> tuple[int, int] | None:
    """``(a, b)`` with ``cand[a] = -sums[b]`` (keys propose, rows decide), or None."""
    want = -ckeys
    pos = np.searchsorted(skeys_sorted, want)
    pos[pos == len(skeys_sorted)] = 0
    for a in np.flatnonzero(skeys_sorted[pos] == want):
        t = pos[a]
        while t < len(skeys_sorted) and skeys_sorted[t] == want[a]:
            if not (cand[a] + sums[order[t]]).any():
                return int(a), int(order[t])
            t += 1
    return None


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
    order, L, total, complete = [], 1, 0, True
    for j in _order(vectors, idx):  # the prefix whose sums fit the integer bound
        L2 = lcm(L, *[int(x.q) for x in vectors[j]])
        t2 = total * (L2 // L) + max(abs(int(x * L2)) for x in vectors[j])
        if t2 >= _BOUND:
            complete = False
            break
        order.append(j)
        L, total = L2, t2
    ints = {j: np.array([int(x * L) for x in vectors[j]], dtype=np.int64) for j in order}
    rng = random.Random(seed)
    coeffs = np.array([rng.getrandbits(63) | 1 for _ in range(k)], dtype=np.int64)

    def done(S: list[int]) -> ZeroSumResult:
        if not (S and all(sum((vectors[t][i] for t in S), fmpq(0)) == 0 for i in range(k))):  # exact re-check
            raise ExactnetError("internal: the zero-sum search proposed a subset whose sum is not 0")
        return ZeroSumResult(tuple(sorted(S)), complete and A.complete and B.complete,
                             max(A.peak, B.peak), len(idx))
    A, B = _Reach(k, coeffs, max_states), _Reach(k, coeffs, max_states)
    for j in order[0::2]:
        cand = A.sums + ints[j]
        hit = np.flatnonzero(~cand.any(axis=1))
        if hit.size:
            return done(A.subset(int(A.ids[hit[0]])) + [j])
        A.add(j, ints[j])
    akeys = A.keys(A.sums)
    aorder = np.argsort(akeys, kind="stable")
    akeys = akeys[aorder]
    for j in order[1::2]:
        cand = B.sums + ints[j]
        hit = _opposite(cand, B.keys(cand), A.sums, akeys, aorder)
        if hit is not None:
            return done(B.subset(int(B.ids[hit[0]])) + [j] + A.subset(int(A.ids[hit[1]])))
        B.add(j, ints[j])
    return ZeroSumResult(None, complete and A.complete and B.complete, max(A.peak, B.peak), len(idx))
