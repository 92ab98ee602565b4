"""NOT-LOCALLY-IDENTIFIABLE: certified families are in the fibre, leave the orbit, and drop the rank.

Independent oracles: exact functional equivalence (:mod:`exactnet.equivalence`), canonical forms
(:func:`exactnet.symmetry.same_orbit`), the exact Jacobian rank (:mod:`exactnet.fdim`). Until the
checker framework registers the kind, the ``nli_kind`` fixture adds it to the two KINDS tuples
for the duration of a test (exactly the framework change the kind needs).
"""

import importlib.util
import itertools
import os
import re

import pytest
from flint import fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

from exactnet import fdim
from exactnet.certificate import check_certificate_text, write_certificate
from exactnet.continuous_symmetry import KIND, ContinuousFamily, candidates, checker_knows_kind, find_family
from exactnet.equivalence import equivalent
from exactnet.errors import UndecidedError
from exactnet.examples import example
from exactnet.network import Network
from exactnet.randnet import random_network
from exactnet.strategies import networks
from exactnet.symmetry import same_orbit

T_VALUES = [fmpq(1, 7), fmpq(1, 3), fmpq(1, 2), fmpq(2, 3), fmpq(1)]

HAND = {
    # (2,3,1), neuron 0 has a zero outgoing weight: its incoming row is free
    "unused": Network.from_lists([([[1, 2], [-1, 1], [2, -1]], [0, 1, -1]), ([[0, 1, 1]], [0])]),
    # neuron 1 is dead in layer 1 (w = 0, b < 0) but has an outgoing weight
    "dead": Network.from_lists([([[1, 2], [0, 0], [2, -1]], [0, -1, -1]), ([[1, 2, 1]], [0])]),
    # neuron 1 is constant positive: bias shift, output bias compensates
    "active": Network.from_lists([([[1, 2], [0, 0], [2, -1]], [0, 2, -1]), ([[1, 2, 1]], [1])]),
    # rows 0 and 2 positively proportional (lambda = 2)
    "proportional": Network.from_lists([([[1, 2], [-1, 1], [2, 4]], [3, 1, 6]), ([[1, 1, 1]], [0])]),
    # rows 0 and 1 opposite (lambda = 2) with C_0 + 2 C_1 = 0: an affine pair
    "opposite": Network.from_lists([([[1, -1], [-2, 2], [2, 1]], [1, -2, 0]), ([[2, -1, 1]], [0])]),
    # example D: a stably active neuron in layer 2
    "active-deep": example("D"),
    # (2,2,2,1), neuron (2, 0) has nonpositive weights and bias: dead by structure
    # (2,2,2,1), rows of layer 1 positively proportional (lambda = 3): only the ratio invariant moves
    "proportional-deep": Network.from_lists([([[1, -1], [3, -3]], [1, 3]), ([[1, 2], [-1, 1]], [0, 1]),
                                             ([[2, 1]], [0])]),
    "dead-deep": Network.from_lists([([[1, 2], [-1, 1]], [0, 1]), ([[-1, -2], [1, 1]], [-1, 0]),
                                     ([[3, 1]], [0])]),
}


@pytest.fixture
def nli_kind(monkeypatch):
    """Register the kind in exactnet.certificate and proofs/check.py (no-op once the framework has it)."""
    from exactnet import certificate

    chk = certificate.load_checker()
    if KIND not in certificate.KINDS:
        monkeypatch.setattr(certificate, "KINDS", certificate.KINDS + (KIND,))
    if KIND not in chk.KINDS:
        monkeypatch.setattr(chk, "KINDS", chk.KINDS + (KIND,))
    assert checker_knows_kind()


def _nets():
    nets = list(HAND.values())
    for arch, seeds in (((2, 3, 1), range(12)), ((2, 2, 2, 1), range(8)), ((1, 3, 2), range(8)),
                        ((1, 2, 2, 2, 1), range(6))):
        nets += [random_network(arch, seed=s, max_num=4, max_den=3) for s in seeds]
    return nets


def _bound(fam: ContinuousFamily) -> int:
    """Lemma 3: at most n_l (preactivation) or 2 n_l (contribution) members lie in the orbit."""
    a = fam.network.architecture
    n = a[fam.layer]
    return {"preactivation": n, "contribution": 2 * n}.get(fam.invariant, 2 * n * a[fam.layer + 1])


def test_refused_without_the_kind(monkeypatch):
    from exactnet import certificate

    monkeypatch.setattr(certificate, "KINDS", tuple(k for k in certificate.KINDS if k != KIND))
    with pytest.raises(UndecidedError):
        find_family(HAND["unused"])


@pytest.mark.parametrize("name", sorted(HAND))
def test_hand_made_mechanisms(name, nli_kind):
    fam = find_family(HAND[name])
    assert fam is not None, name
    assert fam.mechanism == name.split("-")[0]
    assert fam.invariant.startswith("ratio") == (name == "proportional-deep")
    res = check_certificate_text(fam.certificate, HAND[name])
    assert res.verified and res.conclusion == KIND


def test_members_in_fibre_and_outside_orbit(nli_kind):
    count = 0
    for net in _nets():
        fam = find_family(net)
        if fam is None:
            continue
        count += 1
        inside = undecided = 0
        for t in T_VALUES:
            member = fam.member(t * fam.T)
            assert member != net
            assert equivalent(net, member).equivalent, (fam.describe(), t)
            try:
                inside += same_orbit(net, member)
            except UndecidedError:
                undecided += 1
        assert inside <= _bound(fam)
        assert inside + undecided < len(T_VALUES), fam.describe()  # some member is proved outside
    assert count >= 12


