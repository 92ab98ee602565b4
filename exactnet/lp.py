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

import contextlib as _contextlib
import os as _os
import sys as _sys
from operator import mul as _mul

import numpy as _np
from typing import Sequence

from flint import fmpq

from .errors import ExactnetError

__all__ = ["maximize", "minimize", "verify_multipliers", "LPError", "solver_output_to_stderr", "linprog_quiet"]


@_contextlib.contextmanager
def solver_output_to_stderr():
    """Send what C libraries write to file descriptor 1 (HiGHS prints some solver failures there,
    whatever scipy's ``disp``) to standard error while the block runs, so that machine-readable
    standard output (``--json``) stays clean. A no-op when standard output has no file descriptor
    (e.g. captured by pytest)."""
    try:
        fd, err = _sys.stdout.fileno(), _sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        yield
        return
    _sys.stdout.flush()
    saved = _os.dup(fd)
    try:
        _os.dup2(err, fd)
        yield
    finally:
        _sys.stdout.flush()
        _os.dup2(saved, fd)
        _os.close(saved)


def linprog_quiet(*args, **kwargs):
    """``scipy.optimize.linprog`` under :func:`solver_output_to_stderr` (floats only propose)."""
    from scipy.optimize import linprog

    with solver_output_to_stderr():
        return linprog(*args, **kwargs)

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


# ---------------------------------------------------------------- float proposal, exact check
#
# The polyhedral engine asks many tiny LPs (n0 <= 6 variables, a few dozen constraints).
# :func:`minimize_checked` lets a float64 active-set simplex *propose* an optimal basis (n
# constraint indices) and then *decides* exactly, in Python integers:
#
# * the basis vertex ``v`` (``A_B v + c_B = 0``, fraction-free elimination) must satisfy every
#   constraint (``a_k.v + c_k >= 0``, exactly), and
# * the objective must be a nonnegative combination of the basis normals
#   (``obj = sum_B lam_k a_k``, ``lam >= 0``, exactly);
#
# together these are the optimality conditions of LP, so ``v`` is optimal and ``lam`` is the
# same dual certificate the exact simplex returns (``obj.z = obj.v + sum lam_k (a_k.z + c_k)``).
# A proposed ray ``d`` (``A_B' d = 0`` on ``n-1`` basis rows, one row > 0) is accepted when
# ``a_k.d >= 0`` for every ``k`` and ``obj.d < 0`` exactly, at an exactly feasible vertex. When
# the float solver fails, or any exact check fails (degenerate vertex, wrong basis,
# ill-conditioning), the exact simplex :func:`minimize` answers. No float decides anything.


