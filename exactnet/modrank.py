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

**Reduction of rationals (no denominators cleared).** Let ``Z_(p)`` be the rationals whose
reduced denominator is prime to ``p``; ``phi: Z_(p) -> F_p``, ``a/b -> a b^-1 mod p``, is a
ring homomorphism. If every entry of ``A`` lies in ``Z_(p)`` (checked by
:func:`residue`), then ``phi(det A[R, C]) = det phi(A)[R, C]``: a minor that is nonzero
modulo ``p`` is the image of a nonzero rational minor, so again ``rank_Q(A) >= rank_p``.
This lets :mod:`exactnet.fdim` compute a Jacobian directly modulo ``p`` from the residues
of the weights and of the points (the entries are polynomials in them), with
:func:`rank_rows_mod_p` on a ``numpy`` ``int64`` array; the primes :data:`SMALL_PRIMES`
are below ``2^31`` so that a product of two residues fits in 63 bits.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import lcm
from typing import Sequence

from flint import fmpq, fmpq_mat, fmpz_mat, nmod_mat

__all__ = [
    "nullspace_basis",
    "PRIMES",
    "SMALL_PRIMES",
    "residue",
    "rank_rows_mod_p",
    "RowBasisModP",
    "matmul_mod_p",
    "independent_columns_mod_p",
    "RankResult",
    "integer_rows",
    "rank_mod_p",
    "certified_rank",
    "minor_is_nonzero",
]

#: Large primes below 2^63 used for the modular rank (the largest one first).
PRIMES = (9223372036854775783, 2305843009213693951)

#: Primes below 2^31 for vectorised arithmetic modulo p in ``numpy.int64``.
SMALL_PRIMES = (2147483629, 2147483587, 2147483579, 2147483563)


def residue(q: fmpq, p: int) -> int | None:
    """``q mod p`` (the image under ``Z_(p) -> F_p``), or ``None`` when ``p`` divides the denominator."""
    d = int(q.q) % p
    if d == 0:
        return None
    return int(q.p) % p * pow(d, -1, p) % p


def _first_nonzero_columns(E: nmod_mat, rank: int) -> list[int]:
    """Pivot columns of a reduced row echelon form, scanning each row from the previous pivot."""
    piv: list[int] = []
    j = 0
    n = E.ncols()
    for i in range(rank):
        while j < n and int(E[i, j]) == 0:
            j += 1
        piv.append(j)
        j += 1
    return piv


def rank_rows_mod_p(M, p: int) -> tuple[int, list[int]]:
    """Rank of the ``numpy`` matrix ``M`` (entries in ``[0, p)``) modulo ``p`` and ``r`` rows independent mod ``p``.

    The rows are the pivot columns of the reduced row echelon form of ``M^T``.
    """
    nrows, ncols = M.shape
    if nrows == 0 or ncols == 0:
        return 0, []
    At = nmod_mat(M.T.tolist(), p)
    E, r = At.rref()
    return r, _first_nonzero_columns(E, r)


def matmul_mod_p(A, B, p: int):
    """``A @ B mod p`` for ``numpy`` ``int64`` matrices with entries in ``[0, p)``, ``p < 2^31``, exactly.

    Each factor is split into 16-bit halves (``A = A1 2^16 + A0``); the four half products are
    float64 matrix products whose entries are integers below ``k 2^32 <= 2^53`` (``k`` the inner
    dimension, at most ``2^21``), so the floating-point products are exact; they are then reduced
    modulo ``p`` in ``int64``.
    """
    import numpy as np

    k = A.shape[1]
    if k > 1 << 21:  # pragma: no cover - far beyond the sizes used
        raise ValueError("inner dimension too large for exact float64 products")
    if k == 0:
        return np.zeros((A.shape[0], B.shape[1]), dtype=np.int64)
    A0, A1 = (A & 0xFFFF).astype(np.float64), (A >> 16).astype(np.float64)
    B0, B1 = (B & 0xFFFF).astype(np.float64), (B >> 16).astype(np.float64)
    t00 = (A0 @ B0).astype(np.int64) % p
    t_mid = ((A0 @ B1).astype(np.int64) + (A1 @ B0).astype(np.int64)) % p
    t11 = (A1 @ B1).astype(np.int64) % p
    return (t11 * ((1 << 32) % p) % p + t_mid * (1 << 16) % p + t00) % p


