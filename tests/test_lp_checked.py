"""The float-proposed, exactly-checked LP (exactnet.lp.minimize_checked) against the pure exact
simplex (exactnet.lp.minimize) as an independent oracle: wrong float proposals are caught
and the exact fallback answers."""

import random

import pytest
from flint import fmpq

from exactnet import lp
from exactnet.lp import check_basis, check_ray, int_row, minimize, minimize_checked, verify_multipliers

Q0 = fmpq(0)


def _rand_lp(rng, n, m, den=3, box=True):
    rows, offs = [], []
    if box:
        for i in range(n):
            for s in (1, -1):
                rows.append(tuple(fmpq(s if j == i else 0) for j in range(n)))
                offs.append(fmpq(1))
    # constraints through a point near the origin, so x0 = 0 is strictly feasible
    while len(rows) < m:
        a = tuple(fmpq(rng.randint(-4, 4), rng.randint(1, den)) for _ in range(n))
        if not any(a):
            continue
        rows.append(a)
        offs.append(fmpq(rng.randint(1, 6), rng.randint(1, den)))
    obj = tuple(fmpq(rng.randint(-5, 5), rng.randint(1, den)) for _ in range(n))
    return obj, rows, offs, tuple(Q0 for _ in range(n))


def _same(a, b):
    assert a[0] == b[0]
    if a[0] == "optimal":
        assert a[2] == b[2]


def _check_result(obj, rows, offs, res):
    n = len(obj)
    if res[0] == "optimal":
        _, x, value, lam = res
        assert all(lam_k >= 0 for lam_k in lam)
        assert verify_multipliers(obj, Q0, rows, offs, lam, value)
        assert all(sum((a * v for a, v in zip(r, x)), Q0) + c >= 0 for r, c in zip(rows, offs))
    else:
        _, x, d = res
        assert sum((o * v for o, v in zip(obj, d)), Q0) < 0
        assert all(sum((a * v for a, v in zip(r, d)), Q0) >= 0 for r in rows)
        assert all(sum((a * v for a, v in zip(r, x)), Q0) + c >= 0 for r, c in zip(rows, offs))
    assert len(x) == n


@pytest.mark.parametrize("n", [2, 3, 4, 6])
def test_agrees_with_exact_simplex(n):
    rng = random.Random(n)
    for trial in range(40):
        obj, rows, offs, x0 = _rand_lp(rng, n, 2 * n + 6, box=trial % 3 != 0)
        res = minimize_checked(obj, rows, offs, x0)
        _check_result(obj, rows, offs, res)
        _same(res, minimize(obj, rows, offs, x0))


def _counting(monkeypatch):
    calls = []
    real = lp.minimize

    def spy(*a):
        calls.append(1)
        return real(*a)

    monkeypatch.setattr(lp, "minimize", spy)
    return calls


def test_wrong_proposals_are_caught(monkeypatch):
    rng = random.Random(7)
    calls = _counting(monkeypatch)
    bad = [
        lambda c, A, b, x0: ("opt", list(range(len(x0)))),  # some basis: usually infeasible or not optimal
        lambda c, A, b, x0: ("opt", [0] * len(x0)),  # repeated row: rejected before any check
        lambda c, A, b, x0: ("opt", [0, 1] + list(range(2, len(x0)))),  # box rows 0, 1 are parallel: singular
        lambda c, A, b, x0: ("ray", list(range(len(x0))), 0),  # a bogus ray in a bounded set
        lambda c, A, b, x0: ("opt", [len(A) - 1 - k for k in range(len(x0))]),
    ]
    n_wrong = 0
    for trial in range(30):
        obj, rows, offs, x0 = _rand_lp(rng, 3, 12)
        oracle = lp.maximize([-o for o in obj], rows, offs, x0)  # the untouched exact simplex
        for propose in bad:
            before = len(calls)
            res = minimize_checked(obj, rows, offs, x0, propose=propose)
            _check_result(obj, rows, offs, res)
            assert res[0] == "optimal" and res[2] == -oracle[2]
            if len(calls) > before:
                n_wrong += 1
    assert n_wrong > 60  # most of these proposals are wrong, and each went to the exact simplex


def test_feasible_but_suboptimal_basis_is_rejected():
    # min x + y over the box [-1, 1]^2: the vertex (1, 1) is feasible but not optimal
    rows = [(fmpq(1), Q0), (fmpq(-1), Q0), (Q0, fmpq(1)), (Q0, fmpq(-1))]
    offs = [fmpq(1)] * 4
    ri = [int_row(r, c)[0] for r, c in zip(rows, offs)]
    assert check_basis([1, 1], ri, [1, 3], 2) is None  # (1, 1): multipliers negative
    assert check_basis([1, 1], ri, [0, 2], 2) is not None  # (-1, -1): optimal
    assert check_ray([1, 1], ri, [0, 2], 0, 2) is None  # bounded: no ray
    res = minimize_checked((fmpq(1), fmpq(1)), rows, offs, (Q0, Q0), propose=lambda *a: ("opt", [1, 3]))
    assert res[0] == "optimal" and res[2] == -2 and res[1] == (-1, -1)