def int_row(normal, offset):
    """``(ints, scale)``: ``ints = scale * (normal..., offset)`` in integers, ``scale > 0``."""
    d = 1
    for v in normal:
        q = int(v.q)
        if q != 1:
            d = d * q // _gcd(d, q)
    q = int(offset.q)
    if q != 1:
        d = d * q // _gcd(d, q)
    return [int(v.p) * (d // int(v.q)) for v in normal] + [int(offset.p) * (d // int(offset.q))], d


from math import gcd as _gcd  # noqa: E402


def _solve_int(rows, n):
    """Fraction-free solve of ``rows[i][:n] . x + rows[i][n] = 0`` (``n`` rows): ``(X, T)`` with
    ``x = X / T``, ``T > 0``, or ``None`` when singular. Python integers, exact."""
    M = [r[:n] + [-r[n]] for r in rows]
    prev = 1
    for k in range(n):
        if not M[k][k]:
            sw = next((i for i in range(k + 1, n) if M[i][k]), None)
            if sw is None:
                return None
            M[k], M[sw] = M[sw], M[k]
        pk = M[k][k]
        rk = M[k]
        for i in range(k + 1, n):
            ri = M[i]
            f = ri[k]
            if f:
                for j in range(k + 1, n + 1):
                    ri[j] = (ri[j] * pk - rk[j] * f) // prev
            else:
                for j in range(k + 1, n + 1):
                    ri[j] = (ri[j] * pk) // prev
            ri[k] = 0
        prev = pk
    det = M[n - 1][n - 1]
    X = [0] * n
    for i in range(n - 1, -1, -1):
        acc = M[i][n] * det
        for j in range(i + 1, n):
            acc -= M[i][j] * X[j]
        X[i] = acc // M[i][i]
    if det < 0:
        X = [-x for x in X]
        det = -det
    return X, det


def _face_direction(Q, n):
    """The coordinate axis projected off the span of the orthonormal ``Q`` with the largest norm,
    and that norm (``None`` when it is below 1e-9): a direction of the current face."""
    best = None
    for j in range(n):
        e = [0.0] * n
        e[j] = 1.0
        for q in Q:
            t = q[j]
            e = [ei - t * qi for ei, qi in zip(e, q)]
        ne = sum(map(_mul, e, e))
        if best is None or ne > best[0]:
            best = (ne, e)
    nd = best[0] ** 0.5
    return None if nd < 1e-9 else (best[1], nd)


def _first_block(r, s, free):
    """Ratio test of phase 1: ``(step, row)`` of the first free row met along a direction whose
    row products are ``r`` from slacks ``s``; ``(None, -1)`` when no row blocks."""
    t, kb = None, -1
    for k, rk in enumerate(r):
        if rk < -1e-12 and free[k]:
            tk = s[k] / -rk
            if t is None or tk < t:
                t, kb = tk, k
    return t, kb


def _float_lp(c, A, b, x0, maxit=60):
    """Float64 active-set simplex for ``min c.x`` over ``A x + b >= 0`` from the feasible ``x0``.

    Returns ``("opt", B)`` (``n`` row indices of a proposed optimal basis), ``("ray", B, i)``
    (basis and the row ``B[i]`` whose release gives an improving ray) or ``None``. A proposal
    only: :func:`minimize_checked` verifies it exactly. Phase 1 walks from ``x0`` along the
    projected descent direction, collecting one blocking row per step (``n`` steps reach a
    vertex); phase 2 is the usual vertex-to-vertex simplex. ``n = 3`` goes to the written-out
    :func:`_float_lp3` (the same proposals).
    """
    if len(x0) == 3:
        return _float_lp3(c, A, b, x0, maxit)
    return _float_lp_generic(c, A, b, x0, maxit)


def _float_lp_generic(c, A, b, x0, maxit=60):
    """:func:`_float_lp` for any ``n``."""
    n = len(x0)
    m = len(A)
    s = [sum(map(_mul, a, x0)) + bk for a, bk in zip(A, b)]  # slacks at x
    free = [True] * m
    W = []
    Q = []  # orthonormal basis of the span of the active normals
    cn = sum(map(_mul, c, c)) ** 0.5
    for _ in range(n):
        d = [-ci for ci in c]
        for q in Q:
            t = sum(map(_mul, q, d))
            d = [di - t * qi for di, qi in zip(d, q)]
        nd = sum(map(_mul, d, d)) ** 0.5
        if nd < 1e-9 * (1.0 + cn):  # objective constant on the current face: any direction of the face
            face = _face_direction(Q, n)
            if face is None:
                return None
            d, nd = face
        d = [di / nd for di in d]
        for attempt in (0, 1):
            r = [sum(map(_mul, a, d)) for a in A]
            t, kb = _first_block(r, s, free)
            if kb >= 0:
                break
            if attempt == 0 and abs(sum(map(_mul, c, d))) < 1e-12 * (1.0 + cn):
                d = [-di for di in d]
                continue
            return None  # unbounded before a vertex (or a line): let the exact simplex answer
        if t < 0.0:
            t = 0.0
        s = [sk + t * rk for sk, rk in zip(s, r)]
        s[kb] = 0.0
        free[kb] = False
        W.append(kb)
        v = list(A[kb])
        for q in Q:
            t = sum(map(_mul, q, v))
            v = [vi - t * qi for vi, qi in zip(v, q)]
        nv = sum(map(_mul, v, v)) ** 0.5
        if nv < 1e-12:
            return None
        Q.append([vi / nv for vi in v])
    B = W
    for _ in range(maxit):
        inv = _inv_small([A[k] for k in B], n)
        if inv is None:
            return None
        lam = [sum(map(_mul, col, c)) for col in zip(*inv)]  # c = sum_i lam_i A[B[i]]
        i = min(range(n), key=lam.__getitem__)
        if lam[i] >= -1e-11 * (1.0 + cn):
            return ("opt", B)
        d = [row[i] for row in inv]  # A_B d = e_i
        rhs = [-b[k] for k in B]
        x = [sum(map(_mul, row, rhs)) for row in inv]
        t, kb = None, -1
        for k in range(m):
            if not free[k]:
                continue
            a = A[k]
            rk = sum(map(_mul, a, d))
            if rk < -1e-12:
                tk = max(sum(map(_mul, a, x)) + b[k], 0.0) / -rk
                if t is None or tk < t:
                    t, kb = tk, k
        if kb < 0:
            return ("ray", B, i)
        free[B[i]] = True
        free[kb] = False
        B = B[:i] + [kb] + B[i + 1 :]
    return None


def _float_lp3(c, A, b, x0, maxit=60):
    """:func:`_float_lp` for ``n = 3`` with the vector operations written out (the same float
    operations in the same order, so the same proposals; still only hints)."""
    m = len(A)
    c0, c1, c2 = c
    y0, y1, y2 = x0
    s = [a0 * y0 + a1 * y1 + a2 * y2 + bk for (a0, a1, a2), bk in zip(A, b)]
    free = [True] * m
    W = []
    Q = []
    cn = (c0 * c0 + c1 * c1 + c2 * c2) ** 0.5
    for _ in range(3):
        d0, d1, d2 = -c0, -c1, -c2
        for q0, q1, q2 in Q:
            t = q0 * d0 + q1 * d1 + q2 * d2
            d0, d1, d2 = d0 - t * q0, d1 - t * q1, d2 - t * q2
        nd = (d0 * d0 + d1 * d1 + d2 * d2) ** 0.5
        if nd < 1e-9 * (1.0 + cn):
            face = _face_direction(Q, 3)
            if face is None:
                return None
            (d0, d1, d2), nd = face
        d0, d1, d2 = d0 / nd, d1 / nd, d2 / nd
        for attempt in (0, 1):
            r = [a0 * d0 + a1 * d1 + a2 * d2 for a0, a1, a2 in A]
            t, kb = _first_block(r, s, free)
            if kb >= 0:
                break
            if attempt == 0 and abs(c0 * d0 + c1 * d1 + c2 * d2) < 1e-12 * (1.0 + cn):
                d0, d1, d2 = -d0, -d1, -d2
                continue
            return None
        if t < 0.0:
            t = 0.0
        s = [sk + t * rk for sk, rk in zip(s, r)]
        s[kb] = 0.0
        free[kb] = False
        W.append(kb)
        v0, v1, v2 = A[kb]
        for q0, q1, q2 in Q:
            t = q0 * v0 + q1 * v1 + q2 * v2
            v0, v1, v2 = v0 - t * q0, v1 - t * q1, v2 - t * q2
        nv = (v0 * v0 + v1 * v1 + v2 * v2) ** 0.5
        if nv < 1e-12:
            return None
        Q.append((v0 / nv, v1 / nv, v2 / nv))
    B = W
    lim = -1e-11 * (1.0 + cn)
    for _ in range(maxit):
        inv = _inv_small([A[k] for k in B], 3)
        if inv is None:
            return None
        (i00, i01, i02), (i10, i11, i12), (i20, i21, i22) = inv
        l0 = i00 * c0 + i10 * c1 + i20 * c2
        l1 = i01 * c0 + i11 * c1 + i21 * c2
        l2 = i02 * c0 + i12 * c1 + i22 * c2
        if l1 < l0:
            i, li = (2, l2) if l2 < l1 else (1, l1)
        else:
            i, li = (2, l2) if l2 < l0 else (0, l0)
        if li >= lim:
            return ("opt", B)
        d0, d1, d2 = inv[0][i], inv[1][i], inv[2][i]
        r0, r1, r2 = -b[B[0]], -b[B[1]], -b[B[2]]
        x0_, x1_, x2_ = i00 * r0 + i01 * r1 + i02 * r2, i10 * r0 + i11 * r1 + i12 * r2, i20 * r0 + i21 * r1 + i22 * r2
        t, kb = None, -1
        for k in range(m):
            if not free[k]:
                continue
            a0, a1, a2 = A[k]
            rk = a0 * d0 + a1 * d1 + a2 * d2
            if rk < -1e-12:
                tk = max(a0 * x0_ + a1 * x1_ + a2 * x2_ + b[k], 0.0) / -rk
                if t is None or tk < t:
                    t, kb = tk, k
        if kb < 0:
            return ("ray", B, i)
        free[B[i]] = True
        free[kb] = False
        B = B[:i] + [kb] + B[i + 1 :]
    return None


def _inv_small(M, n):
    """Float inverse of a small square matrix (explicit for n <= 3, else NumPy) or None."""
    if n == 3:
        (a, b, c), (d, e, f), (g, h, i) = M
        A, B, C = e * i - f * h, f * g - d * i, d * h - e * g
        det = a * A + b * B + c * C
        if abs(det) < 1e-13:
            return None
        r = 1.0 / det
        return [
            [A * r, (c * h - b * i) * r, (b * f - c * e) * r],
            [B * r, (a * i - c * g) * r, (c * d - a * f) * r],
            [C * r, (b * g - a * h) * r, (a * e - b * d) * r],
        ]
    if n == 2:
        (a, b), (c, d) = M
        det = a * d - b * c
        if abs(det) < 1e-13:
            return None
        return [[d / det, -b / det], [-c / det, a / det]]
    if n == 1:
        return [[1.0 / M[0][0]]] if abs(M[0][0]) >= 1e-13 else None
    try:
        return _np.linalg.inv(_np.array(M)).tolist()
    except _np.linalg.LinAlgError:
        return None


def _float_vertex(A, b, B, inv, n):
    rhs = [-b[k] for k in B]
    return [sum(inv[j][i] * rhs[i] for i in range(n)) for j in range(n)]


def _float_inv(M, n):
    """Inverse of the ``n x n`` float matrix ``M`` (Gauss-Jordan, partial pivoting) or None."""
    R = [list(r) + [1.0 if i == j else 0.0 for j in range(n)] for i, r in enumerate(M)]
    for k in range(n):
        p = max(range(k, n), key=lambda i: abs(R[i][k]))
        if abs(R[p][k]) < 1e-13:
            return None
        R[k], R[p] = R[p], R[k]
        rk = R[k]
        piv = rk[k]
        rk = [v / piv for v in rk]
        R[k] = rk
        for i in range(n):
            if i != k:
                f = R[i][k]
                if f:
                    ri = R[i]
                    R[i] = [a - f * bb for a, bb in zip(ri, rk)]
    return [r[n:] for r in R]


def check_basis(obj_int, rows_int, B, n):
    """Exact optimality of the basis ``B`` for ``min obj.x`` over ``{a_k.x + c_k >= 0}``.

    ``obj_int`` (``n`` integers) and ``rows_int`` (``n + 1`` integers each) are positive
    multiples of the objective and of the constraints. Returns ``(X, T, M, T2)`` with the
    vertex ``X / T`` (feasible: every row ``>= 0``) and ``obj = sum_i (M_i / T2) rows[B_i]``
    with ``M >= 0``; ``None`` when any condition fails."""
    if n == 3:  # one integer adjugate gives both the vertex and the multipliers
        (a, b, c, u), (d, e, f, v), (g, h, i, w) = (rows_int[k] for k in B)
        A0, A1, A2 = e * i - f * h, f * g - d * i, d * h - e * g
        det = a * A0 + b * A1 + c * A2
        if not det:
            return None
        adj = ((A0, c * h - b * i, b * f - c * e), (A1, a * i - c * g, c * d - a * f), (A2, b * g - a * h, a * e - b * d))
        X = [-(r0 * u + r1 * v + r2 * w) for r0, r1, r2 in adj]  # A_B X = -c_B det
        o0, o1, o2 = obj_int
        M = [o0 * adj[0][j] + o1 * adj[1][j] + o2 * adj[2][j] for j in range(3)]  # A_B^T M = obj det
        T = det
        if det < 0:
            X = [-x for x in X]
            M = [-mv for mv in M]
            T = -det
        if any(mv < 0 for mv in M):
            return None
        for r in rows_int:
            if r[0] * X[0] + r[1] * X[1] + r[2] * X[2] + r[3] * T < 0:
                return None
        return X, T, M, T
    sol = _solve_int([rows_int[k] for k in B], n)
    if sol is None:
        return None
    X, T = sol
    for r in rows_int:
        acc = r[n] * T
        for a, xv in zip(r, X):
            if a:
                acc += a * xv
        if acc < 0:
            return None
    # obj = sum_i mu_i rows[B_i][:n]  <=>  for each coordinate j: sum_i rows[B_i][j] mu_i - obj_j = 0
    tr = [[rows_int[k][j] for k in B] + [-obj_int[j]] for j in range(n)]
    dual = _solve_int(tr, n)
    if dual is None:
        return None
    M, T2 = dual
    if any(mv < 0 for mv in M):
        return None
    return X, T, M, T2


def check_ray(obj_int, rows_int, B, i, n):
    """Exact check of a proposed ray: ``d`` with ``rows[B_j] . d = 0`` (``j != i``) and
    ``rows[B_i] . d = 1`` must satisfy ``a_k . d >= 0`` for all ``k`` and ``obj . d < 0``, and
    the basis vertex must be feasible. Returns ``(X, T, D)`` (vertex ``X/T``, ray ``D``) or None."""
    sol = _solve_int([rows_int[k] for k in B], n)
    if sol is None:
        return None
    X, T = sol
    for r in rows_int:
        acc = r[n] * T
        for a, xv in zip(r, X):
            if a:
                acc += a * xv
        if acc < 0:
            return None
    rr = [rows_int[k][:n] + [(-1 if j == i else 0)] for j, k in enumerate(B)]
    ds = _solve_int(rr, n)
    if ds is None:
        return None
    D, _ = ds
    if sum(o * dv for o, dv in zip(obj_int, D)) >= 0:
        return None
    for r in rows_int:
        acc = 0
        for a, dv in zip(r, D):
            if a:
                acc += a * dv
        if acc < 0:
            return None
    return X, T, D


def checked_prep(aux, n):
    """The per-constraint-list inputs of :func:`minimize_checked` (float rows, float offsets,
    integer rows), computed once for the many LPs over the same constraints."""
    rows_int = [a[0] for a in aux]
    if all(a[2] is not None for a in aux):
        return [a[2][:n] for a in aux], [a[2][n] for a in aux], rows_int
    return None, None, rows_int


def minimize_checked(obj, rows, offsets, x0, obj_aux=None, aux=None, propose=None, prep=None):
    """:func:`minimize` with a float proposal verified exactly (same results, same guarantees).

    ``aux[k] = (ints, scale, floats)`` caches constraint ``k`` as a positive integer multiple
    (``ints = scale * (a_k, c_k)``) and as floats; ``obj_aux`` the same for ``(obj, 0)``.
    ``propose(c, A, b, x0)`` (default :func:`_float_lp`) may be replaced, e.g. by tests; its
    answer is only a hint. The result is the exact simplex's whenever the hint fails its check.
    ``prep``: :func:`checked_prep` of ``aux`` when the caller has it already.
    """
    n = len(x0)
    if aux is None:
        aux = [_aux(a, c) for a, c in zip(rows, offsets)]
    if obj_aux is None:
        obj_aux = _aux(obj, Q0)
    m = len(rows)
    if prep is None:
        prep = checked_prep(aux, n)
    xf = _floats(x0)
    if m >= n and n and xf is not None and obj_aux[2] is not None and prep[0] is not None:
        try:
            prop = (propose or _float_lp)(obj_aux[2][:n], prep[0], prep[1], xf)
        except (ArithmeticError, ValueError):  # a float failure is no answer: the exact simplex decides
            prop = None
        ok = (
            isinstance(prop, tuple)
            and len(prop) >= 2
            and len(prop[1]) == n
            and len(set(prop[1])) == n
            and all(isinstance(k, int) and 0 <= k < m for k in prop[1])
        )
        if ok:
            rows_int = prep[2]
            oi = obj_aux[0][:n]
            so = obj_aux[1]
            if prop[0] == "opt":
                chk = check_basis(oi, rows_int, prop[1], n)
                if chk is not None:
                    X, T, M, T2 = chk
                    x = tuple(fmpq(xv, T) for xv in X)
                    lam = [Q0] * m
                    for k, mv in zip(prop[1], M):
                        if mv:
                            lam[k] = fmpq(mv * aux[k][1], T2 * so)
                    value = fmpq(sum(o * xv for o, xv in zip(oi, X)), T * so)
                    return ("optimal", x, value, tuple(lam))
            elif prop[0] == "ray" and len(prop) == 3 and isinstance(prop[2], int) and 0 <= prop[2] < n:
                chk = check_ray(oi, rows_int, prop[1], prop[2], n)
                if chk is not None:
                    X, T, D = chk
                    return ("unbounded", tuple(fmpq(xv, T) for xv in X), tuple(fmpq(dv) for dv in D))
    return minimize(obj, rows, offsets, x0)


def _aux(normal, offset):
    """``(ints, scale, floats)`` of a constraint; ``floats`` is ``None`` when a number does not
    fit a float (then no float proposal is made and the exact simplex answers)."""
    ints, s = int_row(normal, offset)
    return ints, s, _floats(list(normal) + [offset])


def _floats(vals):
    try:
        out = [float(v) for v in vals]
    except OverflowError:
        return None
    for f in out:
        if f != f or f in (_INF, -_INF):
            return None
    return out


_INF = float("inf")


def float_lp_batch(C, A, b, x0, excl=None, maxit=40):
    """:func:`_float_lp` for ``K`` objectives over the same constraints, vectorised in NumPy.

    ``C`` is ``K x n``, ``A`` is ``m x n``; LP ``k`` ignores row ``excl[k]`` (``-1``: none).
    Returns per LP ``("opt", B)``, ``("ray", B, i)`` or ``None``, exactly like
    :func:`_float_lp`: proposals only, which :func:`minimize_checked` verifies exactly.
    """
    if x0 is None:
        return [None] * len(C)
    C = _np.asarray(C, dtype=float).reshape(-1, len(x0))
    A = _np.asarray(A, dtype=float).reshape(-1, len(x0))
    b = _np.asarray(b, dtype=float)
    K, n = C.shape
    m = A.shape[0]
    out = [None] * K
    if K == 0 or m < n or n == 0:
        return out
    ar = _np.arange(K)
    xf = _np.asarray(x0, dtype=float)
    if not (_np.isfinite(A).all() and _np.isfinite(b).all() and _np.isfinite(C).all() and _np.isfinite(xf).all()):
        return out
    with _np.errstate(all="ignore"):
        S = _np.tile(A @ xf + b, (K, 1))
    blocked = _np.zeros((K, m), dtype=bool)
    if excl is not None:
        ex = _np.asarray(excl)
        sel = ex >= 0
        blocked[ar[sel], ex[sel]] = True
    alive = _np.ones(K, dtype=bool)
    P = _np.tile(_np.eye(n), (K, 1, 1))
    W = _np.zeros((K, n), dtype=int)
    cn = _np.sqrt((C * C).sum(axis=1))
    if not _np.isfinite(S).all():
        return out
    with _np.errstate(all="ignore"):
        for step in range(n):
            D = -_np.einsum("kij,kj->ki", P, C)
            nd = _np.sqrt((D * D).sum(axis=1))
            flat = nd < 1e-9 * (1.0 + cn)
            if flat.any():  # objective constant on the face: any direction of the face
                j = _np.argmax(_np.diagonal(P, axis1=1, axis2=2), axis=1)
                D[flat] = P[ar[flat], :, j[flat]]
                nd = _np.sqrt((D * D).sum(axis=1))
            alive &= nd > 1e-9
            D /= _np.where(nd > 0, nd, 1.0)[:, None]
            R = D @ A.T
            mask = (R < -1e-12) & ~blocked
            alive &= mask.any(axis=1)  # unbounded before a vertex: the single LP path decides
            ratios = _np.where(mask, _np.maximum(S, 0.0) / _np.where(mask, -R, 1.0), _np.inf)
            kb = _np.argmin(ratios, axis=1)
            t = ratios[ar, kb]
            t = _np.where(alive & _np.isfinite(t), t, 0.0)
            S = S + t[:, None] * R
            S[ar, kb] = 0.0
            blocked[ar, kb] = True
            W[:, step] = kb
            v = _np.einsum("kij,kj->ki", P, A[kb])
            nv = (v * v).sum(axis=1)
            alive &= nv > 1e-24
            P = P - _np.einsum("ki,kj->kij", v, v) / _np.where(nv > 0, nv, 1.0)[:, None, None]
        todo = alive.copy()
        for _ in range(maxit):
            if not todo.any():
                break
            idx = _np.nonzero(todo)[0]
            Wi = W[idx]
            AB = A[Wi]
            dets = _np.linalg.det(AB)
            good = _np.abs(dets) > 1e-13
            if not good.all():
                todo[idx[~good]] = False
                idx, Wi, AB = idx[good], Wi[good], AB[good]
                if not len(idx):
                    break
            inv = _np.linalg.inv(AB)
            lam = _np.einsum("kji,kj->ki", inv, C[idx])
            i = _np.argmin(lam, axis=1)
            li = lam[_np.arange(len(idx)), i]
            opt = li >= -1e-11 * (1.0 + cn[idx])
            for k in idx[opt]:
                out[k] = ("opt", W[k].tolist())
            todo[idx[opt]] = False
            go = ~opt
            if not go.any():
                break
            idx, Wi, inv, i = idx[go], Wi[go], inv[go], i[go]
            r_ = _np.arange(len(idx))
            D = inv[r_, :, i]
            X = _np.einsum("kij,kj->ki", inv, -b[Wi])
            R = D @ A.T
            mask = (R < -1e-12) & ~blocked[idx]
            ray = ~mask.any(axis=1)
            for k, ii in zip(idx[ray], i[ray]):
                out[k] = ("ray", W[k].tolist(), int(ii))
            todo[idx[ray]] = False
            mv = ~ray
            idx, X, R, mask, i = idx[mv], X[mv], R[mv], mask[mv], i[mv]
            if not len(idx):
                break
            Sl = _np.maximum(X @ A.T + b, 0.0)
            ratios = _np.where(mask, Sl / _np.where(mask, -R, 1.0), _np.inf)
            kb = _np.argmin(ratios, axis=1)
            old = W[idx, i]
            blocked[idx, old] = False
            if excl is not None:  # an excluded row stays excluded
                ex = _np.asarray(excl)[idx]
                blocked[idx[ex >= 0], ex[ex >= 0]] = True
            blocked[idx, kb] = True
            W[idx, i] = kb
    return out
