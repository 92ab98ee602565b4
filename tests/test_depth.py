"""NOT-SHALLOW: emitted for example C and deep random networks, never for shallow functions."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactnet.cert_depth import not_shallow_body, verify_body
from exactnet.depth import candidate_faces, depth_report, find_not_shallow, witness_for_face
from exactnet.errors import CertificateError, UndecidedError
from exactnet.examples import example
from exactnet.network import Network
from exactnet.randnet import random_network
from exactnet.strategies import architectures, networks


def _certificate_checker():
    try:
        from exactnet.certificate import check_certificate_text, write_certificate  # noqa: F401
    except ImportError:
        return None
    return check_certificate_text


def test_example_c_is_not_shallow_and_the_body_verifies():
    net = example("C")
    body = not_shallow_body(net)
    assert verify_body(net, body) == "NOT-SHALLOW"
    rep = depth_report(net)
    assert rep.proven_lower == 2 and rep.witness is not None
    assert rep.to_json()["generic_note"].startswith("holds only")


def test_example_c_full_certificate_verifies_with_the_checker():
    check = _certificate_checker()
    if check is None:
        pytest.skip("exactnet.certificate (the checker helper's writer) has not landed")
    from exactnet.cert_depth import not_shallow_certificate

    text = not_shallow_certificate(example("C"))
    ok, conclusion, _ = check(text)
    assert ok and conclusion == "NOT-SHALLOW"


def test_shallow_examples_get_no_witness():
    # A has one hidden layer; B is deep but computes 14 - 10 relu(z) + 10 relu(z - 3/2).
    for name in ("A", "B"):
        assert find_not_shallow(example(name)) is None
        assert depth_report(example(name)).proven_lower == 1


@pytest.mark.parametrize("seed", range(10))
def test_random_2331_witnesses_verify(seed):
    net = random_network((2, 3, 3, 1), seed=seed)
    w = find_not_shallow(net)
    if w is None:
        # then no layer-2 face was visible with a regular point on its hyperplane
        assert depth_report(net).proven_lower <= 1
        return
    assert verify_body(net, w.body_lines()) == "NOT-SHALLOW"
    check = _certificate_checker()
    if check is not None:
        from exactnet.cert_depth import not_shallow_certificate

        ok, conclusion, _ = check(not_shallow_certificate(net, w), net)
        assert ok and conclusion == "NOT-SHALLOW"


def test_random_2331_mostly_not_shallow():
    found = sum(find_not_shallow(random_network((2, 3, 3, 1), seed=s)) is not None for s in range(10))
    assert found >= 5  # a generic deep network needs two hidden layers


def _mutants(lines):
    hyp, v1, v2, d, sm, sp, reg = lines
    yield [hyp, v1, v2, d, sp.replace("plus", "minus"), sm.replace("minus", "plus"), reg], "E_NS_REGION"
    yield [hyp, v1, v1, d, sm, sp, reg], "E_NS_DEGENERATE"
    yield [hyp, v1, v2, d, sm, sp, "regular 0 0"], "E_NS_OFF_PLANE"
    yield [hyp, v1, v2, d, sm, sp, "regular 2/4 0"], "E_NUMBER"
    yield [hyp, v1, v2, d, sm, sp], "E_NS_SYNTAX"
    yield [hyp, v1, v2, "direction 0 0", sm, sp, reg], "E_NS_DIRECTION"


def test_mutated_bodies_are_rejected():
    net = example("C")
    body = not_shallow_body(net)
    for bad, code in _mutants(body):
        with pytest.raises(CertificateError, match=code):
            verify_body(net, bad)


def test_mutated_certificates_are_rejected_by_the_checker():
    check = _certificate_checker()
    if check is None:
        pytest.skip("exactnet.certificate has not landed")
    from exactnet.certificate import write_certificate

    net = example("C")
    body = not_shallow_body(net)
    for bad, code in _mutants(body):
        res = check(write_certificate("NOT-SHALLOW", net, bad))
        assert not res.verified and any(code in line for line in res.lines), (code, res.lines)
        assert res.exit_code == (2 if code in ("E_NS_SYNTAX", "E_NUMBER") else 1)


def test_regular_point_on_the_bent_hyperplane_is_rejected():
    net = example("C")
    body = not_shallow_body(net)
    # the first vertex lies on H and on B_(2,1): a pre-activation vanishes there
    bad = body[:-1] + ["regular " + body[1].split(" ", 1)[1]]
    with pytest.raises(CertificateError, match="E_NS_NOT_REGULAR"):
        verify_body(net, bad)


def test_undecided_when_no_witness():
    with pytest.raises(UndecidedError):
        not_shallow_body(example("A"))


@settings(max_examples=25)
@given(networks(arch=architectures(min_input=1, max_input=2, max_hidden_layers=1, max_width=3)), st.integers(0, 9))
def test_never_for_one_hidden_layer(net, seed):
    # every visible face of a one-hidden-layer network: no witness can be built, and if a
    # producer bug built one the checker must refuse it
    rng = random.Random(seed)
    for fp in candidate_faces(net):
        w = witness_for_face(net, fp, rng)
        assert w is None
    assert find_not_shallow(net) is None


@settings(max_examples=15)
@given(networks(arch=architectures(min_input=2, max_input=2, max_hidden_layers=1, min_width=2, max_width=3)))
def test_never_for_shallow_functions_in_deep_networks(net):
    # append a hidden layer computing relu(h1) = h1: a deep network of a shallow function
    n1 = net.architecture[1]
    eye = [[1 if r == c else 0 for c in range(n1)] for r in range(n1)]
    deep = Network.from_lists([(net.weights(1), net.biases(1)), (eye, [0] * n1), (net.weights(2), net.biases(2))])
    rng = random.Random(0)
    for fp in candidate_faces(deep):
        assert witness_for_face(deep, fp, rng) is None
    assert find_not_shallow(deep) is None


@pytest.mark.parametrize("arch", [(3, 3, 3, 1), (2, 3, 3, 2), (2, 3, 3, 3, 1), (1, 3, 3, 1)])
def test_other_architectures(arch):
    found = 0
    for seed in range(4):
        net = random_network(arch, seed=seed)
        w = find_not_shallow(net)
        if w is not None:
            found += 1
            assert verify_body(net, w.body_lines()) == "NOT-SHALLOW"
    if arch[0] == 1:
        assert found == 0  # every CPWL function of one variable has a one-hidden-layer representation
    else:
        assert found >= 1
