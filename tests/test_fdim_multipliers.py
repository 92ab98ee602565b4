"""``fdim._exact_multipliers``: the multipliers read off the reduced matrix directly (fast path) are the ones a
scan of every row finds (degenerate supports take the scan), the system is the one of the docstring, and every
certificate returned holds (an independent check)."""

import random

from flint import fmpq, fmpq_mat

from exactnet.fdim import _exact_multipliers, _multiplier_system, _rref_solution


def _system_by_entries(G, c, S, infeasible):
    """``fdim._multiplier_system`` entry by entry: row j holds the j-th entries of G_S's rows and -c_j (or 0),
    the empty form one more row of ones."""
    n, zero = len(G[0]), fmpq(0)
    rows = [[G[k][j] for k in S] + [zero if infeasible else -c[j]] for j in range(n)]
    return fmpq_mat(rows + ([[fmpq(1)] * (len(S) + 1)] if infeasible else []))


def _holds(G, g, c, c0, S, infeasible, lam):
    """An independent check that ``lam`` is a certificate (module docstring of fdim: both forms)."""
    n = len(G[0])
    comb = [sum((lam[t] * G[k][j] for t, k in enumerate(S)), fmpq(0)) for j in range(n)]
    val = sum((lam[t] * g[k] for t, k in enumerate(S)), fmpq(0))
    if any(v < 0 for v in lam):
        return False
    if infeasible:
        return all(v == 0 for v in comb) and sum(lam, fmpq(0)) == 1 and val < 0
    return comb == [-x for x in c] and c0 + val <= 0


def test_the_direct_reading_is_the_scan_and_the_system_is_the_docstrings():
    rng = random.Random(7)
    found = 0
    for _ in range(1500):
        n, nr = rng.randint(1, 5), rng.randint(1, 7)
        G = [[fmpq(rng.randint(-2, 2), rng.randint(1, 3)) for _ in range(n)] for _ in range(nr)]
        if rng.random() < 0.3:  # repeated and zero rows: pivots off the diagonal
            G[rng.randrange(nr)] = list(G[rng.randrange(nr)])
            G[rng.randrange(nr)] = [fmpq(0)] * n
        g = [fmpq(rng.randint(-3, 3)) for _ in range(nr)]
        c = [fmpq(rng.randint(-2, 2)) for _ in range(n)]
        S = sorted(rng.sample(range(nr), rng.randint(1, nr)))
        c0, inf = fmpq(rng.randint(-2, 2)), rng.random() < 0.5
        M = _multiplier_system(G, c, S, inf)
        assert M == _system_by_entries(G, c, S, inf)
        E, rank = M.rref()
        assert _rref_solution(E, rank, len(S)) == _rref_solution(E, rank, len(S), scan=True)
        lam = _exact_multipliers(G, g, c, c0, S, inf)
        if lam is not None:
            found += 1
            assert _holds(G, g, c, c0, S, inf, lam)
    assert found > 100


def test_a_zero_first_row_of_the_support_takes_the_scan():
    # S = [0, 1]: row 0 is zero, so the reduced matrix's first pivot is in column 1, not 0
    G = [[fmpq(0), fmpq(0)], [fmpq(-1), fmpq(0)]]
    lam = _exact_multipliers(G, [fmpq(0), fmpq(2)], [fmpq(1), fmpq(0)], fmpq(-3), [0, 1], False)
    assert lam == [fmpq(0), fmpq(1)]  # x_0 <= 2 proves x_0 - 3 <= 0
    assert _exact_multipliers(G, [fmpq(0), fmpq(2)], [fmpq(1), fmpq(0)], fmpq(-1), [0, 1], False) is None


def test_an_inconsistent_system_is_refused():
    # -x >= 0 cannot give x + y <= 0 (no multiple of (-1, 0) is (-1, -1))
    assert _exact_multipliers([[fmpq(-1), fmpq(0)]], [fmpq(0)], [fmpq(1), fmpq(1)], fmpq(0), [0], False) is None


def test_an_empty_set_by_a_farkas_combination():
    # x >= 1 and -x >= 0 (x <= 0): lam = (1/2, 1/2) sums the rows to 0 with 1/2 * (-1) < 0
    G, g = [[fmpq(1)], [fmpq(-1)]], [fmpq(-1), fmpq(0)]
    lam = _exact_multipliers(G, g, [fmpq(0)], fmpq(0), [0, 1], True)
    assert lam == [fmpq(1, 2), fmpq(1, 2)]