def test_degenerate_vertex_and_thin_region():
    # many constraints through the optimal vertex (0, 0, 0), small denominators
    n = 3
    rows, offs = [], []
    for a in [(1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 0), (1, 0, 1), (0, 1, 1), (1, 1, 1), (2, 1, 3)]:
        rows.append(tuple(fmpq(v) for v in a))
        offs.append(Q0)
    x0 = (fmpq(1, 3), fmpq(1, 5), fmpq(1, 7))
    obj = (fmpq(1), fmpq(1, 2), fmpq(1, 3))
    res = minimize_checked(obj, rows, offs, x0)
    _check_result(obj, rows, offs, res)
    assert res[0] == "optimal" and res[2] == 0
    # a thin slab 0 <= x - y <= 10^-30: floats see a line, the exact answer is decided exactly
    eps = fmpq(1, 10**30)
    rows = [(fmpq(1), fmpq(-1)), (fmpq(-1), fmpq(1)), (fmpq(1), Q0), (fmpq(-1), Q0)]
    offs = [Q0, eps, fmpq(1), fmpq(1)]
    x0 = (Q0, -eps / 2)
    obj = (Q0, fmpq(1))
    res = minimize_checked(obj, rows, offs, x0)
    _check_result(obj, rows, offs, res)
    _same(res, minimize(obj, rows, offs, x0))


def test_unbounded_agrees():
    rng = random.Random(3)
    seen = 0
    for _ in range(40):
        obj, rows, offs, x0 = _rand_lp(rng, 3, 5, box=False)
        res = minimize_checked(obj, rows, offs, x0)
        _check_result(obj, rows, offs, res)
        _same(res, minimize(obj, rows, offs, x0))
        seen += res[0] == "unbounded"
    assert seen > 0


def _summary(rc):
    return sorted(
        (c.pattern, tuple(sorted((str(k.normal), str(k.offset)) for k in c.constraints)), tuple(sorted(map(str, c.corners))))
        for c in rc.cells
    )


@pytest.mark.parametrize("arch", [(3, 4, 4, 1), (4, 4, 3, 1)])
def test_engine_unchanged_by_wrong_or_missing_proposals(monkeypatch, arch):
    """The region engine with sabotaged float proposals gives the same exact complex."""
    from exactnet import regions
    from exactnet.randnet import random_network

    net = random_network(arch, seed=1)
    ref = _summary(regions.compute_regions(net, box=(-1, 1)))

    def wrong_single(c, A, b, x0):
        return ("opt", list(range(len(x0))))

    def wrong_batch(C, A, b, x0, excl=None, maxit=40):
        return [("opt", list(range(len(x0))))] * len(C)

    monkeypatch.setattr(lp, "_float_lp", wrong_single)
    monkeypatch.setattr(regions, "float_lp_batch", wrong_batch)
    assert _summary(regions.compute_regions(net, box=(-1, 1))) == ref
    monkeypatch.setattr(lp, "_float_lp", lambda *a: None)
    monkeypatch.setattr(regions, "float_lp_batch", lambda C, *a, **k: [None] * len(C))
    assert _summary(regions.compute_regions(net, box=(-1, 1))) == ref


def test_numbers_beyond_float_range():
    """Numbers no float can hold: no proposal is made and the exact simplex answers."""
    big = fmpq(10**400, 3)
    rows = [(fmpq(1), Q0, Q0), (fmpq(-1), Q0, Q0), (Q0, fmpq(1), Q0), (Q0, fmpq(-1), Q0), (Q0, Q0, fmpq(1)), (Q0, Q0, -big)]
    offs = [fmpq(1), fmpq(1), fmpq(1), fmpq(1), fmpq(1), big]
    x0 = (Q0, Q0, Q0)
    obj = (fmpq(1), fmpq(1), big)
    res = minimize_checked(obj, rows, offs, x0)
    _check_result(obj, rows, offs, res)
    _same(res, minimize(obj, rows, offs, x0))
    assert lp.float_lp_batch([[1.0, 1.0, 1.0]], [[float("inf"), 0, 0]] + [[0.0, 1.0, 0.0]] * 3, [1.0] * 4, [0.0] * 3) == [None]
