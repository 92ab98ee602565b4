"""exactnet.strategies: the laws their docstrings promise (ranges, nonzero numerators, fixed
architectures), as a user's own ``@given`` tests see them.

Their speed under Hypothesis's default ``too_slow`` health check (a user's ``@given(networks(arch=
(10, 16, 16, 1)))`` failed it before rationals lost their per-draw ``@composite`` and filter) is a
timing property and is not asserted here (the project keeps timings out of tests)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from exactnet.strategies import architectures, networks, points, rationals


@given(rationals(max_num=3, max_den=2, nonzero=True))
def test_nonzero_rationals_are_nonzero_and_in_range(q):
    assert q != 0 and abs(q.p) <= 3 and 1 <= q.q <= 2


@given(networks(arch=(3, 4, 2), max_num=2, max_den=3))
def test_networks_of_a_fixed_architecture_have_entries_in_range(net):
    assert net.architecture == (3, 4, 2)
    assert all(abs(v.p) <= 2 and 1 <= v.q <= 3 for v in net.flatten())


@given(networks(arch=architectures(max_input=2, max_hidden_layers=3, max_width=4)))
def test_networks_of_drawn_architectures(net):
    a = net.architecture
    assert 1 <= a[0] <= 2 and 2 <= len(a) - 1 <= 4 and all(1 <= w <= 4 for w in a[1:-1]) and a[-1] == 1


@given(st.integers(1, 4).flatmap(lambda d: st.tuples(st.just(d), points(d))))
def test_points_have_the_dimension_asked(dp):
    d, p = dp
    assert len(p) == d
