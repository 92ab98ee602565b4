"""Canonical forms with many tied neurons (proofs/lemmas/orbit.md, Lemma L): the last hidden layer is
sorted by (normalised row, scaled outgoing column) instead of trying every ordering of its ties.

* exactnet's canonical form and the checker's (proofs/orbit.py) give equal answers on networks
  with many ties (small integer weights, 1-D inputs, widths up to 100, two hidden layers);
* both decide orbits like an independent brute-force oracle on small networks;
* the audit case `exactnet random --arch 1,100,1 --seed 0` is certified HIDDEN-SYMMETRY and the
  certificate verifies.
"""

import itertools
import random
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from exactnet.errors import LimitError
from exactnet.network import Network
from exactnet.qq import q_to_fraction
from exactnet.symmetry import canonical_form
from proofs.orbit import canonical

ROOT = Path(__file__).resolve().parents[1]


def fr(net):
    return ([[[q_to_fraction(v) for v in r] for r in L.weights] for L in net.layers],
            [[q_to_fraction(v) for v in L.biases] for L in net.layers])


def net_of(Ws, bs):
    return Network.from_lists(list(zip(Ws, bs)))


def tied_net(rng, arch, pool=(-2, -1, 1, 2), bias_pool=(-1, 0, 1)):
    """Random parameters from tiny pools (many ties), with no zero incoming row."""
    Ws, bs = [], []
    for k, (n_in, n_out) in enumerate(zip(arch, arch[1:])):
        Ws.append([[Fraction(rng.choice(pool)) for _ in range(n_in)] for _ in range(n_out)])
        bs.append([Fraction(rng.choice(bias_pool)) for _ in range(n_out)])
    return Ws, bs


def orbit_element(rng, Ws, bs):
    """g.(Ws, bs) for a random permutation and random positive scales of every hidden layer."""
    Ws, bs = [[list(r) for r in W] for W in Ws], [list(b) for b in bs]
    for l in range(len(Ws) - 1):
        n = len(bs[l])
        perm = list(range(n))
        rng.shuffle(perm)
        c = [Fraction(rng.randint(1, 6), rng.randint(1, 6)) for _ in range(n)]
        Ws[l] = [[v * c[j] for v in Ws[l][perm[j]]] for j in range(n)]
        bs[l] = [bs[l][perm[j]] * c[j] for j in range(n)]
        Ws[l + 1] = [[r[perm[j]] / c[j] for j in range(n)] for r in Ws[l + 1]]
    return Ws, bs


def near_miss(rng, Ws, bs):
    """Usually not in the orbit but with the same multisets of rows: permute the rows of one hidden
    layer without the columns of the next (or the columns without the rows)."""
    Ws, bs = [[list(r) for r in W] for W in Ws], [list(b) for b in bs]
    l = rng.randrange(len(Ws) - 1)
    n = len(bs[l])
    perm = list(range(n))
    rng.shuffle(perm)
    if rng.random() < 0.5:
        Ws[l], bs[l] = [Ws[l][p] for p in perm], [bs[l][p] for p in perm]
    else:
        Ws[l + 1] = [[r[p] for p in perm] for r in Ws[l + 1]]
    return Ws, bs


# --- the independent oracle ---------------------------------------------------------------------

def normalised(Ws, bs):
    """Every hidden row (w, b) divided by |its first nonzero entry|, layer by layer, the next layer
    compensating (the unique representative of the scaling orbit; no zero rows here)."""
    Ws, bs = [[list(r) for r in W] for W in Ws], [list(b) for b in bs]
    for l in range(len(Ws) - 1):
        for i in range(len(bs[l])):
            s = abs(next(v for v in Ws[l][i] + [bs[l][i]] if v != 0))
            Ws[l][i] = [v / s for v in Ws[l][i]]
            bs[l][i] /= s
            for r in Ws[l + 1]:
                r[i] *= s
    return Ws, bs


def same_orbit_brute(a, b):
    """b in the orbit of a iff for some permutation P of every hidden layer, normalised(P.a) equals
    normalised(b) exactly (normalised picks one element of each scaling orbit, for a fixed neuron
    order): all tuples of permutations are tried."""
    (Wa, ba), nb = a, normalised(*b)
    widths = [len(x) for x in ba[:-1]]
    for perms in itertools.product(*[itertools.permutations(range(n)) for n in widths]):
        W, B = [[list(r) for r in X] for X in Wa], [list(x) for x in ba]
        for l, p in enumerate(perms):
            W[l], B[l] = [W[l][i] for i in p], [B[l][i] for i in p]
            W[l + 1] = [[r[i] for i in p] for r in W[l + 1]]
        if normalised(W, B) == nb:
            return True
    return False


def exactnet_canon(Ws, bs):
    try:
        return fr(canonical_form(net_of(Ws, bs)))
    except LimitError:
        return None


# --- tests --------------------------------------------------------------------------------------