class RowBasisModP:
    """Rows independent modulo ``p``, chosen greedily as batches arrive (an incremental
    :func:`rank_rows_mod_p`).

    ``add(M)`` returns the indices of the rows of ``M`` that are independent of the rows kept so far
    and of the earlier rows of ``M``: the same rows as the pivot columns of ``rref([B; M]^T)`` for the
    kept rows ``B``, without eliminating ``B`` again. The row space of the kept rows is stored in
    reduced echelon form ``E``: one row per pivot column (the identity on the pivot columns), of which
    only the entries on the free (non-pivot) columns ``F`` are kept. A new row ``n`` reduces to
    ``n - n[piv] E``, which is zero on every pivot column and differs from ``n`` by a combination of
    kept rows; so the reduced rows, restricted to ``F``, are independent exactly when the rows ``n``
    are independent of the kept rows and of each other. Products modulo ``p``: :func:`matmul_mod_p`.
    """

    def __init__(self, ncols: int, p: int) -> None:
        import numpy as np

        self.ncols, self.p = ncols, p
        self.piv: list[int] = []
        self.free = np.arange(ncols)
        self.E = np.zeros((0, ncols), dtype=np.int64)  # kept rows on the free columns
        self.rank = 0

    def add(self, M) -> list[int]:
        """Indices of the rows of the ``numpy`` matrix ``M`` (entries in ``[0, p)``) that join the basis."""
        import numpy as np

        p = self.p
        if M.shape[0] == 0 or self.free.size == 0:
            return []
        N = M[:, self.free]
        if self.piv:
            N = (N - matmul_mod_p(M[:, self.piv], self.E, p)) % p
        T, s = nmod_mat(N.T.tolist(), p).rref()
        if s == 0:
            return []
        R = _first_nonzero_columns(T, s)
        S, s2 = nmod_mat(N[R].tolist(), p).rref()
        if s2 != s:  # pragma: no cover - the selected rows are independent by construction
            raise ArithmeticError("selected rows are not independent modulo p")
        Q = _first_nonzero_columns(S, s)
        S = np.array([int(v) for v in S.entries()], dtype=np.int64).reshape(S.nrows(), S.ncols())[:s]
        E = self.E
        if E.shape[0]:  # clear the new pivot columns from the kept rows
            E = (E - matmul_mod_p(E[:, Q], S, p)) % p
        keep = np.ones(self.free.size, dtype=bool)
        keep[Q] = False
        self.E = np.concatenate([E[:, keep], S[:, keep]], axis=0)
        self.piv += [int(self.free[q]) for q in Q]
        self.free = self.free[keep]
        self.rank += s
        return R


def independent_columns_mod_p(M, p: int) -> list[int]:
    """For ``M`` with independent rows mod ``p``: as many columns, independent mod ``p`` (pivots of ``rref(M)``)."""
    nrows, ncols = M.shape
    if nrows == 0:
        return []
    E, r = nmod_mat(M.tolist(), p).rref()
    if r != nrows:  # pragma: no cover - the caller passes independent rows
        raise ArithmeticError("rows are not independent modulo p")
    return _first_nonzero_columns(E, r)


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


def nullspace_basis(rows: Sequence[Sequence[fmpq]], n: int) -> list[list[fmpq]]:
    """A basis of ``{x in Q^n : r . x = 0 for every row r}`` (exact, from the reduced row echelon
    form: one vector per free column ``f``, with ``x_f = 1`` and the other free coordinates 0)."""
    one, zero = fmpq(1), fmpq(0)
    if not rows:
        return [[one if i == j else zero for j in range(n)] for i in range(n)]
    R, rank = fmpq_mat([list(r) for r in rows]).rref()
    piv = [next(c for c in range(n) if R[i, c] != 0) for i in range(rank)]
    out = []
    for f in (c for c in range(n) if c not in piv):
        x = [zero] * n
        x[f] = one
        for i, c in enumerate(piv):
            x[c] = -R[i, f] / R[i, c]
        out.append(x)
    return out
