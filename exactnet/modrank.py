"""Fast exact rank of rational matrices: modular elimination with a nonzero-minor certificate.

The layer below :mod:`exactnet.fdim`. For a matrix ``A`` over Q given by its rows:

1. **Clear denominators per row.** Row ``i`` times the lcm of its denominators is an
   integer row; scaling rows by nonzero integers changes neither the rank nor which
   minors vanish.
2. **Rank modulo a large prime p** (``flint.nmod_mat``). The pivot columns of the
   reduced row echelon form of ``A^T mod p`` are ``r`` rows ``R`` of ``A`` that are
   independent mod ``p``; the pivot columns of ``A[R, :] mod p`` are ``r`` columns ``C``.
   *Fact:* in a rank-``r`` matrix, ``r`` independent rows and ``r`` independent columns
   meet in a nonsingular ``r x r`` submatrix. So ``det A[R, C] != 0 (mod p)``, hence the
   integer ``det A[R, C]`` is nonzero, hence ``rank_Q(A) >= r``. (Always
   ``rank_Q(A) >= rank_p(A)``; the selected minor is the explicit proof.)
3. **Upper bound.** When the caller knows ``rank_Q(A) <= U`` (for the Jacobian of a ReLU
   network, ``U = D - N``, see :mod:`exactnet.fdim`) and ``r = U``, the rank is exact with
   no further work. Otherwise a second prime is tried, and if the rank still stays below
   ``U`` the exact rank over Q is computed by ``fmpz_mat.rank()`` (fraction-free
   elimination, exact; slower).

Every returned :class:`RankResult` says how its value was proved (``method``).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import lcm
from typing import Sequence

from flint import fmpq, fmpz_mat, nmod_mat

__all__ = [
    "PRIMES",
    "RankResult",
    "integer_rows",
    "rank_mod_p",
    "certified_rank",
    "minor_is_nonzero",
]

#: Large primes below 2^63 used for the modular rank (the largest one first).
PRIMES = (9223372036854775783, 2305843009213693951)


@dataclass(frozen=True)
class RankResult:
    """The exact rank of a rational matrix and how it was proved.

    ``rows`` and ``cols`` index an ``r x r`` submatrix whose determinant is nonzero
    (proved modulo ``prime``, which implies nonzero over Q); ``method`` is
    ``"minor=bound"`` (the minor reaches the known upper bound), or ``"fmpz_mat.rank"``
    (exact elimination over Z confirmed a value below the bound), or ``"minor"`` when
    no bound was given and exact elimination was skipped (``exact`` is then False and
    ``rank`` is only a proved lower bound).
    """

    rank: int
    exact: bool
    rows: tuple[int, ...]
    cols: tuple[int, ...]
    prime: int
    method: str
    upper_bound: int | None = None


def integer_rows(rows: Sequence[Sequence[fmpq]]) -> list[list[int]]:
    """Each rational row times the lcm of its denominators: a list of Python int rows."""
    out: list[list[int]] = []
    for row in rows:
        m = 1
        for v in row:
            d = int(v.q)
            if d != 1:
                m = lcm(m, d)
        if m == 1:
            out.append([int(v.p) for v in row])
        else:
            out.append([int(v.p) * (m // int(v.q)) for v in row])
    return out


def _pivots(rref: nmod_mat, rank: int) -> list[int]:
    """Column index of the leading entry of each of the first ``rank`` rows of an rref."""
    piv: list[int] = []
    rows = rref.tolist()
    for i in range(rank):
        r = rows[i]
        for j, v in enumerate(r):
            if int(v) != 0:
                piv.append(j)
                break
    return piv


def rank_mod_p(int_rows: Sequence[Sequence[int]], ncols: int, p: int) -> tuple[int, list[int], list[int]]:
    """Rank of an integer matrix modulo ``p`` with independent rows ``R`` and columns ``C``.

    ``A[R, C]`` is nonsingular modulo ``p`` (see the module docstring).
    """
    nrows = len(int_rows)
    if nrows == 0 or ncols == 0:
        return 0, [], []
    At = nmod_mat(ncols, nrows, [int_rows[i][j] % p for j in range(ncols) for i in range(nrows)], p)
    E, r = At.rref()
    R = _pivots(E, r)
    if r == 0:
        return 0, [], []
    sub = nmod_mat(r, ncols, [int_rows[i][j] % p for i in R for j in range(ncols)], p)
    E2, r2 = sub.rref()
    assert r2 == r
    C = _pivots(E2, r)
    return r, R, C


def minor_is_nonzero(int_rows: Sequence[Sequence[int]], rows: Sequence[int], cols: Sequence[int]) -> bool:
    """Exact test (over Z) that the minor ``A[rows, cols]`` is nonzero."""
    if len(rows) != len(cols):
        return False
    if not rows:
        return True
    M = fmpz_mat([[int_rows[i][j] for j in cols] for i in rows])
    return M.det() != 0


def certified_rank(
    rows: Sequence[Sequence[fmpq]] | None = None,
    ncols: int | None = None,
    upper_bound: int | None = None,
    int_rows: Sequence[Sequence[int]] | None = None,
    exact: bool = True,
) -> RankResult:
    """The rank over Q of the matrix with the given rational ``rows`` (or integer ``int_rows``).

    ``upper_bound``: a proved bound ``rank <= upper_bound`` known to the caller (it is
    *not* checked here; it must come with its own proof). With ``exact=False`` the
    exact elimination below the bound is skipped and the result is a proved lower bound.
    """
    if int_rows is None:
        int_rows = integer_rows(rows or [])
    if ncols is None:
        ncols = len(int_rows[0]) if int_rows else 0
    best: tuple[int, list[int], list[int], int] | None = None
    for p in PRIMES:
        r, R, C = rank_mod_p(int_rows, ncols, p)
        if best is None or r > best[0]:
            best = (r, R, C, p)
        if upper_bound is not None and r >= upper_bound:
            break
        if upper_bound is None and not exact:
            break
    assert best is not None
    r, R, C, p = best
    if upper_bound is not None and r >= upper_bound:
        if r > upper_bound:
            # The bound was wrong: a nonzero r x r minor mod p exceeds it. Never hide that.
            raise ArithmeticError(f"rank {r} exceeds the claimed upper bound {upper_bound}")
        return RankResult(r, True, tuple(R), tuple(C), p, "minor=bound", upper_bound)
    if not exact:
        return RankResult(r, False, tuple(R), tuple(C), p, "minor", upper_bound)
    full = fmpz_mat([list(row) for row in int_rows]) if int_rows else fmpz_mat(0, ncols)
    rq = int(full.rank())
    if rq != r:
        # The primes were unlucky (rank_Q > rank_p); the exact value stands, but find a
        # minor for it with the remaining prime candidates is not guaranteed: say so.
        return RankResult(rq, True, (), (), 0, "fmpz_mat.rank", upper_bound)
    return RankResult(r, True, tuple(R), tuple(C), p, "fmpz_mat.rank", upper_bound)