ARCHS_WIDE = [(1, 100, 1), (1, 60, 2), (1, 100, 3), (2, 40, 1), (1, 3, 30, 1), (1, 4, 50, 2), (1, 5, 5, 1)]


@pytest.mark.parametrize("arch", ARCHS_WIDE)
def test_exactnet_and_checker_agree_with_many_ties(arch):
    rng = random.Random(sum(arch) * 7 + len(arch))
    done = 0
    for _ in range(6):
        a = tied_net(rng, arch)
        c_checker, c_exact = canonical(*a), exactnet_canon(*a)
        if c_checker is None:  # only over the checker's smaller limit (ties in layer 1 of deep nets)
            assert len(arch) > 3
            continue
        done += 1
        assert c_exact == c_checker
        b = orbit_element(rng, *a)
        assert canonical(*b) == c_checker and exactnet_canon(*b) == c_exact
    assert done >= 3


def test_exactnet_and_checker_pick_the_same_form_with_ties_in_both_layers():
    """Small two- and three-hidden-layer networks with weights from two values: ties in every layer,
    so the enumeration of layer 1 and the order in which forms are compared (all weights, then
    all biases) decide; exactnet once compared layer by layer and picked another form."""
    rng = random.Random(11)
    for _ in range(300):
        arch = rng.choice([(1, 3, 4, 2), (1, 3, 3, 1), (2, 3, 3, 2), (1, 2, 3, 3, 1), (1, 4, 6, 1)])
        a = tied_net(rng, arch, pool=rng.choice([(1, 2), (-1, 1), (-1, 1, 2)]), bias_pool=(0, 1))
        c = canonical(*a)
        assert c is not None and exactnet_canon(*a) == c


def test_one_hidden_layer_never_enumerates():
    """The audit case shape: 1-D input, width 100, weights from a pool of 2 values (every neuron tied
    with about 25 others): the old enumeration needed far beyond any limit."""
    rng = random.Random(5)
    a = tied_net(rng, (1, 100, 2), pool=(1, 2), bias_pool=(0, 1))
    c = canonical(*a)
    assert c is not None and exactnet_canon(*a) == c


@pytest.mark.parametrize("arch", [(1, 4, 1), (1, 3, 3, 1), (2, 3, 2, 2), (1, 2, 3, 2), (1, 6, 2), (1, 3, 2, 3, 1)])
def test_orbits_decided_like_the_brute_force_oracle(arch):
    rng = random.Random(sum(arch) * 31 + len(arch))
    seen = {True: 0, False: 0}
    for _ in range(30):
        a = tied_net(rng, arch, pool=(-1, 1, 2), bias_pool=(0, 1))
        kind = rng.randrange(3)
        if kind == 0:
            b = orbit_element(rng, *a)
        elif kind == 1:
            b = orbit_element(rng, *near_miss(rng, *a))
        else:
            b = tied_net(rng, arch, pool=(-1, 1, 2), bias_pool=(0, 1))
        truth = same_orbit_brute(a, b)
        ca, cb = canonical(*a), canonical(*b)
        assert ca is not None and cb is not None
        assert (ca == cb) == truth
        assert (exactnet_canon(*a) == exactnet_canon(*b)) == truth
        seen[truth] += 1
    assert seen[True] >= 5 and seen[False] >= 5


def test_audit_network_is_certified_and_verifies(tmp_path):
    """`exactnet random --arch 1,100,1 --seed 0` was UNDECIDED ("more than 40320 orderings of tied
    neurons"); now HIDDEN-SYMMETRY, and the independent checker verifies the certificate."""
    net, cert = tmp_path / "u.json", tmp_path / "u.cert"
    exe = [sys.executable, "-m", "exactnet"]
    subprocess.run(exe + ["random", "--arch", "1,100,1", "--seed", "0", "-o", str(net)], check=True,
                   capture_output=True)
    r = subprocess.run(exe + ["certify", str(net), "-o", str(cert)], capture_output=True, text=True)
    assert r.returncode == 0 and "verdict: HIDDEN-SYMMETRY" in r.stdout, r.stdout + r.stderr
    r = subprocess.run([sys.executable, str(ROOT / "proofs" / "check.py"), str(cert), "--network", str(net)],
                       capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith("s VERIFIED HIDDEN-SYMMETRY"), r.stdout + r.stderr
    r = subprocess.run(exe + ["canon", str(net)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_checker_canonical_form_of_a_1000_layer_network():
    """The checker's canonical form uses an explicit stack, not one Python frame per layer: a network
    of 1,000 layers (past Python's recursion limit) gets the same form as exactnet's, and its orbit
    elements the same form too."""
    from exactnet.randnet import random_network

    rng = random.Random(1000)
    a = fr(random_network((2,) * 1000 + (1,), seed=1))  # generic weights: no ties to enumerate
    c = canonical(*a)
    assert c is not None and c == exactnet_canon(*a)
    assert canonical(*orbit_element(rng, *a)) == c
