"""A small exact linear-programming kernel over ``fmpq`` (phase-2 simplex, Bland's rule).

Every LP that the polyhedral engine asks has the same shape::

    maximize  obj . x   subject to   a_k . x + c_k >= 0   (k = 1..m),   x in R^n free,

and the engine always *knows a feasible point* ``x0`` (an interior point of the
cell being examined, or a point built from one). So no phase 1 is needed: with
``x = x0 + y+ - y-`` and slacks ``s_k = a_k.x + c_k`` the origin ``y = 0`` is a
feasible basic solution (all slacks basic, right-hand sides ``s_k(x0) >= 0``).

Why this design (and not a float solver): the regions are thin and degenerate
with small-denominator weights (hyperplanes through vertices, coincident
hyperplanes), exactly where float LPs report empty sets as feasible. A dense
tableau with Bland's smallest-index rule terminates on degenerate problems
(no cycling, Bland 1977) and every pivot is exact, so the answer *is* the
decision. The LPs are tiny (``n0`` free variables, a handful of irredundant
constraints), so a dense tableau is the simplest correct choice.

Results:

* ``("optimal", x, value, lam)``: ``x`` optimal, ``value = obj.x`` and nonnegative
  multipliers ``lam`` with the exact identity ``obj.z = value - sum_k lam_k (a_k.z + c_k)``
  for every ``z`` (a dual certificate that ``value`` is the maximum).
* ``("unbounded", x, d)``: ``x`` feasible, ``d`` a ray (``a_k.d >= 0`` for all k) with
  ``obj.d > 0``.

:func:`verify_multipliers` re-checks a dual certificate exactly.
"""

from __future__ import annotations

from typing import Sequence

from flint import fmpq

from .errors import ExactnetError

__all__ = ["maximize", "minimize", "verify_multipliers", "LPError"]

Q0 = fmpq(0)
Q1 = fmpq(1)


class LPError(ExactnetError):
    """The LP kernel was called with an infeasible start point (a programming error)."""


def maximize(
    obj: Sequence[fmpq],
    rows: Sequence[Sequence[fmpq]],
    offsets: Sequence[fmpq],
    x0: Sequence[fmpq],
):
    """Maximize ``obj.x`` over ``{x : rows[k].x + offsets[k] >= 0}`` from the feasible ``x0``."""
    n = len(x0)
    m = len(rows)
    s0 = []
    for a, c in zip(rows, offsets):
        v = c
        for ai, xi in zip(a, x0):
            if ai and xi:
                v += ai * xi
        if v < 0:
            raise LPError("start point violates a constraint")
        s0.append(v)
    ncol = 2 * n + m
    # tableau rows: coefficients (ncol) then rhs
    T: list[list[fmpq]] = []
    for k in range(m):
        a = rows[k]
        row = [-ai for ai in a] + list(a) + [Q0] * m + [s0[k]]
        row[2 * n + k] = Q1
        T.append(row)
    # reduced costs for maximization: d_v > 0 means entering improves
    d = list(obj) + [-o for o in obj] + [Q0] * m
    zval = Q0
    basis = [2 * n + k for k in range(m)]
    while True:
        enter = -1
        for v in range(ncol):
            if d[v] > 0:
                enter = v
                break
        if enter < 0:
            break
        leave = -1
        best = None
        for r in range(m):
            coef = T[r][enter]
            if coef > 0:
                ratio = T[r][ncol] / coef
                if best is None or ratio < best or (ratio == best and basis[r] < basis[leave]):
                    best = ratio
                    leave = r
        if leave < 0:
            # unbounded: direction of y when 'enter' grows
            dy = [Q0] * n
            _add_var_dir(dy, enter, Q1, n)
            for r in range(m):
                coef = T[r][enter]
                if coef:
                    _add_var_dir(dy, basis[r], -coef, n)
            x = _current_x(T, basis, x0, n, ncol)
            return ("unbounded", x, tuple(dy))
        prow = T[leave]
        piv = prow[enter]
        if piv != Q1:
            inv = Q1 / piv
            prow = [v * inv if v else v for v in prow]
            T[leave] = prow
        nz = [j for j in range(ncol + 1) if prow[j]]
        for r in range(m):
            if r != leave:
                row = T[r]
                f = row[enter]
                if f:
                    for j in nz:
                        row[j] -= f * prow[j]
        f = d[enter]
        for j in nz:
            if j < ncol:
                d[j] -= f * prow[j]
        zval += f * prow[ncol]
        basis[leave] = enter
    x = _current_x(T, basis, x0, n, ncol)
    value = Q0
    for o, xi in zip(obj, x):
        if o and xi:
            value += o * xi
    lam = tuple(-d[2 * n + k] for k in range(m))
    return ("optimal", x, value, lam)


def _add_var_dir(dy: list, var: int, coef: fmpq, n: int) -> None:
    if var < n:
        dy[var] += coef
    elif var < 2 * n:
        dy[var - n] -= coef


def _current_x(T, basis, x0, n, ncol) -> tuple:
    x = list(x0)
    for r, b in enumerate(basis):
        if b < 2 * n:
            val = T[r][ncol]
            if b < n:
                x[b] += val
            else:
                x[b - n] -= val
    return tuple(x)


def minimize(obj, rows, offsets, x0):
    """Minimize ``obj.x``; same results as :func:`maximize` with signs adapted.

    ``("optimal", x, value, lam)`` with ``obj.z = value + sum lam_k (a_k.z + c_k)``;
    ``("unbounded", x, d)`` with ``obj.d < 0``.
    """
    res = maximize([-o for o in obj], rows, offsets, x0)
    if res[0] == "optimal":
        _, x, v, lam = res
        return ("optimal", x, -v, lam)
    return res


def verify_multipliers(obj, const, rows, offsets, lam, value) -> bool:
    """Exact check of ``obj.z + const = value + sum lam_k (a_k.z + c_k)`` with ``lam >= 0``."""
    if any(l < 0 for l in lam):
        return False
    n = len(obj)
    acc = [Q0] * n
    acc_c = value
    for l, a, c in zip(lam, rows, offsets):
        if l:
            for i in range(n):
                acc[i] += l * a[i]
            acc_c += l * c
    return all(acc[i] == obj[i] for i in range(n)) and acc_c == const