def test_no_family_for_identifiable_examples(nli_kind):
    # A, B (hidden symmetries by discrete moves) and C (locally identifiable): no mechanism applies
    for name in "ABC":
        assert find_family(example(name)) is None


def test_jacobian_rank_below_d_minus_n(nli_kind):
    for net in _nets():
        if find_family(net) is None:
            continue
        res = fdim.functional_dimension(net)
        bound = net.num_parameters - net.num_hidden
        assert not res.locally_identifiable
        assert res.rank.rank < bound
        assert res.functional_dimension is None or res.functional_dimension < bound


def test_every_candidate_the_checker_sees_is_verified(nli_kind):
    """The producer proposes only what the lemma allows: the checker accepts every candidate."""
    for net in _nets()[:16]:
        for fam in itertools.islice(candidates(net), 20):
            text = write_certificate(KIND, net, fam.body_lines())
            assert check_certificate_text(text, net).verified, fam.describe()


def test_family_json_and_member():
    fam = next(candidates(HAND["unused"]))
    js = fam.to_json()
    assert js["mechanism"] == "unused" and len(js["delta"]) == HAND["unused"].num_parameters
    assert fam.member(0) == HAND["unused"]


CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "certs_nli")
EXIT = {"valid": 0, "invalid": 1, "malformed": 2}


def _corpus_files():
    return [(f, n) for f in EXIT for n in sorted(os.listdir(os.path.join(CORPUS, f))) if n.endswith(".cert")]


@pytest.mark.parametrize("folder,name", _corpus_files())
def test_corpus(folder, name, nli_kind):
    from exactnet.certificate import load_checker

    with open(os.path.join(CORPUS, folder, name), "rb") as fh:
        rc, verdict, diags = load_checker().check_text(fh.read())
    assert rc == EXIT[folder], (name, diags)
    if folder == "valid":
        assert verdict == f"s VERIFIED {KIND}"
    else:
        code = re.search(r"__(E_[A-Z_]+)\.cert$", name).group(1)
        assert any(f" {code}: " in d for d in diags), (name, diags)


def test_corpus_regenerates_identically(nli_kind):
    spec = importlib.util.spec_from_file_location("nli_generate", os.path.join(CORPUS, "generate.py"))
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    made = gen.certificates()
    assert sorted(made) == sorted(f"{f}/{n}" for f, n in _corpus_files())
    for rel, text in made.items():
        with open(os.path.join(CORPUS, rel), newline="") as fh:
            assert fh.read() == text, rel
    assert {rel.split("/")[0] for rel in made} == set(EXIT)


def _accepted_mutants(net, fam):
    """Certificates with one delta entry or the interval changed that the checker still accepts."""
    base = fam.body_lines()
    for k in range(len(fam.delta)):
        for v in ("0", "1", "-1", "2"):
            lines = list(base)
            toks = lines[2].split(" ")
            if toks[k + 1] == v:
                continue
            toks[k + 1] = v
            lines[2] = " ".join(toks)
            yield lines
    yield [base[0], "interval 5"] + base[2:]


def test_accepted_mutants_are_sound(nli_kind):
    """Whatever the checker accepts after a mutation is still a family in the fibre leaving the orbit."""
    from exactnet.qq import parse_q

    accepted = rejected = 0
    for net in list(HAND.values()) + [random_network((2, 3, 1), seed=s, max_num=4, max_den=3) for s in range(4)]:
        fam = next(candidates(net), None)
        if fam is None:
            continue
        for lines in _accepted_mutants(net, fam):
            text = write_certificate(KIND, net, lines)
            if not check_certificate_text(text, net).verified:
                rejected += 1
                continue
            accepted += 1
            T = parse_q(lines[1].split(" ")[1])
            delta = [parse_q(v) for v in lines[2].split(" ")[1:]]
            for t in (T / 2, T):
                member = Network.unflatten(net.architecture, [p + t * d for p, d in zip(net.flatten(), delta)])
                assert equivalent(net, member).equivalent, lines
    assert accepted and rejected


def test_never_both_locally_identifiable_and_not(nli_kind):
    """Two lemmas, two checkers: no network gets both verdicts (example C and random networks)."""
    both = checked = 0
    for net in [example("C")] + [random_network((2, 2, 2, 1), seed=s, max_num=4, max_den=3) for s in range(12)]:
        loc = fdim.certify_local(net)
        if loc.verdict != "LOCALLY-IDENTIFIABLE":
            continue
        checked += 1
        assert check_certificate_text(loc.certificate, net).verified
        both += find_family(net) is not None
    assert checked >= 3 and both == 0


@settings(max_examples=60, deadline=None)
@given(networks(arch=st.sampled_from([(2, 3, 1), (1, 2, 2, 1), (2, 2, 2, 2)]), max_num=2, max_den=2))
def test_property_every_candidate_is_checked_and_in_the_fibre(net):
    from exactnet import certificate

    chk = certificate.load_checker()
    kinds = (certificate.KINDS, chk.KINDS)
    certificate.KINDS, chk.KINDS = kinds[0] + (KIND,), kinds[1] + (KIND,)  # as the nli_kind fixture
    try:
        for fam in itertools.islice(candidates(net), 4):
            assert check_certificate_text(write_certificate(KIND, net, fam.body_lines()), net).verified
            assert equivalent(net, fam.member(fam.T)).equivalent, fam.describe()
    finally:
        certificate.KINDS, chk.KINDS = kinds
