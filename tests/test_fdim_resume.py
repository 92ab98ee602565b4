"""How the branch-and-bound proofs of :mod:`exactnet.fdim` spend their nodes: the passes of
:func:`exactnet.fdim._prove_each` go on with the tree left open by the pass before, and the exact
check of a leaf waits until every leaf of its tree closes in floats (then each must pass it)."""

from __future__ import annotations

import pytest

pytest.importorskip("highspy")

from exactnet import fdim, phase_tree  # noqa: E402
from exactnet.phase_lp import PhaseLP  # noqa: E402
from exactnet.randnet import random_network  # noqa: E402

PAIR = ((4, 3), (3, 2))  # of (8,)*5+(1,) seed 2: never both active, proved in about 200 nodes


@pytest.fixture
def solves(monkeypatch):
    count = [0]
    solve = PhaseLP.solve

    def counted(self, phase, **kw):
        count[0] += 1
        return solve(self, phase, **kw)
    monkeypatch.setattr(PhaseLP, "solve", counted)
    return count


def test_an_open_tree_goes_on_at_the_next_pass(solves):
    net = random_network((8,) * 5 + (1,), seed=2)
    assert fdim._neuron_never_positive(net, PAIR[0], 1, set(), set(), max_nodes=10**4, partner=PAIR[1]) == (True, None)
    alone = solves[0]
    assert 60 < alone <= 16 * 60  # the first pass (60 nodes) leaves it open, the second one proves it
    solves[0] = 0
    proved, _ = fdim.prove_never_coactive(net, [PAIR], set(), set(), max_nodes=60)
    assert proved == frozenset([PAIR])
    assert solves[0] == alone  # the same tree, not its first 60 nodes solved twice
    assert phase_tree.TREES.get() is None  # nothing is kept after the proofs


def test_a_fresh_proof_outside_the_passes(solves):
    net = random_network((8,) * 5 + (1,), seed=2)
    for _ in range(2):  # no pass structure: each call is a new tree of at most max_nodes nodes
        assert fdim._neuron_never_positive(net, PAIR[0], 1, set(), set(), max_nodes=60, partner=PAIR[1]) == (None, None)
    assert solves[0] == 120


def test_every_leaf_passes_its_exact_check_before_a_proof(monkeypatch):
    net = random_network((8,) * 5 + (1,), seed=2)
    confirm, seen = PhaseLP.confirm, []

    def first_fails(self, check):  # the first deferred leaf "fails": it is solved again, strictly
        seen.append(check)
        return len(seen) > 1 and confirm(self, check)
    monkeypatch.setattr(PhaseLP, "confirm", first_fails)
    assert fdim._neuron_never_positive(net, PAIR[0], 1, set(), set(), max_nodes=10**4, partner=PAIR[1]) == (True, None)
    assert len(seen) > 1


def test_no_proof_when_the_exact_checks_fail(monkeypatch):
    net = random_network((8,) * 5 + (1,), seed=2)
    monkeypatch.setattr(PhaseLP, "confirm", lambda self, check: False)
    monkeypatch.setattr(PhaseLP, "_closes", lambda self, *a, **k: False)  # and no strict closing either
    assert fdim._neuron_never_positive(net, PAIR[0], 1, set(), set(), max_nodes=10**4,
                                       partner=PAIR[1]) == (None, None)
