"""IDENTIFIABLE rule shallow-2 (Theorem 4): corpus, oracle-decided mutants, Hypothesis properties.

The oracle is exactnet's decision (``decide_shallow``) on the mutated network, whose
HIDDEN-SYMMETRY answers carry a theta' checked here by exact equivalence and orbit keys: the
checker must never accept an IDENTIFIABLE claim for a network with such a theta'.
"""

import os
import random

from flint import fmpq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exactnet.cert_shallow import certificate_for, corpus_certificates, frame
from exactnet.network import Network
from exactnet.shallow import decide_shallow, invariants, orbit_key, shallow_equivalent
from exactnet.strategies import rationals
from exactnet.symmetry import random_orbit_element
from proofs.check import check_text

CERTS = os.path.join(os.path.dirname(__file__), "certs")


def _net(W, b, V, d):
    return Network.from_lists([(W, b), (V, d)])


def _pts(n0, k=15, seed=0):
    rng = random.Random(seed)
    return [[fmpq(rng.randint(-30, 30), rng.randint(1, 7)) for _ in range(n0)] for _ in range(k)]


def _assert_hidden(net, v):
    assert shallow_equivalent(net, v.other).equivalent
    assert net.evaluate_batch(_pts(net.input_dim)) == v.other.evaluate_batch(_pts(net.input_dim))
    assert orbit_key(net) != orbit_key(v.other)
    assert check_text(certificate_for(net, v))[:2] == (0, "s VERIFIED HIDDEN-SYMMETRY")


def test_stored_corpus_files_equal_the_generator():
    for name, text in corpus_certificates().items():
        with open(os.path.join(CERTS, name), encoding="ascii", newline="") as fh:
            assert fh.read() == text, name


IDENT = [
    _net([[1, 0], [-1, 0], [1, 1]], [0, 0, 1], [[1, 2, 1], [0, 1, 1]], [0, 0]),
    _net([[1, 0], [-1, 0], [0, 1], [0, -1]], [0, 0, 0, 0], [[1, 2, 1, 2], [1, 1, 3, -1]], [0, 0]),
    _net([[1, 0], [-1, 0], [0, 1]], [0, 0, 0], [[1, 2, 1]], [0]),
    _net([[2, 1, 0], [-4, -2, 0], [0, 1, 1], [1, 0, -1]], [1, -2, 0, 3], [[1, 3, 2, -1], [2, 1, 0, 1]], [0, 1]),
]


def test_identifiable_examples_with_pairs_verify():
    for net in IDENT:
        v = decide_shallow(net)
        assert v.verdict == "IDENTIFIABLE" and v.body == ["rule shallow-2"], v.reason
        assert check_text(certificate_for(net, v))[:2] == (0, "s VERIFIED IDENTIFIABLE")


def _mutants(net, rng, k=40):
    flat = net.flatten()
    for _ in range(k):
        i = rng.randrange(len(flat))
        p = list(flat)
        p[i] = p[i] + rng.choice([1, -1, fmpq(1, 2), -2]) if rng.random() < 0.7 else -p[i]
        if rng.random() < 0.3:  # also try to land on a special value
            p[i] = rng.choice([fmpq(0), -flat[i], 2 * flat[i]])
        yield Network.unflatten(net.architecture, p)


def test_oracle_decided_mutants_of_shallow_2_claims():
    rng = random.Random(5)
    rejected = accepted = 0
    for net in IDENT:
        for mut in _mutants(net, rng):
            rc = check_text(frame("IDENTIFIABLE", mut, ["rule shallow-2"]))[0]
            v = decide_shallow(mut)
            if v.verdict == "HIDDEN-SYMMETRY":
                _assert_hidden(mut, v)
                assert rc == 1, [str(x) for x in mut.flatten()]
            if rc == 0:
                assert v.verdict == "IDENTIFIABLE"
                accepted += 1
            else:
                rejected += 1
    assert rejected > 20 and accepted > 5


@st.composite
def paired_networks(draw, max_n0=3, max_n=5, max_m=2):
    """A shallow network with at least one opposite pair planted: neuron 1 = -c * neuron 0."""
    n0 = draw(st.integers(1, max_n0))
    n = draw(st.integers(2, max_n))
    m = draw(st.integers(1, max_m))
    W = [[draw(rationals(max_num=3, max_den=2)) for _ in range(n0)] for _ in range(n)]
    b = [draw(rationals(max_num=3, max_den=2)) for _ in range(n)]
    c = draw(rationals(max_num=3, max_den=2, nonzero=True))
    c = abs(c)
    W[1] = [-c * x for x in W[0]]
    b[1] = -c * b[0]
    if draw(st.booleans()) and n >= 4:  # a second pair
        W[3] = [-x for x in W[2]]
        b[3] = -b[2]
    V = [[draw(rationals(max_num=3, max_den=2)) for _ in range(n)] for _ in range(m)]
    d = [draw(rationals()) for _ in range(m)]
    return _net(W, b, V, d)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(paired_networks(), st.integers(0, 10**6))
def test_verdicts_with_pairs_are_checked_and_orbit_invariant(net, seed):
    v = decide_shallow(net)
    assert v.verdict in ("IDENTIFIABLE", "HIDDEN-SYMMETRY"), v.reason  # small: always decided
    if v.verdict == "HIDDEN-SYMMETRY":
        _assert_hidden(net, v)
    else:
        assert check_text(certificate_for(net, v))[:2] == (0, "s VERIFIED IDENTIFIABLE")
    g = random_orbit_element(net, seed)
    assert decide_shallow(g).verdict == v.verdict
    assert invariants(g) == invariants(net)


