"""exactnet.strategies as a user meets them: in their own test files, with Hypothesis's default
settings (health checks on)."""

from __future__ import annotations

import subprocess
import sys

from hypothesis import given

from exactnet.strategies import networks, rationals

USER_TEST = '''
from hypothesis import given, settings
from exactnet.strategies import networks

@settings(max_examples=10)
@given(networks(arch=(10, 16, 16, 1)))
def test_a_user_property(net):
    assert net.num_parameters == 465
'''


def test_strategies_pass_the_default_health_checks_in_a_users_test_file(tmp_path):
    """A user's ``@given(networks(arch=(10, 16, 16, 1)))`` (465 parameters) runs under Hypothesis's
    default health checks, outside this project's test profile (the per-rational ``@composite`` with
    a filter failed ``too_slow`` there)."""
    (tmp_path / "test_user.py").write_text(USER_TEST)
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(tmp_path),
                        str(tmp_path / "test_user.py")], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout[-2000:]


@given(rationals(max_num=3, max_den=2, nonzero=True))
def test_nonzero_rationals_are_nonzero_and_in_range(q):
    assert q != 0 and abs(q.p) <= 3 and 1 <= q.q <= 2
