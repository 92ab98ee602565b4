"""The re-sampling step of fdim (module docstring, step 3e).

On the benchmark network (15,15,15,15,1) seed 19 with sampling seed 19 the first sample, the LP
witnesses and the walks miss one thin region, so the value stayed the interval 660..661 although
661 is a proved upper bound (the sampling seeds 0-7 reach it). A fresh batch from another seed
and one walk from it close the interval. Every point is checked exactly, so the step can only
raise the proved lower bound; an explicit ``max_points`` turns it off.
"""

import pytest

from exactnet.fdim import functional_dimension
from exactnet.randnet import random_network


def test_a_missed_thin_region_is_found_by_a_fresh_sample():
    net = random_network((15, 15, 15, 15, 1), seed=19)
    r = functional_dimension(net, use_regions=False, seed=19)
    assert r.status == "exact" and r.functional_dimension == r.upper_bound == 661


def test_resampling_never_exceeds_the_proved_bound_and_respects_max_points():
    net = random_network((5, 5, 5, 5, 1), seed=3)
    a = functional_dimension(net, use_regions=False, seed=1, resample_rounds=0)
    b = functional_dimension(net, use_regions=False, seed=1, resample_rounds=3)
    assert a.functional_dimension <= b.functional_dimension <= b.upper_bound
    c0 = functional_dimension(net, use_regions=False, seed=1, max_points=50, resample_rounds=0)
    c3 = functional_dimension(net, use_regions=False, seed=1, max_points=50, resample_rounds=3)
    assert c3.points == c0.points  # an explicit cap: no fresh batches


@pytest.mark.slow
def test_a_second_missed_region_needs_more_fresh_batches():
    # (10,)*6+(1,) seed 16, sampling seed 16: 508..509 with two fresh batches, 509 with four
    net = random_network((10,) * 6 + (1,), seed=16)
    r = functional_dimension(net, use_regions=False, seed=16)
    assert r.status == "exact" and r.functional_dimension == r.upper_bound == 509