@settings(max_examples=60, deadline=None)
@given(paired_networks(max_n0=2, max_n=4, max_m=1))
def test_scalar_output_two_pairs_never_identifiable(net):
    # Corollary of Theorem 4: m = 1 and two visible opposite pairs -> two spare neurons make any
    # linear term
    from exactnet.shallow import _classes, _theorem4_applies
    cls = _classes(net)
    if _theorem4_applies(net, cls) and sum(C.pair for C in cls) >= 2:
        assert decide_shallow(net).verdict == "HIDDEN-SYMMETRY"


def _brute_theorem4(net):
    """Theorem 4 (ii) without the parity reduction, by fmpq_mat ranks (independent of the tool's search)."""
    from itertools import combinations, product

    from flint import fmpq_mat

    from exactnet.shallow import _classes

    def rank(rows):
        rows = [r for r in rows if any(x != 0 for x in r)]
        return fmpq_mat(rows).rank() if rows else 0
    cls = _classes(net)
    n0, m = net.input_dim, net.output_dim
    p, q = len(cls), sum(C.pair for C in cls)
    for k in range(q + 1):
        for T in combinations(range(p), k):
            UT, out = [cls[i].u for i in T], [i for i in range(p) if i not in T]
            for nu in product((0, 1), repeat=len(out)):
                co = {i: [kp - v * J for kp, J in zip(cls[i].kappa, cls[i].J)] for i, v in zip(out, nu)}
                if all(x == 0 for c in co.values() for x in c):
                    continue
                D = [[sum((co[i][o] * cls[i].u[t] for i in out), fmpq(0)) for t in range(n0)] for o in range(m)]
                if rank(D + UT) - rank(UT) <= (q - k) // 2:
                    return True
    return False


@settings(max_examples=80, deadline=None)
@given(paired_networks(max_n0=3, max_n=5, max_m=2))
def test_parity_reduction_agrees_with_the_full_enumeration(net):
    from exactnet.shallow import _classes, _kernel_vector, _theorem4_applies
    cls = _classes(net)
    if not _theorem4_applies(net, cls) or _kernel_vector([C.u for C in cls if C.pair]) is not None:
        return
    v = decide_shallow(net)
    assert (v.verdict == "HIDDEN-SYMMETRY") == _brute_theorem4(net)


def _planted(arch, seed):
    from exactnet.randnet import random_network
    net = random_network(arch, seed)
    flat, (n0, n, m) = list(net.flatten()), arch
    for i in range(n0):
        flat[n0 + i] = -2 * flat[i]
    flat[n * n0 + 1] = -2 * flat[n * n0]
    return Network.unflatten(arch, flat)


def test_lemma5_certificate_for_a_wide_network_with_a_pair():
    net = _planted((10, 32, 3), 3)
    v = decide_shallow(net)
    assert v.verdict == "IDENTIFIABLE" and v.body[0] == "rule shallow-2"
    assert len(v.body) > 1 and all(s.startswith("positive 1 ") for s in v.body[1:])
    assert check_text(certificate_for(net, v))[:2] == (0, "s VERIFIED IDENTIFIABLE")
    assert check_text(frame("IDENTIFIABLE", net, v.body[:1]))[2][0].endswith("class-mode configurations")
    rng, rejected = random.Random(1), 0
    for _ in range(6):  # a changed number of some phi
        k = rng.randrange(1, len(v.body))
        toks = v.body[k].split(" ")
        i = rng.randrange(3, len(toks))
        toks[i] = "7" if toks[i] != "7" else "-7"
        body = v.body[:k] + [" ".join(toks)] + v.body[k + 1:]
        rc = check_text(frame("IDENTIFIABLE", net, body))[0]
        rejected += rc == 1
    assert rejected >= 3


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(paired_networks(max_n0=3, max_n=6, max_m=2), st.integers(0, 10**6))
def test_lemma5_route_agrees_and_its_lines_are_sound(monkeypatch_net, seed):
    import exactnet.shallow as sh
    net = monkeypatch_net
    plain = decide_shallow(net)
    orig = sh.mode_configurations
    sh.mode_configurations = lambda p, q: 10**9  # force the Lemma 5 route (q = 1) or UNDECIDED
    try:
        forced = decide_shallow(net)
        mut = Network.unflatten(net.architecture, [x + (1 if i == seed % len(net.flatten()) else 0)
                                                   for i, x in enumerate(net.flatten())])
        vm = decide_shallow(mut)
    finally:
        sh.mode_configurations = orig
    if forced.verdict != "UNDECIDED":
        assert forced.verdict == plain.verdict
    if forced.verdict == "IDENTIFIABLE":
        assert check_text(certificate_for(net, forced))[:2] == (0, "s VERIFIED IDENTIFIABLE")
        # the same lines with a perturbed network: never accepted for a hidden symmetry
        rc = check_text(frame("IDENTIFIABLE", mut, forced.body))[0]
        if decide_shallow(mut).verdict == "HIDDEN-SYMMETRY":
            assert rc != 0
    if vm.verdict == "HIDDEN-SYMMETRY":
        _assert_hidden(mut, vm)
