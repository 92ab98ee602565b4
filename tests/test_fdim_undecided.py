"""When the exact LP facts run out of budget, fdim says which facts stayed open (the reason for an interval)."""

import json
import re
import subprocess
import sys
import time

import pytest

from exactnet.fdim import _prove_each, functional_dimension
from exactnet.netio import save_network
from exactnet.randnet import random_network

pytest.importorskip("scipy")

LABEL = re.compile(r"^(\(\d+,\d+\) (dead|stably active)\?"
                   r"|\(\d+,\d+\) and \(\d+,\d+\) never both active\?"
                   r"|\(\d+,\d+\) and \(\d+,\d+\) never of opposite signs where \(\d+,\d+\) is active\?"
                   r"|\(\d+,\d+\) active wherever a successor is\?"
                   r"|an affine relation of (\(\d+,\d+\)|1)(, (\(\d+,\d+\)|1))* wherever \(\d+,\d+\) is active\?"
                   r"|a relation of the sensitivities of \(\d+,\d+\)(, \(\d+,\d+\))* on \(\d+,\d+\)'s column "
                   r"into layer \d+\?)$")


def test_left_holds_exactly_the_candidates_neither_proved_nor_refuted():
    # candidate c: proved when c % 3 == 0, refuted when c % 3 == 1, undecided at every pass otherwise;
    # a candidate is a list (unhashable, like a relation) to check that none is lost or repeated
    calls = []

    def proofs(cand, nodes):
        calls.append((cand[0], nodes))
        c = cand[0]
        yield (True, None) if c % 3 == 0 else ((False, [c]) if c % 3 == 1 else (None, None))

    cands = [[c] for c in range(9)]
    left: list = []
    proved, wit = _prove_each(cands, proofs, budget=100.0, max_nodes=5, left=left)
    assert proved == [[0], [3], [6]] and wit == [[1], [4], [7]]
    assert left == [[2], [5], [8]]
    # the undecided ones got the deeper passes, the others one pass only
    assert sorted(n for c, n in calls if c == 2) == [5, 80, 640]
    assert [n for c, n in calls if c == 3] == [5]


def test_candidates_never_started_within_the_budget_are_left_too():
    def proofs(cand, nodes):
        t = time.process_time()
        while time.process_time() - t < 0.02:  # each proof spends more than the whole budget
            pass
        yield True, None

    left: list = []
    proved, _ = _prove_each([("a",), ("b",), ("c",)], proofs, budget=0.01, max_nodes=5, left=left)
    assert proved == [("a",)] and left == [("b",), ("c",)]


@pytest.mark.parametrize("arch,seed", [((5,) * 6 + (1,), 3), ((5,) * 6 + (1,), 5), ((5,) * 5 + (1,), 5)])
def test_an_interval_names_its_open_facts_and_contains_the_value(arch, seed):
    # Law: every proved interval contains the exact value. With (almost) no LP budget the facts stay
    # open and are listed; with the default budget the same network is exact, inside that interval.
    net = random_network(arch, seed=seed)
    small = functional_dimension(net, use_regions=False, seed=seed, sign_budget=1e-9)
    assert small.status == "lower-bound" and small.undecided
    assert all(LABEL.match(u) for u in small.undecided), small.undecided
    assert f"{len(small.undecided)} candidate facts neither proved nor refuted" in small.note
    assert small.to_json()["undecided_facts"] == small.undecided
    full = functional_dimension(net, use_regions=False, seed=seed)
    assert full.status == "exact" and full.undecided == []
    assert small.functional_dimension <= full.functional_dimension <= small.upper_bound


def test_an_interval_with_every_fact_decided_says_so():
    # (4,)*5+(1,) seed 2: the facts are all decided and the sample stays at 43..44; the region
    # complex (the oracle) proves 43, so the gap was a kernel direction no proof rule covers
    net = random_network((4,) * 5 + (1,), seed=2)
    r = functional_dimension(net, use_regions=False, seed=2)
    assert r.status == "lower-bound" and r.undecided == []
    assert "every candidate fact was decided" in r.note
    exact = functional_dimension(net, seed=2, timeout=300, max_cells=100000)
    assert exact.status == "exact" and r.functional_dimension <= exact.functional_dimension <= r.upper_bound


def test_the_cli_prints_the_open_facts(tmp_path):
    path = tmp_path / "n.json"
    save_network(random_network((5,) * 6 + (1,), seed=5), str(path))
    cmd = [sys.executable, "-m", "exactnet", "fdim", str(path), "--no-regions", "--lp-budget", "1e-9"]
    p = subprocess.run(cmd + ["--json"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["status"] == "lower-bound" and out["undecided_facts"]
    h = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert h.returncode == 0
    shown = [ln[len("undecided fact"):].strip() for ln in h.stdout.splitlines() if ln.startswith("undecided fact")]
    assert shown[:10] == out["undecided_facts"][:10]
    if len(out["undecided_facts"]) > 10:
        assert shown[10] == f"... and {len(out['undecided_facts']) - 10} more (all of them in --json)"


def test_certify_gives_the_interval_and_the_open_facts_as_its_reason():
    from exactnet.fdim import certify_local

    net = random_network((5,) * 6 + (1,), seed=5)
    res = certify_local(net, use_regions=False, seed=5, sign_budget=1e-9)
    assert res.verdict == "UNDECIDED" and res.certificate is None
    lo, hi = res.details["functional_dimension"], res.details["upper_bound"]
    assert lo < hi and f"Jacobian rank proved between {lo} and {hi}" in res.reason
    n = len(res.details["undecided_facts"])
    assert n > 0 and f"{n} LP facts left open within the budget" in res.reason
