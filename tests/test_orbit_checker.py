"""The checker's orbit test agrees with exactnet's canonical forms and with random orbit elements."""

from hypothesis import given, strategies as st

from exactnet.qq import q_to_fraction
from exactnet.strategies import architectures, networks
from exactnet.symmetry import canonical_form, has_zero_rows, random_orbit_element
from exactnet.symmetry_rules import apply_rule, find_rules
from proofs.orbit import canonical, outside_orbit


def fr(net):
    return ([[[q_to_fraction(v) for v in r] for r in L.weights] for L in net.layers],
            [[q_to_fraction(v) for v in L.biases] for L in net.layers])


@given(networks(architectures(max_output=2), max_num=2, max_den=2), st.integers(0, 10**6))
def test_orbit_elements_are_never_outside(net, seed):
    other = random_orbit_element(net, seed)
    res = outside_orbit(*fr(net), *fr(other))
    assert res is not True
    if not has_zero_rows(net):
        assert res is False
        assert canonical(*fr(net)) == fr(canonical_form(net))


@given(networks(architectures(max_input=2, max_width=3, max_output=2), max_num=2, max_den=1))
def test_rule_witnesses(net):
    for rule in find_rules(net)[:4]:
        other = apply_rule(net, rule)
        res = outside_orbit(*fr(net), *fr(other))
        if res is not None and not has_zero_rows(net):
            assert res == (canonical_form(net) != canonical_form(other))


@given(networks(architectures(max_input=2, max_width=3, max_output=2), max_num=1, max_den=1))
def test_zero_row_counts_agree_with_exactnet(net):
    """Many zero rows (weights in {-1, 0, 1}): where exactnet's zero-row counts differ, the checker
    proves theta' outside the orbit too; orbit elements keep the counts (test above)."""
    from exactnet.symmetry import zero_row_counts

    for rule in find_rules(net)[:4]:
        other = apply_rule(net, rule)
        if zero_row_counts(net) != zero_row_counts(other):
            assert outside_orbit(*fr(net), *fr(other)) is True


def test_a_deep_zero_row_theta_prime_is_certified():
    """(1,2,2,1) with a zero row in layer 2: rule unused 2 1 changes the zero-row count; before the
    count was compared the checker rejected this certificate (E_ORBIT) and certify said UNDECIDED."""
    from exactnet.certify import certify
    from exactnet.network import Network

    net = Network.from_lists([([[1], [1]], [1, 0]), ([[1, 1], [0, 0]], [-1, 0]), ([[1, 0]], [1])])
    res = certify(net)
    assert res.verdict == "HIDDEN-SYMMETRY" and res.mechanism == "zero-outgoing-weights", res.reason
