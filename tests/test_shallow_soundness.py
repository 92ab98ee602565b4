"""Soundness of the one-hidden-layer verdicts against exhaustive grids (issue 5).

For tiny architectures and weights in {-1, 0, 1} every parameter of the grid is grouped by the
invariants of its function (cross-checked by exact evaluation at many rational points). Then:
IDENTIFIABLE is never emitted for a theta whose group holds a parameter outside its orbit, and
every emitted theta' is in the fibre (equal invariants, equal values) and outside the orbit
(Lemma 3's key, and exactnet.symmetry's canonical forms where they are complete).
"""

import itertools
import random
from collections import defaultdict

import pytest
from flint import fmpq

from exactnet.network import Network
from exactnet.shallow import decide_shallow, invariants, orbit_key, shallow_equivalent
from exactnet.symmetry import canonical_form, has_zero_rows, same_orbit

POINTS_1D = [fmpq(k, 2) for k in range(-7, 8)]


def _grid(arch, vals=(-1, 0, 1)):
    D = sum(arch[i + 1] * (arch[i] + 1) for i in range(len(arch) - 1))
    return [Network.unflatten(arch, p) for p in itertools.product(vals, repeat=D)]


def _points(n0, k=25, seed=0):
    if n0 == 1:
        return [[x] for x in POINTS_1D]
    rng = random.Random(seed)
    return [[fmpq(rng.randint(-40, 40), rng.randint(1, 13)) for _ in range(n0)] for _ in range(k)]


def _groups(nets):
    g = defaultdict(list)
    for i, n in enumerate(nets):
        g[invariants(n)].append(i)
    return g


def _check_grid(arch, sample=None, seed=0):
    nets = _grid(arch)
    groups = _groups(nets)
    pts = _points(arch[0])
    # cross-check: equal invariants => equal values at every point; for n0 = 1 the points
    # determine f (breakpoints in {-1,0,1}), so equal values => equal invariants too
    sig = {}
    for inv, idx in groups.items():
        vals = [tuple(map(tuple, nets[idx[0]].evaluate_batch(pts)))]
        for i in idx[1:3]:
            assert tuple(map(tuple, nets[i].evaluate_batch(pts))) == vals[0]
        sig.setdefault(vals[0], []).append(inv)
    if arch[0] == 1:
        assert all(len(v) == 1 for v in sig.values())
    where = {i: inv for inv, idx in groups.items() for i in idx}
    todo = range(len(nets)) if sample is None else random.Random(seed).sample(range(len(nets)), sample)
    counts = defaultdict(int)
    for i in todo:
        net = nets[i]
        v = decide_shallow(net)
        counts[v.verdict] += 1
        key = orbit_key(net)
        if not has_zero_rows(net):  # the lead's canonical forms agree with Lemma 3's key
            for k in groups[where[i]][:4]:
                if not has_zero_rows(nets[k]):
                    assert (orbit_key(nets[k]) == key) == (canonical_form(nets[k]) == canonical_form(net))
        if v.verdict == "IDENTIFIABLE":
            for k in groups[where[i]]:
                assert orbit_key(nets[k]) == key, (net.flatten(), nets[k].flatten())
        elif v.verdict == "HIDDEN-SYMMETRY":
            other = v.other
            assert invariants(other) == invariants(net)
            assert other.evaluate_batch(pts) == net.evaluate_batch(pts)
            assert orbit_key(other) != key
            if not has_zero_rows(net) and not has_zero_rows(other):
                assert not same_orbit(net, other)
    return counts


def test_grid_1_2_1_exhaustive():
    c = _check_grid((1, 2, 1))
    assert c["IDENTIFIABLE"] > 0 and c["HIDDEN-SYMMETRY"] > 0


def test_grid_2_2_1_exhaustive_groups_sampled_verdicts():
    c = _check_grid((2, 2, 1), sample=2500)
    assert c["IDENTIFIABLE"] > 0 and c["HIDDEN-SYMMETRY"] > 0


def test_grid_1_3_1_exhaustive_groups_sampled_verdicts():
    c = _check_grid((1, 3, 1), sample=1500, seed=1)
    assert c["IDENTIFIABLE"] > 0 and c["HIDDEN-SYMMETRY"] > 0


@pytest.mark.parametrize("arch", [(2, 3, 1), (2, 2, 2), (3, 3, 1)])
def test_random_small_weights_hidden_symmetries_are_real(arch):
    rng = random.Random(7)
    seen = defaultdict(int)
    for _ in range(300):
        D = sum(arch[i + 1] * (arch[i] + 1) for i in range(len(arch) - 1))
        net = Network.unflatten(arch, [rng.randint(-2, 2) for _ in range(D)])
        v = decide_shallow(net)
        seen[v.verdict] += 1
        if v.verdict == "HIDDEN-SYMMETRY":
            r = shallow_equivalent(net, v.other)
            assert r.equivalent
            pts = _points(arch[0], 15, rng.randint(0, 99))
            assert net.evaluate_batch(pts) == v.other.evaluate_batch(pts)
            assert orbit_key(v.other) != orbit_key(net)
        if v.verdict == "IDENTIFIABLE":
            # every random orbit element is recognised as the same function and the same orbit
            from exactnet.symmetry import random_orbit_element
            g = random_orbit_element(net, rng)
            assert orbit_key(g) == orbit_key(net) and shallow_equivalent(net, g).equivalent
    assert seen["IDENTIFIABLE"] > 0 and seen["HIDDEN-SYMMETRY"] > 0


def test_grid_1_2_2_vector_outputs():
    c = _check_grid((1, 2, 2), sample=1200, seed=2)
    assert c["IDENTIFIABLE"] > 0 and c["HIDDEN-SYMMETRY"] > 0
