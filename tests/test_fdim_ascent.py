"""The directed search of :mod:`exactnet.fdim_ascent`: every point it returns satisfies its goal exactly."""

from __future__ import annotations

import pytest
from flint import fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

from exactnet.fdim import functional_dimension, sample_batch
from exactnet.fdim_ascent import ascent_points
from exactnet.network import Network
from exactnet.randnet import random_network


def _holds(net, x, goal) -> bool:
    z = net.preactivations(x)
    return all(s * z[l - 1][i] > 0 for l, i, s in goal)


def _strict(net, x) -> bool:
    return all(v != 0 for layer in net.preactivations(x)[:-1] for v in layer)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), width=st.integers(2, 5), depth=st.integers(3, 5), data=st.data())
def test_every_point_satisfies_its_goal_exactly(seed, width, depth, data):
    net = random_network((width,) * depth + (1,), seed=seed)
    goals = []
    for _ in range(data.draw(st.integers(1, 6))):
        l = data.draw(st.integers(1, depth - 1))
        goal = [(l, data.draw(st.integers(0, width - 1)), data.draw(st.sampled_from((1, -1))))]
        if l > 1 and data.draw(st.booleans()):
            goal.append((l - 1, data.draw(st.integers(0, width - 1)), 1))
            if data.draw(st.booleans()):  # a neuron of layer l with the other sign (the pair goals of (2b))
                goal.append((l, data.draw(st.integers(0, width - 1)), -goal[0][2]))
        goals.append(goal)
    pts = ascent_points(net, goals, starts=12, steps=20, seed=seed)
    assert len(pts) <= len(goals)
    for x in pts:
        assert _strict(net, x)
        assert any(_holds(net, x, g) for g in goals)


def test_an_impossible_goal_gets_no_point():
    # layer 2 neuron 0 has non-positive weights and a negative bias: z <= -1 on the whole input space
    q = fmpq
    net = Network.from_lists([
        ([[q(1), q(2)], [q(-3), q(1)]], [q(1), q(-2)]),
        ([[q(-1), q(0)], [q(2), q(1)]], [q(-1), q(1)]),
        ([[q(1), q(1)]], [q(0)]),
    ])
    assert ascent_points(net, [[(2, 0, 1)]]) == []
    pts = ascent_points(net, [[(2, 1, 1)], [(2, 0, 1)]])
    assert len(pts) == 1 and _holds(net, pts[0], [(2, 1, 1)])


def test_finds_an_active_set_that_the_sampler_misses():
    # (15,)*6+(1,) seed 19: neuron (5, 0) (0-based; "(5,1)" in fdim's names) is active on no point
    # of the first sampled batch, yet the ascent finds a point with z_(5,0) > 0 (about 5e4)
    net = random_network((15,) * 6 + (1,), seed=19)
    batch = sample_batch(net, 0, 400, seed=19)
    assert not any(net.preactivations(x)[4][0] > 0 for x in batch)
    pts = ascent_points(net, [[(5, 0, 1)]], seed=0)
    assert len(pts) == 1 and _holds(net, pts[0], [(5, 0, 1)]) and _strict(net, pts[0])


def test_directed_search_closes_an_interval_without_lp():
    # (10,)*5+(1,) seed 5, sampling alone (no LP facts, no walks, no fresh batches): 399..401 without
    # the directed search, exactly 401 (the proved upper bound) with it
    net = random_network((10,) * 5 + (1,), seed=5)
    kw = dict(use_regions=False, seed=5, prove_signs=False, walk_rounds=0, resample_rounds=0)
    before = functional_dimension(net, ascent_rounds=0, **kw)
    after = functional_dimension(net, **kw)
    assert (before.status, before.functional_dimension, before.upper_bound) == ("lower-bound", 399, 401)
    assert (after.status, after.functional_dimension) == ("exact", 401)


@pytest.mark.slow
def test_pair_goals_and_a_second_effort_close_deep_intervals(monkeypatch):
    # (15,)*6+(1,) seed 12: the last-hidden-layer pairs never seen of opposite signs where a layer-4
    # neuron is active were LP candidates that used up the budget (1106..1109). As goals of the
    # directed search, with a second, larger effort for the goals still open, they are refuted by
    # points; the network is exact (both bounds proved). Without them it stays an interval.
    import exactnet.fdim as fdim

    # (at the LP budget of that time, 10 CPU s per phase: with 30 the LP facts alone may close it)
    net = random_network((15,) * 6 + (1,), seed=12)
    after = functional_dimension(net, use_regions=False, seed=12, sign_budget=10.0)
    assert (after.status, after.functional_dimension) == ("exact", after.upper_bound)
    monkeypatch.setattr(fdim, "MAX_TRIPLE_GOALS", 0)
    monkeypatch.setattr(fdim, "ASCENT_EFFORTS", fdim.ASCENT_EFFORTS[:1])
    before = functional_dimension(net, use_regions=False, seed=12, sign_budget=10.0)
    assert before.status == "lower-bound" and before.undecided
    assert before.functional_dimension < after.functional_dimension <= before.upper_bound
