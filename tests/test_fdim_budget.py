"""The CPU budget of the LP-fact phases of :func:`exactnet.fdim.functional_dimension`: each phase
gets ``sign_budget`` seconds plus what the phases before it left unused (:class:`_PhaseBudget`),
and the progress line that names each stage and each phase's grant."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactnet import fdim
from exactnet.fdim import _PhaseBudget, functional_dimension
from exactnet.randnet import random_network


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def _phase(clock, uses, seen):
    def prove(*args, budget, **kwargs):
        seen.append((args, budget, kwargs))
        clock.now += uses
        return "result"
    return prove


def test_unused_seconds_go_to_the_next_phase():
    clock, seen = FakeClock(), []
    b = _PhaseBudget(10.0, clock=clock)
    assert b.run(_phase(clock, 2.0, seen), "net", left=[]) == "result"
    b.run(_phase(clock, 3.0, seen), "net")
    b.run(_phase(clock, 25.0, seen), "net")  # spends its own 10 s and the 15 s carried
    b.run(_phase(clock, 0.0, seen), "net")
    assert [g for _, g, _ in seen] == [10.0, 18.0, 25.0, 10.0]
    assert seen[0][0] == ("net",) and seen[0][2] == {"left": []}


def test_an_overrun_does_not_shrink_the_next_phase():
    clock, seen = FakeClock(), []
    b = _PhaseBudget(10.0, clock=clock)
    b.run(_phase(clock, 12.5, seen))  # a node LP in progress when the deadline passed
    b.run(_phase(clock, 1.0, seen))
    assert [g for _, g, _ in seen] == [10.0, 10.0]


def test_time_is_recorded_when_a_phase_raises():
    clock = FakeClock()
    b = _PhaseBudget(10.0, clock=clock)

    def broken(*, budget):
        clock.now += 4.0
        raise RuntimeError("stop")
    with pytest.raises(RuntimeError):
        b.run(broken)
    assert b.grant() == 16.0


@given(st.lists(st.floats(min_value=0.0, max_value=50.0, allow_nan=False), min_size=1, max_size=12),
       st.floats(min_value=0.5, max_value=20.0))
def test_budget_laws(uses, per_phase):
    # Laws: every phase gets at least per_phase (the budget before the carry-over); the grant of
    # phase k never exceeds k * per_phase minus what the phases before it spent within their grants.
    clock, seen = FakeClock(), []
    b = _PhaseBudget(per_phase, clock=clock)
    for u in uses:
        b.run(_phase(clock, u, seen))
    grants = [g for _, g, _ in seen]
    within = 0.0
    for k, (g, u) in enumerate(zip(grants, uses), 1):
        assert g >= per_phase
        assert g <= k * per_phase - within + 1e-9
        within += min(u, g)


def test_functional_dimension_carries_the_budget_between_its_phases(monkeypatch):
    # A network whose LP phases run (a (5,)*6+(1,) net needs LP facts to reach its exact value);
    # every phase is granted at least sign_budget, and a later one gets what the first ones left.
    names = ["prove_constant_signs", "prove_never_coactive", "prove_same_where_active",
             "prove_active_where_needed", "prove_relations_where_active"]
    grants: list = []
    for name in names:
        real = getattr(fdim, name)

        def recorded(*args, _real=real, _name=name, budget, **kwargs):
            grants.append((_name, budget))
            return _real(*args, budget=budget, **kwargs)
        monkeypatch.setattr(fdim, name, recorded)
    net = random_network((5,) * 6 + (1,), seed=3)
    res = functional_dimension(net, use_regions=False, seed=3, sign_budget=30.0)
    assert res.status == "exact"
    assert len(grants) >= 2 and grants[0] == ("prove_constant_signs", 30.0)
    assert all(g >= 30.0 for _, g in grants)
    assert all(b <= a + 30.0 for (_, a), (_, b) in zip(grants, grants[1:]))
    assert grants[1][1] > 30.0  # the first phase, a few candidates, did not use its 30 s


def test_progress_names_each_stage_and_changes_nothing():
    """``progress`` hears every stage as it starts (structural kernel, sampling with the rank so far,
    each LP-fact phase with its grant), and the result is the same without it."""
    from exactnet.fdim import functional_dimension
    from exactnet.randnet import random_network

    net = random_network((3, 3, 3, 3, 1), seed=5)
    stages: list[str] = []
    with_p = functional_dimension(net, use_regions=False, progress=stages.append)
    without = functional_dimension(net, use_regions=False)
    assert (with_p.functional_dimension, with_p.upper_bound, with_p.status) == \
        (without.functional_dimension, without.upper_bound, without.status)
    assert stages[0] == f"structural kernel ({net.num_parameters} parameters)"
    assert stages[1].startswith("sampling: rank 0, proved upper bound ")
    lp = [s for s in stages if s.startswith("LP facts: ")]
    assert lp[0] == "LP facts: dead or stably active neurons (up to 30 CPU s)"
    assert with_p.status == "lower-bound" and any("walks across walls" in s for s in stages)


def test_fdim_cli_shows_progress_on_a_terminal_only(tmp_path, capsys, monkeypatch):
    """``exactnet fdim`` writes the progress line to a terminal's stderr and clears it at the end;
    ``--quiet`` (or stderr not a terminal) writes nothing there."""
    import sys

    from exactnet.cli import main
    from exactnet.netjson import dumps_network
    from exactnet.randnet import random_network

    (tmp_path / "n.json").write_text(dumps_network(random_network((3, 3, 3, 3, 1), seed=0)))
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(["fdim", str(tmp_path / "n.json"), "--no-regions"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("\r\033[Kfdim: structural kernel") and err.endswith("\r\033[K")
    assert main(["fdim", str(tmp_path / "n.json"), "--no-regions", "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_max_seconds_stops_starting_stages_and_keeps_a_proved_interval():
    """Past ``max_seconds`` no stage after the first sample batch starts: the answer is the interval
    proved so far, which contains the value of the unbounded run, and the note names what did not run."""
    from exactnet.fdim import functional_dimension
    from exactnet.randnet import random_network

    net = random_network((4, 4, 4, 4, 1), seed=2)
    full = functional_dimension(net, use_regions=False)
    stages: list[str] = []
    cut = functional_dimension(net, use_regions=False, max_seconds=1e-9, progress=stages.append)
    assert [s.split(":")[0] for s in stages] == ["structural kernel (65 parameters)", "sampling"]
    assert cut.functional_dimension <= full.functional_dimension <= full.upper_bound <= cut.upper_bound
    assert "max_seconds = 1e-09 s passed, so these did not run: sampling, directed search, LP facts" in cut.note
    assert full.status == "lower-bound" and "max_seconds" not in full.note


def test_fdim_cli_max_seconds(tmp_path, capsys):
    import json

    from exactnet.cli import main
    from exactnet.netjson import dumps_network
    from exactnet.randnet import random_network

    (tmp_path / "n.json").write_text(dumps_network(random_network((4, 4, 4, 4, 1), seed=2)))
    assert main(["fdim", str(tmp_path / "n.json"), "--no-regions", "--max-seconds", "1e-9", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "lower-bound" and "max_seconds = 1e-09 s passed" in out["note"]
