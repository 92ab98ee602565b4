"""Theorem 4 (visible opposite pairs, spare neurons, vector outputs) against exhaustive grids.

The grids enumerate multisets of neurons (a neuron is ``(w, b, V column)`` with entries in a small
integer range; permutations are in the orbit anyway) with ``d = 0``. Two members with equal
visible classes and equal ``A`` compute the same function once ``d'`` is set to match ``c``
(Theorem 1), so the group of ``theta`` is a part of its fibre, and ``theta`` is identifiable only
if every member of its group has ``theta``'s hidden keys (Lemma 3). Required:

* IDENTIFIABLE is never emitted when the group holds another orbit;
* every emitted theta' is in the fibre (invariants, exact values) and outside the orbit (keys, and
  exactnet.symmetry's canonical forms where they are complete);
* UNDECIDED never occurs on these grids (the decision is complete there);
* the networks with visible opposite pairs get both verdicts (the new case is exercised).
"""

import itertools
import random
from collections import Counter, defaultdict

import pytest
from flint import fmpq

from exactnet.network import Network
from exactnet.shallow import _classes, _theorem4_applies, decide_shallow, invariants, orbit_key
from exactnet.symmetry import canonical_form, has_zero_rows


def _neuron_grid(n0, n, m, vals, bvals=None, vvals=None):
    opts = [w + b + v for w in itertools.product(vals, repeat=n0) for b in itertools.product(bvals or vals)
            for v in itertools.product(vvals or vals, repeat=m)]
    nets = []
    for combo in itertools.combinations_with_replacement(opts, n):
        W = [list(c[:n0]) for c in combo]
        b = [c[n0] for c in combo]
        V = [[c[n0 + 1 + o] for c in combo] for o in range(m)]
        nets.append(Network.from_lists([(W, b), (V, [0] * m)]))
    return nets


def _points(n0, k=20, seed=0):
    rng = random.Random(seed)
    return [[fmpq(rng.randint(-40, 40), rng.randint(1, 13)) for _ in range(n0)] for _ in range(k)]


def _pair_count(net):
    cls = _classes(net)
    return sum(len(C.members) == 2 for C in cls) if _theorem4_applies(net, cls) else -1


def check_grid(n0, n, m, vals, sample_other=300, seed=0, bvals=None, vvals=None):
    nets = _neuron_grid(n0, n, m, vals, bvals, vvals)
    groups = defaultdict(list)
    for i, net in enumerate(nets):
        inv = invariants(net)
        groups[(inv.classes, inv.A)].append(i)
    where = {i: g for g, idx in groups.items() for i in idx}
    keys = [orbit_key(net)[0] for net in nets]
    with_pairs = [i for i, net in enumerate(nets) if _pair_count(net) >= 1]
    rest = [i for i in range(len(nets)) if i not in set(with_pairs)]
    todo = with_pairs + random.Random(seed).sample(rest, min(sample_other, len(rest)))
    pts = _points(n0)
    counts = Counter()
    for i in todo:
        net = nets[i]
        v = decide_shallow(net)
        counts[(v.verdict, i in set(with_pairs))] += 1
        assert v.verdict != "UNDECIDED", (net.flatten(), v.reason)
        if v.verdict == "IDENTIFIABLE":
            for k in groups[where[i]]:
                assert keys[k] == keys[i], ([str(x) for x in net.flatten()], [str(x) for x in nets[k].flatten()])
        else:
            o = v.other
            assert invariants(o) == invariants(net)
            assert o.evaluate_batch(pts) == net.evaluate_batch(pts)
            assert orbit_key(o) != orbit_key(net)
            if not has_zero_rows(net) and not has_zero_rows(o):
                assert canonical_form(o) != canonical_form(net)
    print(f"grid ({n0},{n},{m}): {len(nets)} multisets, {len(groups)} fibre groups, {len(with_pairs)} with "
          f"visible opposite pairs, verdicts {dict(counts)}")
    return counts, len(nets), len(with_pairs)


def _both_verdicts_on_pairs(counts):
    assert counts[("IDENTIFIABLE", True)] > 0 and counts[("HIDDEN-SYMMETRY", True)] > 0


def test_grid_1_2_1_range_2():
    # n0 = 1 corollary: a visible opposite pair alone (n = 2) is identifiable
    counts, size, pairs = check_grid(1, 2, 1, range(-2, 3))
    assert counts[("IDENTIFIABLE", True)] == pairs > 0


def test_grid_1_3_1():
    # n0 = 1 corollary: with a pair, identifiable only when the network is the pair alone, so
    # every width-3 network with a pair is a hidden symmetry
    counts, size, pairs = check_grid(1, 3, 1, (-1, 1, 2), sample_other=150)
    assert counts[("IDENTIFIABLE", True)] == 0 and counts[("HIDDEN-SYMMETRY", True)] == pairs > 0


def test_grid_2_3_1_pairs():
    counts, size, pairs = check_grid(2, 3, 1, (-1, 0, 1), sample_other=150, vvals=(-1, 1))
    _both_verdicts_on_pairs(counts)


@pytest.mark.slow
def test_grid_2_3_1_pairs_full():
    counts, size, pairs = check_grid(2, 3, 1, (-1, 0, 1), sample_other=300)
    _both_verdicts_on_pairs(counts)


def test_grid_1_2_2_vector_output():
    counts, size, pairs = check_grid(1, 2, 2, (-1, 0, 1), vvals=(-1, 0, 1, 2))
    assert counts[("IDENTIFIABLE", True)] == pairs > 0  # n0 = 1 corollary


def test_grid_1_3_2_vector_output():
    counts, size, pairs = check_grid(1, 3, 2, (-1, 1), sample_other=100, bvals=(-1, 0, 1))
    assert counts[("IDENTIFIABLE", True)] == 0 and counts[("HIDDEN-SYMMETRY", True)] == pairs > 0


@pytest.mark.slow
def test_grid_2_4_2_vector_output_two_pairs():
    counts, size, pairs = check_grid(2, 4, 2, (-1, 1), sample_other=100)
    _both_verdicts_on_pairs(counts)


def test_grid_2_3_2_vector_output():
    counts, size, pairs = check_grid(2, 3, 2, (-1, 1), sample_other=150)
    _both_verdicts_on_pairs(counts)
