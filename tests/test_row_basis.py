"""RowBasisModP (incremental independent rows modulo p) against rank_rows_mod_p on the stacked matrix,
and its kept rows against an exact rank over Q (fmpz_mat) of the rows it keeps; matmul_mod_p against
Python integers."""

import numpy as np
from flint import fmpz_mat
from hypothesis import given, settings
from hypothesis import strategies as st

from exactnet.modrank import SMALL_PRIMES, RowBasisModP, matmul_mod_p, rank_rows_mod_p

P = SMALL_PRIMES[0]


@st.composite
def batches(draw):
    """Batches of rows over a few columns, many of them dependent: combinations of a few generators,
    repeated rows, zero rows and small entries."""
    ncols = draw(st.integers(1, 7))
    gens = draw(st.lists(st.lists(st.integers(0, P - 1), min_size=ncols, max_size=ncols), min_size=1, max_size=4))
    out = []
    for _ in range(draw(st.integers(1, 5))):
        rows = []
        for _ in range(draw(st.integers(0, 6))):
            kind = draw(st.sampled_from(["comb", "small", "zero"]))
            if kind == "comb":
                c = draw(st.lists(st.integers(0, 3), min_size=len(gens), max_size=len(gens)))
                rows.append([sum(ci * g[j] for ci, g in zip(c, gens)) % P for j in range(ncols)])
            elif kind == "small":
                rows.append(draw(st.lists(st.integers(0, 2), min_size=ncols, max_size=ncols)))
            else:
                rows.append([0] * ncols)
        out.append(np.array(rows, dtype=np.int64).reshape(len(rows), ncols))
    return ncols, out


@settings(max_examples=150, deadline=None)
@given(batches())
def test_incremental_rows_are_the_greedy_rows_of_the_stack(data):
    ncols, bs = data
    rb = RowBasisModP(ncols, P)
    kept, stack = [], np.zeros((0, ncols), dtype=np.int64)
    for B in bs:
        first = stack.shape[0]
        kept += [first + i for i in rb.add(B)]
        stack = np.concatenate([stack, B], axis=0)
        r, rows = rank_rows_mod_p(stack, P)
        assert kept == rows and rb.rank == r
    if kept:  # independent mod p implies independent over Q
        assert fmpz_mat(stack[kept].tolist()).rank() == len(kept)


def test_a_dependent_row_is_refused_and_an_independent_one_kept():
    rb = RowBasisModP(3, P)
    assert rb.add(np.array([[1, 2, 3], [2, 4, 6]], dtype=np.int64)) == [0]
    assert rb.add(np.array([[3, 6, 9], [0, 1, 0], [1, 3, 3]], dtype=np.int64)) == [1]
    assert rb.rank == 2


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.integers(0, 40), st.integers(1, 6), st.sampled_from(SMALL_PRIMES), st.randoms())
def test_matmul_mod_p_is_exact(a, k, b, p, rnd):
    pick = [0, 1, p - 1, p - 2, 1 << 16, (1 << 16) - 1]
    A = [[rnd.choice(pick) if rnd.random() < 0.5 else rnd.randrange(p) for _ in range(k)] for _ in range(a)]
    B = [[rnd.choice(pick) if rnd.random() < 0.5 else rnd.randrange(p) for _ in range(b)] for _ in range(k)]
    got = matmul_mod_p(np.array(A, dtype=np.int64).reshape(a, k), np.array(B, dtype=np.int64).reshape(k, b), p)
    assert got.tolist() == [[sum(A[i][t] * B[t][j] for t in range(k)) % p for j in range(b)] for i in range(a)]


def test_matmul_mod_p_long_inner_dimension_of_largest_entries():
    p = SMALL_PRIMES[0]
    k = 5000
    got = matmul_mod_p(np.full((2, k), p - 1, dtype=np.int64), np.full((k, 3), p - 1, dtype=np.int64), p)
    assert got.tolist() == [[k * (p - 1) ** 2 % p] * 3] * 2
