"""The ``exclude modulus`` step of rule shallow-1 (proofs/lemmas/shallow.md, Lemma 4).

A neuron ``j0`` whose scaled coordinate ``L u_j0[c]`` alone is not divisible by ``M`` lies in no
zero-sum subset of the flip vectors. Checked here: the producer's steps never drop a member of a
planted zero-sum subset (Hypothesis), an exhaustive search agrees with every IDENTIFIABLE answer
that used the step, and wide networks with generic weights are now decided and verified.
"""

from itertools import combinations
from math import lcm

from flint import fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

from exactnet.certificate import check_certificate_text
from exactnet.certify import certify
from exactnet.network import Network
from exactnet.randnet import random_network
from exactnet.shallow import _candidate_primes, _modulus_step, decide_shallow, flip_vectors


def _has_zero_sum(vecs):
    n = len(vecs)
    return any(all(sum((vecs[j][c] for j in S), fmpq(0)) == 0 for c in range(len(vecs[0])))
               for k in range(1, n + 1) for S in combinations(range(n), k))


def _drops(vecs, primes):
    """Every index the modulus steps remove, applied until none applies; each step re-checked as
    the checker does (an independent residue search: every nonempty subset of the dropped set)."""
    R, out = list(range(len(vecs))), []
    while R:
        step = _modulus_step(vecs, R, primes)
        if step is None:
            break
        M, c, B = step
        L = lcm(*(int(vecs[i][c].q) for i in R))
        assert B == [i for i in R if int(vecs[i][c] * L) % M] and 1 <= len(B) <= 16
        assert all(sum(int(vecs[i][c] * L) for i in S) % M for k in range(1, len(B) + 1)
                   for S in combinations(B, k))
        out += B
        R = [i for i in R if i not in B]
    return out


rationals = st.builds(lambda p, q: fmpq(p, q), st.integers(-60, 60), st.integers(1, 60))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(rationals, min_size=2, max_size=2), min_size=1, max_size=6),
       st.lists(st.lists(rationals, min_size=2, max_size=2), min_size=0, max_size=6), st.randoms())
def test_modulus_steps_never_drop_a_member_of_a_zero_sum_subset(part, others, rnd):
    planted = part + [[-sum(col, fmpq(0)) for col in zip(*part)]]  # sums to zero
    vecs = planted + others
    order = list(range(len(vecs)))
    rnd.shuffle(order)
    vecs = [vecs[i] for i in order]
    members = {k for k, i in enumerate(order) if i < len(planted)}
    primes = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59]
    assert not members & set(_drops(vecs, primes))


def test_every_identifiable_answer_with_modulus_steps_has_no_zero_sum_subset():
    seen = 0
    for seed in range(60):
        net = random_network([2, 9, 1], seed=seed, max_num=40, max_den=40)
        v = decide_shallow(net)
        if v.verdict == "IDENTIFIABLE" and any(s.startswith("exclude modulus") for s in v.body):
            seen += 1
            assert not _has_zero_sum(flip_vectors(net))
    assert seen >= 5  # the step is really exercised


def test_a_planted_flip_set_is_still_found():
    """A network with a zero-sum subset among generic neurons: HIDDEN-SYMMETRY, not IDENTIFIABLE."""
    net = random_network([2, 12, 1], seed=3, max_num=1000, max_den=1000)
    W = [list(r) for r in net.weights(1)]
    V = [list(r) for r in net.weights(2)]
    W[11] = [-(W[9][i] + W[10][i]) for i in range(2)]  # V_j = 1 on 9, 10, 11: u_9 + u_10 + u_11 = 0
    for j in (9, 10, 11):
        V[0][j] = fmpq(1)
    net2 = Network.from_lists([(W, list(net.biases(1))), (V, list(net.biases(2)))])
    assert _has_zero_sum(flip_vectors(net2))
    assert certify(net2).verdict == "HIDDEN-SYMMETRY"


def test_wide_generic_networks_are_decided_and_verified():
    for arch in ([2, 64, 1], [3, 40, 2]):
        net = random_network(arch, seed=0, max_num=1000, max_den=1000)
        res = certify(net)
        assert res.verdict == "IDENTIFIABLE", res.reason
        assert "exclude modulus" in res.certificate
        chk = check_certificate_text(res.certificate, network=net)
        assert chk.verified and chk.conclusion == "IDENTIFIABLE"


def test_candidate_primes_skip_huge_numerators():
    big = 13 * (2**70 + 1)  # over 64 bits, not factored: only its prime factors below 1000 (5, 13, 29, 41, 113)
    net = Network.from_lists([([[fmpq(big, 7), fmpq(1)], [fmpq(2), fmpq(3, 11)]], [0, 0]), ([[1, 1]], [0])])
    assert set(_candidate_primes(net)) == {2, 3, 5, 7, 11, 13, 29, 41, 113}


def test_an_undecided_shallow_answer_says_the_global_question_is_open():
    import random

    rnd = random.Random(5)  # 30 random integer directions, V_j = 1: no step applies (test_zero_sum)
    W = [[rnd.randint(-10**6, 10**6) for _ in range(2)] for _ in range(30)]
    net = Network.from_lists([(W, [rnd.randint(-9, 9) for _ in range(30)]), ([[1] * 30], [0])])
    res = certify(net)
    assert res.verdict == "LOCALLY-IDENTIFIABLE"
    assert "global identifiability is not decided" in res.reason and "flip-set" in res.reason


def test_one_input_dimension_generic_is_decided():
    """In 1-D a single neuron is rarely alone off M; the residue search over up to 16 does it."""
    net = random_network([1, 100, 1], seed=0, max_num=1000, max_den=1000)
    v = decide_shallow(net)
    assert v.verdict == "IDENTIFIABLE", v.reason
    assert any(s.startswith("exclude modulus") for s in v.body)


def test_checker_refuses_a_modulus_step_dropping_more_than_16():
    from exactnet.certificate import load_checker

    net = random_network([2, 20, 1], seed=1, max_num=1000, max_den=1000)
    cert = certify(net).certificate
    lines = cert[:-1].split("\n")
    i = next(k for k, s in enumerate(lines) if s.startswith("exclude "))
    lines[i] = "exclude modulus " + "7" * 60 + " 0"  # divides none of the 20 scaled coordinates
    import hashlib

    lines[-1] = "end " + hashlib.sha256("".join(s + "\n" for s in lines[:-1]).encode()).hexdigest()
    code, _, diags = load_checker().check_text("\n".join(lines) + "\n")
    assert code == 1 and "E_MODULUS" in diags[0]
