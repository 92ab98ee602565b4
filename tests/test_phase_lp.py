"""The node LPs of the phase branch and bound (:mod:`exactnet.phase_lp`): closed only with exact multipliers."""

from __future__ import annotations

import subprocess
import sys

from flint import fmpq

from exactnet.phase_lp import PhaseLP

q = fmpq


def _one_neuron(target_a, target_b):
    # variables v = (x, h); one neuron k with y = x and h at column 1; one target e = a.v + b > 0
    return PhaseLP({"k": ([q(1), q(0)], q(0))}, {"k": 1}, [(target_a, target_b)], 2)


def test_an_active_phase_closes_a_node_by_exact_multipliers():
    lp = _one_neuron([q(-1), q(0)], q(-1))  # e = -x - 1: positive only for x < -1
    assert lp.solve({"k": "active"})[0] == "closed"  # x >= 0 there: sup t = -1
    how, v = lp.solve({})  # relaxed: x free, e can be positive
    assert how == "open" and v[0] < -1


def test_an_empty_node_is_closed_by_an_exact_farkas_ray():
    # y = x active (x >= 0) and a second neuron y2 = -x - 1 active (x <= -1): empty
    lp = PhaseLP({"a": ([q(1), q(0), q(0)], q(0)), "b": ([q(-1), q(0), q(0)], q(-1))}, {"a": 1, "b": 2},
                 [([q(0), q(1), q(0)], q(0))], 3)
    assert lp.solve({"a": "active", "b": "active"})[0] == "closed"
    assert lp.solve({"a": "active", "b": "dead"})[0] == "open"  # h_a = x can be positive


def test_the_dead_phase_forces_h_to_zero():
    lp = _one_neuron([q(0), q(1)], q(0))  # e = h
    assert lp.solve({"k": "dead"})[0] == "closed"
    assert lp.solve({"k": "active"})[0] == "open"


def test_a_gap_measures_h_above_relu_y():
    lp = _one_neuron([q(0), q(1)], q(0))
    assert lp.gap("k", [-2.0, 3.0, 0.0]) == 3.0  # (x, h, t): y = -2, h = 3
    assert lp.gap("k", [2.0, 2.0, 0.0]) == 0.0


def test_no_banner_on_standard_output():
    code = ("from flint import fmpq as q\nfrom exactnet.phase_lp import PhaseLP\n"
            "lp = PhaseLP({'k': ([q(1), q(0)], q(0))}, {'k': 1}, [([q(-1), q(0)], q(-1))], 2)\n"
            "print(lp.solve({'k': 'active'})[0])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout == "closed\n"


def test_margin_rows_make_the_fixed_phase_strict():
    # (x, h); y = x with margin; target e = h; t <= 1
    lp = PhaseLP({"k": ([q(1), q(0)], q(0))}, {"k": 1}, [([q(0), q(1)], q(0))], 2, margin=["k"], t_max=q(1))
    how, v = lp.solve({"k": "active"})
    assert how == "open" and abs(v[-1] - 1.0) < 1e-9  # x >= t, h = x >= t: t reaches its cap 1
    assert lp.solve({"k": "dead"})[0] == "closed"  # h = 0 >= t


def test_the_scipy_fallback_gives_the_same_answers():
    lps = [_one_neuron([q(-1), q(0)], q(-1)), _one_neuron([q(0), q(1)], q(0)),
           PhaseLP({"k": ([q(1), q(0)], q(0))}, {"k": 1}, [([q(0), q(1)], q(0))], 2, margin=["k"], t_max=q(1))]
    for lp in lps:
        for phase in ({}, {"k": "active"}, {"k": "dead"}):
            assert lp.fallback(*lp.bounds(phase))[0] == lp.solve(phase)[0]


def test_exact_check_uses_only_sides_the_node_has():
    # review finding: float duals propose (row, side); a side the node lacks must never close it.
    # y = x, target e = y, all relaxed: t is unbounded, so no combination may prove sup t <= 0.
    lp = _one_neuron([q(1), q(0)], q(0))
    lo, up = lp.bounds({})
    assert lp.solve({})[0] == "open"
    # -h >= 0 (row 0 upper side) is not a constraint of the relaxed node, in either convention
    assert not lp._exact([(0, -1), (1, 1), (3, 1)], False, lo, up)
    assert not lp._exact([(0, 1), (1, -1), (3, -1)], False, lo, up)
    # with the neuron dead, y <= 0 is a constraint of the node: (x - t) + (-y) = -t >= 0 closes it
    lo, up = lp.bounds({"k": "dead"})
    assert lp._exact([(2, -1), (3, 1)], False, lo, up)
    # a proposed side the node lacks (h - y <= 0) is left out; the valid rows still close the node
    assert lp._exact([(2, -1), (3, 1), (1, -1)], False, lo, up)
    assert not lp._exact([(1, -1), (3, 1)], False, lo, up)  # without y <= 0 nothing bounds t
    lo, up = lp.bounds({})
    assert not lp._exact([(2, -1), (3, 1)], False, lo, up)  # the same rows, relaxed: y <= 0 is not there


def _seed7_column_node():
    """The (15,)*6+(1,) seed-7 column-relation model (neuron (4,1) into layer 5) and an empty node of it."""
    from exactnet.randnet import random_network

    net = random_network((15,) * 6 + (1,), seed=7)
    L, A, n0 = net.depth, net.architecture, net.input_dim
    index, nv = {}, n0
    for layer in range(1, L):
        for i in range(A[layer]):
            index[(layer, i)] = nv
            nv += 1

    def affine(layer, i):
        a = [q(0)] * nv
        for j, w in enumerate(net.weights(layer)[i]):
            if w:
                a[j if layer == 1 else index[(layer - 1, j)]] = w
        return a, net.biases(layer)[i]

    Y = {k: affine(*k) for k in index}
    lp = PhaseLP(Y, index, [Y[(4, 1)]], nv, margin=[k for k in index if k[0] >= 5], t_max=q(1))
    on = {(2, 5), (4, 1)} | {(5, i) for i in range(15) if i not in (7, 9)}
    off = {(2, 7), (2, 14), (4, 10), (5, 7), (5, 9)}
    return lp, {k: "active" for k in on} | {k: "dead" for k in off}


def test_a_float_noise_entry_does_not_cost_the_exact_check():
    # seen in a warm-started solve of this node: a Farkas ray with entries near 100 and noise
    # entries up to 1e-7; the noise rows in the support made the exact solve on it fail. The
    # supports cut relative to the largest entry are proposals too, each checked exactly.
    import numpy as np

    lp, phase = _seed7_column_node()
    assert lp.solve(phase)[0] == "closed"
    _status, has, ray = lp.hs.getDualRay()
    ray = np.asarray(ray)
    assert has
    lo, up = lp.bounds(phase)
    rng = np.random.default_rng(0)
    spare = [k for k in range(lp.nr) if (lo[k] == 0.0 or up[k] == 0.0) and abs(ray[k]) <= 1e-9]
    for _ in range(200):  # noise on sides the node has, chosen until the old support fails
        noisy = ray.copy()
        for k in rng.choice(spare, 3, replace=False):
            noisy[k] = 5e-8 if lo[k] == 0.0 else -5e-8
        support = [(k, 1 if noisy[k] > 0 else -1) for k in np.nonzero(np.abs(noisy) > 1e-9)[0]]
        if not lp._exact(support, True, lo, up):
            break
    else:
        raise AssertionError("no noise pattern breaks the absolute-threshold support")
    assert lp._closes(noisy, 1, True, lo, up)
    # and never closes an open node, whatever the proposal
    open_lo, open_up = lp.bounds({(4, 1): "active"})
    assert lp.solve({(4, 1): "active"})[0] == "open"
    assert not lp._closes(noisy, 1, True, open_lo, open_up)
    assert not lp._closes(np.ones(lp.nr), 1, False, open_lo, open_up)


def test_a_failed_exact_check_gets_the_second_solver():
    # HiGHS's warm-started duals of a degenerate node can fail the exact check; the node then goes
    # to scipy's linprog (presolve on), whose proposal gets the same exact check
    lp = _one_neuron([q(-1), q(0)], q(-1))  # e = -x - 1 > 0 with y = x >= 0: empty when active
    calls = []
    real = lp._closes

    def first_fails(*args, **kwargs):
        calls.append(kwargs.get("flips", (1, -1)))
        return False if len(calls) == 1 else real(*args, **kwargs)

    lp._closes = first_fails
    assert lp.solve({"k": "active"})[0] == "closed"
    assert calls == [(1, -1), (1,)]  # HiGHS's proposal failed, the fallback's closed it


def test_the_column_box_only_proposes():
    # e = x - 2*10^6 > 0 holds only outside the HiGHS model's column box |x| <= 10^6: inside the box
    # the float optimum is negative, but no exact certificate may use the box, so the node stays open
    # (the fallback solver, whose columns are free, finds it unbounded: its point is a proposal only)
    lp = _one_neuron([q(1), q(0)], q(-2 * 10**6))
    how, v = lp.solve({})
    assert how == "open" and v[0] >= 1e6 - 1
    # an unbounded node is open from the one solve, with its point far out along the ray
    how, v = _one_neuron([q(0), q(1)], q(0)).solve({})  # e = h, h >= 0 and h >= x: unbounded
    assert how == "open" and v[1] > 1e5
